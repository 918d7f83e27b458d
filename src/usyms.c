// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User-space symbolization across processes: owns the per-pid cache of
 * mappings, the per-mapping link to a symbol table, the cache of symbol
 * tables keyed by file identity (shared by every process mapping the same
 * file), the profiler's own parse of the kernel vDSO image, and the naming
 * of frames.  Files are reached through /proc/PID/map_files or
 * /proc/PID/root, never by bare path, so that files in other mount
 * namespaces and deleted files resolve to what the process really maps.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "demangle.h"
#include "elf_syms.h"
#include "log.h"
#include "perfmap.h"
#include "proc_maps.h"
#include "usyms.h"

/* A miss in cached maps rereads them, at most this often per process. */
#define MAPS_REFRESH_NS 1000000000ULL
#define INITIAL_BUCKETS 256
/* A file's first mangled name makes room for this many demangled ones. */
#define DM_INITIAL 64

/* Demangled names, keyed by the address of the raw name (owned by an elf_syms). */
struct demangled {
	const char *raw;
	char *name;
};

/* One file's symbols, shared by all mappings of that file. */
struct file_ent {
	struct file_ent *next;
	uint64_t dev, ino, mtime_sec, mtime_nsec;
	int64_t size;
	struct elf_syms *es; /* NULL: not ELF or unreadable, remembered */
	/*
	 * Demangled forms of es's names: per file, so they are freed with es
	 * (a global cache keyed by address could hand a freed name's form to
	 * whatever reuses the address).  Open addressing, dm_cap a power of 2.
	 */
	struct demangled *dm;
	size_t dm_nr, dm_cap;
};

struct pid_ent {
	struct pid_ent *next;
	pid_t pid;
	uint32_t gen;
	struct proc_maps *pm;    /* NULL: the process was gone */
	struct file_ent **files; /* per mapping; NULL until first needed */
	uint64_t loaded_ns;
	struct perfmap *jit;     /* /tmp/perf-PID.map, if trusted */
	bool jit_tried;
};

struct usyms {
	struct pid_ent **pids;
	size_t pid_buckets, nr_pids;
	struct file_ent **files;
	size_t file_buckets, nr_files;
	struct file_ent no_file; /* for mappings whose file would not open */
	struct elf_syms *vdso;
	uint64_t vdso_size;
	bool vdso_tried;
	usyms_validator validate;
	void *validate_arg;
	bool demangle;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static size_t pid_hash(pid_t pid, size_t buckets)
{
	return mix64((uint32_t)pid) & (buckets - 1);
}

static size_t file_hash(const struct file_ent *f, size_t buckets)
{
	uint64_t h = mix64(f->dev ^ mix64(f->ino ^ mix64(f->size ^
			   mix64(f->mtime_sec ^ mix64(f->mtime_nsec)))));

	return h & (buckets - 1);
}

struct usyms *usyms__new(void)
{
	struct usyms *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid_buckets = u->file_buckets = INITIAL_BUCKETS;
	u->pids = calloc(u->pid_buckets, sizeof(*u->pids));
	u->files = calloc(u->file_buckets, sizeof(*u->files));
	if (!u->pids || !u->files) {
		usyms__free(u);
		return NULL;
	}
	return u;
}

/* Doubles a chained table once it averages more than one entry a bucket. */
static void grow_pids(struct usyms *u)
{
	size_t i, nb = u->pid_buckets * 2;
	struct pid_ent **nt, *e, *next;

	if (u->nr_pids <= u->pid_buckets || !(nt = calloc(nb, sizeof(*nt))))
		return;
	for (i = 0; i < u->pid_buckets; i++) {
		for (e = u->pids[i]; e; e = next) {
			next = e->next;
			e->next = nt[pid_hash(e->pid, nb)];
			nt[pid_hash(e->pid, nb)] = e;
		}
	}
	free(u->pids);
	u->pids = nt;
	u->pid_buckets = nb;
}

static void grow_files(struct usyms *u)
{
	size_t i, nb = u->file_buckets * 2;
	struct file_ent **nt, *e, *next;

	if (u->nr_files <= u->file_buckets || !(nt = calloc(nb, sizeof(*nt))))
		return;
	for (i = 0; i < u->file_buckets; i++) {
		for (e = u->files[i]; e; e = next) {
			next = e->next;
			e->next = nt[file_hash(e, nb)];
			nt[file_hash(e, nb)] = e;
		}
	}
	free(u->files);
	u->files = nt;
	u->file_buckets = nb;
}

/*
 * Keeps the symbol tables already resolved for mappings that are unchanged
 * in a re-read, so a file parsed while the process lived stays named.
 */
static void carry_over_files(const struct pid_ent *e, const struct proc_maps *pm,
			     struct file_ent **files)
{
	for (size_t i = 0; e->pm && i < pm->nr; i++) {
		const struct proc_map *n = &pm->maps[i];
		const struct proc_map *o = proc_maps__find(e->pm, n->start);

		if (o && o->start == n->start && o->end == n->end && o->pgoff == n->pgoff &&
		    o->ino == n->ino && o->dev == n->dev)
			files[i] = e->files[o - e->pm->maps];
	}
}

void usyms__set_validator(struct usyms *u, usyms_validator fn, void *arg)
{
	u->validate = fn;
	u->validate_arg = arg;
}

/*
 * Replaces e's maps with a fresh read; keeps the old ones if that fails or
 * if the process no longer runs e's image (checked after the read).
 */
static void load_maps(struct usyms *u, struct pid_ent *e)
{
	struct proc_maps *pm = proc_maps__load(e->pid);
	struct file_ent **files;

	e->loaded_ns = now_ns();
	if (pm && e->gen && u->validate && !u->validate(e->pid, e->gen, u->validate_arg)) {
		debug("pid %d left image %u before its maps were read", (int)e->pid, e->gen);
		proc_maps__free(pm);
		pm = NULL;
	}
	if (!pm)
		return;
	files = calloc(pm->nr ? pm->nr : 1, sizeof(*files));
	if (!files) {
		proc_maps__free(pm);
		return;
	}
	carry_over_files(e, pm, files);
	proc_maps__free(e->pm);
	free(e->files);
	e->pm = pm;
	e->files = files;
}

static struct pid_ent *pid_get(struct usyms *u, pid_t pid, uint32_t gen)
{
	size_t b = pid_hash(pid, u->pid_buckets);
	struct pid_ent *e;

