/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unwind tables shared by the loader, which builds them from a file's CFI
 * (src/unwind_table.c), and the BPF unwinder, which walks user stacks with
 * them.  One table per ELF file: rows sorted by pc, each giving the rule
 * from its pc up to the next row's pc.  Row 0 is at pc 0 (the table's base)
 * and the last row is always UNWIND_GAP, so every address from the base up
 * to base + 4 GiB finds a row.
 *
 * x86_64 only for now: "rsp", "rbp" and the return address at CFA - 8 are
 * the x86_64 registers; an arm64 table would name sp, x29 and x30.
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
	__u8 kind;     /* enum unwind_kind */
	__s8 rbp_off;  /* rbp saved at CFA + rbp_off * 8; 0 = rbp unchanged */
};

#endif /* SMOLDER_UNWIND_H */
