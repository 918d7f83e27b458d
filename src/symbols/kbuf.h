/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The growable buffers the kernel symbol table is built in: anonymous
 * mappings, not the heap.  Growing one moves page tables, never its bytes;
 * the pages past what is written are never touched, so never resident; and
 * freeing one gives every page back to the system at once (a freed heap
 * block of this size would raise malloc's mmap threshold and stay).
 */
#ifndef SMOLDER_KBUF_H
#define SMOLDER_KBUF_H

#include <stddef.h>

struct kbuf {
	char *p;
	size_t len; /* bytes written */
	size_t cap; /* bytes mapped */
};

/* Room for need bytes in all: 0, -ENOMEM, or -EFBIG past 1 GiB. */
int kbuf__reserve(struct kbuf *b, size_t need);
/* Appends n bytes: 0 or as kbuf__reserve. */
int kbuf__append(struct kbuf *b, const void *src, size_t n);
/* Unmaps b and zeroes it. */
void kbuf__release(struct kbuf *b);

#endif
