/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A file's DWARF, read through elfutils' libdw for the functions inlined
 * at a code address and the source lines that ran: the whole inline chain
 * of an address, outermost first.  Owns finding the DWARF (the file's
 * own, else its separate debug file, found as debuginfo.h finds it: by
 * build id, then by .gnu_debuglink; .gnu_debugdata is MiniDebugInfo,
 * which has no DWARF), checking that it fits the budget before libdw
 * reads any of it, an index from addresses to compilation units (clang
 * writes no .debug_aranges), and a memo of the chains already asked for.
 *
 * Lazy: opening maps the file (its process may be gone by the time its
 * frames are named) and reads its section headers; the first chain reads
 * each compilation unit's first DIE (its address ranges), and a chain the
 * one unit that holds its address.  A file with 1 GB of .debug_info costs
 * its units' headers, not its size.
 *
 * Bounds: the debug sections libdw would inflate into memory (compressed
 * ones) must fit b->max_bytes; for a file its owner could have crafted
 * (untrusted), all of its debug sections must, and the index holds at
 * most DWARF_MAX_UNITS units.  What libdw then holds (measured: units,
 * abbreviations, line programs; dwarf_names_int.h) is counted before it
 * is spent and stays within the open's max_bytes: a file whose units do
 * not fit is not indexed, a line program that does not fit is not read
 * (its functions keep their names, without lines).  The work checks b's
 * deadline between units, while walking a unit's DIEs and between chains.
 * libdw never opens a file on its own (dwz's .gnu_debugaltlink file is
 * found here, under the root; split DWARF's .dwo files are not read).
 * Measured on crafted files (tests/tools/hostile_dwarf.c), libdw 0.188
 * in-process within these bounds ended each within the budget's time and
 * memory; no crash was found by fuzzing (tests/fuzz/fuzz_dwarf.c), so
 * untrusted files are read in-process, not in a child.
 */
#ifndef SMOLDER_DWARF_NAMES_H
#define SMOLDER_DWARF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/budget.h"

/* The deepest inline chain kept: deeper ones keep their outermost frames. */
#define DWARF_MAX_INLINE 16
/* The rows of line programs libdw may hold for a file (40 bytes each)
 * before they are let go and read again as needed: 100k rows. */
#define DWARF_ROWS_HELD (4u << 20)
/* Compilation units indexed per file. */
#define DWARF_MAX_UNITS (1u << 20)

struct dwarf_names;

/* One function of an inline chain. */
struct dwarf_frame {
	const char *func;      /* the linkage name if any (mangled), else the name */
	const char *decl_file; /* where the function is declared; NULL unknown */
	uint32_t decl_line;    /* its first line; 0 unknown */
	const char *file;      /* the file of `line`; NULL unknown */
	uint32_t line;         /* the line that ran in it: the innermost frame's
				* own line, or the line of the call inlined
				* into the next frame; 0 unknown */
};

/* The functions at an address, outermost (the function the symbol table
 * names) first; n 0 when no DWARF covers the address. */
struct dwarf_chain {
	uint32_t n;
	struct dwarf_frame f[DWARF_MAX_INLINE];
};

/*
 * The DWARF of the ELF file open on fd (borrowed: dup'ed when kept), or of
 * its separate debug file (looked up in root, "" for ours, with path the
 * file's path there for .gnu_debuglink; NULL: no debug link).  NULL with
 * errno: ENODATA no DWARF, ENOMSG only MiniDebugInfo (no DWARF in it),
 * ENOLINK its .gnu_debugaltlink file is missing, E2BIG over b's bytes,
 * ETIMEDOUT out of time, ENOMEM, or what libdw refused (EINVAL).
 */
struct dwarf_names *dwarf_names__open(int fd, const char *root, const char *path,
				      bool untrusted, const struct budget *b);
/*
 * What the first chain does first, done ahead (a capture's idle time, so
 * that naming at its end only looks chains up): libdw begins (inflating
 * compressed sections: only when b affords it, else -ETIMEDOUT and a
 * later budget tries) and the units are indexed.  0, or why the file
 * names nothing (-errno, for good).
 */
int dwarf_names__prepare(struct dwarf_names *dn, const struct budget *b);
/* Whether it was prepared (or found unable to name anything). */
bool dwarf_names__prepared(const struct dwarf_names *dn);
/*
 * The chain at ELF virtual address vaddr in *out; its strings live as long
 * as dn.  0, or -ENOENT (no unit covers vaddr: out->n is 0), -ETIMEDOUT
 * (b expired before the unit was read), -ENOMEM.
 */
int dwarf_names__chain(struct dwarf_names *dn, uint64_t vaddr, const struct budget *b,
		       struct dwarf_chain *out);
/*
 * Marks the unit that covers vaddr to be read with the next one a chain
 * reads, so that the frames of a pass (warm.h) read their units in one
 * build of the sparse sections rather than one each (each inflates
 * .debug_info again up to its units).  0, -ENOENT (none covers it), or
 * what preparing it returned.
 */
int dwarf_names__mark(struct dwarf_names *dn, uint64_t vaddr, const struct budget *b);
/*
 * Chains with function names only (on false): no file or line, so that
 * no line program is read.  libdw 0.188 reads a unit's whole line program
 * (40 bytes a row, kept until the file is closed) for any file name of
 * the unit, even a declaration's; outputs that show no source line
 * (folded, SVG, report) need none of it, nor the .debug_line section:
 * libdw does not inflate it then.  On by default; set before the first
 * chain (or dwarf_names__prepare): later, it changes nothing.
 */
void dwarf_names__set_lines(struct dwarf_names *dn, bool on);
/*
 * The bytes of compressed debug sections libdw inflates into memory for
 * dn (before it is prepared: all of them, the most it may), and those it
 * does not, set aside as not read for chains: location lists, call
 * frames, macros, and .debug_line when lines are not shown.
 */
void dwarf_names__inflated(const struct dwarf_names *dn, size_t *inflated, size_t *aside);
/* The compressed sections read sparse (only the units chains are named
 * in: .debug_info, .debug_abbrev, and .debug_line when lines are read):
 * *kept bytes of them inflated so far, of their *full size; false (both 0)
 * when none is. */
bool dwarf_names__sparse(const struct dwarf_names *dn, size_t *kept, size_t *full);
/* What dn holds in memory (index, memo, and what libdw inflated). */
size_t dwarf_names__bytes(const struct dwarf_names *dn);
/* The i-th address range [*lo, *hi) of the units indexed (by the first
 * chain), in address order; false past the last (for tests and the fuzz
 * target). */
bool dwarf_names__unit_range(const struct dwarf_names *dn, size_t i, uint64_t *lo,
			     uint64_t *hi);
/* Why dn names nothing: 0, or the -errno of its index, built by the first
 * chain (-E2BIG: its units would not fit the open's budget). */
int dwarf_names__error(const struct dwarf_names *dn);
/* Whether the DWARF came from a separate debug file. */
bool dwarf_names__separate(const struct dwarf_names *dn);
void dwarf_names__free(struct dwarf_names *dn);
/* A few words for an errno of dwarf_names__open ("no DWARF"). */
const char *dwarf_names__strerror(int err);

#endif
