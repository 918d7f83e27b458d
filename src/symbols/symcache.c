// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbol-table cache (see symcache.h): owns the symbol-table payload
 * of the file-identity cache (filecache.c), opening a mapping's file as
 * its process sees it (safe_open__mapped), reading its table and its
 * functions' ranges (the FDEs of its own CFI, through the owner's reader:
 * unwind_funcs__reader, the unwinder's parser but none of its tables)
 * within the budgets, and the demangled forms of its names.
 *
 * Bounds while reading: a new table is read with what the owner's
 * allowance gives (its memory maximum, unheld tables freed first to make
 * room), at most SYMCACHE_FILE_BUDGET, and within the caller's time budget.
 * What a read gave up on is remembered in the file's entry: too big for
 * the file budget for good (with one note), out of time or room until the
 * next budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/demangle.h"
#include "files/dwarf_names.h"
#include "files/elf_syms.h"
#include "files/func_ranges.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "files/proc_maps.h"
#include "files/safe_open.h"
#include "symbols/symcache.h"

/*
 * A file's functions' starts are listed from at most this much CFI, and at
 * most this many (libLLVM-14, 105 MB: 4.9 MiB of .eh_frame, 95,000 FDEs):
 * more names nothing a real file needs, and a crafted file's list holds
 * 16 MiB of CFI and 12 MiB of FDEs at its peak (the unwinder, which may
 * read the same file at the same time, has its own).
 */
#define FUNCS_MAX_CFI (16u << 20)
#define FUNCS_MAX (512u << 10)

/* A file's first mangled name makes room for this many demangled ones. */
#define DM_INITIAL 64
/* Demangled names are kept in blocks of this many bytes (or one name's). */
#define DM_BLOCK (16u << 10)

/* Demangled names, keyed by the address of the raw name (owned by an elf_syms). */
struct demangled {
	const char *raw;
	const char *name; /* in the file's name blocks */
};

/* Where a file's demangled names are kept: blocks, not one allocation a name. */
struct name_block {
	struct name_block *next;
	size_t used, cap;
	char data[];
};

/* Why a file has no symbol table. */
enum file_state {
	FILE_READ,    /* it has one, or the file has none (not ELF, unreadable) */
	FILE_TOO_BIG, /* over the file budget: for good */
	FILE_LATE,    /* out of time or memory: read again in a later budget */
};

/* One file's symbols, shared by all mappings of that file. */
struct symfile {
	struct filecache_ent ent; /* first (the cache's pointer is ours); refs:
				   * mappings of held images */
	struct elf_syms *es;      /* NULL: see state */
	struct func_ranges *funcs; /* its FDEs' ranges; NULL: none, or see state */
	char build_id[81];        /* GNU build id in hex; "" when none */
	enum file_state state;
	uint64_t failed_phase; /* the budget FILE_LATE was given up in */
	/*
	 * Demangled forms of es's names: per file, so they are freed with es
	 * (a global cache keyed by address could hand a freed name's form to
	 * whatever reuses the address).  Open addressing, dm_cap a power of 2.
	 */
	struct demangled *dm;
	size_t dm_nr, dm_cap;
	struct name_block *dm_names;
	/* its DWARF, read when a frame of it is first named (symcache__chain) */
	struct dwarf_names *dw;
	/* read: opened (mapped); ready: prepared, it names frames */
	enum { DW_UNREAD, DW_READ, DW_READY, DW_NONE } dw_state;
	char *dw_path; /* the path it was opened by, for -v */
};

struct symcache {
	struct filecache *files;
	struct symfile no_file; /* for mappings whose file would not open */
	func_ranges_reader read_funcs; /* NULL: frames keep their exact offsets */
	bool demangle;
	bool inline_frames;
	bool source_lines; /* the chains' files and lines too */
	uint64_t too_big, late;
	uint64_t dw_read, dw_ready, dw_none, dw_mini, dw_too_big, dw_failed;
};

static void symfile_free(struct filecache_ent *e, void *arg)
{
	struct symfile *f = (struct symfile *)e;
	struct name_block *b, *next;

	(void)arg;
	for (b = f->dm_names; b; b = next) {
		next = b->next;
		free(b);
	}
	free(f->dm);
	elf_syms__free(f->es);
	func_ranges__free(f->funcs);
	dwarf_names__free(f->dw);
	free(f->dw_path);
	free(f);
}

