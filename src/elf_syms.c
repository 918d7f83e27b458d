// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF symbol tables: owns reading the function symbols of one ELF file or
 * in-memory image (.symtab and .dynsym merged), its PT_LOAD layout, and the
 * lookup from a file offset to the function covering it.  Files come from
 * other processes and may be hostile or truncated while we read them, so
 * libelf only ever reads (never mmaps) and every table size and offset is
 * checked against the file size before libelf is asked to load it.  After
 * parsing, names are copied into one arena and the ELF handle is dropped, so
 * a table costs no file descriptor and no mapping.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_syms.h"
#include "log.h"

#define MAX_TABLE_SYMS (50u * 1000 * 1000)
#define MAX_SECTIONS (1u << 20)
#define MAX_SEGMENTS (1u << 16)
/* How far a lookup walks back past symbols nested in a bigger function. */
#define MAX_WALK_BACK 16

struct esym {
	uint64_t addr, end;
	const char *name;
};

struct seg {
	uint64_t off, filesz, vaddr, memsz;
};

struct elf_syms {
	struct esym *syms;
	size_t nr;
	char *names;
	struct seg *segs;
	size_t nr_segs;
};

/* Where the bytes come from: a file descriptor or a private memory copy. */
struct esrc {
	int fd;
	const unsigned char *mem;
	uint64_t size;
};

/* A candidate symbol before the merge of .symtab and .dynsym. */
struct rawsym {
	uint64_t addr, size;
	const char *name; /* inside libelf's string table data */
	size_t len;
	uint32_t seq;
	bool local;
};

struct collect {
	struct rawsym *raw;
	size_t nr, cap;
	bool thumb;
};

static bool src_read(const struct esrc *s, uint64_t off, void *buf, size_t len)
{
	ssize_t n;

	if (off > s->size || len > s->size - off)
		return false;
	if (s->mem) {
		memcpy(buf, s->mem + off, len);
		return true;
	}
	while (len) {
		n = pread(s->fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf = (char *)buf + n;
		off += n;
		len -= n;
	}
	return true;
}

static uint64_t rd(const unsigned char *p, int n, bool big)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

static bool table_fits(uint64_t off, uint64_t nr, uint64_t entsize, uint64_t size)
{
	if (!nr)
		return true;
	if (off > size || nr > (size - off) / entsize)
		return false;
	return true;
}

/*
 * Checks the section and program header tables against the file size before
 * libelf sizes its allocations from them (extended numbering included).
 */
static bool headers_sane(const struct esrc *s)
{
	unsigned char eh[64], sh0[64];
	uint64_t phoff, shoff, phnum, shnum;
	unsigned int phent, shent;
	bool is64, big;

	if (!src_read(s, 0, eh, s->size < 64 ? 52 : 64) || memcmp(eh, ELFMAG, SELFMAG))
		return false;
	if (eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64)
		return false;
	if (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB)
		return false;
	is64 = eh[EI_CLASS] == ELFCLASS64;
	big = eh[EI_DATA] == ELFDATA2MSB;
	if (is64 && s->size < 64)
		return false;
	phoff = is64 ? rd(eh + 32, 8, big) : rd(eh + 28, 4, big);
	shoff = is64 ? rd(eh + 40, 8, big) : rd(eh + 32, 4, big);
	phent = rd(eh + (is64 ? 54 : 42), 2, big);
	phnum = rd(eh + (is64 ? 56 : 44), 2, big);
	shent = rd(eh + (is64 ? 58 : 46), 2, big);
	shnum = rd(eh + (is64 ? 60 : 48), 2, big);
	if (shoff) {
		if (shent != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
		    !src_read(s, shoff, sh0, shent))
			return false;
		if (!shnum)
			shnum = is64 ? rd(sh0 + 32, 8, big) : rd(sh0 + 20, 4, big);
		if (phnum == PN_XNUM)
			phnum = rd(sh0 + (is64 ? 44 : 28), 4, big);
		if (shnum > MAX_SECTIONS || !table_fits(shoff, shnum, shent, s->size))
			return false;
	}
	if (phoff && phnum) {
		if (phent != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) ||
		    phnum > MAX_SEGMENTS || !table_fits(phoff, phnum, phent, s->size))
			return false;
	}
	return true;
}

