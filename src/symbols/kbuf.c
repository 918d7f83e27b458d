// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Growable anonymous mappings for the kernel symbol table (see kbuf.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "symbols/kbuf.h"

/* No part of a kallsyms table comes near this: /proc/kallsyms is ~5 MB. */
#define KBUF_MAX (1ULL << 30)
/* The first mapping: address space only, its pages appear as written. */
#define KBUF_FIRST (64 << 10)

int kbuf__reserve(struct kbuf *b, size_t need)
{
	size_t ncap = b->cap ? b->cap : KBUF_FIRST;
	void *grown;

	if (need > KBUF_MAX)
		return -EFBIG;
	while (ncap < need)
		ncap *= 2;
	if (ncap == b->cap)
		return 0;
	grown = b->p ? mremap(b->p, b->cap, ncap, MREMAP_MAYMOVE)
		     : mmap(NULL, ncap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (grown == MAP_FAILED)
		return -ENOMEM;
	b->p = grown;
	b->cap = ncap;
	return 0;
}

int kbuf__append(struct kbuf *b, const void *src, size_t n)
{
	int e = kbuf__reserve(b, b->len + n);

	if (e)
		return e;
	memcpy(b->p + b->len, src, n);
	b->len += n;
	return 0;
}

void kbuf__release(struct kbuf *b)
{
	if (b->p)
		munmap(b->p, b->cap);
	*b = (struct kbuf){ 0 };
}
