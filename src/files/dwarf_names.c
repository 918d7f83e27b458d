// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A file's inline chains and source lines from its DWARF (dwarf_names.h):
 * owns finding and opening the DWARF, the index of its units' ranges and
 * the memo; the chain at an address is dwarf_scopes.c's.
 * What libdw would do on its own that a crafted file could abuse is done
 * here instead, or bounded: it never opens a file itself (a
 * .gnu_debugaltlink file, as dwz writes, is looked up here by build id
 * under the root, through safe_open, and handed to it); the units are
 * listed from their headers first (dwarf_next_unit), so that what libdw
 * will hold for each (DWARF_UNIT_COST, and DWARF_ABBREV_COST for each
 * abbreviation of its table, counted here) is known before it reads any,
 * and a file whose units would not fit the budget's bytes is not indexed
 * (E2BIG) without having cost them.  Opening maps the file; libdw begins
 * reading it at the first chain, which indexes the units.  A compressed
 * .debug_info is read sparse when it can be (dwarf_sparse.c): libdw is
 * handed only the units chains are named in, not the whole inflated.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "files/debuginfo.h"
#include "files/dwarf_names_int.h"
#include "files/safe_open.h"
#include "lib/addr_search.h"
#include "lib/clock.h"
#include "lib/hash.h"
#include "lib/log.h"

#define DEBUG_DIR "/usr/lib/debug"
#define MAX_BUILD_ID 64

const char *dwarf_names__strerror(int err)
{
	switch (err) {
	case ENODATA: return "no DWARF";
	case ENOMSG: return "only MiniDebugInfo (.gnu_debugdata), which has no DWARF";
	case E2BIG: return "DWARF over the memory budget";
	case ETIMEDOUT: return "out of time";
	case ENOMEM: return "out of memory";
	case ENOLINK: return "its .gnu_debugaltlink file (dwz's common DWARF) is missing";
	default: return "DWARF libdw refused";
	}
}


/* A regular file at rel in root ("" ours), opened for reading; -1 if none. */
static int open_in_root(const char *root, const char *rel)
{
	struct stat st;
	int root_fd, pfd, fd;

	if (!root || !root[0])
		return safe_open__file(rel, &st);
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -1;
	pfd = safe_open__in_root(root_fd, rel, true);
	close(root_fd);
	if (pfd < 0)
		return -1;
	fd = safe_open__reopen(pfd, &st);
	close(pfd);
	return fd;
}

/*
 * The .gnu_debugaltlink file (dwz's common DWARF) of dn, found by its
 * build id under root and mapped, to hand to libdw when it is indexed:
 * libdw would otherwise open the path the file names, in our own
 * namespace, whatever it is (a FIFO blocks it for good).  0 when dn needs
 * none; -ENOLINK when it is missing.
 */
