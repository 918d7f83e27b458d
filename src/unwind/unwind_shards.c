// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind shards (see unwind_shards.h): owns the shard maps, their free
 * runs, and the extents held back until a grace period has passed.
 *
 * Free runs are kept per shard, sorted and merged, so a table that is
 * evicted leaves one run and the next table of about its size takes it.
 * Allocation is first fit for the whole request, else the longest run that
 * takes at least the caller's minimum (a page's rows): tables may be split
 * at page boundaries, so fragmentation costs a few duplicated rows, not a
 * failed load.
 *
 * The grace period: updating a slot of an array of maps returns only after
 * synchronize_rcu() (kernel/bpf/syscall.c, maybe_wait_bpf_programs), and
 * BPF programs run under rcu_read_lock(), so putting shard 0 back in its
 * own slot waits for every walk that may have read a released extent's
 * file entry (capture.c's bank rotation relies on the same).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>

#include "lib/grow.h"
#include "lib/log.h"
#include "unwind/unwind_shards.h"

struct shard {
	int fd;
	struct unwind_extent *free; /* sorted by slot, none adjacent */
	size_t nr_free, cap_free;
};

struct unwind_shards {
	int outer_fd;
	uint32_t bits, max;
	struct shard *shards;
	uint32_t nr;
	struct unwind_extent *held; /* released, reusable after a grace period */
	size_t nr_held, cap_held;
	uint64_t used;
	long page;
};

struct unwind_shards *unwind_shards__new(int outer_fd, uint32_t shard_bits, uint32_t max_shards)
{
	struct unwind_shards *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->outer_fd = outer_fd;
	s->bits = shard_bits;
	s->max = max_shards;
	s->page = sysconf(_SC_PAGESIZE);
	s->shards = calloc(max_shards ? max_shards : 1, sizeof(*s->shards));
	if (!s->shards) {
		free(s);
		return NULL;
	}
	return s;
}

/* Puts e back in its shard's free runs, merged with its neighbours. */
static int free_run(struct unwind_shards *s, struct unwind_extent e)
{
	struct shard *sh = &s->shards[e.slot >> s->bits];
	size_t i = 0;

	while (i < sh->nr_free && sh->free[i].slot < e.slot)
		i++;
	if (i > 0 && sh->free[i - 1].slot + sh->free[i - 1].len == e.slot) {
		sh->free[i - 1].len += e.len;
		if (i < sh->nr_free && e.slot + e.len == sh->free[i].slot) {
			sh->free[i - 1].len += sh->free[i].len;
			memmove(&sh->free[i], &sh->free[i + 1], (sh->nr_free - i - 1) * sizeof(e));
			sh->nr_free--;
		}
		return 0;
	}
	if (i < sh->nr_free && e.slot + e.len == sh->free[i].slot) {
		sh->free[i].slot = e.slot;
		sh->free[i].len += e.len;
		return 0;
	}
	if (GROW(sh->free, sh->cap_free, sh->nr_free + 1, 8))
		return -ENOMEM; /* the slots stay lost until exit: rare and bounded */
	memmove(&sh->free[i + 1], &sh->free[i], (sh->nr_free - i) * sizeof(e));
	sh->free[i] = e;
	sh->nr_free++;
	return 0;
}

/* A new shard, all free, in the next slot of the outer map. */
static int add_shard(struct unwind_shards *s)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);
	struct shard *sh = &s->shards[s->nr];
	uint32_t idx = s->nr;
	int fd;

	if (s->nr >= s->max)
		return -ENOSPC;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_shard", sizeof(uint32_t), 8,
			    1u << s->bits, &o);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(s->outer_fd, &idx, &fd, BPF_ANY)) {
		int e = -errno;

		close(fd);
		return e;
	}
	memset(sh, 0, sizeof(*sh));
	sh->fd = fd;
	s->nr++;
	if (free_run(s, (struct unwind_extent){ .slot = idx << s->bits, .len = 1u << s->bits }))
		return -ENOMEM;
	return 0;
}

/* Takes len slots from the start of free run i of shard sh. */
static struct unwind_extent take(struct unwind_shards *s, struct shard *sh, size_t i, uint32_t len)
{
	struct unwind_extent e = { .slot = sh->free[i].slot, .len = len };

