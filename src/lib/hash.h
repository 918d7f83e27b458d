/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The hashes of the hash tables and sets, in one place.  hash__mix64 spreads
 * an integer key over all 64 bits (the 64-bit finalizer of MurmurHash3);
 * keys of several fields chain it: hash__mix64(a ^ hash__mix64(b)).
 * hash__fnv1a hashes bytes (FNV-1a): simple, and the same in every run and
 * build, so an output may depend on its values.
 */
#ifndef SMOLDER_HASH_H
#define SMOLDER_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV_OFFSET 0xcbf29ce484222325ULL /* hash__fnv1a's first h */

static inline uint64_t hash__mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* h (HASH_FNV_OFFSET, or the hash so far) with len more bytes at p. */
static inline uint64_t hash__fnv1a(uint64_t h, const void *p, size_t len)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h;
}

/* h with n more 32-bit words (FNV-1a a word at a time: frame ids). */
static inline uint64_t hash__fnv1a_words(uint64_t h, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	return h;
}

#endif