static int open_alt(struct dwarf_names *dn, const char *root, bool untrusted,
		    const struct budget *b)
{
	char rel[sizeof(DEBUG_DIR "/.build-id/xx/.debug") + 2 * MAX_BUILD_ID];
	size_t len = 0, all, inflated, name_len, n, at;
	const unsigned char *link = dwarf_sections__data(dn->elf, ".gnu_debugaltlink", &len), *id;
	bool debugdata;

	if (!link)
		return 0;
	/* a name, NUL, the build id (as dwelf_dwarf_gnu_debugaltlink reads it) */
	name_len = strnlen((const char *)link, len);
	if (name_len >= len || len - name_len - 1 < 2 || len - name_len - 1 > MAX_BUILD_ID)
		return -ENOLINK;
	id = link + name_len + 1;
	n = len - name_len - 1;
	at = snprintf(rel, sizeof(rel), DEBUG_DIR "/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < n; i++)
		at += snprintf(rel + at, sizeof(rel) - at, "%02x", id[i]);
	snprintf(rel + at, sizeof(rel) - at, ".debug");
	dn->alt_fd = open_in_root(root, rel);
	if (dn->alt_fd < 0)
		return -ENOLINK;
	dn->alt_elf = elf_begin(dn->alt_fd, ELF_C_READ_MMAP, NULL);
	if (!dn->alt_elf || !dwarf_sections__sizes(dn->alt_elf, &all, &inflated, &debugdata) ||
	    elf_cntl(dn->alt_elf, ELF_C_FDDONE))
		return -ENOLINK;
	close(dn->alt_fd);
	dn->alt_fd = -1;
	dn->inflated += inflated;
	if (budget__too_big(b, dn->inflated) || (untrusted && budget__too_big(b, all)))
		return -E2BIG;
	return 0;
}

/* Maps fd's DWARF into dn if it has one within b; -errno. */
static int open_dwarf(struct dwarf_names *dn, int fd, const char *root, bool untrusted,
		      const struct budget *b, bool *debugdata)
{
	size_t all, inflated;

	dn->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!dn->elf || elf_kind(dn->elf) != ELF_K_ELF)
		return -ENODATA;
	if (!dwarf_sections__sizes(dn->elf, &all, &inflated, debugdata))
		return -ENODATA;
	if (budget__too_big(b, inflated) || (untrusted && budget__too_big(b, all)))
		return -E2BIG;
	dn->inflated = inflated;
	/* before libdw inflates them */
	dn->info_mapped = dwarf_sections__mapped(dn->elf, ".debug_info");
	dn->line_mapped = dwarf_sections__mapped(dn->elf, ".debug_line");
	/* the file is mapped whole: the descriptor is not needed again */
	if (elf_cntl(dn->elf, ELF_C_FDDONE))
		return -EINVAL;
	close(dn->fd);
	dn->fd = -1;
	return open_alt(dn, root, untrusted, b);
}

static void close_dwarf(struct dwarf_names *dn)
{
	if (dn->dw)
		dwarf_end(dn->dw);
	if (dn->alt)
		dwarf_end(dn->alt);
	dwarf_sparse__free(dn->sparse); /* libelf's copy put back first */
	dwarf_sparse__free(dn->listing);
	dn->sparse = dn->listing = NULL;
	if (dn->elf)
		elf_end(dn->elf);
	if (dn->alt_elf)
		elf_end(dn->alt_elf);
	if (dn->fd >= 0)
		close(dn->fd);
	if (dn->alt_fd >= 0)
		close(dn->alt_fd);
	dn->dw = dn->alt = NULL;
	dn->elf = dn->alt_elf = NULL;
	dn->fd = dn->alt_fd = -1;
	dn->line_sec = NULL;
}

int dwarf_names__add_range(struct dwarf_names *dn, uint64_t lo, uint64_t hi, uint32_t unit)
{
	if (lo >= hi)
		return 0;
	if (dn->nr_ranges == dn->cap_ranges) {
		size_t cap = dn->cap_ranges ? dn->cap_ranges * 2 : 64;
		struct unit_range *r = reallocarray(dn->ranges, cap, sizeof(*r));

		if (!r)
			return -ENOMEM;
		dn->ranges = r;
		dn->cap_ranges = cap;
	}
	dn->ranges[dn->nr_ranges++] = (struct unit_range){ lo, hi, unit };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct unit_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}


/* What the index holds of ours, and what libdw holds for it. */
static size_t index_bytes(const struct dwarf_names *dn)
{
	return dn->inflated + dn->libdw_bytes + dn->line_list + dn->cap_units * sizeof(*dn->units) +
	       dn->cap_ranges * sizeof(*dn->ranges) + dn->func_bytes +
	       dwarf_sparse__bytes(dn->sparse, dn->cap_units) +
	       dwarf_sparse__bytes(dn->listing, dn->cap_units);
}