	for (e = u->pids[b]; e; e = e->next)
		if (e->pid == pid && e->gen == gen)
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->pid = pid;
	e->gen = gen;
	load_maps(u, e);
	e->next = u->pids[b];
	u->pids[b] = e;
	u->nr_pids++;
	grow_pids(u);
	return e;
}

static void pid_ent_free(struct pid_ent *e)
{
	perfmap__free(e->jit);
	proc_maps__free(e->pm);
	free(e->files);
	free(e);
}

void usyms__forget_pid(struct usyms *u, pid_t pid)
{
	struct pid_ent **pp, *e;

	if (!u)
		return;
	for (pp = &u->pids[pid_hash(pid, u->pid_buckets)]; (e = *pp);) {
		if (e->pid == pid) {
			*pp = e->next;
			pid_ent_free(e);
			u->nr_pids--;
		} else {
			pp = &e->next;
		}
	}
}

/* Opens what pid maps at m, as that process sees it; -1 if it cannot. */
static int open_mapped(pid_t pid, const struct proc_map *m)
{
	const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	char path[PATH_MAX + 64];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, m->start, m->end);
	fd = open(path, flags);
	if (fd >= 0 || !m->path || m->path[0] != '/' || m->deleted)
		return fd;
	/* map_files needs CAP_SYS_ADMIN; the root link works with less. */
	n = snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	return open(path, flags);
}

static struct file_ent *file_get(struct usyms *u, const struct stat *st, int fd,
				  pid_t pid, const struct proc_map *m)
{
	char root[64];
	struct file_ent key = {
		.dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
		.mtime_sec = st->st_mtim.tv_sec, .mtime_nsec = st->st_mtim.tv_nsec,
	};
	size_t b = file_hash(&key, u->file_buckets);
	struct file_ent *f;

	for (f = u->files[b]; f; f = f->next)
		if (f->dev == key.dev && f->ino == key.ino && f->size == key.size &&
		    f->mtime_sec == key.mtime_sec && f->mtime_nsec == key.mtime_nsec)
			return f;
	f = malloc(sizeof(*f));
	if (!f)
		return &u->no_file;
	*f = key;
	/* debug files are looked up in the process's root, as it sees them */
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	f->es = elf_syms__open_debug(fd, root, m->deleted ? NULL : m->path);
	if (!f->es)
		debug("no symbols in dev %" PRIu64 " inode %" PRIu64, f->dev, f->ino);
	f->next = u->files[b];
	u->files[b] = f;
	u->nr_files++;
	grow_files(u);
	return f;
}

