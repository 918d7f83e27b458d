/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside an open ELF file, shared by elf_file.c (opening, sections, build
 * ID) and elf_syms.c (symbol tables); nothing else includes this.
 */
#ifndef SMOLDER_ELF_FILE_INT_H
#define SMOLDER_ELF_FILE_INT_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/budget.h"
#include "files/elf_syms.h"

#define MAX_INFLATED 8

/* Where the bytes come from: a file descriptor or a private memory copy. */
struct esrc {
	int fd;
	const unsigned char *mem;
	uint64_t size;
};

/* An ELF file or image held open for reading. */
struct elf_file {
	struct esrc src;
	char *image; /* the memory libelf reads, owned; NULL for a file */
	Elf *elf;
	unsigned char cls, data;
	uint16_t machine;
	const struct budget *budget; /* NULL: none */
	bool over_budget;            /* a section was refused for its size */
	/* Sections inflated in place: their data is in memory, not the file. */
	Elf_Scn *inflated[MAX_INFLATED];
	size_t nr_inflated;
	uint64_t inflated_bytes;
};

/*
 * A section's bytes, read a piece at a time: in the file (or image) at
 * off, or in memory when libelf had to inflate it.
 */
struct region {
	const struct esrc *src;
	const unsigned char *mem; /* inflated data, else NULL */
	uint64_t off, size;
};

bool src_read(const struct esrc *s, uint64_t off, void *buf, size_t len);
/* An n-byte integer at p in the given byte order. */
uint64_t elf_rd(const unsigned char *p, int n, bool big);
/* The section's bytes as a region, bounds-checked, inflated if compressed
 * (within the budget); false if absent, bad or over the budget. */
bool elf_file__region(struct elf_file *f, Elf_Scn *scn, GElf_Shdr *sh, struct region *r);
bool region_read(const struct region *r, uint64_t at, void *buf, size_t len);
/* The string table symbol table section symsh names into, as a region. */
bool elf_file__linked_strtab(struct elf_file *f, const GElf_Shdr *symsh, struct region *r);

#endif
