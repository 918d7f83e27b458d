// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A file's inline chains and source lines from its DWARF (dwarf_names.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files/debuginfo.h"
#include "files/dwarf_names.h"
#include "lib/hash.h"

/* One compilation unit's address range. */
struct unit_range {
	uint64_t lo, hi;  /* [lo, hi) */
	uint64_t offset;  /* its DIE's offset in .debug_info */
};

/* A chain asked for before: its frames in memo_frames. */
struct memo {
	uint64_t vaddr;
	uint32_t first, n; /* n == UINT32_MAX: an empty slot */
};

struct dwarf_names {
	int fd;            /* the file libdw reads (ours, dup'ed) until mapped */
	Elf *elf;          /* mapped: its process may be gone when it is read */
	Dwarf *dw;         /* NULL until the first chain (indexed: see index_error) */
	int index_error;   /* why the first chain could not index it (-errno) */
	bool separate;
	size_t inflated;   /* bytes of compressed sections libdw will inflate */
	struct unit_range *units;
	size_t nr_units, cap_units;
	struct memo *memo;
	size_t nr_memo, cap_memo; /* cap a power of 2, at most half full */
	struct dwarf_frame *memo_frames;
	size_t nr_frames, cap_frames;
};

const char *dwarf_names__strerror(int err)
{
	switch (err) {
	case ENODATA: return "no DWARF";
	case ENOMSG: return "only MiniDebugInfo (.gnu_debugdata), which has no DWARF";
	case E2BIG: return "DWARF over the memory budget";
	case ETIMEDOUT: return "out of time";
	case ENOMEM: return "out of memory";
	default: return "DWARF libdw refused";
	}
}

/* Whether section name is one libdw reads (.debug_*, .zdebug_*). */
static bool debug_section(const char *name)
{
	return name && (!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8));
}

/*
 * Sizes elf's debug sections: *all the bytes they hold once inflated,
 * *inflated those of compressed ones (libdw inflates them into memory).
 * Whether it has a .debug_info, and sets *debugdata when it has a
 * .gnu_debugdata.
 */
static bool debug_sizes(Elf *elf, size_t *all, size_t *inflated, bool *debugdata)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool info = false;

	*all = *inflated = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		uint64_t size;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".gnu_debugdata"))
			*debugdata = true;
		if (!debug_section(name))
			continue;
		if (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info"))
			info = true;
		size = sh.sh_size;
		if ((sh.sh_flags & SHF_COMPRESSED) || name[1] == 'z') {
			GElf_Chdr ch;

			/* a header that will not read: count the worst case */
			size = gelf_getchdr(scn, &ch) ? ch.ch_size : SIZE_MAX / 4;
			*inflated += size > SIZE_MAX / 4 ? SIZE_MAX / 4 : size;
		}
		*all += size > SIZE_MAX / 4 ? SIZE_MAX / 4 : size;
		if (*all > SIZE_MAX / 4)
			*all = SIZE_MAX / 4;
	}
	return info;
}

/* Opens fd's DWARF into dn if it has one within b; -errno. */
static int open_dwarf(struct dwarf_names *dn, int fd, bool untrusted, const struct budget *b,
		      bool *debugdata)
{
	size_t all, inflated;

	dn->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!dn->elf || elf_kind(dn->elf) != ELF_K_ELF)
		return -ENODATA;
	if (!debug_sizes(dn->elf, &all, &inflated, debugdata))
		return -ENODATA;
	if (budget__too_big(b, inflated) || (untrusted && budget__too_big(b, all)))
		return -E2BIG;
	dn->inflated = inflated;
	/* the file is mapped whole: the descriptor is not needed again */
	if (elf_cntl(dn->elf, ELF_C_FDDONE))
		return -EINVAL;
	close(dn->fd);
	dn->fd = -1;
	return 0;
}

static void close_dwarf(struct dwarf_names *dn)
{
	if (dn->dw)
		dwarf_end(dn->dw);
	if (dn->elf)
		elf_end(dn->elf);
	if (dn->fd >= 0)
		close(dn->fd);
	dn->dw = NULL;
	dn->elf = NULL;
	dn->fd = -1;
}

static int add_unit(struct dwarf_names *dn, uint64_t lo, uint64_t hi, uint64_t offset)
{
	if (lo >= hi)
		return 0;
	if (dn->nr_units == dn->cap_units) {
		size_t cap = dn->cap_units ? dn->cap_units * 2 : 64;
		struct unit_range *u = reallocarray(dn->units, cap, sizeof(*u));

		if (!u)
			return -ENOMEM;
		dn->units = u;
		dn->cap_units = cap;
	}
	dn->units[dn->nr_units++] = (struct unit_range){ lo, hi, offset };
	return 0;
}