static int load_segments(Elf *elf, struct elf_syms *es)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) || !n)
		return 0;
	if (n > MAX_SEGMENTS)
		return -EINVAL;
	es->segs = calloc(n, sizeof(*es->segs));
	if (!es->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		es->segs[es->nr_segs++] = (struct seg){
			.off = ph.p_offset, .filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
		};
	}
	return 0;
}

static bool section_fits(const GElf_Shdr *sh, uint64_t size)
{
	if (sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED))
		return false;
	return sh->sh_offset <= size && sh->sh_size <= size - sh->sh_offset;
}

/* The string table a symbol table links to, bounds-checked; NULL if bad. */
static Elf_Data *link_strtab(Elf *elf, const GElf_Shdr *symsh, uint64_t size)
{
	size_t shnum;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *d;

	if (elf_getshdrnum(elf, &shnum) || !symsh->sh_link || symsh->sh_link >= shnum)
		return NULL;
	scn = elf_getscn(elf, symsh->sh_link);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB ||
	    !section_fits(&sh, size))
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return NULL;
	return d;
}

static int push_sym(struct collect *c, const GElf_Sym *sym, const char *name,
		    size_t len)
{
	struct rawsym *r;

	if (c->nr == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;

		r = realloc(c->raw, ncap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		c->raw = r;
		c->cap = ncap;
	}
	r = &c->raw[c->nr];
	r->addr = c->thumb ? sym->st_value & ~1ULL : sym->st_value;
	r->size = sym->st_size;
	r->name = name;
	r->len = len;
	r->seq = c->nr++;
	r->local = GELF_ST_BIND(sym->st_info) == STB_LOCAL;
	return 0;
}

static int collect_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			 uint64_t size, struct collect *c)
{
	Elf_Data *data, *str;
	size_t i, n, ent;
	GElf_Sym sym;
	const char *name, *nul;
	int type;

	ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!ent || sh->sh_entsize != ent || !section_fits(sh, size))
		return 0;
	n = sh->sh_size / ent;
	if (n > MAX_TABLE_SYMS)
		return 0;
	str = link_strtab(elf, sh, size);
	data = str ? elf_getdata(scn, NULL) : NULL;
	if (!data)
		return 0;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(data, i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value ||
		    sym.st_name >= str->d_size)
			continue;
		name = (const char *)str->d_buf + sym.st_name;
		nul = memchr(name, '\0', str->d_size - sym.st_name);
		if (!nul || nul == name)
			continue;
		if (push_sym(c, &sym, name, nul - name))
			return -ENOMEM;
	}
	return 0;
}

static int rawsym_cmp(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->local != y->local)
		return x->local ? 1 : -1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint64_t segment_end(const struct elf_syms *es, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < es->nr_segs; i++) {
		const struct seg *g = &es->segs[i];

		if (vaddr >= g->vaddr && vaddr - g->vaddr < g->memsz)
			return g->vaddr + g->memsz;
	}
	return UINT64_MAX;
}

/* Keeps the first of each address run (sorted best first) and sizes it. */
static size_t dedupe(struct rawsym *raw, size_t nr)
{
	size_t i, out = 0;

	for (i = 0; i < nr; i++) {
		if (out && raw[out - 1].addr == raw[i].addr) {
			if (!raw[out - 1].size)
				raw[out - 1].size = raw[i].size;
			continue;
		}
		raw[out++] = raw[i];
	}
	return out;
}

static int build_table(struct elf_syms *es, struct collect *c)
{
	size_t i, total = 0, nr;
	char *p;

	if (c->nr > 1)
		qsort(c->raw, c->nr, sizeof(*c->raw), rawsym_cmp);
	nr = dedupe(c->raw, c->nr);
	for (i = 0; i < nr; i++)
		total += c->raw[i].len + 1;
	es->syms = calloc(nr ? nr : 1, sizeof(*es->syms));
	es->names = malloc(total ? total : 1);
	if (!es->syms || !es->names)
		return -ENOMEM;
	for (i = 0, p = es->names; i < nr; i++) {
		struct rawsym *r = &c->raw[i];
		struct esym *s = &es->syms[i];

		memcpy(p, r->name, r->len);
		p[r->len] = '\0';
		s->name = p;
		p += r->len + 1;
		s->addr = r->addr;
		if (r->size)
			s->end = r->addr + r->size < r->addr ? UINT64_MAX : r->addr + r->size;
		else
			s->end = i + 1 < nr ? c->raw[i + 1].addr : segment_end(es, r->addr);
	}
	es->nr = nr;
	return 0;
}

