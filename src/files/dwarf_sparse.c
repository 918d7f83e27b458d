// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sparse DWARF, inside dwarf_names: a zlib-compressed .debug_info (and its
 * .debug_abbrev) handed to libdw holding only the units frames are named
 * in, rather than inflated whole by libdw (libc6-dbg's libc: 5.8 MB of
 * .debug_info and 1 MB of .debug_abbrev, of which a capture names frames
 * in two or three units).
 *
 * The compressed section is inflated in chunks, front to back; its unit
 * headers are listed as they pass (the index's units), and the units kept
 * are copied into an anonymous mapping of the section's size at their own
 * offsets, so that every offset libdw reads stays right.  Each run of
 * units not kept starts with one made-up unit header (DWARF 4, a null DIE)
 * whose length spans the run: libdw interns units one after the other
 * (__libdw_intern_next_unit) and so steps over the run touching one page.
 * The pages never written cost nothing.  In .debug_abbrev only the kept
 * units' tables are copied; the made-up units name an empty table one
 * byte past the section's end.  When lines are read, .debug_line holds
 * only the kept units' line programs, found through libdw once it is
 * begun (their DW_AT_stmt_list).  A chain in a unit not kept makes the
 * sections again with it (dwarf_names.c: libdw begun anew).
 *
 * Only when nothing can reach a unit not kept: no alt file, every unit a
 * compile unit, and no abbreviation with a form that points into another
 * unit (DW_FORM_ref_addr and the like) or a partial, imported or type
 * unit; else (and on anything that does not read) the caller lets libdw
 * inflate the sections as before.  The data is handed to libdw through
 * libelf's own copy of the sections (their Elf_Data, SHF_COMPRESSED
 * cleared in its copy of the header: nothing is written to the file).
 */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "files/dwarf_names_int.h"

/* A unit's line program not known (yet, or none). */
#define NO_LINES UINT64_MAX
/* What a unit header takes at most (64-bit, DWARF 5 type unit). */
#define MAX_HEADER 40u
/* A made-up unit: DWARF 4 header (32-bit: 11 bytes) and a null DIE. */
#define FAKE_UNIT 12u
#define FAKE_UNIT64 24u

/* One of the two sections handed over. */
struct sparse_sec {
	Elf_Scn *scn;
	uint64_t size;           /* inflated */
	bool packed;
	unsigned char *map;      /* size + 1 bytes, anonymous */
	size_t map_size;
	bool handed;             /* libelf's copy reads as map: */
	GElf_Shdr was_sh;        /* its header and data before, put back */
	Elf_Data was_d;          /* when the map goes */
	struct dwarf_file_range file; /* its compressed bytes in the file */
};

/* A stream over sec's bytes in elf. */
static bool stream_of(struct dwarf_stream *s, Elf *elf, const struct sparse_sec *sec)
{
	return dwarf_stream__open(s, elf, sec->scn, sec->size, sec->packed);
}

struct dwarf_sparse {
	struct sparse_sec info, abbrev, line; /* line: mapped only when lines
					       * are read and it is packed */
	uint64_t *line_off;      /* each unit's line program; NO_LINES: not known */
	uint64_t *abbrev_end;    /* each unit's table's end (its start: abbrev_off) */
	uint64_t *abbrev_off;
	bool *kept;              /* marked to be kept */
	bool *built;             /* kept in the sections libdw reads now */
	size_t nr_kept;
	uint64_t kept_bytes;     /* copied into the maps of .debug_info and
				  * .debug_abbrev */
	uint64_t line_bytes;     /* into .debug_line's */
	unsigned builds;
	/* .debug_info streamed past while its units are listed, across
	 * budgets: a capture of the machine lists them in its quiet time's
	 * slices (inflating libc6-dbg's takes ~50 ms) */
	struct dwarf_stream listing;   /* then .debug_abbrev's, its tables read */
	bool streaming, listed;
	uint32_t *order;         /* the units by table, while tables are read */
	size_t next_table;       /* the next one of order read */
};

static uint64_t le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A unit header at h (n bytes available): its size, header size and
 * abbreviation offset; false unless a compile unit of DWARF 2 to 5. */
