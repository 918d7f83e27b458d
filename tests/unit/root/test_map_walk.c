// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * map_walk and map_walk__clear against real BPF maps created here.  A hash map of
 * 10,000 entries whose hash seed is zero (BPF_F_ZERO_SEED), so that keys
 * can be chosen by the kernel's bucket hash: three buckets hold over twice
 * a batch each, and the kernel's ENOSPC for them is checked before the
 * walk.  Each entry is seen once with its value, fn's nonzero
 * return stops the walk and comes back, entries deleted while walked (by
 * fn, by another thread) are never seen twice, an empty map gives no call.
 * A devmap hash, for which the kernel refuses batch lookups (checked), is
 * walked by keys the same way.  The time of a batch walk and of a
 * get_next_key walk of 100,000 entries is printed, never checked.
 * Needs root (it creates BPF maps).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>

#include "capture/map_walk.h"
#include "unit.h"

#define ENTRIES 10000
#define MAX_ENTRIES 16384 /* a hash map of this many has as many buckets */
#define CROWDED 3         /* buckets holding CROWD entries each: */
#define CROWD (2 * MAP_WALK_BATCH + 188) /* the batch doubles twice */
#define BIG 100000

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

struct val {
	uint64_t idx;   /* into keys[] */
	uint64_t check; /* derived from the key */
};

static uint64_t check_of(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ull ^ 0x5bd1e995;
}

/*
 * The map kinds: a hash of keys[i] to { i, check_of(keys[i]) }, and a
 * devmap hash (no batch lookups) of i + 1 to the loopback's ifindex, the
 * only values it takes.
 */
enum kind { HASH, DEVMAP };

static uint64_t keys[BIG];
static uint32_t lo; /* the loopback's ifindex */

static size_t key_size(enum kind k)
{
	return k == HASH ? sizeof(uint64_t) : sizeof(uint32_t);
}

static size_t val_size(enum kind k)
{
	return k == HASH ? sizeof(struct val) : sizeof(uint32_t);
}

/* Entry i's key, in buf (8 bytes). */
static void *key_of(enum kind k, size_t i, void *buf)
{
	if (k == HASH)
		memcpy(buf, &keys[i], sizeof(keys[i]));
	else
		*(uint32_t *)buf = i + 1;
	return buf;
}

/* The entry a key and value are, or -1 if they do not belong together. */
static long entry_of(enum kind k, const void *key, const void *val)
{
	const struct val *v = val;
	uint64_t hk = k == HASH ? *(const uint64_t *)key : 0;
	uint32_t dk = k == DEVMAP ? *(const uint32_t *)key : 0;

	if (k == HASH)
		return v->idx < ENTRIES && keys[v->idx] == hk && v->check == check_of(hk) ? (long)v->idx : -1;
	return dk >= 1 && dk <= ENTRIES && *(const uint32_t *)val == lo ? (long)dk - 1 : -1;
}

static uint32_t rol32(uint32_t w, int s)
{
	return w << s | w >> (32 - s);
}

/* The kernel's bucket hash of an 8-byte key with seed 0: Bob Jenkins'
 * lookup3 over two 32-bit words (linux/jhash.h's jhash2). */
static uint32_t bucket_hash(uint64_t key)
{
	uint32_t w[2], a, b, c;

	memcpy(w, &key, sizeof(w));
	a = b = c = 0xdeadbeef + (2 << 2);
	b += w[1];
	a += w[0];
	c ^= b, c -= rol32(b, 14);
	a ^= c, a -= rol32(c, 11);
	b ^= a, b -= rol32(a, 25);
	c ^= b, c -= rol32(b, 16);
	a ^= c, a -= rol32(c, 4);
	b ^= a, b -= rol32(a, 14);
	c ^= b, c -= rol32(b, 24);
	return c;
}

