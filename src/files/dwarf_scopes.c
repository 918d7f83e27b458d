// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inline chain at an address (dwarf_names_int.h): one walk down a
 * unit's DIEs to the innermost scope holding the address, through libdw's
 * iteration (dwarf_child, dwarf_siblingof, dwarf_haspc) with a stack of
 * our own, MAX_DEPTH deep, checking the budget as it goes.  Not libdw's
 * dwarf_getscopes: that recurses once per level of nesting (a crafted unit
 * of a million nested blocks overflows the stack), walks the unit again
 * for every inlined level (dwarf_getscopes_die), leaks its scopes when an
 * abstract origin does not resolve, and does not look inside DIEs without
 * an address, so it never finds clang's C++ functions, which sit inside
 * their namespace's DIE.
 * Owns the lines too: a unit's line program is read (whole, by libdw) only
 * when it fits what the budget has left, as a crafted one costs up to
 * DWARF_LINE_PEAK bytes of memory a byte; a unit refused keeps its
 * functions' names without lines.
 */
#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files/dwarf_names_int.h"
#include "lib/addr_search.h"
#include "lib/grow.h"
#include "lib/hash.h"

#define MAX_DEPTH 256   /* DIEs from a unit down to the innermost scope */
#define WALK_CHECK 1024 /* DIEs walked between budget checks */

/* DIEs that hold code and the scopes inside it. */
static bool is_scope(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram: case DW_TAG_inlined_subroutine: case DW_TAG_lexical_block:
	case DW_TAG_entry_point: case DW_TAG_try_block: case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
		return true;
	default:
		return false;
	}
}

/* DIEs without an address that hold functions (C++ namespaces, classes). */
static bool is_container(int tag)
{
	switch (tag) {
	case DW_TAG_namespace: case DW_TAG_module: case DW_TAG_class_type:
	case DW_TAG_structure_type: case DW_TAG_union_type: case DW_TAG_interface_type:
		return true;
	default:
		return false;
	}
}

/*
 * The scopes of cu holding pc into path[0..*n), outermost first: 0, or
 * -ETIMEDOUT.  A scope that holds pc is entered and never left for a
 * sibling; a container is entered and left when nothing inside holds pc.
 */
static int find_scopes(Dwarf_Die *cu, uint64_t pc, const struct budget *b, Dwarf_Die *path,
		       int *n)
{
	Dwarf_Die st[MAX_DEPTH];
	bool held[MAX_DEPTH]; /* st[k] is on the path */
	unsigned walked = 0;
	int depth = 0;

	*n = 0;
	if (dwarf_child(cu, &st[0]))
		return 0;
	held[0] = false;
	for (;;) {
		int tag = dwarf_tag(&st[depth]);
		bool in = false;

		if (++walked % WALK_CHECK == 0 && budget__expired(b))
			return -ETIMEDOUT;
		if (is_scope(tag) && dwarf_haspc(&st[depth], pc) > 0) {
			path[(*n)++] = st[depth];
			held[depth] = in = true;
		}
		if ((in || is_container(tag)) && depth + 1 < MAX_DEPTH &&
		    dwarf_child(&st[depth], &st[depth + 1]) == 0) {
			held[++depth] = false;
			continue;
		}
		if (in)
			return 0;
		while (dwarf_siblingof(&st[depth], &st[depth])) {
			/* the unit's end, or no deeper scope in the one held */
			if (depth == 0 || held[depth - 1])
				return 0;
			depth--;
		}
	}
}

/* The unit indexed whose DIE is at offset die; NULL if none. */
static struct dwarf_unit *unit_at(struct dwarf_names *dn, uint64_t die)
{
	size_t lo = 0, hi = dn->nr_units;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dn->units[mid].die < die)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < dn->nr_units && dn->units[lo].die == die ? &dn->units[lo] : NULL;
}

static int add_func(struct dwarf_names *dn, struct dwarf_unit *u, uint32_t *cap,
		    const struct func_range *r, const struct budget *b)
{
	if (u->nr_funcs == *cap) {
		uint32_t n = *cap ? *cap * 2 : 16;
		struct func_range *f;

		if (n > (1u << 24) ||
		    dwarf_names__over(dn, b, dwarf_names__bytes(dn) + (n - *cap) * sizeof(*f)) ||
		    !(f = reallocarray(u->funcs, n, sizeof(*f))))
			return -E2BIG;
		dn->func_bytes += (n - *cap) * sizeof(*f);
		u->funcs = f;
		*cap = n;
	}
	u->funcs[u->nr_funcs++] = *r;
	return 0;
}

