/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unwind shards: the kernel memory that holds unwind tables, as BPF arrays
 * of 8-byte slots ("shards", include/unwind.h) in one array of maps.  Owns
 * creating shards as they are needed, up to a maximum (the memory budget),
 * handing out runs of free slots ("extents") inside one shard, writing them
 * (the shards are mmapable: a memcpy, no syscall per slot), and taking them
 * back.  An extent a BPF program may still be reading is only reused after
 * an RCU grace period (unwind_shards__sync), so a walk never reads a row
 * another table has half overwritten.
 */
#ifndef SMOLDER_UNWIND_SHARDS_H
#define SMOLDER_UNWIND_SHARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct unwind_shards;

struct unwind_extent {
	uint32_t slot; /* global slot number: shard << shard_bits | index */
	uint32_t len;  /* slots */
};

/* outer_fd: the array of maps (max_shards slots); nothing is created yet. */
struct unwind_shards *unwind_shards__new(int outer_fd, uint32_t shard_bits, uint32_t max_shards);
/*
 * An extent of min to want slots inside one shard: the first free run of
 * want slots, else the longest of at least min, creating a shard or
 * waiting for held-back extents when none has room.  0, -ENOSPC (the
 * budget is used up: free something and retry) or another -errno.
 */
int unwind_shards__alloc(struct unwind_shards *s, uint32_t want, uint32_t min,
			 struct unwind_extent *out);
/* Writes n slots of data from global slot `slot` on (inside one extent). */
int unwind_shards__write(struct unwind_shards *s, uint32_t slot, const void *data, uint32_t n);
/* Takes back an extent no BPF program can have seen (never published). */
void unwind_shards__put_now(struct unwind_shards *s, struct unwind_extent e);
/* Takes back an extent BPF programs may still read: reused after a sync. */
void unwind_shards__put(struct unwind_shards *s, struct unwind_extent e);
/* Waits for an RCU grace period if extents are held back, then makes them
 * free.  True if it freed any. */
bool unwind_shards__sync(struct unwind_shards *s);

struct unwind_shards_stats {
	uint32_t shards, max_shards;
	uint64_t slots_used;   /* in extents handed out or held back */
	uint64_t shard_bytes;  /* the slots' kernel memory of one shard */
};
void unwind_shards__stats(const struct unwind_shards *s, struct unwind_shards_stats *out);
void unwind_shards__free(struct unwind_shards *s);

#endif
