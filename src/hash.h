/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The hash of a 64-bit key for smolder's own tables: MurmurHash3's
 * finalizer, which spreads every input bit over the output, so that
 * masking the low bits for a bucket works for keys that differ only in
 * their high bits (inodes, addresses, PIDs).
 */
#ifndef SMOLDER_HASH_H
#define SMOLDER_HASH_H

#include <stdint.h>

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

#endif
