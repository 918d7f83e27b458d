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
#include <zlib.h>

#include "files/dwarf_names.h"

/*
 * What libdw holds, measured with hostile_dwarf's shapes (RSS growth,
 * rounded up): a unit it has seen (its Dwarf_CU and abbreviation hash)
 * 1.2 KiB; a line program it read, 40 bytes a row, and the list it built
 * them in, 64 bytes a row, freed into the heap, where the largest list
 * stays resident (the next ones reuse it); before it reads one, up to 112
 * bytes a byte (a row a DW_LNS_copy); an abbreviation parsed, 56 bytes (a
 * table shared by units is parsed again for each).
 * What it reads of the file (mapped: a unit's DIEs, its line program)
 * counts too.
 */
#define DWARF_UNIT_COST 1280u
/* libdw inflates compressed sections at its start, whole, at about 80 MB/s
 * (zlib; libc6-dbg's libc: 9.8 MB in 0.12 s): not begun without the time. */
#define DWARF_INFLATE_RATE (64u << 20)
#define DWARF_LINE_PEAK 112u
#define DWARF_LINE_ROW 40u
#define DWARF_LINE_LIST 64u
#define DWARF_ABBREV_COST 56u

enum unit_lines { LINES_UNREAD, LINES_READ, LINES_REFUSED };

/* One compilation unit indexed. */
struct dwarf_unit {
	uint64_t start;        /* its header's offset in .debug_info */
	uint64_t die;          /* its unit DIE's offset in .debug_info */
	uint64_t abbrevs;      /* in its abbreviation table: what libdw may parse */
	uint64_t size;         /* of the unit, header and DIEs */
	uint8_t lines;         /* enum unit_lines */
	bool walked;           /* its DIEs were read (size counted) */
	bool read;             /* libdw read its header and abbreviations (counted) */
	bool line_pages;       /* its line program's mapped pages were counted */
	bool funcs_listed;     /* funcs holds its functions (else, if listed
				* already, it has none or did not fit) */
	struct func_range *funcs; /* its outermost functions' ranges, by lo */
	uint32_t nr_funcs;
};

/* One address range of a unit's outermost function (a subprogram not in
 * another): a chain's walk starts at it, not at the unit's first DIE. */
struct func_range {
	uint64_t lo, hi;
	uint64_t die;          /* the function's DIE's offset */
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
	Elf *elf, *alt_elf;    /* mapped: its process may be gone when it is read */
	Dwarf *dw, *alt;       /* NULL until the first chain (see index_error) */
	bool separate;
	bool no_lines;         /* names only: no line program is read */
	int index_error;       /* why the first chain could not index it (-errno) */
	size_t max_bytes;      /* the open's budget: chains' budgets may have none */
	bool info_mapped;      /* .debug_info and .debug_line are read from the */
	bool line_mapped;      /* mapped file (not inflated): their pages count
				* as units are walked and lines read */
	const unsigned char *line_sec; /* .debug_line as libdw reads it */
	size_t line_size;
	size_t inflated;       /* bytes of compressed sections libdw inflates
				* (at open, all of them: the worst case) */
	size_t aside;          /* those set aside, never inflated */
	bool set_aside;        /* the sections naming does not read were */
	size_t libdw_bytes;    /* what libdw holds besides: units, lines, abbrevs */
	size_t line_list;      /* the largest line list libdw built (freed) */
	size_t rows_bytes;     /* of libdw_bytes, the line rows (let go past
				* DWARF_ROWS_HELD) */
	size_t units_lined;    /* units whose rows libdw holds */
	struct dwarf_unit *units;
	size_t nr_units, cap_units;
	struct unit_range *ranges;
	size_t nr_ranges, cap_ranges;
	struct memo *memo;
	size_t nr_memo, cap_memo; /* cap a power of 2, at most half full */
	struct dwarf_frame *memo_frames;
	size_t nr_frames, cap_frames;
	/* source paths made whole with their unit's DW_AT_comp_dir (gcc's
	 * are relative to where it ran), by the line table's string */
	struct full_path *paths;
	size_t nr_paths, cap_paths, path_bytes;
	char **kept_paths;     /* full paths whose index was dropped, for the memo */
	size_t nr_kept, cap_kept;
	size_t func_bytes;     /* the units' funcs */
	struct dwarf_sparse *sparse; /* .debug_info holds only the units named
				      * in (dwarf_sparse.c); NULL: whole */
	struct dwarf_sparse *listing; /* its units being listed, across budgets */
	double listing_ms;     /* the time that took, for -vv */
	bool not_sparse;       /* it cannot be: libdw reads it whole */
};

