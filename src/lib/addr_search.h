/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The lookup every address table here needs (kernel symbols, ELF symbols,
 * mappings, JIT maps): in an array sorted by a 64-bit start address, the
 * last entry whose start is <= addr.
 */
#ifndef SMOLDER_ADDR_SEARCH_H
#define SMOLDER_ADDR_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * base: nr entries of size bytes, each with its start address at byte
 * offset key_off.  Returns the index, or -1 when addr is below the first.
 */
static inline long addr_search__index(const void *base, size_t nr, size_t size, size_t key_off,
			       uint64_t addr)
{
	const char *b = base;
	size_t lo = 0, hi = nr;
	uint64_t start;

	if (!nr)
		return -1;
	memcpy(&start, b + key_off, sizeof(start));
	if (addr < start)
		return -1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&start, b + mid * size + key_off, sizeof(start));
		if (start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

/* addr_search over an array of structs by the name of their start field. */
#define ADDR_SEARCH(arr, nr, field, addr) \
	addr_search__index((arr), (nr), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), (addr))

#endif
