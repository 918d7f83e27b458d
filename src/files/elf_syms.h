/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function symbols of one ELF file (.symtab, else .dynsym), optionally
 * merged with those of its separate debug information, and the mapping from
 * a file offset (what /proc/PID/maps gives) to the ELF virtual address
 * through the PT_LOAD program headers.  Input is untrusted: malformed files
 * yield NULL or "no symbol", never a crash or a read outside the file.
 */
#ifndef SMOLDER_ELF_SYMS_H
#define SMOLDER_ELF_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/budget.h"

struct elf_syms;

/* Reads the symbols of the ELF file open on fd (fd stays the caller's). */
struct elf_syms *elf_syms__open_fd(int fd);
/*
 * Same, merged with the .symtab of the file's separate debug information
 * when some is found (implemented in debuginfo.c, which documents the
 * search): .gnu_debugdata inside the file, then by build ID under root,
 * then by .gnu_debuglink next to path.  root is the directory through which
 * the process's files are reached ("/proc/PID/root", or "" or NULL for our
 * own); path is the file as the process sees it ("/usr/bin/foo"), or NULL.
 * Offsets always map through fd's own program headers.
 */
struct elf_syms *elf_syms__open_debug(int fd, const char *root, const char *path);
/*
 * Same, within budget b (NULL: none): NULL with errno E2BIG when the file's
 * tables (or a debug file's) need more than b->max_bytes to read, which is
 * then what the read held at most; ETIMEDOUT when b expired on the way.
 * A debug file too big to be checked is passed over with a note.
 */
struct elf_syms *elf_syms__open_debug_within(int fd, const char *root, const char *path,
					     const struct budget *b);
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
/* Whether a full symbol table (.symtab, the file's or its debug file's, with
 * its local functions) gave functions: then every function has a name, and
 * its FDEs need not be read to name the rest.  False for NULL. */
bool elf_syms__complete(const struct elf_syms *es);
/* Heap bytes es holds (tables and names), for cache budgets; 0 for NULL. */
size_t elf_syms__bytes(const struct elf_syms *es);
void elf_syms__free(struct elf_syms *es);

/*
 * Lower level, for the debug-info search: an ELF file or image held open for
 * several reads, with the same checks as above.
 */
struct elf_file;

/* Opens the regular file on fd, which must stay open until the close. */
struct elf_file *elf_file__open_fd(int fd);
/* Opens a malloc'ed image; takes it over (freed by the close or a failure). */
struct elf_file *elf_file__open_mem(void *image, size_t size);
/* The same within budget b (kept by the file for its later reads): E2BIG
 * when even its section headers would pass b->max_bytes. */
struct elf_file *elf_file__open_fd_within(int fd, const struct budget *b);
struct elf_file *elf_file__open_mem_within(void *image, size_t size, const struct budget *b);
/* Replaces the budget f's later reads are held to. */
void elf_file__set_budget(struct elf_file *f, const struct budget *b);
void elf_file__close(struct elf_file *f);
bool elf_file__big_endian(const struct elf_file *f);
/*
 * The GNU build ID (NT_GNU_BUILD_ID note, from the note sections, else the
 * PT_NOTE segments): copies at most max bytes to id, returns its length, 0
 * when there is none.
 */
size_t elf_file__build_id(struct elf_file *f, unsigned char *id, size_t max);
/*
 * The same, of the 64-bit little-endian ELF file open on fd, from its first
 * PT_NOTE segments only, in a few reads and no libelf handle: for a file's
 * identity, taken at every open of a mapping.  0 for any other file.
 */
size_t elf_file__build_id_fd(int fd, unsigned char *id, size_t max);
/*
 * The build id of the file open on fd, whatever its kind: the few reads
 * above, else through libelf, its headers within 16 MiB (a file of a
 * million section headers is refused, not read).  0 when none.
 */
size_t elf_file__build_id_of(int fd, unsigned char *id, size_t max);
/*
 * A malloc'ed copy of section name's contents (inflated if SHF_COMPRESSED)
 * and its length in *len; NULL when absent, empty, bad or over max bytes.
 */
void *elf_file__section(struct elf_file *f, const char *name, size_t max,
			size_t *len);
/*
 * The libelf handle, for readers of other parts of the file (unwind_table.c
 * reads CFI sections and program headers); it lives until the close.
 */
struct Elf *elf_file__elf(struct elf_file *f);
/*
 * The function symbols of f (.symtab, .dynsym) merged with those of dbg's
 * .symtab (dbg may be NULL), offsets mapped through f's PT_LOAD headers,
 * within f's budget.  When dbg is given but adds no function (no .symtab,
 * none in it, or another machine), returns NULL with errno ENOENT.
 */
struct elf_syms *elf_syms__open_files(struct elf_file *f, struct elf_file *dbg);

#endif
