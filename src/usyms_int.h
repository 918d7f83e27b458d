/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside usyms, shared by usyms.c (images, naming, bounds) and
 * usyms_file.c (the symbol tables of mapped files); nothing else includes
 * this.
 */
#ifndef SMOLDER_USYMS_INT_H
#define SMOLDER_USYMS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "budget.h"
#include "elf_syms.h"
#include "perfmap.h"
#include "proc_maps.h"
#include "usyms.h"

#define INITIAL_BUCKETS 256

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

/* Why a file entry has no symbol table. */
enum file_state {
	FILE_READ,    /* it has one, or the file has none (not ELF, unreadable) */
	FILE_TOO_BIG, /* over the file budget: for good */
	FILE_LATE,    /* out of time or memory: read again in a later budget */
};

/* One file's symbols, shared by all mappings of that file. */
struct file_ent {
	struct file_ent *next;
	uint64_t dev, ino, mtime_sec, mtime_nsec;
	int64_t size;
	struct elf_syms *es; /* NULL: see state */
	enum file_state state;
	uint64_t failed_phase; /* the budget FILE_LATE was given up in */
	size_t refs;         /* mapping slots of held images pointing here */
	uint64_t last_used;  /* interval of the last lookup, for LRU eviction */
	size_t bytes;        /* this entry, its table and demangled names */
	/*
	 * Demangled forms of es's names: per file, so they are freed with es
	 * (a global cache keyed by address could hand a freed name's form to
	 * whatever reuses the address).  Open addressing, dm_cap a power of 2.
	 */
	struct demangled *dm;
	size_t dm_nr, dm_cap;
	struct name_block *dm_names;
};

struct pid_ent {
	struct pid_ent *next;
	pid_t pid;
	uint32_t gen;
	struct proc_maps *pm;    /* NULL: the process was gone */
	struct file_ent **files; /* per mapping; NULL until first needed */
	uint64_t loaded_ns;
	uint64_t start_time;     /* of the process pm was read from; 0 unknown */
	uint64_t last_used;      /* interval of the last preload or name */
	size_t maps_bytes;       /* what pm and files cost */
	struct perfmap *jit;     /* /tmp/perf-PID.map, if trusted */
	uint64_t jit_read_phase; /* the budget it was last read in, + 1; 0 never */
	bool jit_noted;          /* warned about its map: once an image */
	bool maps_tried;         /* its maps were read (or the read failed) */
	bool preloaded;          /* a preload read them when it was announced */
	bool late;               /* announced, but its preload waits or was dropped */
	double preloaded_at;     /* CLOCK_MONOTONIC s of the last preload */
	double reread_tokens;    /* re-reads allowed at once, as of preloaded_at */
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
	usyms_maps_hook maps_hook;
	void *maps_hook_arg;
	bool demangle;
	/* Bounds, applied only by usyms__end_interval. */
	uint64_t interval;  /* the current one, from 1 (0: never used) */
	size_t cache_limit; /* for file_bytes + jit_bytes */
	unsigned idle_limit;
	size_t file_bytes, jit_bytes, image_bytes;
	uint64_t images_dropped, files_evicted, jit_evicted;
	/* Bounds while reading. */
	const struct budget *budget; /* time; NULL: none */
	uint64_t phase;              /* budgets set so far */
	size_t memory_max;           /* for file_bytes + jit_bytes */
	uint64_t files_too_big, files_late, jit_cut;
};

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* usyms_file.c: the symbol table of what pid maps at m (&u->no_file if it
 * cannot be opened), read within the budgets if not cached. */
struct file_ent *usyms_file_resolve(struct usyms *u, pid_t pid, const struct proc_map *m);
/* A mapping slot takes a reference: its table is not evicted under it. */
void usyms_file_hold(struct usyms *u, struct file_ent *f);
void usyms_file_release(struct usyms *u, struct file_ent *f);
/* The demangled form of raw, a name of f's table (raw if not mangled). */
const char *usyms_file_demangled(struct usyms *u, struct file_ent *f, const char *raw);
/* Frees f, which no mapping slot points to (refs 0), from the cache. */
void usyms_file_evict(struct usyms *u, struct file_ent *f);
void usyms_file_free(struct file_ent *f);
/* The bytes a new table or perf map may take (see usyms_file.c). */
size_t usyms_allowance(struct usyms *u, size_t releasing);
/* usyms.c: frees unpinned tables and idle JIT maps down to limit bytes. */
void usyms_trim_to(struct usyms *u, size_t limit);

#endif
