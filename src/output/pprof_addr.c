// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pprof output, a capture's addresses (see pprof.c): one Mapping per file
 * segment, placed so that no two overlap in the one address space pprof
 * assumes; one Location per (name, file, address); a CPython frame's source
 * Location and its Function of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow.h"
#include "output/pprof_int.h"

/* The string index of mapping k's file (its build id is the next one):
 * after the frame names and the labels' values. */
static uint64_t pw_map_string(const struct pprof_writer *w, size_t k)
{
	return S_FRAMES + w->used.nr + w->nr_values + w->comms.nr + 2 * k;
}

/* Mapping id for the range [start, limit) at file offset offset. */
static void pw_addr_mapping(struct pprof_writer *w, uint64_t id, uint64_t start, uint64_t limit,
			    uint64_t offset, uint64_t file, uint64_t build_id)
{
	w->msg.len = 0;
	pb__uint(&w->msg, MAPPING_ID, id);
	pb__uint(&w->msg, MAPPING_MEMORY_START, start);
	pb__uint(&w->msg, MAPPING_MEMORY_LIMIT, limit);
	pb__uint(&w->msg, MAPPING_FILE_OFFSET, offset);
	pb__uint(&w->msg, MAPPING_FILENAME, file);
	if (build_id != S_EMPTY)
		pb__uint(&w->msg, MAPPING_BUILD_ID, build_id);
	pb__uint(&w->msg, MAPPING_HAS_FUNCTIONS, 1);
	pb__bytes(&w->top, PROFILE_MAPPING, w->msg.buf, w->msg.len);
}

/* Which of the files is the main binary (its path, its build id when
 * both have one); SIZE_MAX when none. */
static size_t pw_main_file(const struct pprof_writer *w)
{
	const struct capture_info *ci = &w->p->info;

	for (size_t k = 0; ci->main_binary && k < w->addrs->nr_maps; k++) {
		const struct pmapping *m = &w->addrs->maps[k];

		if (!strcmp(m->file, ci->main_binary) &&
		    (!*m->build_id || !ci->main_build_id || !*ci->main_build_id ||
		     !strcmp(m->build_id, ci->main_build_id)))
			return k;
	}
	return SIZE_MAX;
}

/* The kernel's mapping, over the addresses of its frames. */
static void pw_kernel_mapping(struct pprof_writer *w, uint64_t id)
{
	uint64_t start = UINT64_MAX, limit = 0;

	for (size_t i = 0; i < w->addrs->nr_locs; i++) {
		const struct ploc *l = &w->addrs->locs[i];

		if (l->map != PADDR_KERNEL || !l->addr)
			continue;
		start = l->addr < start ? l->addr : start;
		limit = l->addr + 1 > limit ? l->addr + 1 : limit;
	}
	w->kernel_mapping = id;
	pw_addr_mapping(w, id, limit ? start : 0, limit, 0, S_KERNEL, S_EMPTY);
}

#define PAGE 4096ULL

/* Whether [start, start + size) is free of the n ranges placed so far. */
static bool pw_free(const struct pprof_writer *w, size_t n, uint64_t start, uint64_t size)
{
	if (start > UINT64_MAX - size)
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t k = w->placed[i];

		if (start < w->map_start[k] + w->addrs->maps[k].size && w->map_start[k] < start + size)
			return false;
	}
	return true;
}

/*
 * Places file segment k, after the n placed so far, in the profile's one
 * address space: at its ELF virtual addresses when free (go tool pprof,
 * which relocates nothing, then finds the instructions of -disasm there),
 * else where the first process seen had it, else past every range.  pprof
 * maps an address back into its file by (address - start + offset),
 * wherever the range is.
 */
