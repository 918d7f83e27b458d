/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function symbols of one ELF file (.symtab, else .dynsym), and the mapping
 * from a file offset (what /proc/PID/maps gives) to the ELF virtual address
 * through the PT_LOAD program headers.  Input is untrusted: malformed files
 * yield NULL or "no symbol", never a crash or a read outside the file.
 */
#ifndef SMOLDER_ELF_SYMS_H
#define SMOLDER_ELF_SYMS_H

#include <stddef.h>
#include <stdint.h>

struct elf_syms;

/* Reads the symbols of the ELF file open on fd (fd stays the caller's). */
struct elf_syms *elf_syms__open_fd(int fd);
/* Same, from an ELF image in memory (the vDSO); the bytes are copied. */
struct elf_syms *elf_syms__open_mem(const void *image, size_t size);
/*
 * Names the function that contains file offset off.  Returns the symbol name
 * (owned by es) and stores the offset into the function in *sym_off, or NULL
 * when no function covers it.  *vaddr, if not NULL, gets the ELF virtual
 * address of off (or off itself when no PT_LOAD covers it).
 */
const char *elf_syms__map_offset(const struct elf_syms *es, uint64_t off,
				 uint64_t *sym_off, uint64_t *vaddr);
size_t elf_syms__count(const struct elf_syms *es);
void elf_syms__free(struct elf_syms *es);

#endif
