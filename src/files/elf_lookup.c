// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbols by name, for finding an interpreter's globals (_PyRuntime,
 * Py_Version) in a file another user may control: .dynsym, then .symtab,
 * a chunk of entries at a time, within the file's bounds and a cap on the
 * entries read.  Names are compared in place; nothing is kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "files/elf_file_int.h"
#include "files/elf_lookup.h"

#define LOOKUP_CHUNK 1024
#define LOOKUP_MAX_SYMS (4u * 1000 * 1000)
#define LOOKUP_MAX_NAME 128
/* String tables up to this size are read whole, in one read, rather
 * than a name at a time. */
#define LOOKUP_WHOLE_STRTAB (16u << 20)

/* A string table: in memory when it was small enough, else in the file. */
struct strings {
	struct region r;
	char *mem;
};

/* Which of names[] (not found yet) the symbol named at off is. */
static int match(const struct strings *strs, uint64_t off, const char *const *names, size_t n,
		 const struct elf_found *out)
{
	char buf[LOOKUP_MAX_NAME + 1];
	size_t len = strs->r.size - off < sizeof(buf) ? strs->r.size - off : sizeof(buf);
	const char *name = buf;

	if (off >= strs->r.size)
		return -1;
	if (strs->mem)
		name = strs->mem + off; /* the table's last byte is made a NUL */
	else if (region_read(&strs->r, off, buf, len))
		buf[len - 1] = '\0';
	else
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!out[i].found && !strcmp(name, names[i]))
			return (int)i;
	return -1;
}

static void lookup_table(struct elf_file *f, Elf_Scn *scn, GElf_Shdr *sh,
			 const char *const *names, size_t n, struct elf_found *out)
{
	unsigned char buf[LOOKUP_CHUNK * sizeof(Elf64_Sym)];
	size_t ent = sizeof(Elf64_Sym), nsyms, k;
	struct strings strs = { 0 };
	struct region syms;

	if (f->cls != ELFCLASS64 || f->data != ELFDATA2LSB || sh->sh_entsize != ent ||
	    !elf_file__linked_strtab(f, sh, &strs.r) || !elf_file__region(f, scn, sh, &syms) || !strs.r.size)
		return;
	if (strs.r.size <= LOOKUP_WHOLE_STRTAB && (strs.mem = malloc(strs.r.size))) {
		if (region_read(&strs.r, 0, strs.mem, strs.r.size)) {
			strs.mem[strs.r.size - 1] = '\0';
		} else {
			free(strs.mem);
			strs.mem = NULL;
		}
	}
	nsyms = syms.size / ent;
	if (nsyms > LOOKUP_MAX_SYMS)
		nsyms = LOOKUP_MAX_SYMS;
	for (size_t i = 1; i < nsyms; i += k) {
		k = nsyms - i < LOOKUP_CHUNK ? nsyms - i : LOOKUP_CHUNK;
		if (!region_read(&syms, i * ent, buf, k * ent))
			break;
		for (size_t j = 0; j < k; j++) {
			Elf64_Sym s;
			int w;

			memcpy(&s, buf + j * ent, sizeof(s));
			if (s.st_shndx == SHN_UNDEF || !s.st_name)
				continue;
			w = match(&strs, s.st_name, names, n, out);
			if (w >= 0)
				out[w] = (struct elf_found){ .found = true, .value = s.st_value,
							     .size = s.st_size };
		}
	}
	free(strs.mem);
}

int elf_file__lookup(struct elf_file *f, const char *const *names, size_t n,
		     struct elf_found *out)
{
	static const Elf64_Word types[] = { SHT_DYNSYM, SHT_SYMTAB };
	size_t found = 0;

	memset(out, 0, n * sizeof(*out));
	for (size_t t = 0; t < 2; t++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(f->elf, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == types[t])
				lookup_table(f, scn, &sh, names, n, out);
	}
	for (size_t i = 0; i < n; i++)
		found += out[i].found;
	return (int)found;
}

int elf_file__load_bias(struct elf_file *f, uint64_t map_start, uint64_t pgoff, uint64_t *bias)
{
	size_t nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &nph))
		return -EINVAL;
	for (size_t i = 0; i < nph && i < 4096; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (pgoff >= (ph.p_offset & ~0xfffULL) && pgoff < ph.p_offset + ph.p_filesz) {
			*bias = map_start - (pgoff + ph.p_vaddr - ph.p_offset);
			return 0;
		}
	}
	return -ENOENT;
}