/* The ranges of function d into u's list. */
static int add_func_ranges(struct dwarf_names *dn, struct dwarf_unit *u, uint32_t *cap,
			   Dwarf_Die *d, const struct budget *b)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t it = 0;
	int e;

	for (int k = 0; k < 4096 && (it = dwarf_ranges(d, it, &base, &lo, &hi)) > 0; k++)
		if (lo < hi && (e = add_func(dn, u, cap, &(struct func_range){ lo, hi,
					     dwarf_dieoffset(d) }, b)))
			return e;
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Lists the ranges of cu's outermost functions (in namespaces and classes
 * too) once, walking its DIEs without entering a function: a chain then
 * walks one function's DIEs, not the unit's (a unit of a few thousand
 * functions took a millisecond a chain).  0, or -errno (u->funcs freed).
 */
static int list_funcs(struct dwarf_names *dn, struct dwarf_unit *u, Dwarf_Die *cu,
		      const struct budget *b)
{
	Dwarf_Die st[MAX_DEPTH];
	unsigned walked = 0;
	uint32_t cap = 0;
	int depth = 0, e = 0;

	u->funcs_listed = true;
	if (dwarf_child(cu, &st[0]))
		return 0;
	for (;;) {
		int tag = dwarf_tag(&st[depth]);

		if (++walked % WALK_CHECK == 0 && budget__expired(b)) {
			e = -ETIMEDOUT;
			break;
		}
		if (tag == DW_TAG_subprogram && (e = add_func_ranges(dn, u, &cap, &st[depth], b)))
			break;
		if (is_container(tag) && depth + 1 < MAX_DEPTH &&
		    dwarf_child(&st[depth], &st[depth + 1]) == 0) {
			depth++;
			continue;
		}
		while (dwarf_siblingof(&st[depth], &st[depth]))
			if (depth-- == 0)
				goto done;
	}
done:
	if (e) {
		free(u->funcs);
		dn->func_bytes -= cap * sizeof(*u->funcs);
		u->funcs = NULL;
		u->nr_funcs = 0;
		u->funcs_listed = e != -ETIMEDOUT; /* out of time: listed again later */
		return e;
	}
	if (u->nr_funcs > 1)
		qsort(u->funcs, u->nr_funcs, sizeof(*u->funcs), cmp_func);
	return 0;
}

/* u's function whose range holds pc into *top; false if none. */
static bool func_at(struct dwarf_names *dn, const struct dwarf_unit *u, uint64_t pc,
		    Dwarf_Die *top)
{
	long i = ADDR_SEARCH(u->funcs, u->nr_funcs, lo, pc);

	/* ranges rarely overlap (GNU C's nested functions are inside) */
	for (int k = 0; i >= 0 && k < 16; i--, k++)
		if (pc < u->funcs[i].hi)
			return dwarf_offdie(dn->dw, u->funcs[i].die, top) != NULL;
	return false;
}

/* The length of the line program at off in .debug_line; 0 if it is not there. */
static uint64_t program_length(const struct dwarf_names *dn, uint64_t off)
{
	uint32_t len32;
	uint64_t len;

	if (!dn->line_sec || off > dn->line_size || dn->line_size - off < 4)
		return 0;
	memcpy(&len32, dn->line_sec + off, 4);
	len = len32;
	if (len32 == 0xffffffffu) {
		if (dn->line_size - off < 12)
			return 0;
		memcpy(&len, dn->line_sec + off + 4, 8);
	}
	/* libdw reads no further than the section */
	return len < dn->line_size - off ? len : dn->line_size - off;
}

/* Whether the DIEs (and lines) of the unit whose DIE is cu may be read. */
static bool unit_affordable(struct dwarf_names *dn, Dwarf_Die *cu, const struct budget *b,
			    bool lines)
{
	struct dwarf_unit *u = unit_at(dn, dwarf_dieoffset(cu));
	Dwarf_Attribute at;
	Dwarf_Word off, len;
	Dwarf_Lines *rows;
	size_t nr;

	if (!u)
		return false;
	if (dwarf_names__unit_cost(dn, u, b))
		return false;
	if (!u->walked) {
		size_t pages = dn->info_mapped ? u->size : 0;

		if (dwarf_names__over(dn, b, dwarf_names__bytes(dn) + pages))
			return false;
		u->walked = true;
		dn->libdw_bytes += pages;
	}
	if (!lines || u->lines != LINES_UNREAD)
		return !lines || u->lines == LINES_READ;
	u->lines = LINES_REFUSED;
	if (!dwarf_attr(cu, DW_AT_stmt_list, &at) || dwarf_formudata(&at, &off))
		return false;
	len = program_length(dn, off);
	if (!len || dwarf_names__over(dn, b, dwarf_names__bytes(dn) + len * DWARF_LINE_PEAK))
		return false;
	if (dwarf_getsrclines(cu, &rows, &nr))
		return false;
	u->lines = LINES_READ;
	dn->libdw_bytes += nr * DWARF_LINE_ROW + (dn->line_mapped && !u->line_pages ? len : 0);
	u->line_pages = true; /* counted once: libdw ending leaves them mapped */
	dn->rows_bytes += nr * DWARF_LINE_ROW;
	dn->units_lined++;
	if (nr * DWARF_LINE_LIST > dn->line_list)
		dn->line_list = nr * DWARF_LINE_LIST;
	return true;
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Attribute *a = dwarf_attr_integrate(d, DW_AT_linkage_name, &at);

	if (!a)
		a = dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &at);
	if (!a)
		a = dwarf_attr_integrate(d, DW_AT_name, &at);
	return a ? dwarf_formstring(a) : NULL;
}

