/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The symbol-table cache: the symbol table of each mapped file, read once
 * per file identity (filecache.h: shared by every process that maps the
 * file) and held by the mappings that use it.  Owns opening a mapping's
 * file as its process sees it, reading its table within the caller's time
 * and memory budgets, remembering why a file has none (too big for good;
 * late, tried again in a later budget), its build id, where its functions
 * start (its FDEs, for code no symbol names), the demangled forms of its
 * names, and eviction and trimming of tables no mapping holds.
 * usyms.c maps processes' addresses onto these tables.
 */
#ifndef SMOLDER_SYMCACHE_H
#define SMOLDER_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/budget.h"
#include "files/dwarf_names.h"
#include "files/filecache.h"
#include "files/func_ranges.h"

/* What one symbol table (or one perf map) may take while it is read. */
#define SYMCACHE_FILE_BUDGET (64u << 20)

struct proc_map;
struct symcache;
struct symfile; /* one file's table */

/* The bounds of a read, and how to make room for it. */
struct symcache_read {
	const struct budget *budget; /* time; NULL: none */
	uint64_t phase;              /* budgets set so far */
	/* The bytes a new table may take now (the owner may trim to make room). */
	size_t (*allowance)(void *arg);
	void *arg;
};

struct symcache *symcache__new(void);
void symcache__free(struct symcache *sc);
void symcache__set_demangle(struct symcache *sc, bool on);
/* How files' function ranges are read (unwind_funcs__reader), for code no
 * symbol names; NULL (the default): such frames keep their exact offsets. */
void symcache__set_func_reader(struct symcache *sc, func_ranges_reader fn);
/* The table of what pid maps at m (a shared "no table" entry if the file
 * cannot be opened), read within r's bounds if not cached. */
struct symfile *symcache__resolve(struct symcache *sc, pid_t pid, const struct proc_map *m,
				  const struct symcache_read *r);
/* A mapping takes a reference: the table is not evicted under it. */
void symcache__hold(struct symcache *sc, struct symfile *f);
void symcache__release(struct symcache *sc, struct symfile *f);
/* Whether f was given up for time or room in a budget before phase: then
 * its mapping resolves it again. */
bool symfile__retry(const struct symfile *f, uint64_t phase);
/* f was used in interval (the clock of trimming's LRU). */
void symfile__touch(struct symfile *f, uint64_t interval);
/* The name of f's symbol covering file offset off, demangled if asked; NULL
 * if none.  *vaddr (if not NULL) gets off's ELF virtual address when f has a
 * table, else is left alone. */
const char *symcache__name(struct symcache *sc, struct symfile *f, uint64_t off,
			   uint64_t *vaddr);
/*
 * Where the function covering file offset off starts, as a file offset, from
 * f's FDEs (func_ranges__start): for code no symbol names, so that a
 * function's samples merge.  False when no FDE covers off.
 */
bool symcache__func_start(const struct symfile *f, uint64_t off, uint64_t *start);
/* Name frames by their inline chains from the files' DWARF (off by
 * default), with their source files and lines when lines (their cost:
 * dwarf_names__set_lines). */
void symcache__set_inline(struct symcache *sc, bool on, bool lines);
/*
 * The inline chain at ELF virtual address vaddr of f, from its DWARF (found
 * and mapped when its symbols were read; indexed when first asked, within
 * rd's time), its function names demangled if asked; strings valid while
 * f is.  0, or -ENOENT (no DWARF, or none covers vaddr), -ETIMEDOUT,
 * -ENOMEM; out->n 0 then.
 */
int symcache__chain(struct symcache *sc, struct symfile *f, const struct symcache_read *rd,
		    uint64_t vaddr, struct dwarf_chain *out);
/* What symcache__chain of vaddr reads, marked to be read with the next
 * chain's (dwarf_names__mark): a pass marks every frame first. */
void symcache__mark(struct symcache *sc, struct symfile *f, const struct symcache_read *rd,
		    uint64_t vaddr);
/* f's GNU build id in hex, "" when it has none (or its file would not open). */
const char *symcache__build_id(const struct symfile *f);
/* Frees tables no mapping holds, with t's others, oldest first (filecache.h). */
void symcache__trim(struct symcache *sc, const struct filecache_trim *t);

struct symcache_stats {
	struct filecache_stats files;
	uint64_t too_big; /* tables over the file budget: named by offset */
	uint64_t late;    /* reads given up for time or room */
	/* DWARF, for inline frames: files read, without any (or only
	 * MiniDebugInfo), over the budget, failed (time, libdw) */
	uint64_t dw_read, dw_none, dw_too_big, dw_failed;
	uint64_t dw_ready; /* of dw_read, those whose units were indexed: a
			    * frame was named in them */
	uint64_t dw_mini; /* of dw_none, those with only MiniDebugInfo */
};
void symcache__stats(const struct symcache *sc, struct symcache_stats *out);
/* Bytes of the tables and their demangled names. */
size_t symcache__bytes(const struct symcache *sc);

#endif
