/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a capture's frames were, for pprof: the files their addresses are
 * in (Mappings), each frame's address in one of them (Locations), and the
 * samples of each stack by the addresses of its frames (sites).  Stacks
 * merge by names (profile.h); two samples whose frames have the same names
 * at other instructions are one stack but two sites.  Only pprof reads
 * sites; every other output reads the stacks.
 *
 * One mapping per file segment (device, inode, file offset and size),
 * whatever process mapped it, so that the same code sampled in two
 * processes is one location although ASLR loaded it at two places: a
 * file's frames are kept by file offset, and pprof's output places each
 * segment at one address range (pprof__write.c).
 *
 * A frame of an interpreted language (a CPython function) has no address
 * but a source location: a function (its bare name, its source file, its
 * first line) and the line it was at.  Its location is (name, PADDR_SOURCE,
 * function and line): memory per distinct function and line, not per
 * sample; two samples of one function at two lines are one stack when the
 * display name leaves the line out, but two locations, so pprof still says
 * which line took which samples.
 */
#ifndef SMOLDER_PROFILE_ADDR_H
#define SMOLDER_PROFILE_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "profile/strtab.h"

/* A location's mapping when it is a kernel frame ([kernel.kallsyms]). */
#define PADDR_KERNEL UINT32_MAX
/* A location's mapping when it is a source location: addr is
 * paddr__source_addr(function, line). */
#define PADDR_SOURCE (UINT32_MAX - 1)

struct pmapping {
	uint64_t offset, size; /* the segment: file offset and length */
	uint64_t seen_at;      /* where the first process seen mapped it */
	uint64_t vaddr;        /* the ELF virtual address of offset; UINT64_MAX unknown */
	uint64_t dev, ino;
	char *file;            /* the path the process mapped */
	char *build_id;        /* GNU build id in hex, "" when none */
};

/*
 * A frame's name at an address: map is a mapping's index + 1 (addr is a
 * file offset), PADDR_KERNEL (addr is the kernel's), PADDR_SOURCE (addr is
 * a function of a->srcs and a line), or 0 (no file: addr is 0).  A native
 * frame named from its file's DWARF also has a source: src (a function of
 * a->srcs + 1; 0 none) and line.  A function inlined at an address is a
 * frame of its own at that address, its outer the location (+ 1) of the
 * frame it was inlined into (0: not inlined): pprof makes the chain one
 * Location with a Line each.
 */
struct ploc {
	uint32_t name, map;
	uint64_t addr;
	uint32_t src, line;
	uint32_t outer;
};

/* count samples of profile stack `stack` at locations locs[first ..
 * first + that stack's depth). */
struct psite {
	uint32_t stack;
	size_t first;
	double count;
};

/* A source location's function: strings of paddrs' src_strs, and its first
 * line (0 unknown).  One per distinct (func, file, start_line). */
struct psource {
	uint32_t func, file;
	uint32_t start_line;
};

struct paddrs {
	struct pmapping *maps;
	size_t nr_maps, cap_maps;
	uint32_t *map_slots;  /* index + 1; 0 empty */
	size_t nmap_slots;
	struct ploc *locs;
	size_t nr_locs, cap_locs;
	uint32_t *loc_slots;
	size_t nloc_slots;
	struct psite *sites;
	size_t nr_sites, cap_sites;
	uint32_t *site_slots;
	size_t nsite_slots;
	uint32_t *site_locs;  /* every site's location ids */
	size_t nr_site_locs, cap_site_locs;
	struct psource *srcs; /* source locations' functions */
	size_t nr_srcs, cap_srcs;
	uint32_t *src_slots;
	size_t nsrc_slots;
	struct strtab src_strs; /* their names and files, each once */
};

/* The file segment a user frame's address is in, as its process maps it. */
struct paddr_file {
	const char *path, *build_id; /* build_id: hex, "" or NULL when none */
	uint64_t dev, ino;
	uint64_t start, end, pgoff;  /* the process's mapping */
	uint64_t off, vaddr;         /* a file offset in it and its ELF virtual
				      * address (UINT64_MAX: unknown) */
};

/* One frame of a sample, for paddrs__add_sample. */
struct paddr_frame {
	uint32_t map;  /* paddrs__mapping's, PADDR_KERNEL, PADDR_SOURCE, or 0 */
	uint64_t addr; /* the file offset (map is a file), the kernel address,
			* paddrs__source's, or 0 */
	uint32_t src, line; /* a native frame's DWARF source (paddrs__line) */
	bool inlined;  /* inlined into the frame before it, at the same address */
};

/* A frame's source location (a CPython frame's), for paddrs__source. */
struct paddr_source {
	const char *func;    /* the bare name: "Outer.meth"; NULL as "" */
	const char *file;    /* the source file's full path; NULL as "" */
	uint32_t line;       /* the line it was at; 0 unknown */
	uint32_t start_line; /* the function's first line; 0 unknown */
};

struct paddrs *paddrs__new(void);
void paddrs__free(struct paddrs *a);
/* The mapping (index + 1) of file segment f, made if new; -ENOMEM. */
long paddrs__mapping(struct paddrs *a, const struct paddr_file *f);
/*
 * The frame of source location s in *out (its function kept if new, the
 * strings copied): the frame a folder gives paddrs__add_sample for a frame
 * named from s.  0, or -ENOMEM.
 */
int paddrs__source(struct paddrs *a, const struct paddr_source *s, struct paddr_frame *out);
/*
 * Gives native frame *out (at an address already) the source location s:
 * its function (kept if new) and line, from its file's DWARF.  0, or
 * -ENOMEM.
 */
int paddrs__line(struct paddrs *a, const struct paddr_source *s, struct paddr_frame *out);
/*
 * Adds count samples of profile stack `stack` whose frames are names[0 ..
 * depth) at frames[0 .. depth); 0, or -ENOMEM.
 */
int paddrs__add_sample(struct paddrs *a, uint32_t stack, const uint32_t *names,
		       const struct paddr_frame *frames, uint32_t depth, double count);
/* The stacks were reordered: the one at i is now at to[i]. */
void paddrs__renumber(struct paddrs *a, const uint32_t *to);

/* A source location's addr: its function (an index of a->srcs) and line. */
static inline uint64_t paddr__source_addr(uint32_t src, uint32_t line)
{
	return (uint64_t)src << 32 | line;
}

static inline uint32_t ploc__source(const struct ploc *l)
{
	return (uint32_t)(l->addr >> 32);
}

static inline uint32_t ploc__line(const struct ploc *l)
{
	return (uint32_t)l->addr;
}

/* Whether l has a source location (a Python frame's, or a native frame's
 * from DWARF): its function (an index of a->srcs) and line. */
static inline bool ploc__has_source(const struct ploc *l, uint32_t *src, uint32_t *line)
{
	if (l->map == PADDR_SOURCE) {
		*src = ploc__source(l);
		*line = ploc__line(l);
		return true;
	}
	if (!l->src)
		return false;
	*src = l->src - 1;
	*line = l->line;
	return true;
}

/* Source string i (a function's name or file) and its length. */
static inline const char *paddrs__src_str(const struct paddrs *a, uint32_t i, uint32_t *len)
{
	*len = a->src_strs.ent[i].len;
	return a->src_strs.ent[i].s;
}

static inline const uint32_t *paddrs__site_locs(const struct paddrs *a, const struct psite *s)
{
	return a->site_locs + s->first;
}

#endif
