// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Another task's user stack, walked from user space by the BPF unwinder's
 * own code (see task_walk.h): bpf/unwind.bpf.h compiled here, as
 * tests/replay/walk.c compiles it, with the two helpers it calls answered
 * from the live kernel maps (bpf syscalls) and from the task's memory
 * (process_vm_readv); the shards of rows are mapped, as the loader writes
 * them, and stay so until task_walk__end.  A lookup's value lives in a
 * small ring of buffers: the walk reads a value before its next-but-several
 * lookup.  Not
 * thread-safe: the walk's per-CPU state is a static slot here.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "smolder.h"
#include "unwind/task_walk.h"

#define SEC(name)
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define __array(name, val) typeof(val) *name[]
#define __noinline __attribute__((noinline))
/* the walk's names, not the BPF program's or the replay's */
#define bpf_map_lookup_elem task_walk_lookup
#define bpf_probe_read_user task_walk_read_user
#define bpf_loop task_walk_loop
#define unwind_shards task_walk_shards
#define unwind_files task_walk_files
#define unwind_mappings task_walk_mappings
#define unwind_scratch task_walk_scratch_map
#define unwind_step task_walk_step

static void *task_walk_lookup(void *map, const void *key);
static long task_walk_read_user(void *dst, __u32 size, const void *src);

/* bpf_loop's contract, as a plain loop: fn(i, ctx) until it returns 1. */
static long task_walk_loop(__u32 nr, long (*fn)(__u64 i, void *ctx), void *ctx, __u64 flags)
{
	__u32 i = 0;

	(void)flags;
	while (i < nr && !fn(i++, ctx))
		;
	return i;
}

static __u32 unwind_shard_bits;
static bool image_events;

#include "unwind.bpf.h" /* the BPF walk itself (-Ibpf, Makefile) */

#undef bpf_map_lookup_elem /* from here on, libbpf's */

#define MAX_SHARDS 4096
#define RING 8

static const struct task_walk_maps *cur;
static pid_t cur_pid;
static struct unwind_scratch scratch_slot;
static char shard_handle[MAX_SHARDS];
static void *shard_map[MAX_SHARDS]; /* NULL: not mapped yet */
static union {
	struct unwind_mapping m;
	struct unwind_file f;
} ring[RING];
static unsigned int ring_next;

static void *value_buf(void)
{
	return &ring[ring_next++ % RING];
}

/* Slot idx of a shard, read through its mapping (the loader writes rows
 * through one too): no system call per row. */
static void *shard_lookup(__u32 shard, __u32 idx)
{
	size_t bytes = (size_t)8 << (unwind_shard_bits & 31);
	void *v;
	__u32 id;
	int fd;

	if (idx >> (unwind_shard_bits & 31))
		return NULL;
	if (!shard_map[shard]) {
		if (bpf_map_lookup_elem(cur->shards_fd, &shard, &id))
			return NULL;
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			return NULL;
		v = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (v == MAP_FAILED)
			return NULL;
		shard_map[shard] = v;
	}
	return (__u64 *)shard_map[shard] + idx;
}

static void *task_walk_lookup(void *map, const void *key)
{
	void *v;
	__u32 k;

	memcpy(&k, key, sizeof(k));
	if ((char *)map >= shard_handle && (char *)map < shard_handle + MAX_SHARDS)
		return shard_lookup((char *)map - shard_handle, k);
	if (map == &unwind_shards)
		return k < MAX_SHARDS && k < cur->max_shards ? &shard_handle[k] : NULL;
	if (map == &unwind_scratch)
		return k < UNWIND_SLOTS ? &scratch_slot : NULL;
	v = value_buf();
	if (map == &unwind_mappings)
		return bpf_map_lookup_elem(cur->mappings_fd, key, v) ? NULL : v;
	if (map == &unwind_files)
		return bpf_map_lookup_elem(cur->files_fd, key, v) ? NULL : v;
	return NULL; /* a map the walk does not use: never */
}

static long task_walk_read_user(void *dst, __u32 size, const void *src)
{
	struct iovec local = { dst, size }, remote = { (void *)src, size };

	if (process_vm_readv(cur_pid, &local, 1, &remote, 1, 0) == (ssize_t)size)
		return 0;
	memset(dst, 0, size);
	return -EFAULT;
}

void task_walk__end(void)
{
	for (size_t i = 0; i < MAX_SHARDS; i++)
		if (shard_map[i]) {
			munmap(shard_map[i], (size_t)8 << (unwind_shard_bits & 31));
			shard_map[i] = NULL;
		}
	cur = NULL;
}

uint32_t task_walk__stack(const struct task_walk_maps *m, const struct task_walk_regs *r,
			  struct stack_trace *out)
{
	struct unwind_scratch *s;
	__u32 zero = 0;

	memset(out, 0, sizeof(*out));
	if (cur != m)
		task_walk__end(); /* the shards of other maps */
	cur = m;
	cur_pid = r->tgid;
	unwind_shard_bits = m->shard_bits;
	image_events = m->image_events;
	s = unwind_begin(zero, r->tgid, r->gen);
	s->pc = r->ip;
	s->sp = r->sp;
	s->bp = r->bp;
	s->lr = r->lr;
	unwind_walk(zero, true);
	*out = s->trace;
	return s->reasons | (s->complete ? TASK_WALK_COMPLETE : 0);
}
