// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The debug sections of a file's DWARF, inside dwarf_names: their sizes
 * before libdw inflates any, their data as libdw left it, whether they are
 * read from the mapping, and the compressed bytes' pages let go once
 * inflated.
 */
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "files/dwarf_names_int.h"

/* Whether section name is one libdw reads (.debug_*, .zdebug_*). */
bool dwarf_sections__debug(const char *name)
{
	return name && (!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8));
}

/* A walk over elf's sections: those that hold bytes (not SHT_NOBITS), or
 * all with nobits set. */
struct walk {
	Elf *elf;
	bool nobits;
	size_t shstrndx;
	Elf_Scn *scn;
	GElf_Shdr sh;
	const char *name; /* NULL when it does not read */
};

/* The walk's next section into w->scn, w->sh and w->name; false past the
 * last, or when elf's section names do not read. */
static bool next_section(struct walk *w)
{
	if (!w->scn && elf_getshdrstrndx(w->elf, &w->shstrndx))
		return false;
	while ((w->scn = elf_nextscn(w->elf, w->scn)))
		if (gelf_getshdr(w->scn, &w->sh) && (w->nobits || w->sh.sh_type != SHT_NOBITS)) {
			w->name = elf_strptr(w->elf, w->shstrndx, w->sh.sh_name);
			return true;
		}
	return false;
}

/*
 * The size of section scn (header sh, named name) once libdw read it: its
 * inflated size if compressed (SHF_COMPRESSED, or a .zdebug_ name), with
 * *packed set; a header that will not read counts the worst case.
 */
static size_t read_size(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, bool *packed)
{
	uint64_t size = sh->sh_size;

	*packed = (sh->sh_flags & SHF_COMPRESSED) || name[1] == 'z';
	if (*packed) {
		GElf_Chdr ch;

		size = gelf_getchdr(scn, &ch) ? ch.ch_size : SIZE_MAX / 4;
	}
	return size > SIZE_MAX / 4 ? SIZE_MAX / 4 : size;
}

/* a + b, held at SIZE_MAX / 4 (sizes of crafted headers are summed) */
static size_t add_held(size_t a, size_t b)
{
	return a > SIZE_MAX / 4 - b ? SIZE_MAX / 4 : a + b;
}

/*
 * Sizes elf's debug sections: *all the bytes they hold once inflated,
 * *inflated those of compressed ones (libdw inflates them into memory).
 * Whether it has a .debug_info, and sets *debugdata when it has a
 * .gnu_debugdata.
 */
bool dwarf_sections__sizes(Elf *elf, size_t *all, size_t *inflated, bool *debugdata)
{
	struct walk w = { .elf = elf };
	bool info = false;

	*all = *inflated = 0;
	while (next_section(&w)) {
		const char *name = w.name;
		size_t size;
		bool packed;

		if (name && !strcmp(name, ".gnu_debugdata"))
			*debugdata = true;
		if (!dwarf_sections__debug(name))
			continue;
		if (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info"))
			info = true;
		size = read_size(w.scn, &w.sh, name, &packed);
		if (packed)
			*inflated = add_held(*inflated, size);
		*all = add_held(*all, size);
	}
	return info;
}

/*
 * Whether naming chains needs debug section name (.debug_X or .zdebug_X),
 * of those libdw 0.188 reads at its start (dwarf_begin_elf's
 * dwarf_scnnames): not the location lists (a variable's place), call
 * frames, macros or .debug_pubnames, which nothing here asks for, and
 * .debug_line only when lines are shown (dwarf_names__set_lines: no file
 * name is then read either, not even a declaration's).
 */
static bool needed(const char *name, bool lines)
{
	static const char *const unread[] = { "loc", "loclists", "frame", "pubnames",
					      "macinfo", "macro" };
	const char *x = name + (name[1] == 'z' ? 8 : 7); /* after .debug_ */

	if (!strcmp(x, "line"))
		return lines;
	for (size_t i = 0; i < sizeof(unread) / sizeof(unread[0]); i++)
		if (!strcmp(x, unread[i]))
			return false;
	return true;
}

/*
 * Sets elf's debug sections that naming does not read (needed()) aside
 * before libdw begins, so that it does not inflate them: libdw 0.188's
 * check_section passes over SHT_NOBITS sections, and the type is changed
 * in libelf's own copy of the section headers (ELF_C_READ_MMAP copies
 * them; nothing is ever written back: the file and its read-only mapping
 * stay as they are).  Adds to *inflated the bytes of the compressed
 * sections libdw will still inflate, to *aside those of the compressed
 * ones set aside.  Once an elf: a second call finds them NOBITS.
 */
void dwarf_sections__set_aside(Elf *elf, bool lines, size_t *inflated, size_t *aside)
{
	struct walk w = { .elf = elf };

	while (next_section(&w)) {
		size_t size;
		bool packed;

		if (!dwarf_sections__debug(w.name))
			continue;
		size = read_size(w.scn, &w.sh, w.name, &packed);
		if (!needed(w.name, lines)) {
			w.sh.sh_type = SHT_NOBITS;
			/* libelf's copy was just read: this does not fail */
			if (gelf_update_shdr(w.scn, &w.sh)) {
				*aside = add_held(*aside, packed ? size : 0);
				continue;
			}
		}
		*inflated = add_held(*inflated, packed ? size : 0);
	}
}

/* The data of elf's section name (as libdw left it: inflated); NULL if none. */
const unsigned char *dwarf_sections__data(Elf *elf, const char *name, size_t *size)
{
	struct walk w = { .elf = elf };

	while (next_section(&w)) {
		const char *n = w.name;
		Elf_Data *d;

		if (!n || (strcmp(n, name) && (n[1] != 'z' || strcmp(n + 2, name + 1))))
			continue;
		d = elf_getdata(w.scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/* Whether elf's section name is stored as it is read (not compressed). */
bool dwarf_sections__mapped(Elf *elf, const char *name)
{
	struct walk w = { .elf = elf, .nobits = true }; /* those set aside too */

	while (next_section(&w))
		if (w.name && !strcmp(w.name, name))
			return !(w.sh.sh_flags & SHF_COMPRESSED);
	return false;
}

/* The file ranges of elf's compressed debug sections, at most n. */
size_t dwarf_sections__compressed(Elf *elf, struct dwarf_file_range *r, size_t n)
{
	struct walk w = { .elf = elf };
	size_t nr = 0;

	while (nr < n && next_section(&w))
		if ((w.sh.sh_flags & SHF_COMPRESSED) && dwarf_sections__debug(w.name))
			r[nr++] = (struct dwarf_file_range){ w.sh.sh_offset, w.sh.sh_size };
	return nr;
}

/*
 * Once libdw inflated them, the compressed bytes of elf's mapping are not
 * read again: their pages are let go (read again from the file if they
 * ever were), so that libc6-dbg's libc costs its 10 MB inflated, not 4 MB
 * of compressed pages on top.
 */
void dwarf_sections__drop_pages(Elf *elf, const struct dwarf_file_range *r, size_t nr)
{
	size_t size, page = (size_t)sysconf(_SC_PAGESIZE);
	char *base = elf_rawfile(elf, &size);

	for (size_t i = 0; base && i < nr; i++) {
		uint64_t lo = (r[i].off + page - 1) / page * page, hi = r[i].off + r[i].len;

		if (hi > size)
			hi = size;
		hi = hi / page * page;
		if (lo < hi)
			madvise(base + lo, hi - lo, MADV_DONTNEED);
	}
}