struct full_path {
	const char *raw; /* libdw's (stable while dw is open) */
	char *full;
};

/* A range of a file's bytes. */
struct dwarf_file_range {
	uint64_t off, len;
};

/* Compressed sections whose pages are let go once inflated, at most. */
#define DWARF_MAX_COMPRESSED 32

/* dwarf_sections.c: whether name is a debug section's (.debug_*, .zdebug_*). */
bool dwarf_sections__debug(const char *name);
/* Sizes elf's debug sections: *all the bytes they hold once inflated,
 * *inflated those of compressed ones (libdw inflates them into memory).
 * Whether it has a .debug_info; sets *debugdata when it has a
 * .gnu_debugdata. */
bool dwarf_sections__sizes(Elf *elf, size_t *all, size_t *inflated, bool *debugdata);
/* The data of elf's section name (as libdw left it: inflated); NULL if none. */
const unsigned char *dwarf_sections__data(Elf *elf, const char *name, size_t *size);
/* Sets elf's debug sections that naming does not read (with lines: also
 * .debug_line) aside, so that libdw does not inflate them; adds the bytes
 * of the compressed ones it will still inflate to *inflated, of those set
 * aside to *aside.  Before libdw begins on elf, once. */
void dwarf_sections__set_aside(Elf *elf, bool lines, size_t *inflated, size_t *aside);
/* Whether elf's section name is read from the mapped file (not inflated). */
bool dwarf_sections__mapped(Elf *elf, const char *name);
/* The file ranges of elf's compressed debug sections, at most n. */
size_t dwarf_sections__compressed(Elf *elf, struct dwarf_file_range *r, size_t n);
/* Lets the pages of ranges r of elf's mapping go (libdw inflated them:
 * they are not read again; read from the file again if they ever were). */
void dwarf_sections__drop_pages(Elf *elf, const struct dwarf_file_range *r, size_t nr);

/* Appends the unit at off (its header hsize bytes, size in all, its
 * abbreviation table at abbrev, in (*abbrevs)[i], grown with dn->units)
 * within b's bytes: each costs DWARF_UNIT_COST once libdw reads it.  0,
 * -E2BIG, -ENOMEM. */
int dwarf_names__add_unit(struct dwarf_names *dn, const struct budget *b, uint64_t **abbrevs,
			  uint64_t off, uint64_t hsize, uint64_t size, uint64_t abbrev);
/* Adds [lo, hi) of unit to dn's index; 0 or -ENOMEM. */
int dwarf_names__add_range(struct dwarf_names *dn, uint64_t lo, uint64_t hi, uint32_t unit);
/* Counts what libdw holds once it read unit u (its Dwarf_CU and
 * abbreviations), the first time: 0, or -E2BIG over the budget. */
int dwarf_names__unit_cost(struct dwarf_names *dn, struct dwarf_unit *u, const struct budget *b);
/* dwarf_abbrevs.c: each unit's abbreviation count, from the tables its
 * header names (abbrevs[i] for unit i), each table parsed once. */
int dwarf_abbrevs__count(struct dwarf_names *dn, const uint64_t *abbrevs);
/*
 * dwarf_aranges.c: dn's index from its .debug_aranges when every unit has
 * a set there: 0; -ENOENT when it has none, does not cover every unit or
 * does not read (the units are then indexed by their DIEs), -ENOMEM.
 */
int dwarf_aranges__index(struct dwarf_names *dn);

/* A section read front to back: inflated in chunks, or read in place. */
struct dwarf_stream {
	const unsigned char *in; /* its bytes in the file (after the header) */
	size_t in_size;
	bool packed;
	z_stream z;
	unsigned char *own;      /* the chunk buffer (packed) */
	const unsigned char *buf;
	size_t len, at;          /* bytes in buf, the next one read */
	uint64_t pos;            /* the section offset of buf[at] */
	uint64_t size;           /* of the section, inflated */
	bool failed;
	Elf *elf;                /* whose mapping in is, */
	const unsigned char *file;
	const unsigned char *dropped; /* let go up to here */
};

/* The compressed pages passed, let go every so many bytes: a stream's
 * peak holds this much of them, not the whole section. */
#define DROP_EVERY (256u << 10)
/* dwarf_stream.c: s over section scn of elf (size bytes once inflated,
 * packed: zlib-compressed, else read in place); false when its bytes are
 * not in the file or zlib will not start. */