struct symcache *symcache__new(void)
{
	struct symcache *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->files = filecache__new(symfile_free, NULL);
	if (!sc->files) {
		free(sc);
		return NULL;
	}
	return sc;
}

void symcache__free(struct symcache *sc)
{
	if (!sc)
		return;
	filecache__free(sc->files);
	free(sc);
}

void symcache__set_func_reader(struct symcache *sc, func_ranges_reader fn)
{
	sc->read_funcs = fn;
}

void symcache__set_demangle(struct symcache *sc, bool on)
{
	sc->demangle = on;
}

void symcache__set_inline(struct symcache *sc, bool on, bool lines)
{
	sc->inline_frames = on;
	sc->source_lines = lines;
}

void symcache__hold(struct symcache *sc, struct symfile *f)
{
	if (f && f != &sc->no_file)
		filecache__hold(&f->ent);
}

void symcache__release(struct symcache *sc, struct symfile *f)
{
	if (f && f != &sc->no_file)
		filecache__release(&f->ent);
}

bool symfile__retry(const struct symfile *f, uint64_t phase)
{
	return f->state == FILE_LATE && f->failed_phase != phase;
}

void symfile__touch(struct symfile *f, uint64_t interval)
{
	f->ent.last_used = interval;
}

/*
 * Reads where f's functions start from its FDEs, within what is left of the
 * bytes b allowed after its symbol table (and FUNCS_MAX_CFI, FUNCS_MAX), and
 * b's time.  The CFI sections are held while they are read (half of it at
 * most), 16 bytes an FDE while they are listed (growing by half, 40 an FDE
 * with the CFI that holds it) and 8 kept.  Not read when a full
 * symbol table names every function.  Out of time, its frames
 * keep their exact offsets (the symbol table is what a late read retries).
 */
static void read_funcs(struct symcache *sc, struct symfile *f, int fd, const struct budget *b)
{
	size_t used = elf_syms__bytes(f->es), left = b->max_bytes > used ? b->max_bytes - used : 0;
	size_t max_cfi = left / 2 < FUNCS_MAX_CFI ? left / 2 : FUNCS_MAX_CFI;
	size_t max_funcs = left / 2 / 40 < FUNCS_MAX ? left / 2 / 40 : FUNCS_MAX;
	struct budget eb = *b;
	struct elf_file *ef;

	func_ranges__free(f->funcs);
	f->funcs = NULL;
	if (!sc->read_funcs || !max_cfi || !max_funcs || elf_syms__complete(f->es))
		return; /* no reader, no room; or every function has a name */
	eb.max_bytes = left / 2; /* its headers: the CFI's half is the reader's */
	ef = elf_file__open_fd_within(fd, &eb);
	if (!ef)
		return;
	f->funcs = sc->read_funcs(ef, b, max_cfi, max_funcs);
	if (!f->funcs && errno != ENOENT && errno != ENOEXEC)
		debug("functions of dev %" PRIu64 " inode %" PRIu64 " not read: %s", f->ent.id.dev,
		      f->ent.id.ino, log__errstr(errno));
	elf_file__close(ef);
}

