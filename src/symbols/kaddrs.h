/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel symbol table's addresses, sorted: in blocks of KADDRS_BLOCK,
 * each block its first address and the gaps between the others, shifted
 * right by the alignment they all share and written as varints.  Functions
 * are 16-byte aligned and mostly under 2 KiB: ~1.4 bytes an address
 * instead of 8 (6.18).  An address is read by summing the gaps before it
 * in its block.
 */
#ifndef SMOLDER_KADDRS_H
#define SMOLDER_KADDRS_H

#include <stdint.h>
#include "symbols/kbuf.h"

#define KADDRS_BLOCK 32

/* Zeroed, it is empty; its fields are kaddrs.c's. */
struct kaddrs {
	struct kbuf base; /* uint64_t: each block's first address */
	struct kbuf off;  /* uint32_t: where each block's gaps start in gaps, and their shift */
	struct kbuf gaps; /* each block's gaps, varints */
	uint64_t pending[KADDRS_BLOCK]; /* the block being filled */
	size_t nr;
};

/* Appends addr, which is no lower than the last: 0 or -ENOMEM / -EFBIG. */
int kaddrs__push(struct kaddrs *ka, uint64_t addr);
/* Ends the pushes (the last block may be short): 0 or as kaddrs__push. */
int kaddrs__seal(struct kaddrs *ka);
/* The addresses of block b into out, once sealed: how many (the last
 * block's may be fewer than KADDRS_BLOCK). */
size_t kaddrs__block(const struct kaddrs *ka, size_t b, uint64_t *out);
/* The address at index i < ka->nr, once sealed. */
uint64_t kaddrs__at(const struct kaddrs *ka, size_t i);
/*
 * The last index whose address is <= addr, or -1; that address in *found,
 * and in *run the first index with that same address (aliases).
 */
long kaddrs__search(const struct kaddrs *ka, uint64_t addr, uint64_t *found, size_t *run);
void kaddrs__release(struct kaddrs *ka);

#endif