static bool parse_header(const unsigned char *h, size_t n, uint64_t *size, uint64_t *hsize,
			 uint64_t *abbrev)
{
	uint64_t len, lsize = 4, osize = 4, version;

	if (n < 4)
		return false;
	len = le(h, 4);
	if (len == 0xffffffff) {
		if (n < 12)
			return false;
		len = le(h + 4, 8);
		lsize = 12;
		osize = 8;
	} else if (len >= 0xfffffff0) {
		return false;
	}
	if (n < lsize + 2 + 2 + osize)
		return false;
	version = le(h + lsize, 2);
	if (version >= 2 && version <= 4) {
		*abbrev = le(h + lsize + 2, osize);
		*hsize = lsize + 2 + osize + 1;
	} else if (version == 5 && h[lsize + 2] == DW_UT_compile) {
		*abbrev = le(h + lsize + 4, osize);
		*hsize = lsize + 4 + osize;
	} else {
		return false;
	}
	if (len > UINT64_MAX - lsize || len + lsize <= *hsize)
		return false;
	*size = len + lsize;
	return true;
}

/* The units of .debug_info from their headers as it streams past: every
 * byte of it must be in one (else -ENOENT: not sparse).  -ETIMEDOUT leaves
 * the stream where it stopped, for a later budget. */
static int list_units(struct dwarf_names *dn, struct dwarf_sparse *sp, const struct budget *b)
{
	struct dwarf_stream *s = &sp->listing;
	size_t from = dn->nr_units;
	int e = 0;

	if (!sp->streaming && !(sp->streaming = stream_of(s, dn->elf, &sp->info)))
		return -ENOENT;
	while (!e && s->pos < s->size) {
		uint64_t size, hsize, abbrev, off = s->pos;
		size_t n;

		/* 64 units (~200 KB of libc's) at least a call: each goes on */
		if (dn->nr_units - from >= 64 && (dn->nr_units & 63) == 0 && budget__expired(b))
			return -ETIMEDOUT;
		dwarf_stream__ensure(s, MAX_HEADER);
		n = s->len - s->at < MAX_HEADER ? s->len - s->at : MAX_HEADER;
		if (!parse_header(s->buf + s->at, n, &size, &hsize, &abbrev) || size < FAKE_UNIT ||
		    size > s->size - off)
			e = -ENOENT;
		else if (!(e = dwarf_names__add_unit(dn, b, &sp->abbrev_off, off, hsize, size,
							  abbrev)) &&
			 !dwarf_stream__take(s, NULL, size))
			e = -ENOENT;
	}
	if (e == -ETIMEDOUT)
		return e;
	if (!e && (s->failed || !dn->nr_units))
		e = -ENOENT;
	dwarf_stream__close(s);
	sp->streaming = false;
	sp->listed = !e;
	return e;
}

/* Whether an abbreviation's tag or form could lead libdw out of its unit
 * (or to another file). */
static bool reaches_out(uint64_t tag, uint64_t form)
{
	return tag == DW_TAG_partial_unit || tag == DW_TAG_imported_unit ||
	       tag == DW_TAG_type_unit || tag == DW_TAG_skeleton_unit ||
	       form == DW_FORM_ref_addr || form == DW_FORM_indirect || form == DW_FORM_ref_sig8 ||
	       form == DW_FORM_ref_sup4 || form == DW_FORM_ref_sup8 || form == DW_FORM_strp_sup ||
	       form == DW_FORM_GNU_ref_alt || form == DW_FORM_GNU_strp_alt;
}

/* The table at s's position: its abbreviations counted in *n, s left
 * past its end; false when it does not read or reaches out. */
static bool read_table(struct dwarf_stream *s, uint64_t *n)
{
	uint64_t code, tag, name, form, v;
	unsigned char children;

	*n = 0;
	while (dwarf_stream__uleb(s, &code) && code) {
		if (!dwarf_stream__uleb(s, &tag) || !dwarf_stream__byte(s, &children))
			return false;
		(*n)++;
		do {
			if (!dwarf_stream__uleb(s, &name) || !dwarf_stream__uleb(s, &form) ||
			    reaches_out(tag, form) ||
			    (form == DW_FORM_implicit_const && !dwarf_stream__uleb(s, &v)))
				return false;
		} while (name || form);
	}
	return code == 0 && !s->failed;
}