/* Reads f's table from fd within the budgets; remembers why not. */
static void read_table(struct symcache *sc, struct symfile *f, int fd, pid_t pid,
		       const struct proc_map *m, const struct symcache_read *rd)
{
	struct budget b = rd->budget ? *rd->budget : (struct budget){ 0 };
	const char *name = m->path ? m->path : "?";
	char root[64];

	/* debug files are looked up in the process's root, as it sees them */
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	b.max_bytes = rd->allowance(rd->arg);
	errno = E2BIG;
	f->es = b.max_bytes ? elf_syms__open_debug_within(fd, root, m->deleted ? NULL : m->path,
							   &b) : NULL;
	f->state = FILE_READ;
	if (f->es || errno != ETIMEDOUT) {
		int sym_errno = errno;

		read_funcs(sc, f, fd, &b);
		errno = sym_errno;
	}
	if (f->es || (errno != E2BIG && errno != ETIMEDOUT)) {
		if (!f->es)
			debug("no symbols in dev %" PRIu64 " inode %" PRIu64, f->ent.id.dev,
			      f->ent.id.ino);
		return;
	}
	if (errno == E2BIG && b.max_bytes == SYMCACHE_FILE_BUDGET) {
		f->state = FILE_TOO_BIG;
		sc->too_big++;
		warn("note: symbols of %s (pid %d) not read: more than %u MiB; its frames are "
		     "named by file offset", name, (int)pid, SYMCACHE_FILE_BUDGET >> 20);
		return;
	}
	f->state = FILE_LATE;
	f->failed_phase = rd->phase;
	sc->late++;
	debug("symbols of %s (pid %d) not read: %s; tried again later", name, (int)pid,
	      errno == E2BIG ? "symbol memory full" : "out of time");
}

/* f's build id, for pprof's mappings (the note is read whatever its
 * symbol table's fate). */
static void read_build_id(struct symfile *f, int fd)
{
	unsigned char id[40];
	size_t n = elf_file__build_id_of(fd, id, sizeof(id));

	for (size_t i = 0; i < n && i < sizeof(id); i++)
		snprintf(f->build_id + 2 * i, 3, "%02x", id[i]);
}

/*
 * Opens f's DWARF from fd (pid's mapping m: debug files are looked up in
 * its root) within rd's time and the bytes it allows, whatever is left of
 * them after its symbols; once, whatever the outcome.  A file its owner
 * could have crafted (not root's) is held to the budget in all its debug
 * sections (dwarf_names.h).
 */
static void read_dwarf(struct symcache *sc, struct symfile *f, int fd, const struct stat *st,
		       pid_t pid, const struct proc_map *m, const struct symcache_read *rd)
{
	struct budget b = rd->budget ? *rd->budget : (struct budget){ 0 };
	const char *name = m->path ? m->path : "?";
	size_t allowed = rd->allowance(rd->arg);
	char root[64];

	f->dw_state = DW_NONE;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	b.max_bytes = allowed < SYMCACHE_FILE_BUDGET ? allowed : SYMCACHE_FILE_BUDGET;
	errno = E2BIG;
	f->dw = b.max_bytes ? dwarf_names__open(fd, root, m->deleted ? NULL : m->path,
						st->st_uid != 0, &b) : NULL;
	if (f->dw) {
		dwarf_names__set_lines(f->dw, sc->source_lines);
		f->dw_state = DW_READ;
		f->dw_path = strdup(name);
		sc->dw_read++;
		return;
	}
	if (errno == ENODATA || errno == ENOMSG) {
		sc->dw_none++;
		sc->dw_mini += errno == ENOMSG;
		debug("no inline frames for %s (pid %d): %s", name, (int)pid,
		      dwarf_names__strerror(errno));
		return;
	}
	if (errno == E2BIG)
		sc->dw_too_big++;
	else
		sc->dw_failed++;
	info("inline frames of %s (pid %d) not read: %s; its frames keep their symbol names",
	     name, (int)pid, dwarf_names__strerror(errno));
}