static void free_funcs(struct dwarf_names *dn)
{
	for (size_t i = 0; i < dn->nr_units; i++)
		free(dn->units[i].funcs);
	dn->func_bytes = 0;
}

int dwarf_names__add_unit(struct dwarf_names *dn, const struct budget *b, uint64_t **abbrevs,
			  uint64_t off, uint64_t hsize, uint64_t size, uint64_t abbrev)
{
	if (dn->nr_units == dn->cap_units) {
		size_t cap = dn->cap_units ? dn->cap_units * 2 : 64;
		struct dwarf_unit *u = reallocarray(dn->units, cap, sizeof(*u));
		uint64_t *a = u ? reallocarray(*abbrevs, cap, sizeof(*a)) : NULL;

		if (u)
			dn->units = u;
		if (!a)
			return -ENOMEM;
		*abbrevs = a;
		dn->cap_units = cap;
	}
	if (dn->nr_units >= DWARF_MAX_UNITS ||
	    dwarf_names__over(dn, b, index_bytes(dn) + (dn->nr_units + 1) * DWARF_UNIT_COST))
		return -E2BIG;
	dn->units[dn->nr_units] = (struct dwarf_unit){ .start = off, .die = off + hsize,
						       .size = size };
	(*abbrevs)[dn->nr_units++] = abbrev;
	return 0;
}

/*
 * Lists the units of .debug_info from their headers, with where their
 * abbreviation tables start in *abbrevs (as many), within b's bytes: each
 * will cost DWARF_UNIT_COST once libdw reads it.
 */
static int list_units(struct dwarf_names *dn, const struct budget *b, uint64_t **abbrevs)
{
	Dwarf_Off off = 0, next, abbrev;
	Dwarf_Half version;
	size_t hsize, info_size = 0;

	dwarf_sections__data(dn->elf, ".debug_info", &info_size);
	/* a unit past the section's end, or of a version libdw does not read
	 * (zeros in a sparse hole), ends the list */
	while (dwarf_next_unit(dn->dw, off, &next, &hsize, &version, &abbrev, NULL, NULL, NULL,
			       NULL) == 0 && next > off && next <= info_size && version >= 2 &&
	       version <= 5) {
		int e = (dn->nr_units & 63) == 0 && budget__expired(b)
				? -ETIMEDOUT
				: dwarf_names__add_unit(dn, b, abbrevs, off, hsize, next - off, abbrev);

		if (e)
			return e;
		off = next;
	}
	return 0;
}

/* The ranges of unit i, read from its first DIE (clang writes no .debug_aranges). */
static int index_unit(struct dwarf_names *dn, size_t i, const struct budget *b)
{
	struct dwarf_unit *u = &dn->units[i];
	Dwarf_Addr base, lo, hi;
	ptrdiff_t it = 0;
	Dwarf_Die cu;
	int tag;

	/*
	 * Reading its first DIE parses its abbreviations up to that DIE's, the
	 * walks the rest: counted at once, as they may all be.
	 */
	if (dwarf_names__unit_cost(dn, u, b))
		return -E2BIG;
	if (!dwarf_offdie(dn->dw, u->die, &cu))
		return 0;
	tag = dwarf_tag(&cu);
	/* a skeleton's code is described in its .dwo, which is not read */
	if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit)
		return 0;
	for (int k = 0; k < 4096 && (it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0; k++)
		if (dwarf_names__add_range(dn, lo, hi, (uint32_t)i))
			return -ENOMEM;
	return 0;
}

static int sparse_build(struct dwarf_names *dn, const struct budget *b);

