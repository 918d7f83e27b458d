/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbols of an open ELF file by name (for an interpreter's globals), and
 * where a mapping of it was loaded.  64-bit little-endian files only.
 */
#ifndef SMOLDER_ELF_LOOKUP_H
#define SMOLDER_ELF_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "files/elf_syms.h"

struct elf_found {
	bool found;
	uint64_t value, size; /* st_value (an ELF virtual address), st_size */
};

/* Finds each of names[0..n) in .dynsym, else .symtab (the first
 * definition wins); out[i] says what names[i] is.  Returns how many were
 * found. */
int elf_file__lookup(struct elf_file *f, const char *const *names, size_t n,
		     struct elf_found *out);
/* The load bias of the mapping of f at map_start with file offset pgoff:
 * ELF virtual address + bias = address in the process.  -ENOENT when no
 * PT_LOAD holds pgoff. */
int elf_file__load_bias(struct elf_file *f, uint64_t map_start, uint64_t pgoff, uint64_t *bias);

#endif