bool dwarf_stream__open(struct dwarf_stream *s, Elf *elf, Elf_Scn *scn, uint64_t size, bool packed);
void dwarf_stream__close(struct dwarf_stream *s);
/* At least n (<= 64 KiB) bytes from buf[at] when the section has them;
 * false when it does not, or its data does not inflate to its size. */
bool dwarf_stream__ensure(struct dwarf_stream *s, size_t n);
/* Copies the next n bytes into dst (NULL: passes over them); false short. */
bool dwarf_stream__take(struct dwarf_stream *s, unsigned char *dst, uint64_t n);
/* Passes over the bytes up to off (not before the position): false short. */
bool dwarf_stream__seek(struct dwarf_stream *s, uint64_t off);
bool dwarf_stream__byte(struct dwarf_stream *s, unsigned char *c);
bool dwarf_stream__uleb(struct dwarf_stream *s, uint64_t *v);

/*
 * dwarf_sparse.c: dn's units listed (with their abbreviation counts) from
 * its zlib-compressed .debug_info and .debug_abbrev streamed past, for a
 * sparse copy in *io (of .debug_line too with lines) holding none yet: 0;
 * -ENOENT when its DWARF is not one that can be read sparse (dn->units
 * then holds what was listed), -E2BIG, -ENOMEM (*io freed, NULL), or
 * -ETIMEDOUT: *io is the listing so far, which a later call with it goes
 * on with (dn->units kept meanwhile).  Before libdw begins on dn->elf.
 */
int dwarf_sparse__index(struct dwarf_names *dn, bool lines, const struct budget *b,
			struct dwarf_sparse **io);
/* The line programs of the units kept, looked up through dw (begun on
 * sp's sections): whether one was found that is not copied yet (then
 * libdw is ended, sp built again and libdw begun again). */
bool dwarf_sparse__line_offsets(struct dwarf_names *dn, struct dwarf_sparse *sp, Dwarf *dw);
/* Marks unit (or all, with all) to be kept; whether that is new. */
bool dwarf_sparse__keep(struct dwarf_names *dn, struct dwarf_sparse *sp, size_t unit, bool all);
/* Whether unit is in the sections as last built (kept when they were). */
bool dwarf_sparse__built(const struct dwarf_sparse *sp, size_t unit);
/* The sections made again with the units marked (lines_only: only
 * .debug_line, for the line programs found since) and handed to libelf's
 * copy of them (libdw ended: begin it again): 0 or -EINVAL. */
int dwarf_sparse__build(struct dwarf_names *dn, struct dwarf_sparse *sp, bool lines_only);
/* Bytes kept of the sections read sparse, their *full size, units kept,
 * builds made. */
void dwarf_sparse__sizes(const struct dwarf_sparse *sp, size_t *kept, size_t *full,
			 size_t *units, unsigned *builds);
/* Builds past which every unit is kept: each streams the sections again. */
#define DWARF_SPARSE_BUILDS 8u
/* The bytes the next build of sp inflates, with unit kept too (any
 * number past the units: only those kept): a budget's measure. */
size_t dwarf_sparse__stream_bytes(const struct dwarf_names *dn, const struct dwarf_sparse *sp,
				  size_t unit);
/* What sp holds (its index, the bytes copied). */
size_t dwarf_sparse__bytes(const struct dwarf_sparse *sp, size_t nr_units);
/* Puts libelf's copy of the sections back as they were and frees sp
 * (libdw ended). */
void dwarf_sparse__free(struct dwarf_sparse *sp);

/* Frees dn's full paths (with libdw's strings they were made from). */
void dwarf_scopes__free_paths(struct dwarf_names *dn);
/* Drops the index of dn's full paths by libdw's strings (libdw ends),
 * keeping the paths for the chains that hold them; false (nothing
 * changed) when memory is short. */
bool dwarf_scopes__forget_paths(struct dwarf_names *dn);

/* Whether bytes are more than dn may hold: its open's budget, or b's. */
static inline bool dwarf_names__over(const struct dwarf_names *dn, const struct budget *b,
				     size_t bytes)
{
	return (dn->max_bytes && bytes > dn->max_bytes) || budget__too_big(b, bytes);
}

/*
 * The chain at vaddr in the unit whose DIE is cu, outermost first, in
 * *out: 0, -ENOENT (no function there), -ETIMEDOUT (b expired during the
 * walk).  Lines come only from line programs that fit b's bytes, and
 * none with dn->no_lines.
 */
int dwarf_scopes__chain(struct dwarf_names *dn, Dwarf_Die *cu, uint64_t vaddr,
			const struct budget *b, struct dwarf_chain *out);

#endif