/* The address ranges of every compilation unit, sorted. */
static int index_units(struct dwarf_names *dn, const struct budget *b)
{
	uint64_t *abbrevs = NULL, all = 0;
	int e = 0;

	/* sparse: listed as .debug_info streamed past */
	if (!dn->sparse && !(e = list_units(dn, b, &abbrevs)))
		e = dwarf_abbrevs__count(dn, abbrevs);
	free(abbrevs);
	/* what every unit will cost, known before libdw reads one */
	for (size_t i = 0; !e && i < dn->nr_units; i++)
		all += DWARF_UNIT_COST + dn->units[i].abbrevs * DWARF_ABBREV_COST;
	if (!e && dwarf_names__over(dn, b, index_bytes(dn) + all))
		e = -E2BIG;
	/* by .debug_aranges when it covers every unit: libdw then reads a
	 * unit only when a frame is named in it (libc6-dbg's libc has 4,126) */
	if (!e && !(e = dwarf_aranges__index(dn)) && dn->nr_ranges)
		goto sort;
	e = e == -ENOENT ? 0 : e;
	/* every unit's first DIE is read: sparse no longer pays */
	if (!e && dn->sparse && dwarf_sparse__keep(dn, dn->sparse, 0, true))
		e = sparse_build(dn, b);
	for (size_t i = 0; !e && i < dn->nr_units; i++) {
		/* a unit can cost milliseconds: its abbreviations are parsed */
		if (budget__expired(b))
			return -ETIMEDOUT;
		e = index_unit(dn, i, b);
	}
	if (e)
		return e;
	if (!dn->nr_ranges)
		return -ENODATA; /* no unit covers code: nothing to name */
sort:
	qsort(dn->ranges, dn->nr_ranges, sizeof(*dn->ranges), cmp_range);
	return 0;
}

/* libdw begun on dn's file, its alt file handed to it. */
static int begin_dwarf(struct dwarf_names *dn)
{
	const char *name;
	const void *id;

	dn->dw = dwarf_begin_elf(dn->elf, DWARF_C_READ, NULL);
	if (!dn->dw)
		return -EINVAL;
	if (dn->alt_elf) {
		dn->alt = dwarf_begin_elf(dn->alt_elf, DWARF_C_READ, NULL);
		if (!dn->alt)
			return -ENOLINK;
		dwarf_setalt(dn->dw, dn->alt);
	} else if (dwelf_dwarf_gnu_debugaltlink(dn->dw, &name, &id) > 0) {
		return -ENOLINK; /* libdw would look for it itself */
	}
	return 0;
}


/*
 * libdw ended and begun again on dn's sparse sections made again with the
 * units marked kept (within b's time: the sections are streamed again),
 * the index kept (as shed_lines does).  0, -ETIMEDOUT, or why it cannot
 * go on (-errno).
 */
static int sparse_build(struct dwarf_names *dn, const struct budget *b)
{
	size_t kept, full, units;
	unsigned builds;
	size_t bytes = dwarf_sparse__stream_bytes(dn, dn->sparse, SIZE_MAX);
	double t0 = clock__now();
	int e;

	/* none kept (the first, right after the listing): made-up headers
	 * only, done even out of time, so that the listing is not lost */
	if (bytes && !budget__affords(b, (double)bytes / DWARF_INFLATE_RATE))
		return -ETIMEDOUT;
	if (dn->dw && !dwarf_scopes__forget_paths(dn))
		return -ENOMEM;
	if (dn->dw)
		dwarf_end(dn->dw);
	dn->dw = NULL;
	for (size_t i = 0; i < dn->nr_units; i++) {
		if (dn->units[i].lines == LINES_READ)
			dn->units[i].lines = LINES_UNREAD;
		dn->units[i].read = false; /* libdw reads them again */
	}
	dn->libdw_bytes = dn->rows_bytes = dn->units_lined = 0;
	if ((e = dwarf_sparse__build(dn, dn->sparse, false)))
		return e;
	dn->dw = dwarf_begin_elf(dn->elf, DWARF_C_READ, NULL);
	/* the kept units' line programs are known once libdw reads them */
	if (dn->dw && dwarf_sparse__line_offsets(dn, dn->sparse, dn->dw)) {
		dwarf_end(dn->dw);
		e = dwarf_sparse__build(dn, dn->sparse, true);
		dn->dw = e ? NULL : dwarf_begin_elf(dn->elf, DWARF_C_READ, NULL);
	}
	dwarf_sparse__sizes(dn->sparse, &kept, &full, &units, &builds);
	info("inline frames: %zu of %zu units of .debug_info kept, %zu of %zu bytes inflated of "
	     "the sections read sparse (build %u in %.1f ms)", units, dn->nr_units, kept, full,
	     builds, (clock__now() - t0) * 1e3);
	if (e)
		return e;
	return dn->dw ? 0 : -EINVAL;
}

