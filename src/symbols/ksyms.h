/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel symbols from /proc/kallsyms: text symbols of vmlinux and of loaded
 * modules, sorted for binary search.
 */
#ifndef SMOLDER_KSYMS_H
#define SMOLDER_KSYMS_H

#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module; /* NULL for vmlinux, else e.g. "ip_tables" */
};

struct ksyms;

/* Loads /proc/kallsyms; NULL with errno set on failure. */
struct ksyms *ksyms__load(void);
/* Loads a kallsyms-format file (tests use fixtures). */
struct ksyms *ksyms__load_file(const char *path);
/*
 * The text symbol containing addr: the one with the greatest address <= addr.
 * NULL when addr is below the first symbol, the table is empty, or the
 * addresses are hidden (all zero).  Text means types t, T and the weak
 * functions w, W.  The names are stored coded: a symbol's is decoded the
 * first time a lookup returns it and kept in the table, so the answer
 * stays valid until ksyms__free; a table is thus looked up from one
 * thread at a time.
 */
const struct ksym *ksyms__map_addr(const struct ksyms *ks, uint64_t addr);
/* Symbol by exact name (of several, the first in address order), NULL if
 * absent.  A linear scan that decodes every name: for tests. */
const struct ksym *ksyms__get_symbol(const struct ksyms *ks, const char *name);
/* Number of symbols kept. */
size_t ksyms__count(const struct ksyms *ks);
/* True when every address read was 0 (kptr_restrict hides them). */
int ksyms__addresses_hidden(const struct ksyms *ks);
void ksyms__free(struct ksyms *ks);

#endif
