// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Walking a BPF map from user space (see map_walk.h): the batch buffers,
 * their growth when a hash bucket outgrows them, and the walk by keys for
 * kernels and map types without batch lookups.  map_walk__clear is the same walk
 * with each batch deleted as it is read (BPF_MAP_LOOKUP_AND_DELETE_BATCH).
 *
 * Batches (BPF_MAP_LOOKUP_BATCH, Linux 5.6): one call per MAP_WALK_BATCH
 * entries, where bpf_map_get_next_key + bpf_map_lookup_elem take two per
 * entry.  A hash map's batch token is a bucket number and a bucket is
 * copied whole under its lock, so deletions never make a batch walk start
 * over or see a key twice.  The kernel never splits a bucket: one holding
 * more entries than the buffer fails the call with ENOSPC, and the walk
 * asks again for that bucket with twice the room, up to the map's size.
 * (Other types, arrays and LPM tries, batch by get_next_key in the kernel,
 * the last key read as the token.)
 *
 * By keys: bpf_map_get_next_key from a key deleted since starts over at the
 * first bucket, repeating every key before it.  So the keys are collected
 * first, repeats dropped, and each is then looked up once; a key deleted
 * before its lookup is left out, as a batch read after it would.  A walk
 * whose key keeps being deleted under it keeps starting over; it ends once
 * it reaches the last key.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "lib/grow.h"
#include "capture/map_walk.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's own, which bpf(2) passes on */
#endif

struct batch {
	char *keys, *vals;
	char *in, *out; /* tokens: a u32 bucket number, or a key (other types) */
	size_t key_size, val_size;
	uint32_t cap; /* entries both buffers hold */
	bool delete;  /* map_walk__clear's: each entry deleted as it is read */
};

static int batch_resize(struct batch *b, uint32_t cap)
{
	char *p = realloc(b->keys, (size_t)cap * b->key_size);

	if (!p)
		return -ENOMEM;
	b->keys = p;
	if (!(p = realloc(b->vals, (size_t)cap * b->val_size)))
		return -ENOMEM;
	b->vals = p;
	b->cap = cap;
	return 0;
}

/* Room for a bucket that did not fit: twice the buffer, never past the
 * map's size, which no bucket can exceed. */
static int batch_grow(int fd, struct batch *b)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (b->cap >= info.max_entries)
		return -ENOSPC;
	return batch_resize(b, b->cap > info.max_entries / 2 ? info.max_entries : b->cap * 2);
}

/* A first batch call failing so: no batch lookups in this kernel (before
 * 5.6 bpf(2) knows no such command) or for this map type. */
static bool refused(int e)
{
	return e == -EINVAL || e == -ENOTSUPP || e == -EOPNOTSUPP || e == -ENOSYS;
}

/* The walk by batches; *by_keys set when the kernel refuses batches. */
static int walk_batches(int fd, struct batch *b, map_walk_fn fn, void *arg, bool *by_keys)
{
	size_t token = b->key_size > 8 ? b->key_size : 8;
	bool first = true;
	uint32_t n;
	int e, stop = 0;

	if (!(b->in = calloc(2, token)))
		return -ENOMEM;
	b->out = b->in + token;
	if ((e = batch_resize(b, MAP_WALK_BATCH)))
		return e;
	do {
		n = b->cap;
		e = (b->delete ? bpf_map_lookup_and_delete_batch : bpf_map_lookup_batch)(
			fd, first ? NULL : b->in, b->out, b->keys, b->vals, &n, NULL);
		e = e ? -errno : 0;
		if (e == -ENOSPC) {
			e = batch_grow(fd, b); /* and the same bucket again */
			continue;
		}
		if (first && refused(e)) {
			*by_keys = true;
			return 0;
		}
		/* -ENOENT: the last batch, maybe with entries */
		for (uint32_t i = 0; fn && (!e || e == -ENOENT) && i < n && !stop; i++)
			stop = fn(b->keys + i * b->key_size, b->vals + i * b->val_size, arg);
		memcpy(b->in, b->out, token);
		first = false;
	} while (!e && !stop);
	return stop ? stop : e == -ENOENT ? 0 : e;
}

struct keys {
	char *buf;
	size_t nr, cap, size;
};

static int by_bytes(const void *a, const void *b, void *size)
{
	return memcmp(a, b, *(const size_t *)size);
}

/* Sorts the keys and drops repeats. */
static void keys_unique(struct keys *k)
{
	size_t n = 0;

	if (!k->nr)
		return;
	qsort_r(k->buf, k->nr, k->size, by_bytes, &k->size);
	for (size_t i = 1; i < k->nr; i++)
		if (memcmp(k->buf + n * k->size, k->buf + i * k->size, k->size))
			memcpy(k->buf + ++n * k->size, k->buf + i * k->size, k->size);
	k->nr = n + 1;
}

/* Room for one more key: repeats go before the list grows, so it stays
 * within four times the map's keys however often the walk starts over. */
static int keys_room(struct keys *k)
{
	if (k->nr < k->cap)
		return 0;
	keys_unique(k);
	if (k->nr && k->nr <= k->cap / 2)
		return 0;
	return grow__room((void **)&k->buf, &k->cap, k->nr + 1, k->size, MAP_WALK_BATCH, 0);
}

static int keys_collect(int fd, struct keys *k)
{
	char *prev = malloc(k->size); /* apart: keys_room reorders the list */
	int e = prev ? 0 : -ENOMEM;
	bool first = true;

	while (!e && !(e = keys_room(k))) {
		if (bpf_map_get_next_key(fd, first ? NULL : prev, k->buf + k->nr * k->size)) {
			e = errno == ENOENT ? 0 : -errno;
			break;
		}
		memcpy(prev, k->buf + k->nr++ * k->size, k->size);
		first = false;
	}
	free(prev);
	return e;
}

static int walk_keys(int fd, struct batch *b, map_walk_fn fn, void *arg)
{
	struct keys k = { .size = b->key_size };
	int e = keys_collect(fd, &k);

	keys_unique(&k);
	for (size_t i = 0; !e && i < k.nr; i++) {
		const char *key = k.buf + i * k.size;

		if (b->delete ? bpf_map_delete_elem(fd, key) : bpf_map_lookup_elem(fd, key, b->vals))
			e = errno == ENOENT ? 0 : -errno; /* ENOENT: deleted since */
		else if (fn)
			e = fn(key, b->vals, arg);
	}
	free(k.buf);
	return e;
}

static int walk(int fd, struct batch *b, map_walk_fn fn, void *arg)
{
	bool by_keys = false;
	int e = walk_batches(fd, b, fn, arg, &by_keys);

	/* refused before anything was read: start from scratch */
	if (by_keys)
		e = walk_keys(fd, b, fn, arg);
	free(b->in);
	free(b->keys);
	free(b->vals);
	return e;
}

int map_walk__each(int fd, size_t key_size, size_t val_size, map_walk_fn fn, void *arg)
{
	struct batch b = { .key_size = key_size, .val_size = val_size };

	return walk(fd, &b, fn, arg);
}

int map_walk__clear(int fd, size_t key_size, size_t val_size)
{
	struct batch b = { .key_size = key_size, .val_size = val_size, .delete = true };

	return walk(fd, &b, NULL, NULL);
}