/* Unit u of dn's sparse sections kept, libdw begun again on them: 0,
 * -ETIMEDOUT (not kept yet), or why it cannot go on. */
static int sparse_keep(struct dwarf_names *dn, size_t u, const struct budget *b)
{
	size_t kept, full, units;
	unsigned builds;

	dwarf_sparse__sizes(dn->sparse, &kept, &full, &units, &builds);
	if (!budget__affords(b, (double)dwarf_sparse__stream_bytes(dn, dn->sparse, u) /
				     DWARF_INFLATE_RATE))
		return -ETIMEDOUT;
	dwarf_sparse__keep(dn, dn->sparse, u, builds >= DWARF_SPARSE_BUILDS);
	return sparse_build(dn, b);
}

/*
 * libdw begun on dn's .debug_info and .debug_abbrev made sparse, when
 * they can be (dwarf_sparse.c), holding no unit yet: chains add the units
 * they are in.  -ENOENT when they cannot be: libdw inflates them whole.
 * -ETIMEDOUT while their units are listed: a later budget goes on.
 */
static int begin_sparse(struct dwarf_names *dn, const struct budget *b)
{
	size_t kept, full, units;
	unsigned builds;
	double t0 = clock__now();
	int e;

	if (dn->not_sparse)
		return -ENOENT;
	e = dwarf_sparse__index(dn, !dn->no_lines, b, &dn->listing);
	dn->listing_ms += (clock__now() - t0) * 1e3;
	if (e == -ETIMEDOUT)
		return e;
	debug("inline frames: .debug_info and .debug_abbrev streamed for their units in %.1f ms: %s",
	      dn->listing_ms, e ? strerror(-e) : "sparse");
	dn->sparse = dn->listing;
	dn->listing = NULL;
	if (e == -ENOENT) {
		dn->nr_units = 0; /* listed again from libdw's reading */
		dn->not_sparse = true;
	}
	if (e)
		return e;
	dwarf_sparse__sizes(dn->sparse, &kept, &full, &units, &builds);
	dn->inflated -= full < dn->inflated ? full : dn->inflated;
	return sparse_build(dn, b);
}

/* libdw's reading of dn and the units' index. */
static int index_dwarf(struct dwarf_names *dn, const struct budget *b)
{
	struct dwarf_file_range packed[DWARF_MAX_COMPRESSED];
	size_t nr_packed;
	int e;

	/* every compressed section's pages: those set aside had their
	 * headers read */
	nr_packed = dwarf_sections__compressed(dn->elf, packed, DWARF_MAX_COMPRESSED);
	if (!dn->set_aside) {
		dn->inflated = dn->aside = 0;
		dwarf_sections__set_aside(dn->elf, !dn->no_lines, &dn->inflated, &dn->aside);
		if (dn->alt_elf)
			dwarf_sections__set_aside(dn->alt_elf, !dn->no_lines, &dn->inflated,
						  &dn->aside);
		dn->set_aside = true;
	}
	/* sparse, its listing goes on over budgets; libdw inflating the
	 * sections cannot stop halfway: it waits for a budget that affords it */
	if ((e = begin_sparse(dn, b)) == -ENOENT)
		e = budget__affords(b, (double)dn->inflated / DWARF_INFLATE_RATE) ? begin_dwarf(dn)
										  : -ETIMEDOUT;
	if (e)
		return e;
	dwarf_sections__drop_pages(dn->elf, packed, nr_packed);
	dn->line_sec = dwarf_sections__data(dn->elf, ".debug_line", &dn->line_size);
	return index_units(dn, b);
}

