/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unwind tables of one ELF file, built from its call-frame information
 * (.eh_frame, .debug_frame, and the .debug_frame of its separate debug
 * file) for the BPF unwinder: rows of include/unwind.h, sorted by pc, with
 * neighbouring identical rows merged and the ranges no CFI covers marked
 * UNWIND_GAP.  Input is untrusted: malformed CFI gives GAP or UNSUPPORTED
 * rows (or no table), never a crash, and the work and memory of a build are
 * bounded by struct unwind_build_opts.  See unwind_cfi.c for why the CFI
 * parser is our own rather than libdw's.
 */
#ifndef SMOLDER_UNWIND_TABLE_H
#define SMOLDER_UNWIND_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "files/func_ranges.h"
#include "unwind.h"

struct budget;
struct elf_file;
struct unwind_table;

/*
 * Budgets of one build; 0 takes the default.  They bound its memory: the CFI
 * sections read (up to three, max_cfi_bytes together, .eh_frame's held by
 * libelf until the elf_file is closed, a compressed one's twice), 16 bytes
 * per FDE and 8 per row (at most max_rows of each, 1.5 times that while they
 * grow); and its time:
 * max_work, a multiple of the CFI's size whatever it holds, within max_insns,
 * plus the FDEs' sort.  A build also stops soon after *cancel turns true
 * (another thread's store): it is polled every few thousand units of work.
 */
struct unwind_build_opts {
	size_t max_rows;      /* rows of the table, gaps included (2 Mi: 16 MiB) */
	size_t max_cfi_bytes; /* bytes read of the CFI sections (32 MiB) */
	uint64_t max_insns;   /* CFA instructions executed (64 Mi) */
	uint64_t max_work;    /* bytes of CFI records read (a CIE each time it
			       * is parsed, an FDE in each pass) plus CFA
			       * instructions executed (8 per byte of the CFI
			       * sections read, plus 64 Ki) */
	const atomic_bool *cancel; /* NULL: never cancelled */
	/* Also stops a build past its deadline or at a pending signal (its
	 * max_bytes is not read); NULL: none. */
	const struct budget *budget;
	/* Only a file of the architecture smolder was built for, whose rows
	 * the BPF walk reads (an arm64 program run by qemu-user on x86_64 is
	 * not): others are ENOEXEC.  Off, either architecture's is built. */
	bool host_arch_only;
	/* The kernel's vDSO: an arm64 one's functions without CFI get the rows
	 * their code proves, its sigreturn trampoline the SIGNAL row. */
	bool vdso;
};

/* Why CFI rows were UNWIND_UNSUPPORTED. */
enum unwind_unsupported {
	UNWIND_UNSUP_CFA_REG,  /* CFA from a register other than rsp or rbp */
	UNWIND_UNSUP_CFA_EXPR, /* a CFA expression other than the PLT's */
	UNWIND_UNSUP_CFA_OFF,  /* CFA offset not positive, not a multiple
				* of 8, or over 512 KiB */
	UNWIND_UNSUP_RA,       /* return address not at CFA - 8 */
	UNWIND_UNSUP_RBP,      /* rbp neither unchanged nor saved at CFA - 8
				* to CFA - 1024 */
	UNWIND_UNSUP_RSP,      /* the caller's rsp is not the CFA */
	UNWIND_UNSUP_SIGNAL,   /* a signal frame of another layout */
	UNWIND_UNSUP_BAD_CFI,  /* malformed instructions: the FDE's rest */
	UNWIND_UNSUP__MAX
};

/* Which budget ended a build early (the table then ends in a gap there). */
enum unwind_stop {
	UNWIND_STOP_NONE,
	UNWIND_STOP_ROWS,  /* max_rows */
	UNWIND_STOP_INSNS, /* max_insns */
	UNWIND_STOP_BYTES, /* CFI over max_cfi_bytes: a section cut or left out */
	UNWIND_STOP_WORK,  /* max_work */
	UNWIND_STOP_CANCELLED, /* *cancel, or the budget expired */
};

