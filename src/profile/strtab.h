/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A string table: distinct strings numbered in first-seen order, found by
 * hash.  Profiles keep each frame name once in one (so a 100,000-line
 * folded file costs its distinct names, not its bytes).
 */
#ifndef SMOLDER_STRTAB_H
#define SMOLDER_STRTAB_H

#include <stddef.h>
#include <stdint.h>

/* Distinct strings in first-seen order.  The bytes are not copied: they
 * must outlive the table. */
struct strtab_ent {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

struct strtab {
	struct strtab_ent *ent;
	size_t nr, cap;
	uint32_t *slots; /* index + 1 into ent, 0 = empty; a power of 2 */
	size_t nslots;
};

/* The index of s[0..len), or -1 when the table does not hold it. */
long strtab__find(const struct strtab *t, const char *s, size_t len);
/* The index of s[0..len), added if new; -ENOMEM on failure. */
long strtab__intern(struct strtab *t, const char *s, size_t len);
void strtab__free(struct strtab *t);

#endif
