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
 * most DWARF_MAX_UNITS units.  The work checks b's deadline between units
 * and between chains.
 */
#ifndef SMOLDER_DWARF_NAMES_H
#define SMOLDER_DWARF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/budget.h"

/* The deepest inline chain kept: deeper ones keep their outermost frames. */
#define DWARF_MAX_INLINE 16
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
 * E2BIG over b's bytes, ETIMEDOUT out of time, ENOMEM, or what libdw
 * refused (EINVAL).
 */
struct dwarf_names *dwarf_names__open(int fd, const char *root, const char *path,
				      bool untrusted, const struct budget *b);
/*
 * The chain at ELF virtual address vaddr in *out; its strings live as long
 * as dn.  0, or -ENOENT (no unit covers vaddr: out->n is 0), -ETIMEDOUT
 * (b expired before the unit was read), -ENOMEM.
 */
int dwarf_names__chain(struct dwarf_names *dn, uint64_t vaddr, const struct budget *b,
		       struct dwarf_chain *out);
/* What dn holds in memory (index, memo, and what libdw inflated). */
size_t dwarf_names__bytes(const struct dwarf_names *dn);
/* Whether the DWARF came from a separate debug file. */
bool dwarf_names__separate(const struct dwarf_names *dn);
void dwarf_names__free(struct dwarf_names *dn);
/* A few words for an errno of dwarf_names__open ("no DWARF"). */
const char *dwarf_names__strerror(int err);

#endif
