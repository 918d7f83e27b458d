/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a file's functions are, for naming code no symbol covers: ranges
 * of ELF virtual addresses sorted and disjoint (a stripped file's FDEs,
 * which unwind/unwind_funcs.c lists with the unwinder's CFI parser), and
 * the executable segments that turn a file offset into an address.
 * symbols/symcache.c keeps one per file, read through a func_ranges_reader
 * its owner gives (symbols/ cannot call unwind/, a folder of its rank).
 */
#ifndef SMOLDER_FUNC_RANGES_H
#define SMOLDER_FUNC_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct budget;
struct elf_file;

/* A function: [base + pc, base + pc + len). */
struct func_range {
	uint32_t pc, len;
};

struct func_ranges;

/*
 * Takes ranges (malloc'ed, sorted by pc, disjoint, nr of them) over; stopped
 * is the reader's reason for a list that ended early (0: it did not).  NULL
 * without memory (ranges freed).
 */
struct func_ranges *func_ranges__new(uint64_t base, struct func_range *ranges, size_t nr,
				     int stopped);
/* Adds an executable segment: file offsets [off, off + filesz) at vaddr
 * (16 at most; the rest are left out). */
void func_ranges__add_segment(struct func_ranges *fr, uint64_t off, uint64_t filesz,
			      uint64_t vaddr);
/* The file offset at which the function covering file offset off starts
 * (both in one executable segment), in *start; false when none covers it. */
bool func_ranges__start(const struct func_ranges *fr, uint64_t off, uint64_t *start);
size_t func_ranges__count(const struct func_ranges *fr);
/* Heap bytes fr holds. */
size_t func_ranges__bytes(const struct func_ranges *fr);
/* The reader's reason the list ended early, 0 when it did not. */
int func_ranges__stopped(const struct func_ranges *fr);
void func_ranges__free(struct func_ranges *fr);

/*
 * Reads f's function ranges within max_cfi_bytes of call-frame information
 * and max_funcs functions, and b's time (b->max_bytes is not read).  NULL
 * with errno: ENOENT (none), ENOEXEC, ENOMEM, ETIMEDOUT.
 */
typedef struct func_ranges *(*func_ranges_reader)(struct elf_file *f, const struct budget *b,
						  size_t max_cfi_bytes, size_t max_funcs);

#endif