/*
 * libdw keeps every line program it read until dwarf_end.  Past
 * DWARF_ROWS_HELD of rows, libdw is ended and begun again on the same
 * sections (mapped, or inflated once into the Elf, which stays), so that
 * a file's lines cost the units named since, not all it ever named.  What
 * is ours stays: the unit index and function lists (by DIE offset), the
 * memo, whose strings are the sections' (names) or ours (paths: kept,
 * their index by libdw's pointers dropped).  0, or the -errno libdw
 * refused with (then only the memo names).
 */
static int shed_lines(struct dwarf_names *dn)
{
	if (!dwarf_scopes__forget_paths(dn))
		return 0; /* held a while longer */
	dwarf_end(dn->dw);
	if (dn->alt)
		dwarf_end(dn->alt);
	dn->dw = dn->alt = NULL;
	for (size_t i = 0; i < dn->nr_units; i++)
		if (dn->units[i].lines == LINES_READ)
			dn->units[i].lines = LINES_UNREAD;
	dn->libdw_bytes -= dn->rows_bytes;
	dn->rows_bytes = dn->units_lined = 0;
	return begin_dwarf(dn);
}

/* Undoes index_dwarf, for another try in a later budget. */
static void unindex(struct dwarf_names *dn)
{
	if (dn->dw)
		dwarf_end(dn->dw);
	if (dn->alt)
		dwarf_end(dn->alt);
	dn->dw = dn->alt = NULL;
	dwarf_sparse__free(dn->sparse);
	dn->sparse = NULL;
	dn->line_sec = NULL;
	free_funcs(dn);
	free(dn->units);
	free(dn->ranges);
	dn->units = NULL;
	dn->ranges = NULL;
	dn->nr_units = dn->nr_ranges = dn->cap_units = dn->cap_ranges = 0;
	dn->libdw_bytes = dn->line_list = 0;
	dwarf_scopes__free_paths(dn);
}

struct dwarf_names *dwarf_names__open(int fd, const char *root, const char *path,
				      bool untrusted, const struct budget *b)
{
	struct dwarf_names *dn = calloc(1, sizeof(*dn));
	bool debugdata = false;
	int e, dfd = -1;

	if (!dn) {
		errno = ENOMEM;
		return NULL;
	}
	elf_version(EV_CURRENT);
	dn->alt_fd = -1;
	dn->max_bytes = b ? b->max_bytes : 0;
	dn->fd = dup(fd);
	e = dn->fd < 0 ? -errno : open_dwarf(dn, dn->fd, root, untrusted, b, &debugdata);
	if (e == -ENODATA) {
		struct elf_file *dbg;

		close_dwarf(dn);
		dbg = debuginfo__open_file(fd, root, path, b, &dfd);
		if (dbg) {
			elf_file__close(dbg);
			dn->fd = dfd;
			dn->separate = true;
			e = open_dwarf(dn, dfd, root, untrusted, b, &debugdata);
		}
		if (e == -ENODATA && debugdata)
			e = -ENOMSG;
	}
	if (e) {
		dwarf_names__free(dn);
		errno = -e;
		return NULL;
	}
	return dn;
}

/* The unit whose range holds vaddr; NULL if none. */
static const struct unit_range *range_of(const struct dwarf_names *dn, uint64_t vaddr)
{
	long i = ADDR_SEARCH(dn->ranges, dn->nr_ranges, lo, vaddr);

	/* ranges may nest or overlap (a unit's ranges list): look back a little */
	for (int k = 0; i >= 0 && k < 64; i--, k++)
		if (vaddr < dn->ranges[i].hi)
			return &dn->ranges[i];
	return NULL;
}

