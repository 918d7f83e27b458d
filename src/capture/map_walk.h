/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Walking a BPF map from user space: every entry, key and value, handed to
 * a callback, or deleted, a batch of entries per bpf(2) call.  The one way
 * src/ reads or empties a whole hash map (the count and stack banks, the
 * off-CPU and name maps).
 *
 *	static int add(const void *key, const void *val, void *arg) { ... }
 *	e = map_walk__each(fd, sizeof(struct sample_key), sizeof(__u64), add, &sum);
 */
#ifndef SMOLDER_MAP_WALK_H
#define SMOLDER_MAP_WALK_H

#include <stddef.h>

/* Entries asked for per batch; more while one hash bucket holds more. */
#define MAP_WALK_BATCH 256

/*
 * One entry: key and val point at key_size and val_size bytes, aligned for
 * the map's types, valid until fn returns.  Nonzero stops the walk.  fn may
 * delete entries from the map, this one included.
 */
typedef int (*map_walk_fn)(const void *key, const void *val, void *arg);

/*
 * Calls fn for each entry of the map fd.  key_size and val_size are the
 * map's (a per-CPU map's value is its size rounded up to 8, times the
 * possible CPUs).  Returns 0, fn's nonzero return, or -errno (-ENOMEM when
 * memory is short); every buffer is freed on every path.
 *
 * While entries of a hash map come and go (BPF programs, or fn deleting),
 * an entry present from the walk's start to its end is seen exactly once,
 * and one inserted or deleted meanwhile at most once: never twice.  (Other
 * map types walk as their kernel batches them: an LPM trie's batch starts
 * over when its last key is deleted.)
 */
int map_walk__each(int fd, size_t key_size, size_t val_size, map_walk_fn fn, void *arg);

/* Deletes every entry of the map fd, as map_walk reads them: 0 or -errno.
 * An entry inserted meanwhile may stay. */
int map_walk__clear(int fd, size_t key_size, size_t val_size);

#endif