static struct file_ent *resolve_file(struct usyms *u, pid_t pid,
				     const struct proc_map *m)
{
	struct file_ent *f = &u->no_file;
	struct stat st;
	int fd;

	fd = open_mapped(pid, m);
	if (fd < 0)
		return f;
	/* O_NONBLOCK kept a FIFO from hanging; only regular files are read. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		f = file_get(u, &st, fd, pid, m);
	close(fd);
	return f;
}

static size_t put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!len)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	return (size_t)n < len ? (size_t)n : len - 1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Grows f's demangle cache when it is half full; false if out of memory. */
static bool dm_reserve(struct file_ent *f)
{
	size_t cap = f->dm_cap ? f->dm_cap * 2 : DM_INITIAL;
	struct demangled *n;

	if ((f->dm_nr + 1) * 2 <= f->dm_cap)
		return true;
	n = calloc(cap, sizeof(*n));
	if (!n)
		return false;
	for (size_t i = 0; i < f->dm_cap; i++) {
		size_t j = mix64((uintptr_t)f->dm[i].raw) & (cap - 1);

		if (!f->dm[i].raw)
			continue;
		while (n[j].raw)
			j = (j + 1) & (cap - 1);
		n[j] = f->dm[i];
	}
	free(f->dm);
	f->dm = n;
	f->dm_cap = cap;
	return true;
}

/*
 * The demangled form of a symbol name of f, computed once per symbol: names
 * are owned by f's symbol table, so their addresses identify them.
 */
static const char *demangled(struct usyms *u, struct file_ent *f, const char *raw)
{
	char buf[1024];
	const char *d;
	size_t j, n;

	if (!u->demangle || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return raw;
	for (j = f->dm_cap ? mix64((uintptr_t)raw) & (f->dm_cap - 1) : 0;
	     f->dm_cap && f->dm[j].raw; j = (j + 1) & (f->dm_cap - 1))
		if (f->dm[j].raw == raw)
			return f->dm[j].name;
	d = demangle(raw, buf, sizeof(buf));
	if (d == raw || !dm_reserve(f))
		return raw; /* not mangled; or no memory, where raw is still right */
	j = mix64((uintptr_t)raw) & (f->dm_cap - 1);
	while (f->dm[j].raw)
		j = (j + 1) & (f->dm_cap - 1);
	n = strlen(d) + 1;
	f->dm[j].name = malloc(n);
	if (!f->dm[j].name)
		return raw;
	memcpy(f->dm[j].name, d, n);
	f->dm[j].raw = raw;
	f->dm_nr++;
	return f->dm[j].name;
}

void usyms__set_demangle(struct usyms *u, bool on)
{
	u->demangle = on;
}

static size_t name_file(struct usyms *u, struct pid_ent *e,
			const struct proc_map *m, uint64_t addr, char *buf,
			size_t len)
{
	struct file_ent **slot = &e->files[m - e->pm->maps];
	uint64_t off = addr - m->start + m->pgoff;
	const char *name;

	if (!*slot)
		*slot = resolve_file(u, e->pid, m);
	name = elf_syms__map_offset((*slot)->es, off, NULL, NULL);
	if (name) {
		name = demangled(u, *slot, name);
		/* "memcpy@@GLIBC_2.14" names the same function as "memcpy" */
		return put(buf, len, "%.*s", (int)strcspn(name, "@"), name);
	}
	return put(buf, len, "[%s+0x%" PRIx64 "]",
		   m->path ? base_name(m->path) : "unknown", off);
}

/* Our own vDSO: the kernel maps the same image into every native process. */
static void load_vdso(struct usyms *u)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const struct proc_map *m;
	struct proc_maps *pm;

	u->vdso_tried = true;
	if (!base || !(pm = proc_maps__load(getpid())))
		return;
	m = proc_maps__find(pm, base);
	if (m && m->kind == PROC_MAP_VDSO && m->start == base) {
		u->vdso_size = m->end - m->start;
		u->vdso = elf_syms__open_mem((const void *)base, u->vdso_size);
	}
	proc_maps__free(pm);
}

static size_t name_vdso(struct usyms *u, const struct proc_map *m,
			uint64_t addr, char *buf, size_t len)
{
	uint64_t off = addr - m->start;
	const char *name = NULL;

	if (!u->vdso_tried)
		load_vdso(u);
	/* A different size means another image (a 32-bit process's). */
	if (u->vdso && m->end - m->start == u->vdso_size)
		name = elf_syms__map_offset(u->vdso, off, NULL, NULL);
	if (name)
		return put(buf, len, "%s", name);
	return put(buf, len, "[vdso+0x%" PRIx64 "]", off);
}

/*
 * From one read of /proc/PID/status: the process's PID in its own namespace
 * (the number its JIT writes in /tmp, last NSpid field) and its effective
 * uid (who owns the files it creates).  -1 if the process is gone.
 */
static int read_status(pid_t pid, pid_t *inner, uid_t *euid)
{
	char path[64], line[256];
	unsigned long ruid, uid = 0;
	bool have_uid = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	*inner = pid;
	while (fgets(line, sizeof(line), f)) {
		char *last = strrchr(line, '\t');

		if (!strncmp(line, "NSpid:", 6) && last && atoi(last + 1) > 0)
			*inner = atoi(last + 1);
		else if (sscanf(line, "Uid: %lu %lu", &ruid, &uid) == 2)
			have_uid = true;
	}
	fclose(f);
	*euid = uid;
	return have_uid ? 0 : -1;
}

/*
 * (Re)reads the process's JIT map, trusted only as perf trusts it: a regular
 * file owned by the process's user or by root, never followed through a
 * symlink, read in the process's own mount namespace.
 */
static void load_jit_map(struct pid_ent *e)
{
	const char *why = NULL;
	struct perfmap *pm;
	char root[64];
	pid_t inner;
	uid_t owner;

	e->jit_tried = true;
	if (read_status(e->pid, &inner, &owner))
		return;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)e->pid);
	pm = perfmap__load(inner, root, owner, &why);
	if (!pm) {
		if (errno != ENOENT)
			warn("ignoring /tmp/perf-%d.map of pid %d: %s", (int)inner, (int)e->pid,
			     why ? why : "unreadable");
		return;
	}
	perfmap__free(e->jit);
	e->jit = pm;
}