static int load_symbols(Elf *elf, struct elf_syms *es, uint64_t size)
{
	struct collect c = { 0 };
	static const Elf64_Word order[] = { SHT_SYMTAB, SHT_DYNSYM };
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	size_t t;
	int ret = 0;

	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	c.thumb = eh.e_machine == EM_ARM;
	/* .symtab first, so its names win ties over .dynsym's. */
	for (t = 0; t < 2 && !ret; t++) {
		for (scn = NULL; !ret && (scn = elf_nextscn(elf, scn));) {
			if (gelf_getshdr(scn, &sh) && sh.sh_type == order[t])
				ret = collect_table(elf, scn, &sh, size, &c);
		}
	}
	if (!ret)
		ret = build_table(es, &c);
	free(c.raw);
	return ret;
}

static struct elf_syms *open_src(const struct esrc *s, char *image)
{
	struct elf_syms *es = NULL;
	Elf *elf;
	int ret = -EINVAL;

	if (elf_version(EV_CURRENT) == EV_NONE || !headers_sane(s)) {
		errno = ENOEXEC;
		return NULL;
	}
	elf = image ? elf_memory(image, s->size) : elf_begin(s->fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	es = calloc(1, sizeof(*es));
	if (!es) {
		ret = -ENOMEM;
		goto out;
	}
	ret = load_segments(elf, es);
	if (!ret)
		ret = load_symbols(elf, es, s->size);
out:
	if (elf)
		elf_end(elf);
	if (ret) {
		elf_syms__free(es);
		errno = ret == -ENOMEM ? ENOMEM : ENOEXEC;
		return NULL;
	}
	return es;
}

struct elf_syms *elf_syms__open_fd(int fd)
{
	struct esrc s = { .fd = fd };
	struct stat st;

	if (fstat(fd, &st))
		return NULL;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf32_Ehdr)) {
		errno = ENOEXEC;
		return NULL;
	}
	s.size = st.st_size;
	return open_src(&s, NULL);
}

struct elf_syms *elf_syms__open_mem(const void *image, size_t size)
{
	struct esrc s = { .fd = -1, .size = size };
	struct elf_syms *es;
	char *copy;

	if (!image || size < sizeof(Elf32_Ehdr)) {
		errno = ENOEXEC;
		return NULL;
	}
	/* libelf wants a writable image; the caller's may be read-only. */
	copy = malloc(size);
	if (!copy)
		return NULL;
	memcpy(copy, image, size);
	s.mem = (const unsigned char *)copy;
	es = open_src(&s, copy);
	free(copy);
	return es;
}

static uint64_t offset_to_vaddr(const struct elf_syms *es, uint64_t off)
{
	size_t i;

	for (i = 0; i < es->nr_segs; i++) {
		const struct seg *g = &es->segs[i];

		if (off >= g->off && off - g->off < g->filesz)
			return off - g->off + g->vaddr;
	}
	return off;
}

const char *elf_syms__map_offset(const struct elf_syms *es, uint64_t off,
				 uint64_t *sym_off, uint64_t *vaddr)
{
	size_t lo = 0, hi, stop;
	uint64_t va;

	if (!es)
		return NULL;
	va = offset_to_vaddr(es, off);
	if (vaddr)
		*vaddr = va;
	if (!es->nr || va < es->syms[0].addr)
		return NULL;
	hi = es->nr;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].addr <= va)
			lo = mid;
		else
			hi = mid;
	}
	/* A small symbol nested in a larger one may not cover va; its parent can. */
	stop = lo > MAX_WALK_BACK ? lo - MAX_WALK_BACK : 0;
	for (;; lo--) {
		if (va < es->syms[lo].end) {
			if (sym_off)
				*sym_off = va - es->syms[lo].addr;
			return es->syms[lo].name;
		}
		if (lo == stop)
			return NULL;
	}
}

size_t elf_syms__count(const struct elf_syms *es)
{
	return es ? es->nr : 0;
}

void elf_syms__free(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->names);
	free(es->segs);
	free(es);
}
