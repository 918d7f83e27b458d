// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbol tables of mapped files, inside usyms: owns the cache keyed by
 * file identity (device, inode, size, mtime; shared by every process that
 * maps the file), opening a mapping's file as its process sees it, reading
 * its table within the budgets, and the demangled forms of its names.
 *
 * Bounds while reading: a new table is read with what is left of the
 * memory maximum (unpinned tables freed first to make room), at most
 * USYMS_FILE_BUDGET, and within the caller's time budget.  What a read gave
 * up on is remembered in the file's entry: too big for the file budget for
 * good (with one note), out of time or room until the next budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "log.h"
#include "safe_open.h"
#include "usyms_int.h"

/* A file's first mangled name makes room for this many demangled ones. */
#define DM_INITIAL 64
/* Demangled names are kept in blocks of this many bytes (or one name's). */
#define DM_BLOCK (16u << 10)

static size_t file_hash(const struct file_ent *f, size_t buckets)
{
	uint64_t h = mix64(f->dev ^ mix64(f->ino ^ mix64(f->size ^
			   mix64(f->mtime_sec ^ mix64(f->mtime_nsec)))));

	return h & (buckets - 1);
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

void usyms_file_hold(struct usyms *u, struct file_ent *f)
{
	if (f && f != &u->no_file)
		f->refs++;
}

void usyms_file_release(struct usyms *u, struct file_ent *f)
{
	if (f && f != &u->no_file)
		f->refs--;
}

/*
 * The bytes a new table or perf map may take: what is left of the memory
 * maximum once releasing bytes are given back (the map being replaced),
 * after freeing unpinned tables if that leaves less than a file's budget;
 * at most USYMS_FILE_BUDGET.
 */
size_t usyms_allowance(struct usyms *u, size_t releasing)
{
	size_t used = u->file_bytes + u->jit_bytes - releasing;

	if (used + USYMS_FILE_BUDGET > u->memory_max) {
		usyms_trim_to(u, u->memory_max > USYMS_FILE_BUDGET + releasing ?
				   u->memory_max - USYMS_FILE_BUDGET + releasing : 0);
		used = u->file_bytes + u->jit_bytes - releasing;
	}
	if (used >= u->memory_max)
		return 0;
	return u->memory_max - used < USYMS_FILE_BUDGET ? u->memory_max - used : USYMS_FILE_BUDGET;
}

/* Reads f's table from fd within the budgets; remembers why not. */
static void read_table(struct usyms *u, struct file_ent *f, int fd, pid_t pid,
		       const struct proc_map *m)
{
	struct budget b = u->budget ? *u->budget : (struct budget){ 0 };
	const char *name = m->path ? m->path : "?";
	char root[64];

	/* debug files are looked up in the process's root, as it sees them */
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	b.max_bytes = usyms_allowance(u, 0);
	errno = E2BIG;
	f->es = b.max_bytes ? elf_syms__open_debug_within(fd, root, m->deleted ? NULL : m->path,
							   &b) : NULL;
	f->state = FILE_READ;
	if (f->es || (errno != E2BIG && errno != ETIMEDOUT)) {
		if (!f->es)
			debug("no symbols in dev %" PRIu64 " inode %" PRIu64, f->dev, f->ino);
		return;
	}
	if (errno == E2BIG && b.max_bytes == USYMS_FILE_BUDGET) {
		f->state = FILE_TOO_BIG;
		u->files_too_big++;
		warn("note: symbols of %s (pid %d) not read: more than %u MiB; its frames are "
		     "named by file offset", name, (int)pid, USYMS_FILE_BUDGET >> 20);
		return;
	}
	f->state = FILE_LATE;
	f->failed_phase = u->phase;
	u->files_late++;
	debug("symbols of %s (pid %d) not read: %s; tried again later", name, (int)pid,
	      errno == E2BIG ? "symbol memory full" : "out of time");
}

static struct file_ent *file_get(struct usyms *u, const struct stat *st, int fd,
				  pid_t pid, const struct proc_map *m)
{
	struct file_ent key = {
		.dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
		.mtime_sec = st->st_mtim.tv_sec, .mtime_nsec = st->st_mtim.tv_nsec,
	};
	size_t b = file_hash(&key, u->file_buckets);
	struct file_ent *f;

	for (f = u->files[b]; f; f = f->next)
		if (f->dev == key.dev && f->ino == key.ino && f->size == key.size &&
		    f->mtime_sec == key.mtime_sec && f->mtime_nsec == key.mtime_nsec)
			break;
	if (f && (f->state != FILE_LATE || f->failed_phase == u->phase))
		return f;
	if (f) {
		/* given up in an earlier budget: once more in this one (held,
		 * so that making room cannot free it) */
		f->refs++;
		read_table(u, f, fd, pid, m);
		f->refs--;
		f->bytes += elf_syms__bytes(f->es);
		u->file_bytes += elf_syms__bytes(f->es);
		return f;
	}
	f = malloc(sizeof(*f));
	if (!f)
		return &u->no_file;
	*f = key;
	read_table(u, f, fd, pid, m);
	f->bytes = sizeof(*f) + elf_syms__bytes(f->es);
	u->file_bytes += f->bytes;
	f->next = u->files[b];
	u->files[b] = f;
	u->nr_files++;
	grow_files(u);
	return f;
}

struct file_ent *usyms_file_resolve(struct usyms *u, pid_t pid, const struct proc_map *m)
{
	struct file_ent *f = &u->no_file;
	struct stat st;
	int fd;

	fd = safe_open__mapped(pid, m, &st);
	if (fd < 0)
		return f;
	f = file_get(u, &st, fd, pid, m);
	close(fd);
	return f;
}

/* Grows f's demangle cache when it is half full; false if out of memory. */
static bool dm_reserve(struct usyms *u, struct file_ent *f)
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
	f->bytes += (cap - f->dm_cap) * sizeof(*n);
	u->file_bytes += (cap - f->dm_cap) * sizeof(*n);
	f->dm_cap = cap;
	return true;
}

