/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unwind maps: what the BPF unwinder (--unwind dwarf) needs in the kernel,
 * kept by user space.  Owns the files by identity (dev, inode, size, mtime:
 * shared by every process that maps the file, in the same file-identity
 * cache, filecache.c, as the symbol tables) with each file's table, built
 * once (unwind_table.c) and loaded into the shards (unwind_shards.c)
 * within a memory budget, least recently used files evicted first (all
 * unwind_files.c); and each process image's executable mappings in the
 * kernel's LPM trie (unwind_maps.c), refreshed whenever usyms reads the
 * image's maps (unwind_maps__update, its maps hook).  Files are opened as
 * usyms opens them (safe_open__mapped): through /proc/PID/map_files or
 * /proc/PID/root.
 */
#ifndef SMOLDER_UNWIND_MAPS_H
#define SMOLDER_UNWIND_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_maps;
struct unwind_maps;

#define UNWIND_DEFAULT_BUDGET (64ull << 20) /* --unwind-memory */
#define UNWIND_MAX_FILES 8192 /* "unwind_files" entries (preallocated: 600 KiB) */
#define UNWIND_MAX_MAPPINGS 65536            /* "unwind_mappings" entries */

/* The shards a budget buys: shards of 512 KiB, larger beyond 128 MiB so
 * that we keep at most 256 of them open. */
void unwind_maps__layout(uint64_t budget, uint32_t *shard_bits, uint32_t *max_shards);

struct unwind_maps_opts {
	int shards_fd;   /* "unwind_shards", max_shards slots */
	int files_fd;    /* "unwind_files" */
	int mappings_fd; /* "unwind_mappings" */
	uint32_t shard_bits, max_shards;
	/* Whether pid still runs image gen (gen 0: untracked); may be NULL. */
	bool (*image_current)(pid_t pid, uint32_t gen, void *arg);
	void *arg;
};

struct unwind_maps *unwind_maps__new(const struct unwind_maps_opts *o);
/*
 * pid's image gen maps pm now (just read from /proc/PID/maps): loads the
 * tables of its executable files that are not loaded, and makes the
 * kernel's mappings of pid those of pm.  Its signature is usyms' maps hook.
 */
void unwind_maps__update(pid_t pid, uint32_t gen, const struct proc_maps *pm, void *um);
/* Loads the tables of the files we map ourselves: the C library and the
 * dynamic loader nearly every process maps too, ready before its first
 * sample. */
void unwind_maps__preload_self(struct unwind_maps *um);
/* Waits until the tables queued so far are built and loaded: 0, or
 * -ETIMEDOUT at until (clock__now() seconds). */
int unwind_maps__settle(struct unwind_maps *um, double until);
/* No more samples will come: later updates are ignored. */
void unwind_maps__stop(struct unwind_maps *um);

struct unwind_maps_stats {
	size_t files_loaded;    /* tables in the kernel */
	size_t files_no_table;  /* files without CFI (frame pointers) */
	uint64_t table_bytes;   /* kernel memory the loaded tables use */
	uint64_t kernel_bytes;  /* shards created (what the kernel holds) */
	uint64_t budget;        /* the most shards may take */
	uint64_t too_big;       /* tables that did not fit (at all, or the budget) */
	uint64_t evicted;       /* tables evicted for others */
	size_t processes;       /* process images with mappings in the kernel */
	size_t mappings;        /* LPM entries */
	uint64_t mappings_dropped; /* mappings the LPM trie had no room for */
	double build_ms;        /* time spent building and loading tables */
	size_t queued;          /* tables waiting to be built, or building */
	size_t files_known;     /* files with a record here, mapped or kept */
	uint64_t over_share;    /* image reads that left mappings or files out
				 * (frame pointers): a user's or a process's
				 * share of a table was full */
	size_t waiting;         /* tables of mapped files not loaded (evicted, or
				 * no room to build yet): tried again each second */
	uint64_t reloaded;      /* evicted tables loaded again */
	uint64_t forgotten;     /* files no process mapped any more, freed */
};
void unwind_maps__stats(const struct unwind_maps *um, struct unwind_maps_stats *out);
void unwind_maps__free(struct unwind_maps *um);

#endif
