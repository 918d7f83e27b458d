// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Growable arrays (grow.h) and the shared hashes (hash.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/grow.h"
#include "lib/hash.h"
#include "unit.h"

/* Appends keep every item, and the capacity goes first, 2 * first, ... */
TEST(grow_doubles_and_keeps_items)
{
	uint32_t *v = NULL;
	size_t cap = 0, nr = 0, grew = 0, last_cap = 0;
	int bad = 0;

	for (uint32_t i = 0; i < 100000; i++) {
		if (GROW(v, cap, nr + 1, 64)) {
			bad++;
			break;
		}
		if (cap != last_cap) {
			bad += cap != (last_cap ? last_cap * 2 : 64);
			last_cap = cap;
			grew++;
		}
		v[nr++] = i * 7;
	}
	for (size_t i = 0; i < nr; i++)
		bad += v[i] != i * 7;
	CHECK(!bad);
	CHECK(nr == 100000 && cap == 131072 && grew == 12);
	free(v);
}

/* A larger need than double is met at once; room already there costs nothing. */
TEST(grow_jumps_to_need)
{
	char *b = NULL;
	size_t cap = 0;

	CHECK(!GROW(b, cap, 1000, 256) && cap == 1024);
	b[999] = 'x';
	CHECK(!GROW(b, cap, 1024, 256) && cap == 1024 && b[999] == 'x');
	CHECK(!GROW(b, cap, 5000, 256) && cap == 8192 && b[999] == 'x');
	free(b);
}

/* The maximum caps the capacity; a need over it fails and changes nothing. */
TEST(grow_max)
{
	char *b = NULL;
	size_t cap = 0;

	CHECK(!GROW_MAX(b, cap, 3000, 1024, 3001) && cap == 3001);
	CHECK(GROW_MAX(b, cap, 3002, 1024, 3001) == -E2BIG && cap == 3001 && b);
	free(b);
}

/* A size that would overflow is -ENOMEM, never a short buffer. */
TEST(grow_overflow)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	CHECK(!GROW(v, cap, 4, 4) && cap == 4);
	v[3] = 42;
	CHECK(GROW(v, cap, SIZE_MAX / 4, 4) == -ENOMEM && cap == 4 && v[3] == 42);
	CHECK(GROW(v, cap, SIZE_MAX, 4) == -ENOMEM && cap == 4);
	free(v);
}

/* FNV-1a as published (the 64-bit test vectors), in one call or in pieces. */
TEST(hash_fnv1a_vectors)
{
	CHECK(hash__fnv1a(HASH_FNV_OFFSET, "", 0) == 0xcbf29ce484222325ULL);
	CHECK(hash__fnv1a(HASH_FNV_OFFSET, "a", 1) == 0xaf63dc4c8601ec8cULL);
	CHECK(hash__fnv1a(HASH_FNV_OFFSET, "foobar", 6) == 0x85944171f73967e8ULL);
	CHECK(hash__fnv1a(hash__fnv1a(HASH_FNV_OFFSET, "foo", 3), "bar", 3) ==
	      0x85944171f73967e8ULL);
}

/* The finalizer is a bijection: neighbouring keys land far apart, never together. */
TEST(hash_mix64_spreads)
{
	enum { N = 1 << 16, SLOTS = 1 << 10 };
	static uint32_t per_slot[SLOTS];
	uint32_t most = 0;

	for (uint64_t k = 0; k < N; k++)
		per_slot[hash__mix64(k) & (SLOTS - 1)]++;
	for (size_t i = 0; i < SLOTS; i++)
		most = per_slot[i] > most ? per_slot[i] : most;
	CHECK(most < 2 * N / SLOTS); /* 64 a slot on average */
	CHECK(hash__mix64(1) != hash__mix64(2) && hash__mix64(0) == 0);
}

int main(void)
{
	RUN(grow_doubles_and_keeps_items);
	RUN(grow_jumps_to_need);
	RUN(grow_max);
	RUN(grow_overflow);
	RUN(hash_fnv1a_vectors);
	RUN(hash_mix64_spreads);
	UNIT_EXIT();
}
