/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A cache of what smolder derives from a file, keyed by the file's identity
 * (the same file, unchanged, whichever process maps it and by whatever
 * path), shared by every process that maps it.  The identity is what the
 * file's owner cannot set: device and inode, which a file system hands to
 * the next file once one is deleted, with the change time (any write or
 * utimes sets it to the clock) and, where the file system keeps one, the
 * birth time; size and mtime come along, but an owner sets mtime at will.
 * An ELF file's build id joins them, where it has one.
 * One implementation for the symbol tables (symcache.c) and the unwind
 * tables (unwind_files.c).  Owns the table of entries, their references
 * (an entry someone holds is never evicted), their last use and the bytes
 * they cost, eviction least recently used first, and trimming to a limit.
 *
 * The payload is the owner's: it embeds struct filecache_ent in its own
 * struct and frees it in the callback given to filecache__new.  Not
 * thread-safe: an owner that shares one across threads locks it.
 */
#ifndef SMOLDER_FILECACHE_H
#define SMOLDER_FILECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define FILE_ID_BUILD_ID 20 /* a SHA-1 build id, as GNU ld and lld write */

struct file_id {
	uint64_t dev, ino, size, mtime_sec, mtime_nsec;
	uint64_t ctime_sec, ctime_nsec;
	uint64_t btime_sec, btime_nsec; /* 0 where the file system keeps none */
	uint8_t build_id[FILE_ID_BUILD_ID]; /* its first bytes; zeros: none */
};

/* The identity of the file open on fd, whose fstat is st. */
struct file_id file_id__of(int fd, const struct stat *st);

struct filecache_ent {
	struct filecache_ent *next; /* the cache's */
	struct file_id id;
	size_t refs;        /* holders: not evicted while held */
	uint64_t last_used; /* on the owner's clock (an interval, a tick) */
	size_t bytes;       /* what it costs, counted in filecache__bytes */
};

struct filecache;

/* free_ent frees an entry the cache lets go of (evicted, or the cache freed). */
struct filecache *filecache__new(void (*free_ent)(struct filecache_ent *e, void *arg),
				 void *arg);
/* Frees every entry, then the cache. */
void filecache__free(struct filecache *fc);

struct filecache_ent *filecache__find(const struct filecache *fc, const struct file_id *id);
/* Adds e (its id set; its bytes counted as they are); the cache frees it. */
void filecache__add(struct filecache *fc, struct filecache_ent *e);
/* e costs `more` bytes more than it did. */
void filecache__charge(struct filecache *fc, struct filecache_ent *e, size_t more);
void filecache__hold(struct filecache_ent *e);
void filecache__release(struct filecache_ent *e);
/* Removes and frees e, which no one holds; counted as evicted. */
void filecache__evict(struct filecache *fc, struct filecache_ent *e);

/*
 * The least recently used entry want() accepts (want NULL: any), entries
 * no one holds before held ones; NULL if none.  For an owner whose eviction
 * keeps the entry (unloads what it stands for) rather than freeing it.
 */
struct filecache_ent *filecache__lru(const struct filecache *fc,
				     bool (*want)(const struct filecache_ent *e, void *arg),
				     void *arg);

/* Calls fn for every entry; fn may not add or remove entries. */
void filecache__for_each(const struct filecache *fc,
			 void (*fn)(struct filecache_ent *e, void *arg), void *arg);

/* Something besides entries that a trim may free: the owner's other
 * memory under the same limit (a process's JIT map), ordered with them. */
struct filecache_other {
	uint64_t last_used;
	void *item;
};

struct filecache_trim {
	size_t limit;              /* until filecache__bytes + *other_bytes is within */
	const size_t *other_bytes; /* NULL: none */
	const struct filecache_other *others;
	size_t nr_others;
	void (*drop_other)(void *item, void *arg); /* lowers *other_bytes */
	void *arg;
};

/*
 * Frees entries no one holds, and t's others, least recently used first,
 * until the bytes are within t->limit.  Out of memory: nothing is freed
 * (the owner tries again later).
 */
void filecache__trim(struct filecache *fc, const struct filecache_trim *t);

struct filecache_stats {
	size_t entries, held;
	size_t bytes;       /* of the entries */
	size_t table_bytes; /* the cache's own: its buckets */
	uint64_t evicted;
};
void filecache__stats(const struct filecache *fc, struct filecache_stats *out);
size_t filecache__bytes(const struct filecache *fc);

#endif
