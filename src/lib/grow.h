/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Growable arrays: room for need items, the capacity doubling from a first
 * size, so that n appends cost O(n) copies in all.
 *
 *	if (GROW(v, cap, nr + 1, 64))
 *		return -ENOMEM;
 *	v[nr++] = x;
 */
#ifndef SMOLDER_GROW_H
#define SMOLDER_GROW_H

#include <stddef.h>

/*
 * Makes *items (room for *cap items of size bytes) hold at least need: the
 * capacity doubles from *cap, or from first when it is 0, but never past
 * max (0: no limit).  0 when there is room; -E2BIG when need is over max,
 * -ENOMEM when memory is short, with *items and *cap unchanged.
 */
int grow__room(void **items, size_t *cap, size_t need, size_t size, size_t first, size_t max);

/* items is an lvalue pointer, cap a size_t lvalue. */
#define GROW(items, cap, need, first) \
	grow__room((void **)&(items), &(cap), (need), sizeof(*(items)), (first), 0)
#define GROW_MAX(items, cap, need, first, max) \
	grow__room((void **)&(items), &(cap), (need), sizeof(*(items)), (first), (max))

#endif
