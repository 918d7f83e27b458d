/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside usyms: the process images usyms.c keeps and the state of the
 * whole (the symbol tables of mapped files are symcache.c's); nothing
 * else includes this.
 */
#ifndef SMOLDER_USYMS_INT_H
#define SMOLDER_USYMS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/budget.h"
#include "files/elf_syms.h"
#include "lib/hash.h"
#include "symbols/perfmap.h"
#include "files/proc_maps.h"
#include "symbols/symcache.h"
#include "symbols/usyms.h"

#define INITIAL_BUCKETS 256

struct pid_ent {
	struct pid_ent *next;
	pid_t pid;
	uint32_t gen;
	struct proc_maps *pm;    /* NULL: the process was gone */
	struct symfile **files;  /* per mapping; NULL until first needed */
	uint64_t loaded_ns;
	uint64_t start_time;     /* of the process pm was read from; 0 unknown */
	uint64_t last_used;      /* interval of the last preload or name */
	size_t maps_bytes;       /* what pm and files cost */
	struct perfmap *jit;     /* /tmp/perf-PID.map, if trusted */
	uint64_t jit_read_phase; /* the budget it was last read in, + 1; 0 never */
	bool jit_noted;          /* warned about its map: once an image */
	bool maps_tried;         /* its maps were read (or the read failed) */
	bool preloaded;          /* a preload read them when it was announced */
	bool heavy_maps;         /* a read of them held over USYMS_LIGHT_MAPS */
	bool late;               /* announced, but its preload waits or was dropped */
	double preloaded_at;     /* CLOCK_MONOTONIC s of the last preload */
	double reread_tokens;    /* re-reads allowed at once, as of preloaded_at */
};

struct usyms {
	struct pid_ent **pids;
	size_t pid_buckets, nr_pids;
	struct symcache *syms;   /* the symbol tables of mapped files */
	struct elf_syms *vdso;
	uint64_t vdso_size;
	uint64_t vdso_sigreturn; /* arm64's trampoline's offset + 1, or 0 */
	bool vdso_tried;
	usyms_validator validate;
	void *validate_arg;
	usyms_maps_hook maps_hook;
	void *maps_hook_arg;
	/* Bounds, applied only by usyms__end_interval. */
	uint64_t interval;  /* the current one, from 1 (0: never used) */
	size_t cache_limit; /* for the tables' bytes + jit_bytes */
	unsigned idle_limit;
	size_t jit_bytes, image_bytes;
	uint64_t images_dropped, jit_evicted;
	/* Bounds while reading. */
	const struct budget *budget; /* time; NULL: none */
	uint64_t phase;              /* budgets set so far */
	size_t memory_max;           /* for the tables' bytes + jit_bytes */
	uint64_t jit_cut;
	double maps_read_s;          /* of the last preload */
	bool inline_frames;
	bool marking;          /* chains are marked, not read (usyms__warm_frame) */
	struct dwarf_chain chain;    /* the last frame's (usyms_frame.chain) */
};

/* snprintf into buf that returns what it wrote (at most len - 1). */
size_t usyms_put(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* usyms.c: the image (pid, gen) known; made when create, else NULL. */
struct pid_ent *usyms_pid_find(struct usyms *u, pid_t pid, uint32_t gen, bool create);
/* usyms.c: the image (pid, gen), its maps read if need be; NULL when
 * memory is short. */
struct pid_ent *usyms_pid_get(struct usyms *u, pid_t pid, uint32_t gen);
/* usyms.c: the name of frame addr in file mapping m of e, into buf and *out. */
size_t usyms_name_file(struct usyms *u, struct pid_ent *e, const struct proc_map *m,
		       uint64_t addr, char *buf, size_t len, struct usyms_frame *out);
/* usyms.c: what one file's read may hold (symcache_read.allowance). */
size_t usyms_allowance_cb(void *u);
/* usyms_inline.c: the inline chain of named frame fr in f (fr->chain). */
void usyms_name_chain(struct usyms *u, struct symfile *f, struct usyms_frame *fr);
/* usyms_vdso.c: the name of the vDSO frame at addr of mapping m. */
size_t usyms_vdso_name(struct usyms *u, const struct proc_map *m, uint64_t addr, char *buf,
		       size_t len);

/*
 * usyms_jit.c, which usyms.c calls and which calls nothing of usyms.c's.
 * e's JIT map is now pm (NULL: none), its bytes counted.
 */
void usyms_jit_set(struct usyms *u, struct pid_ent *e, struct perfmap *pm);
/* Whether e's JIT map was read in this budget (named frames see the lines
 * a JIT appended since the last). */
bool usyms_jit_fresh(const struct usyms *u, const struct pid_ent *e);
/* Brings e's JIT map up to date (perfmap.h: nothing to do when the file
 * is unchanged, only the appended lines when it grew), within the time
 * budget and the bytes allowance() gives, asked only when the map is read
 * (it may trim the caches to make room); on failure the old map stays. */
void usyms_jit_refresh(struct usyms *u, struct pid_ent *e,
		       size_t (*allowance)(struct usyms *u, size_t releasing));
/* The JIT's name for addr in e; NULL if none. */
const char *usyms_jit_name(const struct pid_ent *e, uint64_t addr);

#endif
