/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the unwind maps, shared by unwind_maps.c (process images and
 * their mappings in the kernel's LPM trie), unwind_files.c (the files the
 * unwinder knows and their tables in the shards) and unwind_shares.c
 * (what each user may hold of those shared tables); nothing else includes
 * this.  All run under unwind_maps' lock.
 */
#ifndef SMOLDER_UNWIND_MAPS_INT_H
#define SMOLDER_UNWIND_MAPS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "files/filecache.h"
#include "files/proc_maps.h"
#include "lib/clock.h"
#include "unwind/unwind_maps.h"
#include "unwind/unwind_shards.h"

#define PROC_BUCKETS 1024
#define SHARE_BUCKETS 64
#define MAX_SEGS 4
/* Of each shared table (files, shard slots, LPM entries) one user holds at
 * most 1/SHARE_USER, one process image 1/SHARE_PROC of the files and the
 * LPM entries. */
#define SHARE_USER 2
#define SHARE_PROC 8
/* Files no process maps any more, kept for the next that does (a shell's
 * libraries between two commands); beyond, the least recently used go. */
#define KEEP_UNMAPPED 256
/* Builds waiting for the builder thread, each holding its file open; a
 * user's files take at most 1/SHARE_USER of them. */
#define MAX_JOBS 256

enum file_state {
	F_UNLOADED, /* not in the kernel: never loaded, evicted, or no room */
	F_LOADED,   /* its table is in the shards */
	F_NO_TABLE, /* no CFI: known to the kernel as such */
};

struct seg {
	uint64_t offset, vaddr, size; /* an executable PT_LOAD */
};

/* What one user's processes hold of the shared tables (unwind_shares.c). */
struct ushare {
	struct ushare *next;
	uid_t uid;
	size_t files;      /* files known for its processes (struct ufile) */
	size_t prefixes;   /* "unwind_mappings" entries */
	uint64_t slots;    /* shard slots of the tables of its files */
	size_t jobs;       /* builds of its files queued */
	uint64_t built;    /* builds of its files started: the builder serves
			    * the user it served least first */
};

/* A file the unwinder knows, in the file-identity cache (filecache.h). */
struct ufile {
	struct filecache_ent ent; /* first (the cache's pointer is ours); refs:
				   * mappings of held process images, and its
				   * queued build; last_used: tick of the last
				   * update mapping it */
	uint32_t id;
	enum file_state state;
	struct ushare *share; /* the user whose process made it known pays */
	bool inspected;     /* segs and base read */
	bool failed;        /* could not be loaded: not retried */
	bool queued;        /* its build is queued or running */
	bool waiting;       /* its table was evicted while mapped, or did not
			     * fit: loaded when room returns (frame pointers
			     * till then) */
	bool no_cfi;        /* counted among the files without CFI */
	uint64_t want_slots; /* what its table took when last loaded */
	struct seg segs[MAX_SEGS];
	size_t nr_segs;
	uint64_t base;      /* the table's base vaddr */
	struct unwind_extent *ext; /* where the table is */
	size_t nr_ext;
	uint64_t slots;
};

struct job;
struct uproc;

struct unwind_maps_counts {
	uint64_t over_share;  /* image reads that left mappings or files out: a
			       * user's or a process's share was full */
	size_t waiting;       /* tables of mapped files not loaded: evicted, or
			       * their build found no room in the queue */
	uint64_t reloaded;    /* evicted tables loaded again */
	uint64_t forgotten;   /* files no process mapped any more, freed */
};

struct unwind_maps {
	struct unwind_maps_opts o;
	struct unwind_shards *shards;
	struct filecache *files;  /* struct ufile */
	struct uproc *procs[PROC_BUCKETS];
	struct ushare *shares[SHARE_BUCKETS];
	size_t nr_procs, nr_mappings;
	uint32_t next_id;
	uint64_t tick;
	uint64_t last_sweep;
	struct unwind_maps_counts n;
	bool over_now;            /* this update left something out */
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
 * The file mapped at m by pid, a process of share sh; NULL if unreadable,
 * or if sh holds its share of files and none it can let go of.  A table it
 * needs is built now (sync) or queued for the builder thread; until it is
 * loaded, its frames count as not loaded.
 */
struct ufile *unwind_files_resolve(struct unwind_maps *um, pid_t pid, const struct proc_map *m,
				   struct ushare *sh, bool sync);
/* Frees the least recently mapped files no process maps beyond
 * KEEP_UNMAPPED, and sets um->n.waiting. */
void unwind_files_forget(struct unwind_maps *um);
/* Whether uf's table (evicted, or never loaded: the builds queue was full)
 * would fit now without evicting a table another process maps. */
bool unwind_files_room_for(struct unwind_maps *um, const struct ufile *uf);
/* Our own vDSO, if m maps the same image. */
struct ufile *unwind_files_vdso(struct unwind_maps *um, const struct proc_map *m);
/* The builder thread (arg: um): builds queued tables one at a time. */
void *unwind_files_builder(void *arg);
/* Drops the builds not started. */
void unwind_files_drop_jobs(struct unwind_maps *um);

/* unwind_maps.c: sweeping images that are gone and loading evicted tables
 * again; at most once a second, from either thread. */
void unwind_maps_housekeep(struct unwind_maps *um);

/* unwind_shares.c */
/* The share of pid's user (its real uid), made if new; NULL out of memory. */
struct ushare *unwind_shares_of(struct unwind_maps *um, pid_t pid);
void unwind_shares_free(struct unwind_maps *um);
/* A user's share of each table. */
size_t unwind_shares_files(void);
size_t unwind_shares_prefixes(void);
uint64_t unwind_shares_slots(const struct unwind_maps *um);
enum victims {
	VICTIM_ENTRY,        /* an "unwind_files" entry, table or not */
	VICTIM_SLOTS,        /* a loaded table's shard slots */
	VICTIM_SLOTS_RELOAD, /* the same for an evicted table coming back: not
			      * the asker's own mapped ones (no ping-pong) */
};
/* What to evict so that a file of share sh finds room, never one mapped in
 * this update or being built: files no process maps first, then those of
 * users over their share (a user may use more while no one else needs
 * it), then sh's own, least recently mapped first.  NULL: nothing may go. */
struct ufile *unwind_shares_victim(struct unwind_maps *um, const struct ushare *sh,
				   enum victims which);

#endif