/* Memo slot for vaddr: its own, or the empty one it would take. */
static struct memo *memo_slot(struct dwarf_names *dn, uint64_t vaddr)
{
	size_t j = hash__mix64(vaddr) & (dn->cap_memo - 1);

	while (dn->memo[j].n != UINT32_MAX && dn->memo[j].vaddr != vaddr)
		j = (j + 1) & (dn->cap_memo - 1);
	return &dn->memo[j];
}

static int memo_grow(struct dwarf_names *dn)
{
	size_t cap = dn->cap_memo ? dn->cap_memo * 2 : 256;
	struct memo *old = dn->memo;
	size_t had = dn->cap_memo;

	if ((dn->nr_memo + 1) * 2 <= dn->cap_memo)
		return 0;
	dn->memo = malloc(cap * sizeof(*dn->memo));
	if (!dn->memo) {
		dn->memo = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		dn->memo[i].n = UINT32_MAX;
	dn->cap_memo = cap;
	for (size_t i = 0; i < had; i++)
		if (old[i].n != UINT32_MAX)
			*memo_slot(dn, old[i].vaddr) = old[i];
	free(old);
	return 0;
}

/* Remembers the chain at vaddr (frames outermost first). */
static int memo_add(struct dwarf_names *dn, uint64_t vaddr, const struct dwarf_chain *c)
{
	struct memo *m;

	if (memo_grow(dn))
		return -ENOMEM;
	if (dn->nr_frames + c->n > dn->cap_frames) {
		size_t cap = dn->cap_frames ? dn->cap_frames * 2 : 256;
		struct dwarf_frame *f;

		while (cap < dn->nr_frames + c->n)
			cap *= 2;
		f = reallocarray(dn->memo_frames, cap, sizeof(*f));
		if (!f)
			return -ENOMEM;
		dn->memo_frames = f;
		dn->cap_frames = cap;
	}
	if (c->n)
		memcpy(dn->memo_frames + dn->nr_frames, c->f, c->n * sizeof(c->f[0]));
	m = memo_slot(dn, vaddr);
	*m = (struct memo){ vaddr, (uint32_t)dn->nr_frames, c->n };
	dn->nr_frames += c->n;
	dn->nr_memo++;
	return 0;
}

int dwarf_names__prepare(struct dwarf_names *dn, const struct budget *b)
{
	if (!dn->dw && !dn->index_error) {
		dn->index_error = index_dwarf(dn, b);
		/* what libdw read is freed; a listing under way is kept */
		if (dn->index_error && !dn->listing)
			unindex(dn);
		if (dn->index_error == -ETIMEDOUT) { /* again in a later budget */
			dn->index_error = 0;
			return -ETIMEDOUT;
		}
	}
	return dn->index_error;
}

bool dwarf_names__prepared(const struct dwarf_names *dn)
{
	return dn->dw || dn->index_error;
}

int dwarf_names__chain(struct dwarf_names *dn, uint64_t vaddr, const struct budget *b,
		       struct dwarf_chain *out)
{
	const struct unit_range *r;
	Dwarf_Die cu;
	int e = -ENOENT;

	out->n = 0;
	if (dn->cap_memo) {
		const struct memo *m = memo_slot(dn, vaddr);

		if (m->n != UINT32_MAX) {
			out->n = m->n;
			if (m->n)
				memcpy(out->f, dn->memo_frames + m->first, m->n * sizeof(out->f[0]));
			return m->n ? 0 : -ENOENT;
		}
	}
	if (budget__expired(b))
		return -ETIMEDOUT;
	e = dwarf_names__prepare(dn, b);
	if (e == -ETIMEDOUT)
		return e;
	if (e)
		return -ENOENT;
	/* one unit's rows over the limit are kept: shedding would read them again */
	if (dn->rows_bytes > DWARF_ROWS_HELD && dn->units_lined > 1 && (e = shed_lines(dn))) {
		dn->index_error = e;
		return -ENOENT;
	}
	e = -ENOENT;
	r = range_of(dn, vaddr);
	if (r && dn->sparse && !dwarf_sparse__built(dn->sparse, r->unit) &&
	    (e = sparse_keep(dn, r->unit, b))) {
		if (e == -ETIMEDOUT)
			return e;
		dn->index_error = e;
		return -ENOENT;
	}
	e = -ENOENT;
	if (r && dwarf_offdie(dn->dw, dn->units[r->unit].die, &cu))
		e = dwarf_scopes__chain(dn, &cu, vaddr, b, out);
	if (e == -ETIMEDOUT)
		return e; /* not remembered: a later budget may have the time */
	if (memo_add(dn, vaddr, out))
		return -ENOMEM;
	return out->n ? 0 : -ENOENT;
}

int dwarf_names__mark(struct dwarf_names *dn, uint64_t vaddr, const struct budget *b)
{
	const struct unit_range *r;
	int e = dwarf_names__prepare(dn, b);

	if (e)
		return e == -ETIMEDOUT ? e : -ENOENT;
	if (dn->cap_memo && memo_slot(dn, vaddr)->n != UINT32_MAX)
		return 0; /* looked up before */
	r = range_of(dn, vaddr);
	if (r && dn->sparse)
		dwarf_sparse__keep(dn, dn->sparse, r->unit, false);
	return r ? 0 : -ENOENT;
}

void dwarf_names__set_lines(struct dwarf_names *dn, bool on)
{
	/* .debug_line was set aside or kept when libdw began: as it was */
	if (!dn->set_aside)
		dn->no_lines = !on;
}

void dwarf_names__inflated(const struct dwarf_names *dn, size_t *inflated, size_t *aside)
{
	*inflated = dn->inflated;
	*aside = dn->aside;
}

int dwarf_names__unit_cost(struct dwarf_names *dn, struct dwarf_unit *u, const struct budget *b)
{
	if (u->read)
		return 0;
	if (dwarf_names__over(dn, b, dwarf_names__bytes(dn) + DWARF_UNIT_COST +
					    u->abbrevs * DWARF_ABBREV_COST))
		return -E2BIG;
	u->read = true;
	dn->libdw_bytes += DWARF_UNIT_COST + u->abbrevs * DWARF_ABBREV_COST;
	return 0;
}

bool dwarf_names__sparse(const struct dwarf_names *dn, size_t *kept, size_t *full)
{
	size_t units;
	unsigned builds;

	*kept = *full = 0;
	if (!dn->sparse)
		return false;
	dwarf_sparse__sizes(dn->sparse, kept, full, &units, &builds);
	return true;
}

size_t dwarf_names__bytes(const struct dwarf_names *dn)
{
	if (!dn)
		return 0;
	return sizeof(*dn) + index_bytes(dn) + dn->cap_memo * sizeof(*dn->memo) +
	       dn->cap_frames * sizeof(*dn->memo_frames) + dn->path_bytes;
}

bool dwarf_names__unit_range(const struct dwarf_names *dn, size_t i, uint64_t *lo,
			     uint64_t *hi)
{
	if (i >= dn->nr_ranges)
		return false;
	*lo = dn->ranges[i].lo;
	*hi = dn->ranges[i].hi;
	return true;
}

int dwarf_names__error(const struct dwarf_names *dn)
{
	return dn->index_error;
}

bool dwarf_names__separate(const struct dwarf_names *dn)
{
	return dn->separate;
}

void dwarf_names__free(struct dwarf_names *dn)
{
	if (!dn)
		return;
	close_dwarf(dn);
	dwarf_scopes__free_paths(dn);
	free_funcs(dn);
	free(dn->units);
	free(dn->ranges);
	free(dn->memo);
	free(dn->memo_frames);
	free(dn);
}