/* keys[0..ENTRIES): CROWD in each of buckets 1..CROWDED, the rest elsewhere. */
static void choose_keys(void)
{
	size_t in[CROWDED + 1] = { 0 }, nr = 0, others = 0;

	for (uint64_t k = 1; nr < ENTRIES; k++) {
		uint32_t bucket = bucket_hash(k) & (MAX_ENTRIES - 1);

		if (bucket >= 1 && bucket <= CROWDED ? in[bucket]++ < CROWD
						     : others++ < ENTRIES - CROWDED * CROWD)
			keys[nr++] = k;
	}
}

static int hash_map(uint32_t max_entries, bool zero_seed)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = zero_seed ? BPF_F_ZERO_SEED : 0);

	return bpf_map_create(BPF_MAP_TYPE_HASH, "walk_hash", sizeof(uint64_t), sizeof(struct val),
			      max_entries, &o);
}

static int devmap(void)
{
	return bpf_map_create(BPF_MAP_TYPE_DEVMAP_HASH, "walk_devmap", sizeof(uint32_t),
			      sizeof(uint32_t), MAX_ENTRIES, NULL);
}

static int fill(int fd, enum kind k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct val v = { i, check_of(keys[i]) };
		uint64_t key;

		if (bpf_map_update_elem(fd, key_of(k, i, &key), k == HASH ? (void *)&v : (void *)&lo,
					BPF_NOEXIST))
			return -errno;
	}
	return 0;
}

