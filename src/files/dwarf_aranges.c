// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A file's address index from its .debug_aranges, inside dwarf_names:
 * read here, bounded by the section, rather than by libdw, which reads
 * every unit's header and DIE to check the table (4,126 units and 5 MB
 * held for libc6-dbg's libc, of which a capture names two or three).
 * Used only when every unit has a set (gcc writes one per unit; clang
 * writes none), so that no code of the file goes without its unit.
 */
#include <errno.h>
#include <stddef.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "files/dwarf_names_int.h"
#include "lib/addr_search.h"

/* Little-endian reads, bounded by end (false past it). */
static bool get(const unsigned char **p, const unsigned char *end, size_t n, uint64_t *v)
{
	if ((size_t)(end - *p) < n)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v |= (uint64_t)(*p)[i] << (8 * i);
	*p += n;
	return true;
}

/* The unit whose header is at off (units are in section order); -1 if none. */
static long unit_of(const struct dwarf_names *dn, uint64_t off)
{
	long i = addr_search__index(dn->units, dn->nr_units, sizeof(*dn->units),
				    offsetof(struct dwarf_unit, start), off);

	return i >= 0 && dn->units[i].start == off ? i : -1;
}

/* The tuples of one set, [p, end), addresses of size a, to unit u. */
static int add_tuples(struct dwarf_names *dn, const unsigned char *p, const unsigned char *end,
		      size_t a, uint32_t u)
{
	uint64_t addr, len;

	while (get(&p, end, a, &addr) && get(&p, end, a, &len) && (addr || len))
		if (addr + len >= addr && dwarf_names__add_range(dn, addr, addr + len, u))
			return -ENOMEM;
	return 0;
}

/* One set at *p of sec [sec, end): its tuples added, *p past it; 1 when
 * it does not read, 0 or -ENOMEM.  *seen counts the units that have one. */
static int read_set(struct dwarf_names *dn, const unsigned char *sec, const unsigned char **p,
		    const unsigned char *end, bool *has, size_t *seen)
{
	const unsigned char *start = *p, *set_end;
	uint64_t len, version, off, a, seg;
	size_t off_size = 4;
	long u;

	if (!get(p, end, 4, &len))
		return 1;
	if (len == 0xffffffff && !(off_size = 8, get(p, end, 8, &len)))
		return 1;
	if (len > (uint64_t)(end - *p))
		return 1;
	set_end = *p + len;
	if (!get(p, set_end, 2, &version) || version != 2 || !get(p, set_end, off_size, &off) ||
	    !get(p, set_end, 1, &a) || !get(p, set_end, 1, &seg) || (a != 4 && a != 8) || seg)
		return 1;
	/* the tuples start at a multiple of twice the address size */
	*p = sec + (size_t)(start - sec + (*p - start + 2 * a - 1) / (2 * a) * (2 * a));
	if (*p > set_end || (u = unit_of(dn, off)) < 0)
		return 1;
	if (!has[u]) {
		has[u] = true;
		(*seen)++;
	}
	int e = add_tuples(dn, *p, set_end, a, (uint32_t)u);

	*p = set_end;
	return e;
}

int dwarf_aranges__index(struct dwarf_names *dn)
{
	size_t size = 0, seen = 0;
	const unsigned char *sec = dwarf_sections__data(dn->elf, ".debug_aranges", &size);
	const unsigned char *p = sec, *end;
	unsigned char *ident = (unsigned char *)elf_getident(dn->elf, NULL);
	bool *has;
	int e = 0;

	if (!sec || !size || !dn->nr_units || !ident || ident[EI_DATA] != ELFDATA2LSB)
		return -ENOENT;
	end = sec + size;
	if (!(has = calloc(dn->nr_units, sizeof(*has))))
		return -ENOMEM;
	while (!e && p < end)
		e = read_set(dn, sec, &p, end, has, &seen);
	free(has);
	if (e < 0)
		return e;
	if (e || seen != dn->nr_units) {
		dn->nr_ranges = 0; /* the units' DIEs say */
		return -ENOENT;
	}
	return 0;
}