static int cmp_by_abbrev(const void *a, const void *b, void *arg)
{
	const uint64_t *off = arg;
	uint64_t x = off[*(const uint32_t *)a], y = off[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* The units in their tables' order, for read_abbrevs: 0 or -ENOMEM. */
static int order_tables(struct dwarf_names *dn, struct dwarf_sparse *sp)
{
	size_t n = dn->nr_units;

	sp->order = malloc(n * sizeof(*sp->order));
	sp->abbrev_end = malloc(n * sizeof(*sp->abbrev_end));
	if (!sp->order || !sp->abbrev_end)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		sp->order[i] = (uint32_t)i;
	qsort_r(sp->order, n, sizeof(*sp->order), cmp_by_abbrev, sp->abbrev_off);
	sp->next_table = 0;
	return 0;
}

/* Every unit's abbreviation count and table's end, the tables read in
 * order; -ENOENT when one does not read, reaches out or overlaps another,
 * or -ETIMEDOUT: the next call goes on from the table it stopped at. */
static int read_abbrevs(struct dwarf_names *dn, struct dwarf_sparse *sp, const struct budget *b)
{
	struct dwarf_stream *s = &sp->listing;
	size_t n = dn->nr_units, from = sp->next_table, k;
	uint64_t count = 0, end = 0;
	int e = 0;

	if (!sp->order && (e = order_tables(dn, sp)))
		return e;
	if (!sp->streaming && !(sp->streaming = stream_of(s, dn->elf, &sp->abbrev)))
		return -ENOENT;
	for (k = sp->next_table; !e && k < n; k++) {
		uint32_t i = sp->order[k];
		uint64_t off = sp->abbrev_off[i];

		/* a table shared with the unit before is read once */
		if (!k || off != sp->abbrev_off[sp->order[k - 1]]) {
			if (k - from >= 64 && (k & 63) == 0 && budget__expired(b)) {
				sp->next_table = k;
				return -ETIMEDOUT;
			}
			if (!dwarf_stream__seek(s, off) || !read_table(s, &count))
				e = -ENOENT;
			end = s->pos;
		}
		dn->units[i].abbrevs = count;
		sp->abbrev_end[i] = end;
	}
	dwarf_stream__close(s);
	sp->streaming = false;
	free(sp->order);
	sp->order = NULL;
	return e;
}

/* A made-up unit header at p spanning len bytes: DWARF 4, a null DIE,
 * its table the empty one past .debug_abbrev's end. */
static void fake_unit(unsigned char *p, uint64_t len, uint64_t abbrev_end)
{
	size_t lsize = 4, osize = 4;

	if (len - 4 >= 0xfffffff0) {
		memset(p, 0xff, 4);
		for (int i = 0; i < 8; i++)
			p[4 + i] = (unsigned char)((len - 12) >> (8 * i));
		lsize = 12;
		osize = 8;
	} else {
		for (int i = 0; i < 4; i++)
			p[i] = (unsigned char)((len - 4) >> (8 * i));
	}
	p[lsize] = 4;
	p[lsize + 1] = 0;
	for (size_t i = 0; i < osize; i++)
		p[lsize + 2 + i] = (unsigned char)(abbrev_end >> (8 * i));
	p[lsize + 2 + osize] = 8;     /* address size */
	p[lsize + 2 + osize + 1] = 0; /* the null DIE */
}

/* .debug_info's map: the kept units copied, each run of others one
 * made-up unit; false when the section does not inflate as it did. */
static bool build_info(struct dwarf_names *dn, struct dwarf_sparse *sp)
{
	struct dwarf_stream s;
	bool ok = true;
	size_t i = 0;

	if (!stream_of(&s, dn->elf, &sp->info))
		return false;
	while (ok && i < dn->nr_units) {
		const struct dwarf_unit *u = &dn->units[i];

		if (sp->kept[i]) {
			ok = dwarf_stream__seek(&s, u->start) && dwarf_stream__take(&s, sp->info.map + u->start, u->size);
			i++;
			continue;
		}
		uint64_t start = u->start;

		while (i < dn->nr_units && !sp->kept[i])
			i++;
		uint64_t end = i < dn->nr_units ? dn->units[i].start : sp->info.size;

		/* every unit is FAKE_UNIT bytes or more; a run over 4 GiB,
		 * FAKE_UNIT64 */
		fake_unit(sp->info.map + start, end - start, sp->abbrev.size);
	}
	dwarf_stream__close(&s);
	return ok;
}

static int cmp_range(const void *a, const void *b)
{
	const struct dwarf_file_range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* .debug_abbrev's map: the kept units' tables (packed only: one read in
 * place is read from the file's mapping). */
static bool build_abbrevs(struct dwarf_names *dn, struct dwarf_sparse *sp)
{
	struct dwarf_file_range *t;
	struct dwarf_stream s;
	size_t nr = 0;
	bool ok;

	if (!sp->abbrev.map)
		return true;
	if (!(t = malloc((sp->nr_kept ? sp->nr_kept : 1) * sizeof(*t))))
		return false;
	for (size_t i = 0; i < dn->nr_units; i++)
		if (sp->kept[i])
			t[nr++] = (struct dwarf_file_range){ sp->abbrev_off[i],
							     sp->abbrev_end[i] - sp->abbrev_off[i] };
	qsort(t, nr, sizeof(*t), cmp_range);
	ok = stream_of(&s, dn->elf, &sp->abbrev);
	for (size_t k = 0; ok && k < nr; k++)
		if (!k || t[k].off != t[k - 1].off)
			ok = dwarf_stream__seek(&s, t[k].off) &&
			     dwarf_stream__take(&s, sp->abbrev.map + t[k].off, t[k].len);
	dwarf_stream__close(&s);
	free(t);
	return ok;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* .debug_line's map: the line programs of the kept units known, each
 * copied whole (its length from its header); one that overlaps the one
 * before is copied from where that one ended. */
static bool build_lines(struct dwarf_names *dn, struct dwarf_sparse *sp)
{
	uint64_t *off;
	struct dwarf_stream s;
	size_t nr = 0;
	bool ok;

	if (!sp->line.map)
		return true;
	if (!(off = malloc((sp->nr_kept ? sp->nr_kept : 1) * sizeof(*off))))
		return false;
	for (size_t i = 0; i < dn->nr_units; i++)
		if (sp->kept[i] && sp->line_off[i] < sp->line.size)
			off[nr++] = sp->line_off[i];
	qsort(off, nr, sizeof(*off), cmp_u64);
	ok = stream_of(&s, dn->elf, &sp->line);
	sp->line_bytes = 0;
	for (size_t k = 0; ok && k < nr; k++) {
		uint64_t len, lsize = 4, end;

		if (off[k] < s.pos || !dwarf_stream__seek(&s, off[k]) || !dwarf_stream__ensure(&s, 12))
			continue; /* read before, or past the end: libdw finds none */
		len = le(s.buf + s.at, 4);
		if (len == 0xffffffff) {
			len = le(s.buf + s.at + 4, 8);
			lsize = 12;
		}
		end = len < s.size - off[k] - lsize ? off[k] + lsize + len : s.size;
		ok = dwarf_stream__take(&s, sp->line.map + off[k], end - off[k]);
		sp->line_bytes += end - off[k];
	}
	dwarf_stream__close(&s);
	free(off);
	return ok;
}

/* libelf's copy of sec made to read as its map: uncompressed, sized. */
static bool hand_over(struct sparse_sec *sec, uint64_t size)
{
	GElf_Shdr sh;
	Elf_Data *d;

	if (!gelf_getshdr(sec->scn, &sh))
		return false;
	if (!sec->handed) {
		if (!(d = elf_getdata(sec->scn, NULL)))
			return false;
		sec->was_sh = sh;
		sec->was_d = *d;
		sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		if (!gelf_update_shdr(sec->scn, &sh))
			return false;
		sec->handed = true;
	}
	if (!(d = elf_getdata(sec->scn, NULL)))
		return false;
	d->d_buf = sec->map;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_off = 0;
	d->d_align = 1;
	return true;
}

/* The section named name of elf, zlib-compressed (SHF_COMPRESSED) or
 * stored as read; false if none, another compression, or another section
 * libdw could take for it (a second one, a .zdebug_ one). */
static bool find_section(Elf *elf, const char *name, struct sparse_sec *sec)
{
	size_t shstrndx, found = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		GElf_Chdr ch;

		if (!n || (strcmp(n, name) && (n[1] != 'z' || strcmp(n + 2, name + 1))))
			continue;
		if (found++ || n[1] == 'z' || sh.sh_type != SHT_PROGBITS)
			return false;
		sec->scn = scn;
		sec->packed = sh.sh_flags & SHF_COMPRESSED;
		sec->size = sh.sh_size;
		if (sec->packed) {
			if (!gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB)
				return false;
			sec->size = ch.ch_size;
			sec->file = (struct dwarf_file_range){ sh.sh_offset, sh.sh_size };
		}
	}
	return found == 1 && sec->size > 0 && sec->size < SIZE_MAX / 4;
}

static unsigned char *map_anon(size_t size, size_t *mapped)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	*mapped = size;
	return p == MAP_FAILED ? NULL : p;
}

/* libelf's copy of sec as it was: compressed, its raw data (libdw ended). */
static void take_back(struct sparse_sec *sec)
{
	Elf_Data *d;

	if (!sec->handed)
		return;
	gelf_update_shdr(sec->scn, &sec->was_sh);
	if ((d = elf_getdata(sec->scn, NULL)))
		*d = sec->was_d;
	sec->handed = false;
}

void dwarf_sparse__free(struct dwarf_sparse *sp)
{
	if (!sp)
		return;
	if (sp->streaming)
		dwarf_stream__close(&sp->listing);
	free(sp->order);
	take_back(&sp->info);
	take_back(&sp->abbrev);
	take_back(&sp->line);
	if (sp->info.map)
		munmap(sp->info.map, sp->info.map_size);
	if (sp->abbrev.map)
		munmap(sp->abbrev.map, sp->abbrev.map_size);
	if (sp->line.map)
		munmap(sp->line.map, sp->line.map_size);
	free(sp->abbrev_off);
	free(sp->abbrev_end);
	free(sp->line_off);
	free(sp->kept);
	free(sp->built);
	free(sp);
}

/* Lets the compressed pages just streamed go (they are read again on the
 * next build; libdw never reads them). */
static void drop_pages(struct dwarf_names *dn, const struct dwarf_sparse *sp)
{
	dwarf_sections__drop_pages(dn->elf, &sp->info.file, 1);
	if (sp->abbrev.packed)
		dwarf_sections__drop_pages(dn->elf, &sp->abbrev.file, 1);
	if (sp->line.map)
		dwarf_sections__drop_pages(dn->elf, &sp->line.file, 1);
}

/* A new sparse copy of dn's sections, nothing listed yet; -ENOENT when its
 * .debug_info is not compressed (libdw reads it in place) or is another's. */
static int sparse_new(struct dwarf_names *dn, struct dwarf_sparse **out)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(dn->elf, NULL);
	struct dwarf_sparse *sp;

	if (dn->alt_elf || !ident || ident[EI_DATA] != ELFDATA2LSB)
		return -ENOENT;
	if (!(sp = calloc(1, sizeof(*sp))))
		return -ENOMEM;
	if (!find_section(dn->elf, ".debug_info", &sp->info) || !sp->info.packed ||
	    !find_section(dn->elf, ".debug_abbrev", &sp->abbrev)) {
		dwarf_sparse__free(sp);
		return -ENOENT;
	}
	*out = sp;
	return 0;
}

/* The maps the sections are made in, and the per-unit tables. */
static int sparse_alloc(struct dwarf_names *dn, struct dwarf_sparse *sp, bool lines)
{
	if (!(sp->kept = calloc(dn->nr_units, sizeof(*sp->kept))) ||
	    !(sp->built = calloc(dn->nr_units, sizeof(*sp->built))) ||
	    !(sp->line_off = malloc(dn->nr_units * sizeof(*sp->line_off))))
		return -ENOMEM;
	for (size_t i = 0; i < dn->nr_units; i++)
		sp->line_off[i] = NO_LINES;
	/* .debug_line too when lines are read (else it was set aside) */
	if (lines && find_section(dn->elf, ".debug_line", &sp->line) && sp->line.packed &&
	    !(sp->line.map = map_anon(sp->line.size, &sp->line.map_size)))
		return -ENOMEM;
	if (!(sp->info.map = map_anon(sp->info.size, &sp->info.map_size)))
		return -ENOMEM;
	/* one byte past the end: the made-up units' empty table */
	if (sp->abbrev.packed &&
	    !(sp->abbrev.map = map_anon(sp->abbrev.size + 1, &sp->abbrev.map_size)))
		return -ENOMEM;
	return 0;
}

int dwarf_sparse__index(struct dwarf_names *dn, bool lines, const struct budget *b,
			struct dwarf_sparse **io)
{
	struct dwarf_sparse *sp = *io;
	int e = 0;

	if (!sp && (e = sparse_new(dn, &sp)))
		return e;
	*io = sp;
	if (!sp->listed)
		e = list_units(dn, sp, b);
	if (!e)
		e = read_abbrevs(dn, sp, b);
	drop_pages(dn, sp);
	if (e == -ETIMEDOUT)
		return e; /* *io goes on in a later budget */
	if (!e)
		e = sparse_alloc(dn, sp, lines);
	if (e) {
		dwarf_sparse__free(sp);
		*io = NULL;
	}
	return e;
}

int dwarf_sparse__build(struct dwarf_names *dn, struct dwarf_sparse *sp, bool lines_only)
{
	bool ok = (lines_only || (build_info(dn, sp) && build_abbrevs(dn, sp))) &&
		  build_lines(dn, sp);

	drop_pages(dn, sp);
	sp->builds += !lines_only;
	if (!ok)
		return -EINVAL;
	if (!lines_only)
		memcpy(sp->built, sp->kept, dn->nr_units * sizeof(*sp->built));
	/* the abbreviation map, packed, one byte over: the empty table */
	if (!hand_over(&sp->info, sp->info.size) ||
	    (sp->abbrev.map && !hand_over(&sp->abbrev, sp->abbrev.size + 1)) ||
	    (sp->line.map && !hand_over(&sp->line, sp->line.size)))
		return -EINVAL;
	return 0;
}

bool dwarf_sparse__line_offsets(struct dwarf_names *dn, struct dwarf_sparse *sp, Dwarf *dw)
{
	bool found = false;

	for (size_t i = 0; sp->line.map && i < dn->nr_units; i++) {
		Dwarf_Attribute a;
		Dwarf_Word off;
		Dwarf_Die cu;

		if (!sp->kept[i] || sp->line_off[i] != NO_LINES)
			continue;
		sp->line_off[i] = NO_LINES - 1; /* looked for: none unless found */
		if (dwarf_offdie(dw, dn->units[i].die, &cu) &&
		    dwarf_attr(&cu, DW_AT_stmt_list, &a) && !dwarf_formudata(&a, &off) &&
		    off < sp->line.size) {
			sp->line_off[i] = off;
			found = true;
		}
	}
	return found;
}

bool dwarf_sparse__keep(struct dwarf_names *dn, struct dwarf_sparse *sp, size_t unit, bool all)
{
	size_t had = sp->nr_kept;

	for (size_t i = all ? 0 : unit; i < (all ? dn->nr_units : unit + 1); i++)
		if (!sp->kept[i]) {
			sp->kept[i] = true;
			sp->nr_kept++;
			sp->kept_bytes += dn->units[i].size +
					  (sp->abbrev.map ? sp->abbrev_end[i] - sp->abbrev_off[i] : 0);
		}
	return sp->nr_kept != had;
}

bool dwarf_sparse__built(const struct dwarf_sparse *sp, size_t unit)
{
	return sp->built[unit];
}

void dwarf_sparse__sizes(const struct dwarf_sparse *sp, size_t *kept, size_t *full,
			 size_t *units, unsigned *builds)
{
	*kept = sp->kept_bytes + sp->line_bytes;
	*full = sp->info.size + (sp->abbrev.map ? sp->abbrev.size : 0) +
		(sp->line.map ? sp->line.size : 0);
	*units = sp->nr_kept;
	*builds = sp->builds;
}

size_t dwarf_sparse__stream_bytes(const struct dwarf_names *dn, const struct dwarf_sparse *sp,
				  size_t unit)
{
	uint64_t info = 0, abbrev = 0;

	if (sp->builds >= DWARF_SPARSE_BUILDS)
		return sp->info.size + (sp->abbrev.map ? sp->abbrev.size : 0) +
		       (sp->line.map ? sp->line.size : 0);
	/* each stream stops at the end of the last part it copies */
	for (size_t i = 0; i < dn->nr_units; i++) {
		if (!sp->kept[i] && i != unit)
			continue;
		if (dn->units[i].start + dn->units[i].size > info)
			info = dn->units[i].start + dn->units[i].size;
		if (sp->abbrev_end[i] > abbrev)
			abbrev = sp->abbrev_end[i];
	}
	/* a line program's place is known only once libdw read its unit */
	return info + (sp->abbrev.map ? abbrev : 0) +
	       (sp->line.map && (sp->nr_kept || unit < dn->nr_units) ? sp->line.size : 0);
}

size_t dwarf_sparse__bytes(const struct dwarf_sparse *sp, size_t nr_units)
{
	/* the fake headers' pages are not counted: one each run, at most
	 * one a unit kept, well inside DWARF_UNIT_COST */
	return sp ? sizeof(*sp) + nr_units * (3 * sizeof(uint64_t) + 1) + sp->kept_bytes +
			    sp->line_bytes : 0;
}