/* Where FDEs came from, in order of precedence where they overlap. */
enum unwind_source {
	UNWIND_SRC_EH_FRAME,        /* the file's .eh_frame */
	UNWIND_SRC_DEBUG_FRAME,     /* the file's .debug_frame */
	UNWIND_SRC_DBG_DEBUG_FRAME, /* the debug file's .debug_frame */
	UNWIND_SRC_A64_CODE,        /* arm64's vDSO: rows its code proves
				     * where no CFI covers it (unwind_a64_code.c) */
	UNWIND_SRC__MAX
};

struct unwind_stats {
	size_t fdes;                          /* FDEs whose rows are in the table */
	size_t fdes_by_source[UNWIND_SRC__MAX];
	size_t fdes_bad;      /* CIEs or FDE headers that could not be read */
	size_t fdes_overlap;  /* left out: overlapping an FDE kept */
	size_t fdes_outside;  /* left out: not inside an executable segment */
	size_t cfi_rows;      /* rows the CFI describes, before merging */
	size_t cfi_rows_by_kind[UNWIND_KIND__MAX];
	size_t unsupported[UNWIND_UNSUP__MAX]; /* CFI rows, by reason */
	size_t rows;          /* rows of the table, gaps included */
	size_t rows_by_kind[UNWIND_KIND__MAX];
	uint64_t insns;       /* CFA instructions executed */
	uint64_t work;        /* bytes of records read plus instructions */
	uint64_t cfi_bytes;   /* bytes of the CFI sections read */
	enum unwind_stop stopped;
};

/*
 * Builds the table of f (an x86_64 or arm64 ELF file with executable
 * segments, its rows read as include/unwind.h says for each) from
 * its own CFI and, when dbg is not NULL, from dbg's .debug_frame (its
 * separate debug file: same addresses).  Rows are relative to the lowest
 * executable segment's vaddr (unwind_table__base).  NULL with errno:
 * ENOENT (no CFI at all), ENOEXEC (neither, not the host's with
 * o->host_arch_only, or no executable segment),
 * ENOMEM.  A build a budget stopped still returns its table: see
 * stats.stopped.
 */
struct unwind_table *unwind_table__build(struct elf_file *f, struct elf_file *dbg,
					 const struct unwind_build_opts *o);
/* The row covering ELF virtual address vaddr (binary search), NULL when
 * vaddr is below the base or 4 GiB past it. */
const struct unwind_row *unwind_table__find(const struct unwind_table *t,
					    uint64_t vaddr);
uint64_t unwind_table__base(const struct unwind_table *t);
/* All rows, sorted by pc; row i covers [rows[i].pc, rows[i + 1].pc). */
const struct unwind_row *unwind_table__rows(const struct unwind_table *t,
					    size_t *nr);
/* Heap bytes t holds (rows and header), what loading it would cost. */
size_t unwind_table__bytes(const struct unwind_table *t);
const struct unwind_stats *unwind_table__stats(const struct unwind_table *t);
/* Distinct rules (kind, CFA offset, rbp offset) among rows that are not
 * gaps: what the CFI of the file needs to say. */
size_t unwind_table__rules(const struct unwind_table *t);
void unwind_table__free(struct unwind_table *t);

/*
 * Where each function of a file starts, for naming code no symbol covers
 * (unwind_funcs.c): an FDE's range is a function's, even in a stripped
 * file.  The first pass of a build (the FDEs of f's .eh_frame and
 * .debug_frame, sorted, overlaps dropped) within o's budgets (max_rows
 * bounds the functions); its table is not built.  NULL with errno: ENOENT
 * (no FDE), ENOEXEC, ENOMEM, ETIMEDOUT (o's budget expired or a signal
 * came: no partial list, the caller reads it again later).  A list a
 * budget stopped covers what it got to (func_ranges__stopped says which).
 */
struct func_ranges *unwind_funcs__build(struct elf_file *f, const struct unwind_build_opts *o);
/* The same, as the func_ranges_reader symbols/ is given. */
struct func_ranges *unwind_funcs__reader(struct elf_file *f, const struct budget *b,
					 size_t max_cfi_bytes, size_t max_funcs);

#endif
