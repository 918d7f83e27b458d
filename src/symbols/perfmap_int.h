/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside a perf map, shared by the parser (perfmap.c) and the file reader
 * (perfmap_file.c); nothing else includes this.
 *
 * Lines are added to the end of the entry array, in any order, each with
 * its line number (seq: a later line has a higher one); a commit sorts what
 * was added, merges it with the entries already sorted and flattens the
 * overlaps again, so a map that grows by a few lines costs a merge, not a
 * new parse.  A rollback drops what was added since the last commit.
 */
#ifndef SMOLDER_PERFMAP_INT_H
#define SMOLDER_PERFMAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "symbols/perfmap.h"

/* One parsed line. */
struct pm_entry {
	uint64_t start, end;
	uint32_t name; /* offset in the name arena */
	uint32_t seq;  /* line order: a higher seq wins overlaps */
};

/* A piece of the address space that one entry owns. */
struct pm_seg {
	uint64_t start, end;
	uint32_t entry;
};

struct perfmap {
	struct pm_entry *entries; /* [0, sorted) sorted by start, then added ones */
	size_t nr, cap, sorted;
	struct pm_seg *segs;      /* sorted, disjoint; of the committed entries */
	size_t nr_segs;
	char *names;
	size_t names_used, names_cap, names_committed;
	/* The file it was read from (perfmap_file.c); zero for parsed text. */
	uint64_t dev, ino, mtime_sec, mtime_nsec;
	uint64_t ctime_sec, ctime_nsec; /* which its owner cannot set back */
	uint64_t size;     /* at the last read */
	uint64_t consumed; /* bytes read: up to the last newline */
	uint32_t next_seq; /* for the next appended line */
	bool truncated;    /* older lines were left out for the budget */
};

/* What each entry costs once committed: itself, up to two segments and the
 * sort's and the flattening's scratch. */
#define PM_ENTRY_COST (sizeof(struct pm_entry) * 2 + sizeof(struct pm_seg) * 2 + sizeof(uint32_t))

struct perfmap *pm_new(void);
/* Parses "START SIZE name" in [p, end) (no newline) and adds it with seq:
 * 1 added, 0 skipped (not a valid line), -ENOMEM. */
int pm_add_line(struct perfmap *pm, const char *p, const char *end, uint32_t seq);
/* Bytes pm would hold with everything added so far committed. */
size_t pm_cost(const struct perfmap *pm);
/* Sorts and merges the added entries, flattens: 0 or -ENOMEM (then
 * nothing changed but the added entries are gone). */
int pm_commit(struct perfmap *pm);
/* Drops the entries added since the last commit. */
void pm_rollback(struct perfmap *pm);
/* Forgets every entry (the file is read again from scratch). */
void pm_clear(struct perfmap *pm);

#endif