static void pw_place(struct pprof_writer *w, size_t n, size_t k)
{
	const struct pmapping *m = &w->addrs->maps[k];
	uint64_t end = 0;

	w->placed[n] = k;
	if (m->vaddr != UINT64_MAX && pw_free(w, n, m->vaddr, m->size)) {
		w->map_start[k] = m->vaddr;
		return;
	}
	if (pw_free(w, n, m->seen_at, m->size)) {
		w->map_start[k] = m->seen_at;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (w->map_start[w->placed[i]] + w->addrs->maps[w->placed[i]].size > end)
			end = w->map_start[w->placed[i]] + w->addrs->maps[w->placed[i]].size;
	w->map_start[k] = (end + PAGE - 1) & ~(PAGE - 1);
}

void pw_addr_mappings(struct pprof_writer *w)
{
	const struct capture_info *ci = &w->p->info;
	const struct pmapping *m = w->addrs->maps;
	size_t main = pw_main_file(w), n = 0;
	uint64_t id = 1;

	if (main != SIZE_MAX)
		pw_place(w, n++, main);
	else if (ci->main_binary)
		pw_mapping(w, id++, S_MAIN, ci->main_build_id ? S_BUILD_ID : S_EMPTY);
	for (size_t k = 0; k < w->addrs->nr_maps; k++)
		if (k != main)
			pw_place(w, n++, k);
	for (size_t i = 0; i < n; i++) {
		size_t k = w->placed[i];

		w->map_id[k] = id;
		pw_addr_mapping(w, id++, w->map_start[k], w->map_start[k] + m[k].size, m[k].offset,
				pw_map_string(w, k),
				*m[k].build_id ? pw_map_string(w, k) + 1 : S_EMPTY);
	}
	if (ci->kernel && w->p->origins)
		pw_kernel_mapping(w, id);
}

/* Appends Line {function, line (0: none)} to the Location in w->msg. */
static void pw_line(struct pprof_writer *w, uint64_t function, uint32_t line)
{
	w->line.len = 0;
	pb__uint(&w->line, LINE_FUNCTION_ID, function);
	if (line)
		pb__uint(&w->line, LINE_LINE, line);
	pb__bytes(&w->msg, LOCATION_LINE, w->line.buf, w->line.len);
}

/* The Line {function, line} of source function src at line, its Function
 * numbered after the names' as first used. */
static void pw_source_line(struct pprof_writer *w, uint32_t src, uint32_t line)
{
	if (!w->src_number[src]) {
		w->src_order[w->nr_srcs] = src;
		w->src_number[src] = (uint32_t)++w->nr_srcs;
	}
	pw_line(w, w->used.nr + w->src_number[src], line);
}

/*
 * The Lines of location l, innermost first as pprof orders them: its own,
 * then those of the frames it was inlined into (ploc.outer).  Each names
 * its source function where it has one (a Python frame's, a native
 * frame's from DWARF), else its name's Function.
 */
static void pw_loc_lines(struct pprof_writer *w, const struct ploc *l)
{
	for (uint32_t k = 0; l && k <= PPROF_MAX_INLINE; k++) {
		uint32_t src, line, number = w->used.number[l->name];

		if (ploc__has_source(l, &src, &line))
			pw_source_line(w, src, line);
		else
			pw_line(w, number, 0);
		if (number) /* a kept site's stack is kept: always */
			w->name_use[number - 1] |= l->map == PADDR_SOURCE ? NAME_BY_SOURCE :
										NAME_BY_ADDR;
		l = l->outer ? &w->addrs->locs[l->outer - 1] : NULL;
	}
}

/* Location k + 1 {mapping, address, lines}; a source location's has no
 * address. */
int pw_addr_locations(struct pprof_writer *w)
{
	for (size_t k = 0; k < w->nr_locs; k++) {
		const struct ploc *l = &w->addrs->locs[w->loc_order[k]];
		bool source = l->map == PADDR_SOURCE;
		uint64_t map = l->map == PADDR_KERNEL ? w->kernel_mapping :
			       l->map && !source ? w->map_id[l->map - 1] : 0;
		uint64_t addr = source ? 0 : l->addr;

		if (l->map && l->map != PADDR_KERNEL && !source) /* a file offset */
			addr += w->map_start[l->map - 1] - w->addrs->maps[l->map - 1].offset;
		w->msg.len = 0;
		pb__uint(&w->msg, LOCATION_ID, k + 1);
		if (map)
			pb__uint(&w->msg, LOCATION_MAPPING_ID, map);
		if (addr)
			pb__uint(&w->msg, LOCATION_ADDRESS, addr);
		pw_loc_lines(w, l);
		pb__bytes(&w->top, PROFILE_LOCATION, w->msg.buf, w->msg.len);
		if (w->msg.err || w->line.err || w->top.err)
			return -ENOMEM;
		if (w->top.len >= FLUSH_AT && pw_deflate(w, Z_NO_FLUSH))
			return -1;
	}
	return 0;
}

/* The string index of source string i: after the mappings'. */
static uint64_t pw_src_string(const struct pprof_writer *w, uint32_t i)
{
	return pw_map_string(w, w->addrs->nr_maps) + i;
}

/* Function used.nr + k + 1 {name = system name, file, first line} for each
 * source function the locations use. */
int pw_source_functions(struct pprof_writer *w)
{
	for (size_t k = 0; k < w->nr_srcs; k++) {
		const struct psource *f = &w->addrs->srcs[w->src_order[k]];

		w->msg.len = 0;
		pb__uint(&w->msg, FUNCTION_ID, w->used.nr + k + 1);
		pb__uint(&w->msg, FUNCTION_NAME, pw_src_string(w, f->func));
		pb__uint(&w->msg, FUNCTION_SYSTEM_NAME, pw_src_string(w, f->func));
		pb__uint(&w->msg, FUNCTION_FILENAME, pw_src_string(w, f->file));
		if (f->start_line)
			pb__uint(&w->msg, FUNCTION_START_LINE, f->start_line);
		pb__bytes(&w->top, PROFILE_FUNCTION, w->msg.buf, w->msg.len);
		if (w->msg.err || w->top.err)
			return -ENOMEM;
		if (w->top.len >= FLUSH_AT && pw_deflate(w, Z_NO_FLUSH))
			return -1;
	}
	return 0;
}

/* The mappings' files and build ids, then the source functions' names and
 * files, after every other string. */
int pw_addr_strings(struct pprof_writer *w)
{
	for (size_t k = 0; k < w->addrs->nr_maps; k++) {
		const struct pmapping *m = &w->addrs->maps[k];

		pb__string(&w->top, PROFILE_STRING_TABLE, m->file, strlen(m->file));
		pb__string(&w->top, PROFILE_STRING_TABLE, m->build_id, strlen(m->build_id));
	}
	for (uint32_t i = 0; w->nr_srcs && i < w->addrs->src_strs.nr; i++) {
		uint32_t len;
		const char *str = paddrs__src_str(w->addrs, i, &len);

		pb__string(&w->top, PROFILE_STRING_TABLE, str, len);
		if (w->top.err)
			return -ENOMEM;
		if (w->top.len >= FLUSH_AT && pw_deflate(w, Z_NO_FLUSH))
			return -1;
	}
	return w->top.err;
}

int pw_addr_init(struct pprof_writer *w, const struct paddrs *a)
{
	w->addrs = a;
	w->loc_number = calloc(a->nr_locs + 1, sizeof(*w->loc_number));
	w->loc_order = malloc((a->nr_locs + 1) * sizeof(*w->loc_order));
	w->map_id = calloc(a->nr_maps + 1, sizeof(*w->map_id));
	w->map_start = calloc(a->nr_maps + 1, sizeof(*w->map_start));
	w->placed = calloc(a->nr_maps + 1, sizeof(*w->placed));
	w->src_number = calloc(a->nr_srcs + 1, sizeof(*w->src_number));
	w->src_order = malloc((a->nr_srcs + 1) * sizeof(*w->src_order));
	w->name_use = calloc(w->used.nr + 1, 1);
	return w->loc_number && w->loc_order && w->map_id && w->map_start && w->placed &&
	       w->src_number && w->src_order && w->name_use ? 0 : -ENOMEM;
}

void pw_addr_free(struct pprof_writer *w)
{
	free(w->loc_number);
	free(w->loc_order);
	free(w->map_id);
	free(w->map_start);
	free(w->placed);
	free(w->src_number);
	free(w->src_order);
	free(w->name_use);
}