/* A filled map of kind k, or -1. */
static int filled(enum kind k)
{
	int fd = k == HASH ? hash_map(MAX_ENTRIES, true) : devmap();

	if (fd >= 0 && fill(fd, k, ENTRIES)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* What a walk saw. */
struct seen {
	int fd;
	enum kind kind;
	uint32_t times[BIG];
	size_t calls, wrong;
	size_t stop_at;   /* return 42 on this call (1-based), 0: never */
	bool delete_odd;  /* fn deletes the odd entries, the current one first */
};

static int visit(const void *key, const void *val, void *arg)
{
	struct seen *s = arg;
	long i = entry_of(s->kind, key, val);
	uint64_t next;

	if (i < 0) {
		s->wrong++;
		return 0;
	}
	s->times[i]++;
	if (s->delete_odd && i % 2) {
		bpf_map_delete_elem(s->fd, key);
		if (i + 2 < ENTRIES) /* an entry the walk may not have reached */
			bpf_map_delete_elem(s->fd, key_of(s->kind, i + 2, &next));
	}
	return ++s->calls == s->stop_at ? 42 : 0;
}

static struct seen *walk(int fd, enum kind k, int *ret)
{
	struct seen *s = calloc(1, sizeof(*s));

	s->fd = fd;
	s->kind = k;
	*ret = map_walk__each(fd, key_size(k), val_size(k), visit, s);
	return s;
}

static size_t count_entries(int fd, enum kind k)
{
	int ret;
	struct seen *s = walk(fd, k, &ret);
	size_t n = ret ? (size_t)-1 : s->calls;

	free(s);
	return n;
}

/* Entries 0..ENTRIES each seen once, with their values. */
static void check_each_once(const struct seen *s)
{
	size_t twice = 0, missed = 0;

	for (size_t i = 0; i < ENTRIES; i++) {
		twice += s->times[i] > 1;
		missed += s->times[i] == 0;
	}
	CHECK(s->wrong == 0);
	CHECK(twice == 0);
	CHECK(missed == 0);
	CHECK(s->calls == ENTRIES);
}

TEST(hash_walk_sees_each_entry_once)
{
	int fd = filled(HASH), ret;
	uint64_t bucket = 1, out;
	uint32_t n = MAP_WALK_BATCH;
	char *kbuf = malloc(MAP_WALK_BATCH * sizeof(uint64_t));
	char *vbuf = malloc(MAP_WALK_BATCH * sizeof(struct val));
	struct seen *s;

	CHECK(fd >= 0);
	/* the crowded bucket is real: the kernel will not split it */
	CHECK(bpf_map_lookup_batch(fd, &bucket, &out, kbuf, vbuf, &n, NULL) && errno == ENOSPC);
	free(kbuf);
	free(vbuf);
	s = walk(fd, HASH, &ret);
	CHECK(ret == 0);
	check_each_once(s);
	free(s);
	close(fd);
}

/* The kernel has no batch lookups for devmap hashes: the walk goes by keys. */
TEST(devmap_walk_sees_each_entry_once)
{
	int fd = filled(DEVMAP), ret;
	uint32_t kbuf[4], vbuf[4], n = 4;
	struct seen *s;

	CHECK(fd >= 0);
	CHECK(bpf_map_lookup_batch(fd, NULL, &(uint64_t){ 0 }, kbuf, vbuf, &n, NULL) &&
	      (errno == EINVAL || errno == ENOTSUPP || errno == EOPNOTSUPP || errno == ENOSYS));
	s = walk(fd, DEVMAP, &ret);
	CHECK(ret == 0);
	check_each_once(s);
	free(s);
	close(fd);
}

static void check_stop(enum kind k)
{
	struct seen *s = calloc(1, sizeof(*s));
	int fd = filled(k);

	CHECK(fd >= 0);
	s->kind = k;
	s->stop_at = ENTRIES / 2;
	CHECK(map_walk__each(fd, key_size(k), val_size(k), visit, s) == 42);
	CHECK(s->calls == ENTRIES / 2);
	free(s);
	close(fd);
}

TEST(nonzero_return_stops_the_walk)
{
	check_stop(HASH);
	check_stop(DEVMAP);
}

TEST(empty_map_gives_no_call)
{
	int hash = hash_map(MAX_ENTRIES, true), dev = devmap();

	CHECK(hash >= 0 && dev >= 0);
	CHECK(count_entries(hash, HASH) == 0);
	CHECK(count_entries(dev, DEVMAP) == 0);
	CHECK(map_walk__clear(hash, key_size(HASH), val_size(HASH)) == 0);
	CHECK(map_walk__clear(dev, key_size(DEVMAP), val_size(DEVMAP)) == 0);
	close(hash);
	close(dev);
}

TEST(bad_fd_is_an_error)
{
	struct seen *s = calloc(1, sizeof(*s));

	CHECK(map_walk__each(-1, sizeof(uint64_t), sizeof(struct val), visit, s) == -EBADF);
	CHECK(s->calls == 0);
	free(s);
}

/*
 * fn deletes each odd entry it is given and the odd one two further on,
 * which the walk may not have reached: every even entry seen once, no odd
 * one twice, and the odd ones gone.
 */
static void check_delete_in_fn(enum kind k)
{
	struct seen *s = calloc(1, sizeof(*s));
	size_t twice = 0, missed = 0;
	int fd = filled(k);

	CHECK(fd >= 0);
	s->fd = fd;
	s->kind = k;
	s->delete_odd = true;
	CHECK(map_walk__each(fd, key_size(k), val_size(k), visit, s) == 0);
	for (size_t i = 0; i < ENTRIES; i++) {
		twice += s->times[i] > 1;
		missed += i % 2 == 0 && !s->times[i];
	}
	CHECK(s->wrong == 0 && twice == 0 && missed == 0);
	CHECK(count_entries(fd, k) == ENTRIES / 2);
	free(s);
	close(fd);
}

TEST(deleting_in_fn_repeats_nothing)
{
	check_delete_in_fn(HASH);
	check_delete_in_fn(DEVMAP);
}

struct deleter {
	int fd;
	enum kind kind;
};

/* Deletes the odd entries, last first, while the walk runs. */
static void *delete_odd(void *arg)
{
	const struct deleter *d = arg;

	uint64_t key;

	for (long i = ENTRIES - 1; i > 0; i -= 2)
		bpf_map_delete_elem(d->fd, key_of(d->kind, i, &key));
	return NULL;
}

/* Another thread deletes half the entries during the walk: the others are
 * each seen once, the deleted ones at most once (get_next_key, which the
 * devmap's walk uses, starts over when its key goes). */
static void check_concurrent_delete(enum kind k)
{
	int fd = filled(k), ret;
	struct deleter d = { fd, k };
	size_t twice = 0, missed = 0;
	struct seen *s;
	pthread_t t;

	CHECK(fd >= 0);
	CHECK(pthread_create(&t, NULL, delete_odd, &d) == 0);
	s = walk(fd, k, &ret);
	pthread_join(t, NULL);
	CHECK(ret == 0);
	for (size_t i = 0; i < ENTRIES; i++) {
		twice += s->times[i] > 1;
		missed += i % 2 == 0 && !s->times[i];
	}
	CHECK(s->wrong == 0 && twice == 0 && missed == 0);
	free(s);
	close(fd);
}

TEST(concurrent_deletion_repeats_nothing)
{
	for (int round = 0; round < 5; round++) {
		check_concurrent_delete(HASH);
		check_concurrent_delete(DEVMAP);
	}
}

TEST(clear_empties_crowded_buckets)
{
	int hash = filled(HASH), dev = filled(DEVMAP);

	CHECK(hash >= 0 && dev >= 0);
	CHECK(map_walk__clear(hash, key_size(HASH), val_size(HASH)) == 0);
	CHECK(map_walk__clear(dev, key_size(DEVMAP), val_size(DEVMAP)) == 0);
	CHECK(count_entries(hash, HASH) == 0);
	CHECK(count_entries(dev, DEVMAP) == 0);
	close(hash);
	close(dev);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int sum_val(const void *key __attribute__((unused)), const void *val, void *arg)
{
	*(uint64_t *)arg += ((const struct val *)val)->check;
	return 0;
}

/* The walk the count bank had before map_walk: two syscalls per entry. */
static int next_key_walk(int fd, uint64_t *sum)
{
	uint64_t key, next;
	struct val v;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &v))
			*sum += v.check;
		key = next;
		prev = &key;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* Printed for the record (best of 3 each), never checked: timings belong
 * to benches, and this machine is shared. */
TEST(batch_against_next_key_timing)
{
	int fd = hash_map(BIG, false);
	double best[2] = { 1e9, 1e9 };
	uint64_t want = 0;

	for (size_t i = 0; i < BIG; i++) {
		keys[i] = i * 2654435761u + 1;
		want += check_of(keys[i]);
	}
	CHECK(fd >= 0 && fill(fd, HASH, BIG) == 0);
	for (int run = 0; run < 3; run++) {
		uint64_t sum[2] = { 0, 0 };
		double t0 = now(), t1, t2;

		CHECK(map_walk__each(fd, sizeof(uint64_t), sizeof(struct val), sum_val, &sum[0]) == 0);
		t1 = now();
		CHECK(next_key_walk(fd, &sum[1]) == 0);
		t2 = now();
		CHECK(sum[0] == want && sum[1] == want);
		best[0] = t1 - t0 < best[0] ? t1 - t0 : best[0];
		best[1] = t2 - t1 < best[1] ? t2 - t1 : best[1];
	}
	printf("  %d entries: map_walk %.2f ms, get_next_key + lookup_elem %.2f ms (%.1fx)\n",
	       BIG, best[0] * 1e3, best[1] * 1e3, best[1] / best[0]);
	close(fd);
}

int main(void)
{
	if (geteuid()) {
		printf("FAIL map_walk: needs root (it creates BPF maps)\n");
		return 1;
	}
	choose_keys();
	lo = if_nametoindex("lo");
	RUN(hash_walk_sees_each_entry_once);
	RUN(devmap_walk_sees_each_entry_once);
	RUN(nonzero_return_stops_the_walk);
	RUN(empty_map_gives_no_call);
	RUN(bad_fd_is_an_error);
	RUN(deleting_in_fn_repeats_nothing);
	RUN(concurrent_deletion_repeats_nothing);
	RUN(clear_empties_crowded_buckets);
	RUN(batch_against_next_key_timing);
	UNIT_EXIT();
}