void dwarf_scopes__free_paths(struct dwarf_names *dn)
{
	for (size_t i = 0; i < dn->cap_paths; i++)
		free(dn->paths[i].full);
	for (size_t i = 0; i < dn->nr_kept; i++)
		free(dn->kept_paths[i]);
	free(dn->paths);
	free(dn->kept_paths);
	dn->paths = NULL;
	dn->kept_paths = NULL;
	dn->nr_paths = dn->cap_paths = dn->path_bytes = dn->nr_kept = dn->cap_kept = 0;
}

bool dwarf_scopes__forget_paths(struct dwarf_names *dn)
{
	size_t had = dn->cap_kept;

	if (GROW(dn->kept_paths, dn->cap_kept, dn->nr_kept + dn->nr_paths, 64))
		return false;
	dn->path_bytes += (dn->cap_kept - had) * sizeof(*dn->kept_paths);
	for (size_t i = 0; i < dn->cap_paths; i++)
		if (dn->paths[i].full)
			dn->kept_paths[dn->nr_kept++] = dn->paths[i].full;
	free(dn->paths);
	dn->path_bytes -= dn->cap_paths * sizeof(*dn->paths);
	dn->paths = NULL;
	dn->nr_paths = dn->cap_paths = 0;
	return true;
}

/* The slot of raw in dn's full paths: its own, or the empty one it takes. */
static struct full_path *path_slot(struct dwarf_names *dn, const char *raw)
{
	size_t j = hash__mix64((uintptr_t)raw) & (dn->cap_paths - 1);

	while (dn->paths[j].raw && dn->paths[j].raw != raw)
		j = (j + 1) & (dn->cap_paths - 1);
	return &dn->paths[j];
}

static bool paths_room(struct dwarf_names *dn)
{
	size_t cap = dn->cap_paths ? dn->cap_paths * 2 : 64, had = dn->cap_paths;
	struct full_path *old = dn->paths;

	if ((dn->nr_paths + 1) * 2 <= dn->cap_paths)
		return true;
	if (!(dn->paths = calloc(cap, sizeof(*dn->paths)))) {
		dn->paths = old;
		return false;
	}
	dn->cap_paths = cap;
	for (size_t i = 0; i < had; i++)
		if (old[i].raw)
			*path_slot(dn, old[i].raw) = old[i];
	free(old);
	dn->path_bytes += (cap - had) * sizeof(*dn->paths);
	return true;
}

/*
 * name as a whole path: a relative one (gcc writes the file it was given,
 * relative to where it ran) joined to its unit's DW_AT_comp_dir, once per
 * string of the line table, so that pprof -list and speedscope find the
 * source from anywhere; as it is when absolute, or when it cannot be.
 * Always a copy of ours: libdw's strings go when it is ended (shed_lines).
 */
static const char *whole_path(struct dwarf_names *dn, Dwarf_Die *cu, const char *name)
{
	struct full_path *p;
	const char *dir = NULL;
	Dwarf_Attribute at;
	size_t n;

	if (!name)
		return NULL;
	if (dn->cap_paths && (p = path_slot(dn, name))->raw)
		return p->full;
	if (name[0] != '/' && cu)
		dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	if (dir && dir[0] != '/')
		dir = NULL;
	if (!paths_room(dn))
		return NULL;
	p = path_slot(dn, name);
	n = (dir ? strnlen(dir, PATH_MAX) + 1 : 0) + strnlen(name, PATH_MAX) + 1;
	if (!(p->full = malloc(n)))
		return NULL;
	if (dir)
		snprintf(p->full, n, "%.*s/%.*s", PATH_MAX, dir, PATH_MAX, name);
	else
		snprintf(p->full, n, "%.*s", PATH_MAX, name);
	p->raw = name;
	dn->nr_paths++;
	dn->path_bytes += n;
	return p->full;
}

