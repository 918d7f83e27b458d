/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Separate debug information of stripped files.  The entry point,
 * elf_syms__open_debug, is declared in elf_syms.h next to the other ways to
 * open a symbol table; these are the helpers it is built from, exposed for
 * the unit tests.
 */
#ifndef SMOLDER_DEBUGINFO_H
#define SMOLDER_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>

#include "files/elf_syms.h"

/*
 * Decodes one xz stream (.gnu_debugdata) into a malloc'ed buffer and stores
 * its length in *out_len.  NULL when the stream is bad, truncated, needs
 * too much decoder memory or would decode to more than max bytes; decoding
 * stops as soon as the output passes max.
 */
void *debuginfo__xz_decode(const void *in, size_t len, size_t max,
			   size_t *out_len);
/*
 * The CRC-32 (zlib's, which .gnu_debuglink records) of the whole regular
 * file on fd, read in chunks.  0, or -errno: not a regular file, bigger than
 * 512 MiB (-EFBIG: the debug-link search passes such a file over with a
 * note rather than read it whole), or a read failed.
 */
int debuginfo__file_crc(int fd, uint32_t *crc);

/*
 * The separate debug file of the ELF file open on fd, found as
 * elf_syms__open_debug finds it (by build ID, then by .gnu_debuglink; not
 * .gnu_debugdata, which has no CFI), for readers of other sections than
 * symbols (unwind tables: .debug_frame), within b (NULL: none; the files
 * opened keep it).  NULL if none; else *dbg_fd is the descriptor it reads,
 * to close after elf_file__close.
 */
struct elf_file *debuginfo__open_file(int fd, const char *root, const char *path,
				      const struct budget *b, int *dbg_fd);

#endif