static int cmp_unit(const void *a, const void *b)
{
	const struct unit_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The address ranges of every compilation unit, sorted: read from each
 * unit's first DIE, as clang writes no .debug_aranges. */
static int index_units(struct dwarf_names *dn, const struct budget *b)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dn->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;

		if (dn->nr_units >= DWARF_MAX_UNITS || next <= off)
			break;
		if ((dn->nr_units & 63) == 0 && budget__expired(b))
			return -ETIMEDOUT;
		if (dwarf_offdie(dn->dw, off + hsize, &cu)) {
			for (int k = 0; k < 4096 && (it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0;
			     k++)
				if (add_unit(dn, lo, hi, off + hsize))
					return -ENOMEM;
		}
		off = next;
	}
	qsort(dn->units, dn->nr_units, sizeof(*dn->units), cmp_unit);
	return 0;
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
	dn->fd = dup(fd);
	e = dn->fd < 0 ? -errno : open_dwarf(dn, dn->fd, untrusted, b, &debugdata);
	if (e == -ENODATA) {
		struct elf_file *dbg;

		close_dwarf(dn);
		dbg = debuginfo__open_file(fd, root, path, b, &dfd);
		if (dbg) {
			elf_file__close(dbg);
			dn->fd = dfd;
			dn->separate = true;
			e = open_dwarf(dn, dfd, untrusted, b, &debugdata);
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
static const struct unit_range *unit_of(const struct dwarf_names *dn, uint64_t vaddr)
{
	size_t lo = 0, hi = dn->nr_units;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dn->units[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges may nest or overlap (a unit's ranges list): look back a little */
	for (size_t i = lo, k = 0; i-- > 0 && k < 64; k++)
		if (vaddr < dn->units[i].hi)
			return &dn->units[i];
	return NULL;
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

static uint32_t die_udata(Dwarf_Die *d, unsigned int name)
{
	Dwarf_Attribute at;
	Dwarf_Word w = 0;

	if (!dwarf_attr(d, name, &at) || dwarf_formudata(&at, &w) || w > UINT32_MAX)
		return 0;
	return (uint32_t)w;
}

/* The name of file number idx of cu's line table; NULL if none. */
static const char *unit_file(Dwarf_Die *cu, uint32_t idx)
{
	Dwarf_Files *files;
	size_t n;

	if (!idx || dwarf_getsrcfiles(cu, &files, &n) || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static void set_func(struct dwarf_frame *f, Dwarf_Die *d)
{
	int line = 0;

	f->func = die_name(d);
	f->decl_file = dwarf_decl_file(d);
	if (!dwarf_decl_line(d, &line) && line > 0)
		f->decl_line = (uint32_t)line;
}

/*
 * The inline chain at vaddr into inner-first frames tmp[0..n): the innermost
 * scope of dwarf_getscopes, then each inlined instance's own scopes
 * (dwarf_getscopes_die) up to the subprogram it was inlined into.
 */
static uint32_t inner_first(Dwarf_Die *cu, uint64_t vaddr, struct dwarf_frame *tmp)
{
	Dwarf_Die *scopes = NULL;
	int nr = dwarf_getscopes(cu, vaddr, &scopes);
	uint32_t n = 0;
	Dwarf_Line *line = dwarf_getsrc_die(cu, vaddr);
	const char *file = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
	int lineno = 0;

	if (line)
		dwarf_lineno(line, &lineno);
	for (int i = 0; i < nr && n < DWARF_MAX_INLINE; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Die *outer = NULL;
		int nr_outer;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		tmp[n] = (struct dwarf_frame){ .file = file, .line = lineno > 0 ? (uint32_t)lineno : 0 };
		set_func(&tmp[n++], &scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		/* the call's place is the line that ran in the function around it */
		lineno = (int)die_udata(&scopes[i], DW_AT_call_line);
		file = unit_file(cu, die_udata(&scopes[i], DW_AT_call_file));
		nr_outer = dwarf_getscopes_die(&scopes[i], &outer);
		free(scopes);
		scopes = outer;
		nr = nr_outer;
		i = 0; /* outer[0] is the inlined instance itself */
	}
	free(scopes);
	return n;
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
	memcpy(dn->memo_frames + dn->nr_frames, c->f, c->n * sizeof(c->f[0]));
	m = memo_slot(dn, vaddr);
	*m = (struct memo){ vaddr, (uint32_t)dn->nr_frames, c->n };
	dn->nr_frames += c->n;
	dn->nr_memo++;
	return 0;
}

int dwarf_names__chain(struct dwarf_names *dn, uint64_t vaddr, const struct budget *b,
		       struct dwarf_chain *out)
{
	struct dwarf_frame tmp[DWARF_MAX_INLINE];
	const struct unit_range *u;
	Dwarf_Die cu;
	uint32_t n;

	out->n = 0;
	if (dn->cap_memo) {
		const struct memo *m = memo_slot(dn, vaddr);

		if (m->n != UINT32_MAX) {
			out->n = m->n;
			memcpy(out->f, dn->memo_frames + m->first, m->n * sizeof(out->f[0]));
			return m->n ? 0 : -ENOENT;
		}
	}
	if (budget__expired(b))
		return -ETIMEDOUT;
	if (!dn->dw && !dn->index_error) {
		/* indexed when first asked: files whose code never runs cost
		 * their section headers only */
		dn->dw = dwarf_begin_elf(dn->elf, DWARF_C_READ, NULL);
		dn->index_error = !dn->dw ? -EINVAL : index_units(dn, b);
		if (dn->index_error == -ETIMEDOUT) { /* again in a later budget */
			dwarf_end(dn->dw);
			dn->dw = NULL;
			dn->nr_units = 0;
			dn->index_error = 0;
			return -ETIMEDOUT;
		}
	}
	if (dn->index_error)
		return -ENOENT;
	u = unit_of(dn, vaddr);
	n = u && dwarf_offdie(dn->dw, u->offset, &cu) ? inner_first(&cu, vaddr, tmp) : 0;
	for (uint32_t i = 0; i < n; i++)
		out->f[i] = tmp[n - 1 - i];
	out->n = n;
	if (memo_add(dn, vaddr, out))
		return -ENOMEM;
	return n ? 0 : -ENOENT;
}

size_t dwarf_names__bytes(const struct dwarf_names *dn)
{
	if (!dn)
		return 0;
	return sizeof(*dn) + dn->inflated + dn->cap_units * sizeof(*dn->units) +
	       dn->cap_memo * sizeof(*dn->memo) + dn->cap_frames * sizeof(*dn->memo_frames);
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
	free(dn->units);
	free(dn->memo);
	free(dn->memo_frames);
	free(dn);
}
