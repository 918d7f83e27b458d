// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User-space symbolization across processes: owns the per-pid cache of
 * mappings, the per-mapping link to a symbol table (the tables themselves,
 * cached by file identity, are usyms_file.c's), JIT maps, the profiler's
 * own parse of the kernel vDSO image, the naming of frames and why some
 * stay "[unknown]", and the bounds.  Files are reached through
 * /proc/PID/map_files or /proc/PID/root, never by bare path, so that files
 * in other mount namespaces and deleted files resolve to what the process
 * really maps.
 *
 * Bounds (continuous captures, usyms__end_interval): every image and file
 * entry records the interval it was last used in; each mapping slot of an
 * image holds a reference on its file entry, so a table an image maps is
 * never freed under it, and the rest are freed least recently used first.
 * Bytes are tracked as entries come and go, so the check is cheap.
 *
 * Bounds while reading: a new symbol table or perf map is read with what
 * is left of USYMS_MEMORY_MAX (freeing unpinned tables first, as above),
 * at most USYMS_FILE_BUDGET, and within the caller's time budget; maps of
 * an image are not read once the time budget is spent, and a frame that
 * needed them is counted as late.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "usyms_int.h"

/* A miss in cached maps rereads them, at most this often per process. */
#define MAPS_REFRESH_NS 1000000000ULL

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

struct usyms *usyms__new(void)
{
	struct usyms *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid_buckets = u->file_buckets = INITIAL_BUCKETS;
	u->interval = 1;
	u->cache_limit = USYMS_CACHE_LIMIT;
	u->idle_limit = USYMS_IDLE_LIMIT;
	u->memory_max = USYMS_MEMORY_MAX;
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

/*
 * Keeps the symbol tables already resolved for mappings that are unchanged
 * in a re-read, so a file parsed while the process lived stays named.
 */
static void carry_over_files(struct usyms *u, const struct pid_ent *e,
			     const struct proc_maps *pm, struct file_ent **files)
{
	for (size_t i = 0; e->pm && i < pm->nr; i++) {
		const struct proc_map *n = &pm->maps[i];
		const struct proc_map *o = proc_maps__find(e->pm, n->start);

		if (o && o->start == n->start && o->end == n->end && o->pgoff == n->pgoff &&
		    o->ino == n->ino && o->dev == n->dev) {
			files[i] = e->files[o - e->pm->maps];
			usyms_file_hold(u, files[i]);
		}
	}
}

void usyms__set_validator(struct usyms *u, usyms_validator fn, void *arg)
{
	u->validate = fn;
	u->validate_arg = arg;
}

void usyms__set_maps_hook(struct usyms *u, usyms_maps_hook fn, void *arg)
{
	u->maps_hook = fn;
	u->maps_hook_arg = arg;
}

/*
 * The start time of process pid (field 22 of /proc/PID/stat, clock ticks
 * since boot): with the PID it names one process for good.  0 when the
 * process is gone.  A zombie still counts (its leader thread may have
 * exited while other threads run on); it stays until reaped.
 */
static uint64_t proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name may hold spaces and ')': skip to the last ')' */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
		   "%*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

/*
 * Roughly what an image's mappings cost: proc_maps keeps the whole text it
 * read (each line's fields before the path take about this much), the
 * parsed table, and our per-mapping file slots.
 */
#define MAPS_LINE_FIELDS 74

static size_t maps_bytes(const struct proc_maps *pm)
{
	size_t b = sizeof(*pm) + pm->nr * (MAPS_LINE_FIELDS + sizeof(*pm->maps) +
					  sizeof(struct file_ent *));

	for (size_t i = 0; i < pm->nr; i++)
		if (pm->maps[i].path)
			b += strlen(pm->maps[i].path) + 1;
	return b;
}

static void drop_maps(struct usyms *u, struct pid_ent *e)
{
	for (size_t i = 0; e->pm && i < e->pm->nr; i++)
		usyms_file_release(u, e->files[i]);
	proc_maps__free(e->pm);
	free(e->files);
	e->pm = NULL;
	e->files = NULL;
	u->image_bytes -= e->maps_bytes;
	e->maps_bytes = 0;
}

/*
 * Whether a fresh read of e->pid's maps is e's image; *start gets the
 * process's start time.  Tracked images ask the validator (exact), and a
 * re-read must come from the process read before, so that a reused PID is
 * refused even where no validator was set (start times count 10 ms ticks;
 * PIDs wrap far slower unless forced).
 */
static bool read_is_image(struct usyms *u, const struct pid_ent *e, uint64_t *start)
{
	*start = proc_start_time(e->pid);
	if (!e->gen)
		return true; /* untracked: whatever pid maps now */
	if (u->validate && !u->validate(e->pid, e->gen, u->validate_arg))
		return false;
	return !e->start_time || *start == e->start_time;
}

/*
 * Replaces e's maps with a fresh read; keeps the old ones if that fails or
 * if the process no longer runs e's image (checked after the read).  False
 * when the budget left no time to read them.
 */
static bool load_maps(struct usyms *u, struct pid_ent *e)
{
	struct proc_maps *pm;
	struct file_ent **files;
	uint64_t start;

	if (budget__expired(u->budget))
		return false; /* e->maps_tried says whether it ever was */
	pm = proc_maps__load(e->pid);
	e->maps_tried = true;
	e->loaded_ns = now_ns();
	if (pm && !read_is_image(u, e, &start)) {
		debug("pid %d left image %u before its maps were read", (int)e->pid, e->gen);
		proc_maps__free(pm);
		pm = NULL;
	}
	if (!pm)
		return true;
	files = calloc(pm->nr ? pm->nr : 1, sizeof(*files));
	if (!files) {
		proc_maps__free(pm);
		return true;
	}
	carry_over_files(u, e, pm, files);
	drop_maps(u, e);
	e->pm = pm;
	e->files = files;
	e->start_time = start;
	e->maps_bytes = maps_bytes(pm);
	u->image_bytes += e->maps_bytes;
	return true;
}

/* The image (pid, gen), created if new (its maps not read); NULL if out of memory. */
static struct pid_ent *pid_find(struct usyms *u, pid_t pid, uint32_t gen, bool create)
{
	size_t b = pid_hash(pid, u->pid_buckets);
	struct pid_ent *e;

	for (e = u->pids[b]; e; e = e->next)
		if (e->pid == pid && e->gen == gen)
			return e;
	if (!create || !(e = calloc(1, sizeof(*e))))
		return NULL;
	e->pid = pid;
	e->gen = gen;
	u->image_bytes += sizeof(*e);
	e->next = u->pids[b];
	u->pids[b] = e;
	u->nr_pids++;
	grow_pids(u);
	return e;
}

/* The image (pid, gen), its maps read once if the budget allows; marked used. */
static struct pid_ent *pid_get(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = pid_find(u, pid, gen, true);

	if (!e)
		return NULL;
	if (!e->maps_tried)
		load_maps(u, e);
	e->last_used = u->interval;
	return e;
}

static void set_jit(struct usyms *u, struct pid_ent *e, struct perfmap *pm)
{
	u->jit_bytes -= perfmap__bytes(e->jit);
	perfmap__free(e->jit);
	e->jit = pm;
	u->jit_bytes += perfmap__bytes(pm);
}

static void pid_ent_free(struct usyms *u, struct pid_ent *e)
{
	set_jit(u, e, NULL);
	drop_maps(u, e);
	u->image_bytes -= sizeof(*e);
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
			pid_ent_free(u, e);
			u->nr_pids--;
		} else {
			pp = &e->next;
		}
	}
}

