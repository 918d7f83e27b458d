/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside a dwarf_names, shared by dwarf_names.c (finding and opening the
 * DWARF, the unit index, the memo) and dwarf_scopes.c (the chain at an
 * address: the walk down a unit's DIEs, lines read within the budget);
 * nothing else includes this.
 */
#ifndef SMOLDER_DWARF_NAMES_INT_H
#define SMOLDER_DWARF_NAMES_INT_H

#include <elfutils/libdw.h>

#include "files/dwarf_names.h"

/*
 * What libdw holds, measured with hostile_dwarf's shapes (RSS growth,
 * rounded up): a unit it has seen (its Dwarf_CU and abbreviation hash) 1.3
 * KiB; while it reads a line program, up to 104 bytes a byte of it (a row
 * per DW_LNS_copy: a list node, then the sorted row), and after 48 bytes a
 * row; an abbreviation table, up to 12 bytes a byte.
 */
#define DWARF_UNIT_COST 1400u
#define DWARF_LINE_PEAK 112u
#define DWARF_LINE_ROW 48u
#define DWARF_ABBREV_COST 12u

enum unit_lines { LINES_UNREAD, LINES_READ, LINES_REFUSED };

/* One compilation unit indexed. */
struct dwarf_unit {
	uint64_t die;          /* its unit DIE's offset in .debug_info */
	uint64_t abbrev_span;  /* bytes of .debug_abbrev from its table's start
				* to the next table's: what libdw may parse */
	uint8_t lines;         /* enum unit_lines */
	bool walked;           /* its DIEs were read (abbrev_span counted) */
};

/* One address range of a unit. */
struct unit_range {
	uint64_t lo, hi;       /* [lo, hi) */
	uint32_t unit;         /* in units */
};

/* A chain asked for before: its frames in memo_frames. */
struct memo {
	uint64_t vaddr;
	uint32_t first, n;     /* n == UINT32_MAX: an empty slot */
};

struct dwarf_names {
	int fd;                /* the file libdw reads (ours, dup'ed) */
	int alt_fd;            /* its .gnu_debugaltlink file's; -1 none */
	Elf *elf, *alt_elf;
	Dwarf *dw, *alt;
	bool separate;
	const unsigned char *line_sec; /* .debug_line as libdw reads it */
	size_t line_size;
	size_t inflated;       /* bytes of compressed sections libdw inflated */
	size_t libdw_bytes;    /* what libdw holds besides: units, lines, abbrevs */
	struct dwarf_unit *units;
	size_t nr_units, cap_units;
	struct unit_range *ranges;
	size_t nr_ranges, cap_ranges;
	struct memo *memo;
	size_t nr_memo, cap_memo; /* cap a power of 2, at most half full */
	struct dwarf_frame *memo_frames;
	size_t nr_frames, cap_frames;
};

/*
 * The chain at vaddr in the unit whose DIE is cu, outermost first, in
 * *out: 0, -ENOENT (no function there), -ETIMEDOUT (b expired during the
 * walk).  Lines come only from line programs that fit b's bytes.
 */
int dwarf_scopes__chain(struct dwarf_names *dn, Dwarf_Die *cu, uint64_t vaddr,
			const struct budget *b, struct dwarf_chain *out);

#endif