static struct symfile *file_get(struct symcache *sc, const struct stat *st, int fd,
				pid_t pid, const struct proc_map *m,
				const struct symcache_read *rd)
{
	struct file_id id = file_id__of(fd, st);
	struct symfile *f = (struct symfile *)filecache__find(sc->files, &id);

	if (f && (f->state != FILE_LATE || f->failed_phase == rd->phase))
		return f;
	if (f) {
		/* given up in an earlier budget: once more in this one (held,
		 * so that making room cannot free it) */
		/* replaced by the read */
		size_t had = func_ranges__bytes(f->funcs) + dwarf_names__bytes(f->dw);

		filecache__hold(&f->ent);
		read_table(sc, f, fd, pid, m, rd);
		if (f->es && sc->inline_frames && f->dw_state == DW_UNREAD)
			read_dwarf(sc, f, fd, st, pid, m, rd);
		filecache__release(&f->ent);
		/* modulo 2^64: the charge is what the entry grew by, maybe less than had */
		filecache__charge(sc->files, &f->ent, elf_syms__bytes(f->es) +
				  func_ranges__bytes(f->funcs) + dwarf_names__bytes(f->dw) - had);
		return f;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return &sc->no_file;
	f->ent.id = id;
	read_build_id(f, fd);
	read_table(sc, f, fd, pid, m, rd);
	if (f->es && sc->inline_frames)
		read_dwarf(sc, f, fd, st, pid, m, rd);
	f->ent.bytes = sizeof(*f) + elf_syms__bytes(f->es) + func_ranges__bytes(f->funcs) +
		       dwarf_names__bytes(f->dw);
	filecache__add(sc->files, &f->ent);
	return f;
}

struct symfile *symcache__resolve(struct symcache *sc, pid_t pid, const struct proc_map *m,
				  const struct symcache_read *rd)
{
	struct symfile *f = &sc->no_file;
	struct stat st;
	int fd;

	fd = safe_open__mapped(pid, m, &st);
	if (fd < 0)
		return f;
	f = file_get(sc, &st, fd, pid, m, rd);
	close(fd);
	return f;
}
/* Grows f's demangle cache when it is half full; false if out of memory. */
static bool dm_reserve(struct symcache *sc, struct symfile *f)
{
	size_t cap = f->dm_cap ? f->dm_cap * 2 : DM_INITIAL;
	struct demangled *n;

	if ((f->dm_nr + 1) * 2 <= f->dm_cap)
		return true;
	n = calloc(cap, sizeof(*n));
	if (!n)
		return false;
	for (size_t i = 0; i < f->dm_cap; i++) {
		size_t j = hash__mix64((uintptr_t)f->dm[i].raw) & (cap - 1);

		if (!f->dm[i].raw)
			continue;
		while (n[j].raw)
			j = (j + 1) & (cap - 1);
		n[j] = f->dm[i];
	}
	free(f->dm);
	f->dm = n;
	filecache__charge(sc->files, &f->ent, (cap - f->dm_cap) * sizeof(*n));
	f->dm_cap = cap;
	return true;
}

/* A copy of the n bytes at s in f's name blocks; NULL if out of memory. */
static const char *keep_name(struct symcache *sc, struct symfile *f, const char *s, size_t n)
{
	struct name_block *b = f->dm_names;
	char *p;

	if (!b || b->cap - b->used < n) {
		size_t cap = n > DM_BLOCK ? n : DM_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		*b = (struct name_block){ .next = f->dm_names, .cap = cap };
		f->dm_names = b;
		filecache__charge(sc->files, &f->ent, sizeof(*b) + cap);
	}
	p = b->data + b->used;
	memcpy(p, s, n);
	b->used += n;
	return p;
}

/*
 * The demangled form of a symbol name of f, computed once per symbol: names
 * are owned by f's symbol table, so their addresses identify them.
 */
static const char *demangled(struct symcache *sc, struct symfile *f, const char *raw)
{
	char buf[1024];
	const char *d;
	size_t j;

	if (!sc->demangle || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return raw;
	for (j = f->dm_cap ? hash__mix64((uintptr_t)raw) & (f->dm_cap - 1) : 0;
	     f->dm_cap && f->dm[j].raw; j = (j + 1) & (f->dm_cap - 1))
		if (f->dm[j].raw == raw)
			return f->dm[j].name;
	d = demangle__name(raw, buf, sizeof(buf));
	if (d == raw || !dm_reserve(sc, f))
		return raw; /* not mangled; or no memory, where raw is still right */
	j = hash__mix64((uintptr_t)raw) & (f->dm_cap - 1);
	while (f->dm[j].raw)
		j = (j + 1) & (f->dm_cap - 1);
	f->dm[j].name = keep_name(sc, f, d, strlen(d) + 1);
	if (!f->dm[j].name)
		return raw;
	f->dm[j].raw = raw;
	f->dm_nr++;
	return f->dm[j].name;
}

const char *symcache__name(struct symcache *sc, struct symfile *f, uint64_t off,
			   uint64_t *vaddr)
{
	const char *name = elf_syms__map_offset(f->es, off, NULL, vaddr);

	return name ? demangled(sc, f, name) : NULL;
}

bool symcache__func_start(const struct symfile *f, uint64_t off, uint64_t *start)
{
	return func_ranges__start(f->funcs, off, start);
}

const char *symcache__build_id(const struct symfile *f)
{
	return f->build_id;
}

/*
 * f's DWARF prepared (dwarf_names__prepare) within rd's time, its outcome
 * counted and, when it cannot name frames after all (its units over the
 * budget: known only once their headers are read), said in -v.  Out of
 * time, it is tried again later.
 */
static void prepare_dwarf(struct symcache *sc, struct symfile *f, const struct symcache_read *rd)
{
	size_t had = dwarf_names__bytes(f->dw);
	int e;

	filecache__hold(&f->ent);
	e = dwarf_names__prepare(f->dw, rd->budget);
	filecache__release(&f->ent);
	/* modulo 2^64, as a failed prepare frees what libdw read */
	filecache__charge(sc->files, &f->ent, dwarf_names__bytes(f->dw) - had);
	if (e == -ETIMEDOUT)
		return;
	f->dw_state = e ? DW_NONE : DW_READY;
	if (!e) {
		size_t inflated, aside;

		sc->dw_ready++;
		/* compressed DWARF costs memory at once: say how much */
		dwarf_names__inflated(f->dw, &inflated, &aside);
		if (inflated || aside)
			info("inline frames of %s: %zu bytes of compressed DWARF inflated, %zu not (not "
			     "read for the frames shown)", f->dw_path ? f->dw_path : "?", inflated, aside);
		return;
	}
	sc->dw_read--;
	if (e == -ENODATA) {
		sc->dw_none++;
		return;
	}
	if (e == -E2BIG)
		sc->dw_too_big++;
	else
		sc->dw_failed++;
	info("inline frames of %s not read: %s; its frames keep their symbol names",
	     f->dw_path ? f->dw_path : "?", dwarf_names__strerror(-e));
}

int symcache__chain(struct symcache *sc, struct symfile *f, const struct symcache_read *rd,
		    uint64_t vaddr, struct dwarf_chain *out)
{
	size_t had;
	int e;

	out->n = 0;
	if (!sc->inline_frames || f == &sc->no_file)
		return -ENOENT;
	if (f->dw_state == DW_READ)
		prepare_dwarf(sc, f, rd);
	if (f->dw_state != DW_READY)
		return -ENOENT;
	had = dwarf_names__bytes(f->dw);
	e = dwarf_names__chain(f->dw, vaddr, rd->budget, out);
	filecache__charge(sc->files, &f->ent, dwarf_names__bytes(f->dw) - had);
	for (uint32_t i = 0; i < out->n; i++)
		if (out->f[i].func)
			out->f[i].func = demangled(sc, f, out->f[i].func);
	return e;
}

void symcache__mark(struct symcache *sc, struct symfile *f, const struct symcache_read *rd,
		    uint64_t vaddr)
{
	size_t had;

	if (!sc->inline_frames || f == &sc->no_file)
		return;
	if (f->dw_state == DW_READ)
		prepare_dwarf(sc, f, rd);
	if (f->dw_state != DW_READY)
		return;
	had = dwarf_names__bytes(f->dw);
	dwarf_names__mark(f->dw, vaddr, rd->budget);
	filecache__charge(sc->files, &f->ent, dwarf_names__bytes(f->dw) - had);
}

void symcache__trim(struct symcache *sc, const struct filecache_trim *t)
{
	filecache__trim(sc->files, t);
}

void symcache__stats(const struct symcache *sc, struct symcache_stats *out)
{
	filecache__stats(sc->files, &out->files);
	out->files.table_bytes += sizeof(*sc);
	out->too_big = sc->too_big;
	out->late = sc->late;
	out->dw_read = sc->dw_read;
	out->dw_ready = sc->dw_ready;
	out->dw_none = sc->dw_none;
	out->dw_mini = sc->dw_mini;
	out->dw_too_big = sc->dw_too_big;
	out->dw_failed = sc->dw_failed;
}

size_t symcache__bytes(const struct symcache *sc)
{
	return filecache__bytes(sc->files);
}