/* A copy of the n bytes at s in f's name blocks; NULL if out of memory. */
static const char *keep_name(struct usyms *u, struct file_ent *f, const char *s, size_t n)
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
		f->bytes += sizeof(*b) + cap;
		u->file_bytes += sizeof(*b) + cap;
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
const char *usyms_file_demangled(struct usyms *u, struct file_ent *f, const char *raw)
{
	char buf[1024];
	const char *d;
	size_t j;

	if (!u->demangle || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return raw;
	for (j = f->dm_cap ? mix64((uintptr_t)raw) & (f->dm_cap - 1) : 0;
	     f->dm_cap && f->dm[j].raw; j = (j + 1) & (f->dm_cap - 1))
		if (f->dm[j].raw == raw)
			return f->dm[j].name;
	d = demangle(raw, buf, sizeof(buf));
	if (d == raw || !dm_reserve(u, f))
		return raw; /* not mangled; or no memory, where raw is still right */
	j = mix64((uintptr_t)raw) & (f->dm_cap - 1);
	while (f->dm[j].raw)
		j = (j + 1) & (f->dm_cap - 1);
	f->dm[j].name = keep_name(u, f, d, strlen(d) + 1);
	if (!f->dm[j].name)
		return raw;
	f->dm[j].raw = raw;
	f->dm_nr++;
	return f->dm[j].name;
}

void usyms_file_free(struct file_ent *f)
{
	struct name_block *b, *next;

	for (b = f->dm_names; b; b = next) {
		next = b->next;
		free(b);
	}
	free(f->dm);
	elf_syms__free(f->es);
	free(f);
}

void usyms_file_evict(struct usyms *u, struct file_ent *f)
{
	struct file_ent **pp = &u->files[file_hash(f, u->file_buckets)];

	while (*pp != f)
		pp = &(*pp)->next;
	*pp = f->next;
	u->file_bytes -= f->bytes;
	u->nr_files--;
	u->files_evicted++;
	usyms_file_free(f);
}
