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
 */
#ifndef SMOLDER_PROFILE_ADDR_H
#define SMOLDER_PROFILE_ADDR_H

#include <stddef.h>
#include <stdint.h>

/* A location's mapping when it is a kernel frame ([kernel.kallsyms]). */
#define PADDR_KERNEL UINT32_MAX

struct pmapping {
	uint64_t offset, size; /* the segment: file offset and length */
	uint64_t seen_at;      /* where the first process seen mapped it */
	uint64_t vaddr;        /* the ELF virtual address of offset; UINT64_MAX unknown */
	uint64_t dev, ino;
	char *file;            /* the path the process mapped */
	char *build_id;        /* GNU build id in hex, "" when none */
};

/* A frame's name at an address: map is a mapping's index + 1 (addr is a
 * file offset), PADDR_KERNEL (addr is the kernel's), or 0 (no file: addr
 * is 0). */
struct ploc {
	uint32_t name, map;
	uint64_t addr;
};

/* count samples of profile stack `stack` at locations locs[first ..
 * first + that stack's depth). */
struct psite {
	uint32_t stack;
	size_t first;
	double count;
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
	uint32_t map;  /* paddrs__mapping's, PADDR_KERNEL, or 0 */
	uint64_t addr; /* the file offset (map is a file), the kernel address, or 0 */
};

struct paddrs *paddrs__new(void);
void paddrs__free(struct paddrs *a);
/* The mapping (index + 1) of file segment f, made if new; -ENOMEM. */
long paddrs__mapping(struct paddrs *a, const struct paddr_file *f);
/*
 * Adds count samples of profile stack `stack` whose frames are names[0 ..
 * depth) at frames[0 .. depth); 0, or -ENOMEM.
 */
int paddrs__add_sample(struct paddrs *a, uint32_t stack, const uint32_t *names,
		       const struct paddr_frame *frames, uint32_t depth, double count);
/* The stacks were reordered: the one at i is now at to[i]. */
void paddrs__renumber(struct paddrs *a, const uint32_t *to);

static inline const uint32_t *paddrs__site_locs(const struct paddrs *a, const struct psite *s)
{
	return a->site_locs + s->first;
}

#endif
