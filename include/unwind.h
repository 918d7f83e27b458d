/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unwind tables shared by the loader, which builds them from a file's CFI
 * (src/unwind/unwind_table.c), and the BPF unwinder, which walks user stacks with
 * them.  One table per ELF file: rows sorted by pc, each giving the rule
 * from its pc up to the next row's pc.  Row 0 is at pc 0 (the table's base)
 * and the last row is always UNWIND_GAP, so every address from the base up
 * to base + 4 GiB finds a row.
 *
 * The names are x86_64's ("rsp", "rbp", the return address at CFA - 8);
 * an arm64 table uses the same rows for sp, x29 and x30, read as "arm64
 * rows" below says.  That block is the one place the two differ.
 */
#ifndef SMOLDER_UNWIND_H
#define SMOLDER_UNWIND_H

#ifndef __VMLINUX_H__
#include <linux/types.h> /* BPF side: vmlinux.h has the types */
#endif

/*
 * How to find the caller's frame from a frame at pc.  In every kind that
 * unwinds (CFA_RSP, CFA_RBP, PLT) the caller's rsp is the CFA and its
 * return address is the 8 bytes at CFA - 8; look it up at pc - 1, since it
 * points after the call.
 */
enum unwind_kind {
	/* No CFI covers this range: the gaps between functions (padding,
	 * code without CFI) and everything after the last function.  Never
	 * unwound with a neighbour's rule.  0, so zeroed memory is a gap. */
	UNWIND_GAP = 0,
	/* CFA = rsp + cfa_off * 8. */
	UNWIND_CFA_RSP = 1,
	/* CFA = rbp + cfa_off * 8. */
	UNWIND_CFA_RBP = 2,
	/*
	 * A PLT entry (.plt; .plt.sec and .plt.got have plain CFA_RSP rows):
	 * CFA = rsp + cfa_off * 8, plus 8 when (pc & 15) >= rbp_off, i.e.
	 * once the entry has pushed its relocation index.  The linker's CFA
	 * expression, decoded: rbp_off is 11 for the classic lazy PLT and 9
	 * for IBT PLTs (endbr64 first); cfa_off is 1.  rbp is unchanged.
	 */
	UNWIND_PLT = 3,
	/*
	 * The sigreturn trampoline (glibc's __restore_rt): rsp points at the
	 * ucontext the kernel saved.  The interrupted frame's rsp is at
	 * rsp + cfa_off * 8, its rip 8 bytes further, its rbp at
	 * rsp + rbp_off * 8 (x86_64: 160, 168 and 120, from the CFI's own
	 * expressions).  The rip read there is exact: look it up at pc, not
	 * pc - 1.
	 */
	UNWIND_SIGNAL = 4,
	/* Outermost frame: the return address is undefined (_start, a new
	 * thread's entry).  The stack is complete: stop here. */
	UNWIND_END = 5,
	/* CFI covers this range but with a rule the rows cannot express: fall
	 * back, and count it. */
	UNWIND_UNSUPPORTED = 6,
	UNWIND_KIND__MAX
};

/* 8 bytes: a table costs 8 bytes per rule change of the file's code. */
struct unwind_row {
	__u32 pc;      /* offset from the table's base vaddr */
	__u16 cfa_off; /* CFA offset / 8 */
	__u8 kind;     /* enum unwind_kind, with arm64's flags */
	__s8 rbp_off;  /* rbp saved at CFA + rbp_off * 8; 0 = rbp unchanged */
};

