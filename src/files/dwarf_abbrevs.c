// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * How many abbreviations each unit's table has (dwarf_names_int.h): what
 * libdw may parse for a unit, counted in the budget before it reads one.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "files/dwarf_names_int.h"

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* A ULEB128 at *p, below end; false if it runs past end or over 64 bits. */
static bool uleb(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char c = *(*p)++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
	}
	return false;
}

/*
 * The abbreviations of the table at off in sec (what libdw may parse for
 * a unit that uses it: a code, a tag, a children flag, then attribute and
 * form pairs up to 0, 0, and a value for DW_FORM_implicit_const).
 */
static uint64_t count_abbrevs(const unsigned char *sec, size_t size, uint64_t off)
{
	const unsigned char *p, *end;
	uint64_t n = 0, code, v, name, form;

	if (!sec || off >= size)
		return 0;
	p = sec + off;
	end = sec + size;
	while (uleb(&p, end, &code) && code && uleb(&p, end, &v) && p++ < end) {
		n++;
		while (uleb(&p, end, &name) && uleb(&p, end, &form) && (name || form))
			if (form == DW_FORM_implicit_const && !uleb(&p, end, &v))
				return n;
	}
	return n;
}

/* Each unit's abbreviations, each table counted once. */
int dwarf_abbrevs__count(struct dwarf_names *dn, const uint64_t *abbrevs)
{
	size_t size = 0, n = dn->nr_units;
	const unsigned char *sec = dwarf_sections__data(dn->elf, ".debug_abbrev", &size);
	uint64_t *sorted = malloc((n ? n : 1) * 2 * sizeof(*sorted)), *counts = sorted + n;

	if (!sorted)
		return -ENOMEM;
	if (n) {
		memcpy(sorted, abbrevs, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_u64);
	}
	for (size_t i = 0; i < n; i++)
		counts[i] = i && sorted[i] == sorted[i - 1] ? counts[i - 1] :
			    count_abbrevs(sec, size, sorted[i]);
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (sorted[mid] < abbrevs[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		dn->units[i].abbrevs = counts[lo];
	}
	free(sorted);
	return 0;
}