static size_t name_anon(struct pid_ent *e, const struct proc_map *m, uint64_t addr,
			char *buf, size_t len, bool *jit)
{
	const char *name;

	if (!e->jit_tried)
		load_jit_map(e);
	name = e->jit ? perfmap__lookup(e->jit, addr, NULL) : NULL;
	if (name) {
		*jit = true;
		return put(buf, len, "%s", name);
	}
	if (m->kind == PROC_MAP_HEAP)
		return put(buf, len, "[heap]");
	return put(buf, len, "[anon]");
}

int usyms__preload(struct usyms *u, pid_t pid, uint32_t gen)
{
	size_t before = u->nr_pids;
	struct pid_ent *e = pid_get(u, pid, gen);

	if (!e)
		return -ENOMEM;
	if (u->nr_pids == before)
		load_maps(u, e); /* known image: its mappings changed */
	load_jit_map(e); /* a JIT appends to its map as it maps code */
	if (!e->pm)
		return -ESRCH;
	for (size_t i = 0; i < e->pm->nr; i++) {
		const struct proc_map *m = &e->pm->maps[i];

		if (m->exec && m->kind == PROC_MAP_FILE && !e->files[i])
			e->files[i] = resolve_file(u, pid, m);
	}
	return 0;
}

size_t usyms__name(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr, char *buf,
		   size_t len, bool *jit)
{
	const struct proc_map *m = NULL;
	struct pid_ent *e;
	bool jit_ignored;

	if (!jit)
		jit = &jit_ignored;
	*jit = false;
	e = u ? pid_get(u, pid, gen) : NULL;
	if (e && e->pm) {
		m = proc_maps__find(e->pm, addr);
		if (!m && now_ns() - e->loaded_ns >= MAPS_REFRESH_NS) {
			load_maps(u, e);
			m = proc_maps__find(e->pm, addr);
		}
	}
	if (!m)
		return put(buf, len, "[unknown]");
	switch (m->kind) {
	case PROC_MAP_FILE:
		return name_file(u, e, m, addr, buf, len);
	case PROC_MAP_VDSO:
		return name_vdso(u, m, addr, buf, len);
	case PROC_MAP_HEAP:
		return name_anon(e, m, addr, buf, len, jit);
	case PROC_MAP_STACK:
		return put(buf, len, "[stack]");
	case PROC_MAP_SPECIAL:
		return put(buf, len, "%s", m->path ? m->path : "[unknown]");
	case PROC_MAP_ANON:
	default:
		return name_anon(e, m, addr, buf, len, jit);
	}
}

static void file_free(struct file_ent *f)
{
	for (size_t i = 0; i < f->dm_cap; i++)
		free(f->dm[i].name);
	free(f->dm);
	elf_syms__free(f->es);
	free(f);
}

void usyms__free(struct usyms *u)
{
	struct pid_ent *pe, *pn;
	struct file_ent *fe, *fn;
	size_t i;

	if (!u)
		return;
	for (i = 0; u->pids && i < u->pid_buckets; i++)
		for (pe = u->pids[i]; pe; pe = pn) {
			pn = pe->next;
			pid_ent_free(pe);
		}
	for (i = 0; u->files && i < u->file_buckets; i++)
		for (fe = u->files[i]; fe; fe = fn) {
			fn = fe->next;
			file_free(fe);
		}
	free(u->pids);
	free(u->files);
	elf_syms__free(u->vdso);
	free(u);
}
