// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cache of per-file data keyed by file identity (see filecache.h):
 * owns the chained table of entries (doubled once it averages more than
 * one entry a bucket), the bytes and references they are counted with,
 * and picking what to evict, least recently used first.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files/elf_syms.h"
#include "files/filecache.h"
#include "lib/hash.h"

#define INITIAL_BUCKETS 256

struct filecache {
	struct filecache_ent **buckets;
	size_t nr_buckets, nr;
	size_t bytes;
	uint64_t evicted;
	void (*free_ent)(struct filecache_ent *e, void *arg);
	void *arg;
};

struct file_id file_id__of(int fd, const struct stat *st)
{
	struct file_id id = {
		.dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
		.mtime_sec = st->st_mtim.tv_sec, .mtime_nsec = st->st_mtim.tv_nsec,
		.ctime_sec = st->st_ctim.tv_sec, .ctime_nsec = st->st_ctim.tv_nsec,
	};
	struct statx sx;

	if (!statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_BTIME, &sx) &&
	    (sx.stx_mask & STATX_BTIME)) {
		id.btime_sec = sx.stx_btime.tv_sec;
		id.btime_nsec = sx.stx_btime.tv_nsec;
	}
	if (S_ISREG(st->st_mode))
		elf_file__build_id_fd(fd, id.build_id, sizeof(id.build_id));
	return id;
}

static bool same_id(const struct file_id *a, const struct file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec &&
	       a->btime_sec == b->btime_sec && a->btime_nsec == b->btime_nsec &&
	       !memcmp(a->build_id, b->build_id, sizeof(a->build_id));
}

static size_t id_hash(const struct file_id *k, size_t buckets)
{
	uint64_t h = hash__mix64(k->dev ^ hash__mix64(k->ino ^ hash__mix64(k->size ^
			   hash__mix64(k->mtime_sec ^ hash__mix64(k->mtime_nsec)))));

	h = hash__mix64(h ^ k->ctime_sec ^ hash__mix64(k->ctime_nsec ^
		       hash__mix64(k->btime_sec ^ k->btime_nsec)));
	return h & (buckets - 1);
}

struct filecache *filecache__new(void (*free_ent)(struct filecache_ent *e, void *arg),
				 void *arg)
{
	struct filecache *fc = calloc(1, sizeof(*fc));

	if (!fc)
		return NULL;
	fc->nr_buckets = INITIAL_BUCKETS;
	fc->buckets = calloc(fc->nr_buckets, sizeof(*fc->buckets));
	if (!fc->buckets) {
		free(fc);
		return NULL;
	}
	fc->free_ent = free_ent;
	fc->arg = arg;
	return fc;
}

void filecache__free(struct filecache *fc)
{
	struct filecache_ent *e, *next;

	if (!fc)
		return;
	for (size_t b = 0; b < fc->nr_buckets; b++)
		for (e = fc->buckets[b]; e; e = next) {
			next = e->next;
			fc->free_ent(e, fc->arg);
		}
	free(fc->buckets);
	free(fc);
}

struct filecache_ent *filecache__find(const struct filecache *fc, const struct file_id *id)
{
	struct filecache_ent *e;

	for (e = fc->buckets[id_hash(id, fc->nr_buckets)]; e; e = e->next)
		if (same_id(&e->id, id))
			return e;
	return NULL;
}

static void grow(struct filecache *fc)
{
	size_t i, nb = fc->nr_buckets * 2;
	struct filecache_ent **nt, *e, *next;

	if (fc->nr <= fc->nr_buckets || !(nt = calloc(nb, sizeof(*nt))))
		return;
	for (i = 0; i < fc->nr_buckets; i++) {
		for (e = fc->buckets[i]; e; e = next) {
			next = e->next;
			e->next = nt[id_hash(&e->id, nb)];
			nt[id_hash(&e->id, nb)] = e;
		}
	}
	free(fc->buckets);
	fc->buckets = nt;
	fc->nr_buckets = nb;
}