/*
 * The file entry of mapping slot (resolved if not yet); one given up for
 * time in an earlier budget is resolved again.
 */
static struct file_ent *slot_file(struct usyms *u, struct pid_ent *e, size_t i)
{
	struct file_ent **slot = &e->files[i];

	if (*slot && (*slot)->state == FILE_LATE && (*slot)->failed_phase != u->phase) {
		usyms_file_release(u, *slot);
		*slot = NULL;
	}
	if (!*slot) {
		*slot = usyms_file_resolve(u, e->pid, &e->pm->maps[i]);
		usyms_file_hold(u, *slot);
	}
	(*slot)->last_used = u->interval;
	return *slot;
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

void usyms__set_demangle(struct usyms *u, bool on)
{
	u->demangle = on;
}

static size_t name_file(struct usyms *u, struct pid_ent *e,
			const struct proc_map *m, uint64_t addr, char *buf,
			size_t len)
{
	struct file_ent *f = slot_file(u, e, m - e->pm->maps);
	uint64_t off = addr - m->start + m->pgoff;
	const char *name;

	name = elf_syms__map_offset(f->es, off, NULL, NULL);
	if (name) {
		name = usyms_file_demangled(u, f, name);
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

/* Notes once per image why its perf map is not (wholly) used. */
static void note_jit(struct usyms *u, struct pid_ent *e, pid_t inner, const char *why)
{
	if (e->jit_noted)
		return;
	e->jit_noted = true;
	if (why) {
		warn("ignoring /tmp/perf-%d.map of pid %d: %s", (int)inner, (int)e->pid, why);
		return;
	}
	u->jit_cut++;
	warn("note: /tmp/perf-%d.map of pid %d: only its newest lines read, %u MiB of them",
	     (int)inner, (int)e->pid, USYMS_FILE_BUDGET >> 20);
}

/*
 * Brings the process's JIT map up to date (perfmap.h: nothing to do when
 * the file is unchanged, only the appended lines when it grew), trusted
 * only as perf trusts it: a regular file owned by the process's user or by
 * root, never followed through a symlink, read in the process's own mount
 * namespace.  Within the budgets; on failure the old map stays.
 */
static void refresh_jit(struct usyms *u, struct pid_ent *e)
{
	struct budget b = u->budget ? *u->budget : (struct budget){ 0 };
	size_t before = perfmap__bytes(e->jit);
	struct perfmap *pm = e->jit;
	const char *why = NULL;
	char root[64];
	pid_t inner;
	uid_t owner;

	e->jit_read_phase = u->phase + 1;
	if (budget__expired(u->budget) || read_status(e->pid, &inner, &owner))
		return;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)e->pid);
	b.max_bytes = usyms_allowance(u, before);
	if (!b.max_bytes || perfmap__refresh(&pm, inner, root, owner, &b, &why)) {
		if (b.max_bytes && errno != ENOENT && errno != ETIMEDOUT)
			note_jit(u, e, inner, why ? why : "unreadable");
		return;
	}
	u->jit_bytes = u->jit_bytes - before + perfmap__bytes(pm);
	e->jit = pm;
	if (perfmap__truncated(pm))
		note_jit(u, e, inner, NULL);
}

static size_t name_anon(struct usyms *u, struct pid_ent *e, const struct proc_map *m,
			uint64_t addr, char *buf, size_t len, bool *jit)
{
	const char *name;

	/* once per budget: lines a JIT appended since are named too */
	if (e->jit_read_phase != u->phase + 1)
		refresh_jit(u, e);
	name = e->jit ? perfmap__lookup(e->jit, addr, NULL) : NULL;
	if (name) {
		*jit = true;
		return put(buf, len, "%s", name);
	}
	if (m->kind == PROC_MAP_HEAP)
		return put(buf, len, "[heap]");
	return put(buf, len, "[anon]");
}

/* Re-reads e may make now: a token bucket refilled one per interval. */
static double reread_tokens(const struct pid_ent *e, double now)
{
	double t;

	if (!e->preloaded)
		return USYMS_REREAD_BURST;
	t = e->reread_tokens + (now - e->preloaded_at) / USYMS_REREAD_INTERVAL;
	return t < USYMS_REREAD_BURST ? t : USYMS_REREAD_BURST;
}

static void reread_spend(struct pid_ent *e)
{
	double now = budget__now();

	e->reread_tokens = reread_tokens(e, now) - 1;
	e->preloaded_at = now;
}

int usyms__preload(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = pid_find(u, pid, gen, true);

	if (!e)
		return -ENOMEM;
	e->last_used = u->interval;
	/* again if read before: its mappings changed */
	if (!load_maps(u, e))
		return -ETIMEDOUT;
	e->late = false;
	reread_spend(e);
	e->preloaded = true;
	if (u->maps_hook && e->pm)
		u->maps_hook(pid, gen, e->pm, u->maps_hook_arg);
	refresh_jit(u, e); /* a JIT appends to its map as it maps code */
	if (!e->pm)
		return -ESRCH;
	for (size_t i = 0; i < e->pm->nr; i++) {
		const struct proc_map *m = &e->pm->maps[i];

		if (m->exec && m->kind == PROC_MAP_FILE)
			slot_file(u, e, i);
	}
	return 0; /* files out of time are read again when named */
}

double usyms__preload_due(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = pid_find(u, pid, gen, false);

	if (!e || reread_tokens(e, budget__now()) >= 1)
		return 0;
	return e->preloaded_at + (1 - e->reread_tokens) * USYMS_REREAD_INTERVAL;
}

void usyms__mark_late(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = pid_find(u, pid, gen, true);

	if (e)
		e->late = true;
}

/* Why a frame of image e (NULL: none) found no mapping. */
static enum usyms_miss miss_of(const struct pid_ent *e)
{
	if (!e)
		return USYMS_MISS_EXITED;
	if (e->pm)
		return USYMS_MISS_UNMAPPED;
	if (!e->maps_tried || e->late)
		return USYMS_MISS_LATE;
	if (e->preloaded)
		return USYMS_MISS_EXITED;
	return e->gen ? USYMS_MISS_UNSEEN : USYMS_MISS_UNTRACKED;
}

const char *usyms__miss_name(enum usyms_miss m)
{
	static const char *const names[USYMS_MISS__MAX] = {
		[USYMS_NAMED] = "named",
		[USYMS_MISS_EXITED] = "process gone before its maps were read",
		[USYMS_MISS_LATE] = "maps not read in time",
		[USYMS_MISS_UNSEEN] = "process events lost",
		[USYMS_MISS_UNTRACKED] = "untracked process",
		[USYMS_MISS_UNMAPPED] = "no mapping at the address",
		[USYMS_MISS_FOREIGN] = "outside our pid namespace",
	};

	return m < USYMS_MISS__MAX ? names[m] : "?";
}

size_t usyms__name_frame(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr, char *buf,
			 size_t len, struct usyms_frame *out)
{
	const struct proc_map *m = NULL;
	struct pid_ent *e;

	out->jit = false;
	out->miss = USYMS_NAMED;
	e = u ? pid_get(u, pid, gen) : NULL;
	if (e && e->pm) {
		m = proc_maps__find(e->pm, addr);
		if (!m && now_ns() - e->loaded_ns >= MAPS_REFRESH_NS) {
			load_maps(u, e);
			m = proc_maps__find(e->pm, addr);
		}
	}
	if (!m) {
		out->miss = miss_of(e);
		return put(buf, len, "[unknown]");
	}
	switch (m->kind) {
	case PROC_MAP_FILE:
		return name_file(u, e, m, addr, buf, len);
	case PROC_MAP_VDSO:
		return name_vdso(u, m, addr, buf, len);
	case PROC_MAP_STACK:
		return put(buf, len, "[stack]");
	case PROC_MAP_SPECIAL:
		return put(buf, len, "%s", m->path ? m->path : "[unknown]");
	case PROC_MAP_HEAP:
	case PROC_MAP_ANON:
	default:
		return name_anon(u, e, m, addr, buf, len, &out->jit);
	}
}

size_t usyms__name(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr, char *buf,
		   size_t len, bool *jit)
{
	struct usyms_frame fr;
	size_t n = usyms__name_frame(u, pid, gen, addr, buf, len, &fr);

	if (jit)
		*jit = fr.jit;
	return n;
}

/*
 * Whether e is kept past the interval that just ended: used in it, or its
 * process still runs it and it has not been idle for the idle limit.
 */
static bool keep_image(struct usyms *u, const struct pid_ent *e)
{
	if (e->last_used == u->interval)
		return true;
	if (!e->pm)
		return false; /* the process was gone when asked: nothing to keep */
	if (u->idle_limit && u->interval - e->last_used >= u->idle_limit)
		return false;
	if (e->gen && u->validate)
		return u->validate(e->pid, e->gen, u->validate_arg);
	/* untracked, or no validator: the same process, still running */
	return e->start_time && proc_start_time(e->pid) == e->start_time;
}

static void drop_images(struct usyms *u)
{
	struct pid_ent **pp, *e;

	for (size_t b = 0; b < u->pid_buckets; b++) {
		for (pp = &u->pids[b]; (e = *pp);) {
			if (keep_image(u, e)) {
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			pid_ent_free(u, e);
			u->nr_pids--;
			u->images_dropped++;
		}
	}
}

/* What trimming may free: a file no image maps, or an idle image's JIT map. */
struct victim {
	uint64_t last_used;
	struct file_ent *f;
	struct pid_ent *e;
};

static int victim_cmp(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;

	return x->last_used < y->last_used ? -1 : x->last_used > y->last_used;
}

static size_t collect_victims(struct usyms *u, struct victim *v)
{
	size_t n = 0, b;

	for (b = 0; b < u->file_buckets; b++)
		for (struct file_ent *f = u->files[b]; f; f = f->next)
			if (!f->refs)
				v[n++] = (struct victim){ .last_used = f->last_used, .f = f };
	for (b = 0; b < u->pid_buckets; b++)
		for (struct pid_ent *e = u->pids[b]; e; e = e->next)
			if (e->jit && e->last_used != u->interval)
				v[n++] = (struct victim){ .last_used = e->last_used, .e = e };
	return n;
}

/*
 * Frees what no held image maps, and JIT maps of images idle this interval
 * (re-read if they are sampled again), least recently used first, until
 * the cache is within limit.
 */
void usyms_trim_to(struct usyms *u, size_t limit)
{
	struct victim *v;
	size_t n, i;

	if (u->file_bytes + u->jit_bytes <= limit)
		return;
	v = malloc((u->nr_files + u->nr_pids + 1) * sizeof(*v));
	if (!v)
		return; /* tried again at the next interval */
	n = collect_victims(u, v);
	qsort(v, n, sizeof(*v), victim_cmp);
	for (i = 0; i < n && u->file_bytes + u->jit_bytes > limit; i++) {
		if (v[i].f) {
			usyms_file_evict(u, v[i].f);
			continue;
		}
		set_jit(u, v[i].e, NULL);
		v[i].e->jit_read_phase = 0;
		u->jit_evicted++;
	}
	free(v);
}

void usyms__end_interval(struct usyms *u)
{
	if (!u)
		return;
	/* images first: dropping them releases the files they pinned */
	drop_images(u);
	usyms_trim_to(u, u->cache_limit);
	u->interval++;
}

void usyms__set_cache_limit(struct usyms *u, size_t bytes)
{
	u->cache_limit = bytes;
}

void usyms__set_memory_max(struct usyms *u, size_t bytes)
{
	u->memory_max = bytes;
}

void usyms__set_budget(struct usyms *u, const struct budget *b)
{
	u->budget = b;
	u->phase++;
}

void usyms__set_idle_limit(struct usyms *u, unsigned intervals)
{
	u->idle_limit = intervals;
}

void usyms__stats(const struct usyms *u, struct usyms_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!u)
		return;
	for (size_t b = 0; b < u->file_buckets; b++)
		for (const struct file_ent *f = u->files[b]; f; f = f->next)
			out->files_pinned += f->refs > 0;
	for (size_t b = 0; b < u->pid_buckets; b++)
		for (const struct pid_ent *e = u->pids[b]; e; e = e->next)
			out->jit_maps += e->jit != NULL;
	out->images = u->nr_pids;
	out->files = u->nr_files;
	out->cache_bytes = u->file_bytes + u->jit_bytes;
	out->cache_limit = u->cache_limit;
	out->image_bytes = u->image_bytes;
	out->bytes = sizeof(*u) + out->cache_bytes + out->image_bytes +
		     u->pid_buckets * sizeof(*u->pids) + u->file_buckets * sizeof(*u->files) +
		     elf_syms__bytes(u->vdso);
	out->intervals = u->interval - 1;
	out->images_dropped = u->images_dropped;
	out->files_evicted = u->files_evicted;
	out->jit_maps_evicted = u->jit_evicted;
	out->files_too_big = u->files_too_big;
	out->files_late = u->files_late;
	out->jit_maps_cut = u->jit_cut;
}

void usyms__free(struct usyms *u)
{
	struct pid_ent *pe, *pn;
	struct file_ent *fe, *fn;
	size_t i;

	if (!u)
		return;
	/* images first: they release their files */
	for (i = 0; u->pids && i < u->pid_buckets; i++)
		for (pe = u->pids[i]; pe; pe = pn) {
			pn = pe->next;
			pid_ent_free(u, pe);
		}
	for (i = 0; u->files && i < u->file_buckets; i++)
		for (fe = u->files[i]; fe; fe = fn) {
			fn = fe->next;
			usyms_file_free(fe);
		}
	free(u->pids);
	free(u->files);
	elf_syms__free(u->vdso);
	free(u);
}