	sh->free[i].slot += len;
	sh->free[i].len -= len;
	if (!sh->free[i].len) {
		memmove(&sh->free[i], &sh->free[i + 1], (sh->nr_free - i - 1) * sizeof(e));
		sh->nr_free--;
	}
	s->used += len;
	return e;
}

/* First fit for want, else the longest run of at least min; false if none. */
static bool fit(struct unwind_shards *s, uint32_t want, uint32_t min, struct unwind_extent *out)
{
	struct shard *best = NULL;
	size_t best_i = 0;

	for (uint32_t n = 0; n < s->nr; n++) {
		struct shard *sh = &s->shards[n];

		for (size_t i = 0; i < sh->nr_free; i++) {
			if (sh->free[i].len >= want) {
				*out = take(s, sh, i, want);
				return true;
			}
			if (sh->free[i].len >= min && (!best || sh->free[i].len > best->free[best_i].len)) {
				best = sh;
				best_i = i;
			}
		}
	}
	if (!best)
		return false;
	*out = take(s, best, best_i, best->free[best_i].len);
	return true;
}

int unwind_shards__alloc(struct unwind_shards *s, uint32_t want, uint32_t min,
			 struct unwind_extent *out)
{
	int e;

	if (!min || min > want || min > 1u << s->bits)
		return -EINVAL;
	if (want > 1u << s->bits)
		want = 1u << s->bits;
	for (;;) {
		if (fit(s, want, min, out))
			return 0;
		if (s->nr < s->max) {
			e = add_shard(s);
			if (e)
				return e;
			continue;
		}
		if (!unwind_shards__sync(s))
			return -ENOSPC;
	}
}

int unwind_shards__write(struct unwind_shards *s, uint32_t slot, const void *data, uint32_t n)
{
	uint32_t idx = slot & ((1u << s->bits) - 1);
	struct shard *sh = &s->shards[slot >> s->bits];
	uint64_t start = (uint64_t)idx * 8, off = start & ~(uint64_t)(s->page - 1);
	uint64_t len = (start + (uint64_t)n * 8 - off + s->page - 1) & ~(uint64_t)(s->page - 1);
	char *p;

	if ((slot >> s->bits) >= s->nr || idx + (uint64_t)n > 1u << s->bits)
		return -EINVAL;
	if (!n)
		return 0;
	/* Mapped only while written: the slots stay out of our RSS. */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, sh->fd, off);
	if (p == MAP_FAILED)
		return -errno;
	memcpy(p + (start - off), data, (size_t)n * 8);
	munmap(p, len);
	return 0;
}

void unwind_shards__put_now(struct unwind_shards *s, struct unwind_extent e)
{
	if (!e.len)
		return;
	s->used -= e.len;
	free_run(s, e);
}

void unwind_shards__put(struct unwind_shards *s, struct unwind_extent e)
{
	if (!e.len)
		return;
	if (GROW(s->held, s->cap_held, s->nr_held + 1, 8)) {
		/* cannot even remember it: leave it in use, never reused */
		return;
	}
	s->held[s->nr_held++] = e;
}

bool unwind_shards__sync(struct unwind_shards *s)
{
	uint32_t zero = 0;

	if (!s->nr_held || !s->nr)
		return false;
	/* waits for an RCU grace period (see the top of this file) */
	if (bpf_map_update_elem(s->outer_fd, &zero, &s->shards[0].fd, BPF_ANY)) {
		warn("cannot reuse unwind table memory: %s", log__errstr(errno));
		return false;
	}
	for (size_t i = 0; i < s->nr_held; i++)
		unwind_shards__put_now(s, s->held[i]);
	s->nr_held = 0;
	return true;
}

void unwind_shards__stats(const struct unwind_shards *s, struct unwind_shards_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!s)
		return;
	out->shards = s->nr;
	out->max_shards = s->max;
	out->slots_used = s->used;
	out->shard_bytes = (uint64_t)8 << s->bits;
}

void unwind_shards__free(struct unwind_shards *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nr; i++) {
		close(s->shards[i].fd);
		free(s->shards[i].free);
	}
	free(s->shards);
	free(s->held);
	free(s);
}
