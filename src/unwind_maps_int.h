/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the unwind maps, shared by unwind_maps.c (process images and
 * their mappings in the kernel's LPM trie) and unwind_files.c (the files
 * the unwinder knows and their tables in the shards); nothing else
 * includes this.  Both run under unwind_maps' lock.
 */
#ifndef SMOLDER_UNWIND_MAPS_INT_H
#define SMOLDER_UNWIND_MAPS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "filecache.h"
#include "proc_maps.h"
#include "clock.h"
#include "unwind_maps.h"
#include "unwind_shards.h"

#define PROC_BUCKETS 1024
#define MAX_SEGS 4

enum file_state {
	F_UNLOADED, /* not in the kernel: never loaded, evicted, or no room */
	F_LOADED,   /* its table is in the shards */
	F_NO_TABLE, /* no CFI: known to the kernel as such */
};

struct seg {
	uint64_t offset, vaddr, size; /* an executable PT_LOAD */
};

/* A file the unwinder knows, in the file-identity cache (filecache.h). */
struct ufile {
	struct filecache_ent ent; /* first (the cache's pointer is ours); refs:
				   * mappings of held process images; last_used:
				   * tick of the last update mapping it */
	uint32_t id;
	enum file_state state;
	bool inspected;     /* segs and base read */
	bool failed;        /* could not be loaded: not retried */
	bool queued;        /* its build is queued or running */
	struct seg segs[MAX_SEGS];
	size_t nr_segs;
	uint64_t base;      /* the table's base vaddr */
	struct unwind_extent *ext; /* where the table is */
	size_t nr_ext;
	uint64_t slots;
};

struct job;
struct uproc;

struct unwind_maps {
	struct unwind_maps_opts o;
	struct unwind_shards *shards;
	struct filecache *files;  /* struct ufile */
	struct uproc *procs[PROC_BUCKETS];
	size_t nr_procs, nr_mappings;
	uint32_t next_id;
	uint64_t tick;
	uint64_t last_sweep;
	bool stopped;
	struct ufile *vdso;       /* our own vDSO, which every native process maps */
	uint64_t vdso_size;
	bool vdso_tried;
	struct unwind_maps_stats st;
	/* The builder thread, and what it shares with the thread that reads
	 * image events: everything above, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t builder;
	bool builder_started, quit, building;
	atomic_bool cancel;       /* set by unwind_maps__stop: the build under way
				   * ends soon (not under lock) */
	struct job *jobs;
	size_t nr_jobs;
};

/* unwind_files.c: the file cache, made and freed with um. */
int unwind_files_init(struct unwind_maps *um);
void unwind_files_free(struct unwind_maps *um);
/*
 * The file mapped at m, NULL if unreadable.  A table it needs is built now
 * (sync) or queued for the builder thread; until it is loaded, its frames
 * count as not loaded.
 */
struct ufile *unwind_files_resolve(struct unwind_maps *um, pid_t pid, const struct proc_map *m,
				   bool sync);
/* Our own vDSO, if m maps the same image. */
struct ufile *unwind_files_vdso(struct unwind_maps *um, const struct proc_map *m);
/* The builder thread (arg: um): builds queued tables one at a time. */
void *unwind_files_builder(void *arg);
/* Drops the builds not started. */
void unwind_files_drop_jobs(struct unwind_maps *um);

#endif