/*
 * ---- arm64 rows.  CFA_RSP and CFA_RBP take the CFA from sp or x29 (plus
 * cfa_off * 8, which may be 0: a frameless leaf's CFA is its sp), and the
 * caller's sp is the CFA, as on x86_64.  The return address is not at a
 * fixed place but where x30 was saved, which rbp_off says:
 *  - 0: still in x30 (the link register), which only a frame whose
 *    registers are live has (the leaf, or one a signal interrupted);
 *  - else x30 at CFA + rbp_off * 8, or, with UNWIND_AT_BASE, at the CFA's
 *    base register (sp or x29) + (__u8)rbp_off * 8: a big frame saves x29
 *    and x30 at its bottom, over 1 KiB below the CFA (gcc, libc);
 *  - with UNWIND_FP_BELOW, x29 was saved 8 bytes below x30 (a frame record,
 *    stp x29, x30); without, x29 is unchanged.  Compilers save x29 nowhere
 *    else (every row of Debian's arm64 libc, libstdc++ and the frameless
 *    workloads).
 * SIGNAL is the kernel's sigreturn trampoline in the vDSO: its CFI says
 * nothing the walk uses; the registers are in the rt_sigframe at sp
 * (bpf/unwind_arch.bpf.h).  PLT does not occur (arm64's PLT entries have
 * no CFI: they run with the caller's frame, x30 live).  A row's kind is
 * UNWIND_KIND(row.kind); x86_64 rows have no flags.
 */
#define UNWIND_AT_BASE 0x40
#define UNWIND_FP_BELOW 0x80
#define UNWIND_KIND(kind) ((kind) & 0x0f)


/*
 * ---- The tables in the kernel (bpf/unwind.bpf.h reads them,
 * src/unwind/unwind_files.c and src/unwind/unwind_maps.c write them).
 *
 * Rows live in "shards": BPF arrays of 8-byte slots, 2^shard_bits slots
 * each, created by the loader as the tables need them (up to the memory
 * budget) and reached through one array of maps.  A slot number is global:
 * shard << shard_bits | index.  A file's table is its page index (one
 * struct unwind_page per 2^shift bytes of code, contiguous) and its rows;
 * the rows of one page are contiguous in one shard, so a frame costs one
 * page lookup and a binary search of at most UNWIND_SEARCH_STEPS steps.
 */
#define UNWIND_SEARCH_STEPS 10 /* a page holds at most 1 << 10 rows */
#define UNWIND_MAX_PAGE_ROWS (1u << UNWIND_SEARCH_STEPS)

/* A slot of the page index. */
struct unwind_page {
	__u32 row;   /* global slot of the first row whose range meets the page */
	__u16 count; /* rows from there that meet it, 1 to UNWIND_MAX_PAGE_ROWS */
	__u16 pad;
};

/*
 * A file the unwinder knows, by file id ("unwind_files" hash).  No entry:
 * its table is not loaded (yet, or any more).  n_pages 0: the file has no
 * table (no CFI), frames in it fall back to frame pointers.
 */
struct unwind_file {
	__u32 pages;   /* global slot of page 0 */
	__u32 n_pages; /* pages past the last one are gaps */
	__u32 shift;   /* log2 of the bytes of code a page covers */
	__u32 pad;
};

/*
 * A process's executable mapping ("unwind_mappings", an LPM trie keyed by
 * tgid and address, both big-endian, so one lookup finds the mapping of a
 * pc).  The row offset of pc is pc - bias (the load bias plus the table's
 * base).  gen is the image generation (struct image_state) the mapping was
 * read for: after an exec, the old image's entries no longer match.
 */
struct unwind_map_key {
	__u32 prefixlen; /* 32 (tgid) + the address bits that count */
	__u32 tgid;      /* big-endian */
	__u64 addr;      /* big-endian */
};

enum unwind_map_flags {
	UNWIND_MAP_ANON = 1, /* anonymous code (JIT): frame pointers */
};

struct unwind_mapping {
	__u64 start, end; /* the mapping, for the next frames in it */
	__u64 bias;
	__u32 file;       /* file id: key of "unwind_files" */
	__u32 gen;
	__u32 flags;      /* enum unwind_map_flags */
	__u32 pad;
};

/* Per-CPU unwinder state slots: one per program that may interrupt another
 * on the same CPU (issue 15's sched_switch program takes the second). */
#define UNWIND_SLOT_SAMPLE 0
#define UNWIND_SLOTS 2

#endif /* SMOLDER_UNWIND_H */
