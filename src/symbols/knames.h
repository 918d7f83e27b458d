/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel symbol table's names, ~1.9 MB as text, kept in ~0.7 MB: in
 * blocks of KNAMES_BLOCK names, each name as the bytes it shares with the
 * one before (front coding) and the rest, with "__pfx_NAME" followed by
 * NAME (function padding, half of a 6.x kernel's text symbols) as one
 * flag, all in Huffman codes made from the first names' own counts.  A
 * name is decoded on demand from the start of its block: under a
 * microsecond.
 */
#ifndef SMOLDER_KNAMES_H
#define SMOLDER_KNAMES_H

#include <stddef.h>

#define KNAMES_BLOCK 16

struct knames;

struct knames *knames__new(void);
/* Adds the next name (index: the number added before): 0 or -errno. */
int knames__add(struct knames *kn, const char *name, size_t len);
/* Ends the adds, freeing what only they needed: 0 or -errno. */
int knames__seal(struct knames *kn);
/*
 * Name idx (< the number added), once sealed, in kn's buffer: valid until
 * the next call.  Calls in increasing order within a block decode each
 * name once.
 */
const char *knames__name(struct knames *kn, size_t idx);
/* The bytes kn holds resident (its codes and block offsets). */
size_t knames__bytes(const struct knames *kn);
void knames__free(struct knames *kn);

#endif