/*
 * The name in the line table's file list of the file attribute attr of d
 * (DW_AT_decl_file through abstract_origin and specification, or
 * DW_AT_call_file), read in the unit that holds the attribute if its lines
 * fit the budget; NULL if none.  In DWARF 5 (clang 14's default) index 0
 * is the unit's primary file, where libdw 0.188's dwarf_decl_file takes 0
 * for "none" and gives NULL for every function clang declares in its main
 * file.
 */
static const char *die_file(struct dwarf_names *dn, Dwarf_Die *d, unsigned int attr,
			    const struct budget *b)
{
	Dwarf_Attribute at;
	Dwarf_Word idx;
	Dwarf_Half version;
	Dwarf_Files *files;
	Dwarf_Die cu;
	size_t n;

	if (!dwarf_attr_integrate(d, attr, &at) || dwarf_formudata(&at, &idx) ||
	    !dwarf_cu_die(at.cu, &cu, &version, NULL, NULL, NULL, NULL, NULL))
		return NULL;
	if ((!idx && version < 5) || !unit_affordable(dn, &cu, b, true) ||
	    dwarf_getsrcfiles(&cu, &files, &n) || idx >= n)
		return NULL;
	return whole_path(dn, &cu, dwarf_filesrc(files, idx, NULL, NULL));
}

static uint32_t die_line(Dwarf_Die *d, unsigned int attr, bool integrate)
{
	Dwarf_Attribute at;
	Dwarf_Word w = 0;

	if (!(integrate ? dwarf_attr_integrate(d, attr, &at) : dwarf_attr(d, attr, &at)) ||
	    dwarf_formudata(&at, &w) || w > UINT32_MAX)
		return 0;
	return (uint32_t)w;
}

static void set_func(struct dwarf_names *dn, struct dwarf_frame *f, Dwarf_Die *d,
		     const struct budget *b)
{
	f->func = die_name(d);
	if (dn->no_lines)
		return;
	f->decl_file = die_file(dn, d, DW_AT_decl_file, b);
	f->decl_line = die_line(d, DW_AT_decl_line, true);
}

int dwarf_scopes__chain(struct dwarf_names *dn, Dwarf_Die *cu, uint64_t vaddr,
			const struct budget *b, struct dwarf_chain *out)
{
	Dwarf_Die path[MAX_DEPTH + 1]; /* the function, then its scopes */
	struct dwarf_unit *u;
	int n, e, first = -1;

	out->n = 0;
	if (!unit_affordable(dn, cu, b, false))
		return -ENOENT;
	u = unit_at(dn, dwarf_dieoffset(cu));
	if (!u->funcs_listed && list_funcs(dn, u, cu, b) == -ETIMEDOUT)
		return -ETIMEDOUT;
	if (u->nr_funcs) { /* the walk starts at the function that holds vaddr */
		if (!func_at(dn, u, vaddr, &path[0]))
			return -ENOENT;
		e = find_scopes(&path[0], vaddr, b, path + 1, &n);
		n++;
	} else {
		e = find_scopes(cu, vaddr, b, path, &n);
	}
	if (e)
		return e;
	/* the function is the innermost subprogram (GNU C nests them) */
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&path[i]) == DW_TAG_subprogram)
			first = i;
	for (int i = first; first >= 0 && i < n; i++) {
		struct dwarf_frame *f = &out->f[out->n];

		if (i > first && dwarf_tag(&path[i]) != DW_TAG_inlined_subroutine)
			continue;
		/* the line that ran in the frame around: the call's */
		if (out->n && !dn->no_lines) {
			f[-1].file = die_file(dn, &path[i], DW_AT_call_file, b);
			f[-1].line = die_line(&path[i], DW_AT_call_line, false);
		}
		if (out->n == DWARF_MAX_INLINE)
			return 0; /* deeper frames left out: the outermost kept */
		*f = (struct dwarf_frame){ 0 };
		set_func(dn, f, &path[i], b);
		out->n++;
	}
	if (out->n && !dn->no_lines && unit_affordable(dn, cu, b, true)) {
		Dwarf_Line *line = dwarf_getsrc_die(cu, vaddr);
		struct dwarf_frame *leaf = &out->f[out->n - 1];
		int lineno = 0;

		if (line && !dwarf_lineno(line, &lineno)) {
			leaf->file = whole_path(dn, cu, dwarf_linesrc(line, NULL, NULL));
			leaf->line = lineno > 0 ? (uint32_t)lineno : 0;
		}
	}
	return out->n ? 0 : -ENOENT;
}