void filecache__add(struct filecache *fc, struct filecache_ent *e)
{
	size_t b = id_hash(&e->id, fc->nr_buckets);

	e->next = fc->buckets[b];
	fc->buckets[b] = e;
	fc->nr++;
	fc->bytes += e->bytes;
	grow(fc);
}

void filecache__charge(struct filecache *fc, struct filecache_ent *e, size_t more)
{
	e->bytes += more;
	fc->bytes += more;
}

void filecache__hold(struct filecache_ent *e)
{
	e->refs++;
}

void filecache__release(struct filecache_ent *e)
{
	e->refs--;
}

void filecache__evict(struct filecache *fc, struct filecache_ent *e)
{
	struct filecache_ent **pp = &fc->buckets[id_hash(&e->id, fc->nr_buckets)];

	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	fc->bytes -= e->bytes;
	fc->nr--;
	fc->evicted++;
	fc->free_ent(e, fc->arg);
}

struct filecache_ent *filecache__lru(const struct filecache *fc,
				     bool (*want)(const struct filecache_ent *e, void *arg),
				     void *arg)
{
	struct filecache_ent *best = NULL;

	for (size_t b = 0; b < fc->nr_buckets; b++)
		for (struct filecache_ent *e = fc->buckets[b]; e; e = e->next) {
			if (want && !want(e, arg))
				continue;
			if (!best || (!e->refs && best->refs) ||
			    (!e->refs == !best->refs && e->last_used < best->last_used))
				best = e;
		}
	return best;
}

void filecache__for_each(const struct filecache *fc,
			 void (*fn)(struct filecache_ent *e, void *arg), void *arg)
{
	for (size_t b = 0; b < fc->nr_buckets; b++)
		for (struct filecache_ent *e = fc->buckets[b]; e; e = e->next)
			fn(e, arg);
}

/* A trim's candidate: an entry, or one of the owner's others. */
struct victim {
	uint64_t last_used;
	struct filecache_ent *ent;
	void *other;
};

static int victim_cmp(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;

	return x->last_used < y->last_used ? -1 : x->last_used > y->last_used;
}

static bool over(const struct filecache *fc, const struct filecache_trim *t)
{
	return fc->bytes + (t->other_bytes ? *t->other_bytes : 0) > t->limit;
}

void filecache__trim(struct filecache *fc, const struct filecache_trim *t)
{
	struct victim *v;
	size_t n = 0, i;

	if (!over(fc, t))
		return;
	v = malloc((fc->nr + t->nr_others + 1) * sizeof(*v));
	if (!v)
		return;
	for (size_t b = 0; b < fc->nr_buckets; b++)
		for (struct filecache_ent *e = fc->buckets[b]; e; e = e->next)
			if (!e->refs)
				v[n++] = (struct victim){ .last_used = e->last_used, .ent = e };
	for (i = 0; i < t->nr_others; i++)
		v[n++] = (struct victim){ .last_used = t->others[i].last_used,
					  .other = t->others[i].item };
	qsort(v, n, sizeof(*v), victim_cmp);
	for (i = 0; i < n && over(fc, t); i++) {
		if (v[i].ent)
			filecache__evict(fc, v[i].ent);
		else
			t->drop_other(v[i].other, t->arg);
	}
	free(v);
}

void filecache__stats(const struct filecache *fc, struct filecache_stats *out)
{
	*out = (struct filecache_stats){ 0 };
	if (!fc)
		return;
	for (size_t b = 0; b < fc->nr_buckets; b++)
		for (const struct filecache_ent *e = fc->buckets[b]; e; e = e->next)
			out->held += e->refs > 0;
	out->entries = fc->nr;
	out->bytes = fc->bytes;
	out->table_bytes = sizeof(*fc) + fc->nr_buckets * sizeof(*fc->buckets);
	out->evicted = fc->evicted;
}

size_t filecache__bytes(const struct filecache *fc)
{
	return fc ? fc->bytes : 0;
}
