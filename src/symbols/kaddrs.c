// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Sorted kernel symbol addresses in gap-coded blocks (see kaddrs.h). */
#include <errno.h>
#include <string.h>

#include "symbols/kaddrs.h"
#include "lib/addr_search.h"

/* A block's shift sits in the top bits of its offset in gaps: gaps under
 * 512 MiB hold 50M symbols and more, past any kallsyms. */
#define SHIFT_BITS 29
#define OFF_MASK ((1u << SHIFT_BITS) - 1)
#define SHIFT_MAX 7
#define VARINT_MAX 10 /* bytes of a 64-bit varint */

static size_t block_count(const struct kaddrs *ka, size_t b)
{
	size_t left = ka->nr - b * KADDRS_BLOCK;

	return left < KADDRS_BLOCK ? left : KADDRS_BLOCK;
}

/* The trailing zero bits every nonzero gap of the pending block has. */
static unsigned int block_shift(const struct kaddrs *ka, size_t n)
{
	unsigned int shift = SHIFT_MAX;

	for (size_t i = 1; i < n; i++) {
		uint64_t gap = ka->pending[i] - ka->pending[i - 1];

		if (gap && (unsigned int)__builtin_ctzll(gap) < shift)
			shift = __builtin_ctzll(gap);
	}
	return shift;
}

static int flush_block(struct kaddrs *ka, size_t n)
{
	unsigned int shift = block_shift(ka, n);
	uint32_t off = ka->gaps.len | shift << SHIFT_BITS;
	uint8_t *p;
	int e;

	if (ka->gaps.len > OFF_MASK)
		return -EFBIG;
	if ((e = kbuf__append(&ka->base, &ka->pending[0], sizeof(uint64_t))) ||
	    (e = kbuf__append(&ka->off, &off, sizeof(off))) ||
	    (e = kbuf__reserve(&ka->gaps, ka->gaps.len + (n - 1) * VARINT_MAX)))
		return e;
	p = (uint8_t *)ka->gaps.p + ka->gaps.len;
	for (size_t i = 1; i < n; i++) {
		uint64_t v = (ka->pending[i] - ka->pending[i - 1]) >> shift;

		for (; v >= 0x80; v >>= 7)
			*p++ = v | 0x80;
		*p++ = v;
	}
	ka->gaps.len = (char *)p - ka->gaps.p;
	return 0;
}

int kaddrs__push(struct kaddrs *ka, uint64_t addr)
{
	size_t j = ka->nr % KADDRS_BLOCK;

	ka->pending[j] = addr;
	ka->nr++;
	return j == KADDRS_BLOCK - 1 ? flush_block(ka, KADDRS_BLOCK) : 0;
}

int kaddrs__seal(struct kaddrs *ka)
{
	size_t j = ka->nr % KADDRS_BLOCK;

	return j ? flush_block(ka, j) : 0;
}

static uint64_t read_varint(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned int s = 0; s < 64; s += 7) {
		v |= (uint64_t)(*p & 0x7f) << s;
		if (!(*p++ & 0x80))
			break;
	}
	*pp = p;
	return v;
}

/* Block b's addresses up to index j within it: the last one. */
static uint64_t block_addr(const struct kaddrs *ka, size_t b, size_t j)
{
	uint32_t off = ((const uint32_t *)ka->off.p)[b];
	const uint8_t *p = (const uint8_t *)ka->gaps.p + (off & OFF_MASK);
	uint64_t a = ((const uint64_t *)ka->base.p)[b];

	while (j--)
		a += read_varint(&p) << (off >> SHIFT_BITS);
	return a;
}

size_t kaddrs__block(const struct kaddrs *ka, size_t b, uint64_t *out)
{
	uint32_t off = ((const uint32_t *)ka->off.p)[b];
	const uint8_t *p = (const uint8_t *)ka->gaps.p + (off & OFF_MASK);
	size_t n = block_count(ka, b);

	out[0] = ((const uint64_t *)ka->base.p)[b];
	for (size_t j = 1; j < n; j++)
		out[j] = out[j - 1] + (read_varint(&p) << (off >> SHIFT_BITS));
	return n;
}

uint64_t kaddrs__at(const struct kaddrs *ka, size_t i)
{
	return block_addr(ka, i / KADDRS_BLOCK, i % KADDRS_BLOCK);
}

long kaddrs__search(const struct kaddrs *ka, uint64_t addr, uint64_t *found, size_t *run)
{
	size_t nblocks = (ka->nr + KADDRS_BLOCK - 1) / KADDRS_BLOCK, j, n, start = 0;
	long b = addr_search__index(ka->base.p, nblocks, sizeof(uint64_t), 0, addr);
	const uint8_t *p;
	uint32_t off;
	uint64_t a;

	if (b < 0)
		return -1;
	/* the gaps up to the first address past addr, minding where the
	 * last nonzero one was: there the aliases start */
	off = ((const uint32_t *)ka->off.p)[b];
	p = (const uint8_t *)ka->gaps.p + (off & OFF_MASK);
	a = ((const uint64_t *)ka->base.p)[b];
	n = block_count(ka, b);
	for (j = 1; j < n; j++) {
		uint64_t gap = read_varint(&p) << (off >> SHIFT_BITS);

		if (a + gap > addr)
			break;
		a += gap;
		start = gap ? j : start;
	}
	*found = a;
	*run = b * KADDRS_BLOCK + start;
	/* aliases from blocks before: rare, each block's last address read */
	while (!start && *run > 0 && kaddrs__at(ka, *run - 1) == a)
		(*run)--;
	return (long)(b * KADDRS_BLOCK + j - 1);
}

void kaddrs__release(struct kaddrs *ka)
{
	kbuf__release(&ka->base);
	kbuf__release(&ka->off);
	kbuf__release(&ka->gaps);
	ka->nr = 0;
}
