// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF symbol tables: owns reading the function symbols of one ELF file or
 * in-memory image (.symtab and .dynsym merged, plus the .symtab of a separate
 * debug file when one is given), its PT_LOAD layout, and the lookup from a
 * file offset to the function covering it.  It also owns the other ELF reads
 * the debug-info search needs (build ID, named sections) and the inflation of
 * SHF_COMPRESSED sections.  Files come from other processes and may be
 * hostile or truncated while we read them, so libelf only ever reads (never
 * mmaps), every table size and offset is checked against the file size
 * before libelf is asked to load it, and a compressed section is inflated
 * only when its announced size is plausible and under a cap.  After parsing,
 * names are copied into one arena and the ELF handles are dropped, so a
 * table costs no file descriptor and no mapping.
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
#include "addr_search.h"
#include "log.h"

#define MAX_TABLE_SYMS (50u * 1000 * 1000)
#define MAX_SECTIONS (1u << 20)
#define MAX_SEGMENTS (1u << 16)
/* How far a lookup walks back past symbols nested in a bigger function. */
#define MAX_WALK_BACK 16
/* Compressed sections: per section, per file, and zlib's best ratio. */
#define MAX_INFLATE (256u << 20)
#define MAX_INFLATE_FILE (512u << 20)
#define ZLIB_MAX_RATIO 1032
#define MAX_INFLATED 8
#define MAX_NOTE_SEGMENT (1u << 20)

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
	size_t names_len; /* bytes of the names arena, for elf_syms__bytes */
	struct seg *segs;
	size_t nr_segs;
};

/* Where the bytes come from: a file descriptor or a private memory copy. */
struct esrc {
	int fd;
	const unsigned char *mem;
	uint64_t size;
};

/* An ELF file or image held open for reading. */
struct elf_file {
	struct esrc src;
	char *image; /* the memory libelf reads, owned; NULL for a file */
	Elf *elf;
	unsigned char cls, data;
	uint16_t machine;
	/* Sections inflated in place: their data is in memory, not the file. */
	Elf_Scn *inflated[MAX_INFLATED];
	size_t nr_inflated;
	uint64_t inflated_bytes;
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

/* Whether the section's bytes, as stored, lie inside the file. */
static bool raw_fits(const GElf_Shdr *sh, uint64_t size)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL)
		return false;
	return sh->sh_offset <= size && sh->sh_size <= size - sh->sh_offset;
}

static bool was_inflated(const struct elf_file *f, const Elf_Scn *scn)
{
	size_t i;

	for (i = 0; i < f->nr_inflated; i++)
		if (f->inflated[i] == scn)
			return true;
	return false;
}

/*
 * Inflates an SHF_COMPRESSED section in place (libelf allocates what the
 * compression header announces, so that size is checked first: under the
 * caps, and no more than zlib could have produced from the stored bytes).
 */
static int inflate_section(struct elf_file *f, Elf_Scn *scn, GElf_Shdr *sh)
{
	GElf_Chdr ch;

	if (f->nr_inflated == MAX_INFLATED || !gelf_getchdr(scn, &ch) ||
	    ch.ch_type != ELFCOMPRESS_ZLIB || !ch.ch_size ||
	    ch.ch_size > MAX_INFLATE || ch.ch_size / ZLIB_MAX_RATIO > sh->sh_size ||
	    ch.ch_size > MAX_INFLATE_FILE - f->inflated_bytes)
		return -EINVAL;
	if (elf_compress(scn, 0, 0) != 1)
		return -EINVAL;
	/* Its data is in memory now, whatever the header says next. */
	f->inflated[f->nr_inflated++] = scn;
	f->inflated_bytes += ch.ch_size;
	if (!gelf_getshdr(scn, sh) || (sh->sh_flags & SHF_COMPRESSED))
		return -EINVAL;
	return 0;
}

/*
 * The section's data, bounds-checked, inflated if compressed; *sh is
 * refreshed to describe what the data holds.  NULL if absent or bad.
 */
static Elf_Data *section_data(struct elf_file *f, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *d;

	if (!was_inflated(f, scn)) {
		if (!raw_fits(sh, f->src.size))
			return NULL;
		if ((sh->sh_flags & SHF_COMPRESSED) && inflate_section(f, scn, sh))
			return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return NULL;
	return d;
}

/* The string table a symbol table links to, bounds-checked; NULL if bad. */
static Elf_Data *link_strtab(struct elf_file *f, const GElf_Shdr *symsh)
{
	size_t shnum;
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (elf_getshdrnum(f->elf, &shnum) || !symsh->sh_link ||
	    symsh->sh_link >= shnum)
		return NULL;
	scn = elf_getscn(f->elf, symsh->sh_link);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB)
		return NULL;
	return section_data(f, scn, &sh);
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

static int collect_table(struct elf_file *f, Elf_Scn *scn, GElf_Shdr *sh,
			 struct collect *c)
{
	Elf_Data *data, *str;
	size_t i, n, ent;
	GElf_Sym sym;
	const char *name, *nul;
	int type;

	ent = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!ent || sh->sh_entsize != ent)
		return 0;
	str = link_strtab(f, sh);
	data = str ? section_data(f, scn, sh) : NULL;
	if (!data)
		return 0;
	n = sh->sh_size / ent;
	if (n > MAX_TABLE_SYMS)
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
	es->names_len = total;
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

/* Adds the function symbols of every table of one type in f. */
static int collect_type(struct elf_file *f, Elf64_Word type, struct collect *c)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret = 0;

	while (!ret && (scn = elf_nextscn(f->elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			ret = collect_table(f, scn, &sh, c);
	}
	return ret;
}

/*
 * Collects f's .symtab, dbg's .symtab, then f's .dynsym: on a tie the first
 * read wins, so full tables name a function before the dynamic one does.
 */
static int load_symbols(struct elf_file *f, struct elf_file *dbg,
			struct elf_syms *es)
{
	struct collect c = { .thumb = f->machine == EM_ARM };
	size_t before;
	int ret;

	ret = collect_type(f, SHT_SYMTAB, &c);
	if (!ret && dbg) {
		before = c.nr;
		if (dbg->machine != f->machine || dbg->cls != f->cls ||
		    dbg->data != f->data)
			ret = -ENOENT;
		else
			ret = collect_type(dbg, SHT_SYMTAB, &c);
		if (!ret && c.nr == before)
			ret = -ENOENT;
	}
	if (!ret)
		ret = collect_type(f, SHT_DYNSYM, &c);
	if (!ret)
		ret = build_table(es, &c);
	free(c.raw);
	return ret;
}

struct elf_syms *elf_syms__open_files(struct elf_file *f, struct elf_file *dbg)
{
	struct elf_syms *es;
	int ret;

	if (!f) {
		errno = EINVAL;
		return NULL;
	}
	es = calloc(1, sizeof(*es));
	if (!es)
		return NULL;
	ret = load_segments(f->elf, es);
	if (!ret)
		ret = load_symbols(f, dbg, es);
	if (ret) {
		elf_syms__free(es);
		errno = ret == -ENOMEM ? ENOMEM : ret == -ENOENT ? ENOENT : ENOEXEC;
		return NULL;
	}
	return es;
}

/* Opens s (image: the memory libelf reads, owned by the result). */
static struct elf_file *file_open(const struct esrc *s, char *image)
{
	struct elf_file *f;
	GElf_Ehdr eh;

	if (elf_version(EV_CURRENT) == EV_NONE || !headers_sane(s))
		goto bad;
	f = calloc(1, sizeof(*f));
	if (!f) {
		free(image);
		return NULL;
	}
	f->src = *s;
	f->image = image;
	f->elf = image ? elf_memory(image, s->size) : elf_begin(s->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh)) {
		elf_file__close(f);
		errno = ENOEXEC;
		return NULL;
	}
	f->cls = eh.e_ident[EI_CLASS];
	f->data = eh.e_ident[EI_DATA];
	f->machine = eh.e_machine;
	return f;
bad:
	free(image);
	errno = ENOEXEC;
	return NULL;
}

struct elf_file *elf_file__open_fd(int fd)
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
	return file_open(&s, NULL);
}

struct elf_file *elf_file__open_mem(void *image, size_t size)
{
	struct esrc s = { .fd = -1, .mem = image, .size = size };

	if (!image || size < sizeof(Elf32_Ehdr)) {
		free(image);
		errno = ENOEXEC;
		return NULL;
	}
	return file_open(&s, image);
}

void elf_file__close(struct elf_file *f)
{
	int saved = errno;

	if (!f)
		return;
	if (f->elf)
		elf_end(f->elf);
	free(f->image);
	free(f);
	errno = saved;
}

bool elf_file__big_endian(const struct elf_file *f)
{
	return f && f->data == ELFDATA2MSB;
}

/* The first GNU build ID note in d; its length, 0 if none. */
static size_t note_build_id(Elf_Data *d, unsigned char *id, size_t max)
{
	size_t off = 0, next, name_off, desc_off;
	const char *base = d->d_buf;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off) {
		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    !nh.n_descsz || name_off > d->d_size ||
		    d->d_size - name_off < 4 || desc_off > d->d_size ||
		    d->d_size - desc_off < nh.n_descsz ||
		    memcmp(base + name_off, "GNU", 4))
			continue;
		memcpy(id, base + desc_off, nh.n_descsz < max ? nh.n_descsz : max);
		return nh.n_descsz;
	}
	return 0;
}

/* Without note sections (headers stripped), the PT_NOTE segments. */
static size_t segment_build_id(struct elf_file *f, unsigned char *id, size_t max)
{
	size_t i, n, len = 0;
	Elf_Data *d;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &n))
		return 0;
	for (i = 0; i < n && i < MAX_SEGMENTS && !len; i++) {
		if (!gelf_getphdr(f->elf, i, &ph) || ph.p_type != PT_NOTE ||
		    !ph.p_filesz || ph.p_filesz > MAX_NOTE_SEGMENT ||
		    ph.p_offset > f->src.size || ph.p_filesz > f->src.size - ph.p_offset)
			continue;
		d = elf_getdata_rawchunk(f->elf, ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (d && d->d_buf)
			len = note_build_id(d, id, max);
	}
	return len;
}

size_t elf_file__build_id(struct elf_file *f, unsigned char *id, size_t max)
{
	Elf_Scn *scn = NULL;
	bool any_note = false;
	size_t len = 0;
	GElf_Shdr sh;
	Elf_Data *d;

	if (!f)
		return 0;
	while (!len && (scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		any_note = true;
		d = section_data(f, scn, &sh);
		if (d)
			len = note_build_id(d, id, max);
	}
	if (!len && !any_note)
		len = segment_build_id(f, id, max);
	return len;
}

static Elf_Scn *find_section(struct elf_file *f, const char *name)
{
	size_t shstrndx, len = strlen(name) + 1;
	Elf_Scn *scn;
	Elf_Data *str;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(f->elf, &shstrndx) || !shstrndx ||
	    !(scn = elf_getscn(f->elf, shstrndx)) || !gelf_getshdr(scn, &sh) ||
	    sh.sh_type != SHT_STRTAB || !(str = section_data(f, scn, &sh)))
		return NULL;
	for (scn = NULL; (scn = elf_nextscn(f->elf, scn));) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_name >= str->d_size ||
		    str->d_size - sh.sh_name < len)
			continue;
		if (!memcmp((const char *)str->d_buf + sh.sh_name, name, len))
			return scn;
	}
	return NULL;
}

void *elf_file__section(struct elf_file *f, const char *name, size_t max,
			size_t *len)
{
	Elf_Scn *scn = f ? find_section(f, name) : NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	void *copy;

	if (!scn || !gelf_getshdr(scn, &sh) ||
	    (!(sh.sh_flags & SHF_COMPRESSED) && sh.sh_size > max))
		return NULL;
	d = section_data(f, scn, &sh);
	if (!d || d->d_size > max || !(copy = malloc(d->d_size)))
		return NULL;
	memcpy(copy, d->d_buf, d->d_size);
	*len = d->d_size;
	return copy;
}

Elf *elf_file__elf(struct elf_file *f)
{
	return f ? f->elf : NULL;
}

struct elf_syms *elf_syms__open_fd(int fd)
{
	struct elf_file *f = elf_file__open_fd(fd);
	struct elf_syms *es;

	if (!f)
		return NULL;
	es = elf_syms__open_files(f, NULL);
	elf_file__close(f);
	return es;
}

struct elf_syms *elf_syms__open_mem(const void *image, size_t size)
{
	struct elf_file *f;
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
	f = elf_file__open_mem(copy, size);
	if (!f)
		return NULL;
	es = elf_syms__open_files(f, NULL);
	elf_file__close(f);
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
	uint64_t va;
	long stop;
	long lo;

	if (!es)
		return NULL;
	va = offset_to_vaddr(es, off);
	if (vaddr)
		*vaddr = va;
	lo = ADDR_SEARCH(es->syms, es->nr, addr, va);
	if (lo < 0)
		return NULL;
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

size_t elf_syms__bytes(const struct elf_syms *es)
{
	if (!es)
		return 0;
	return sizeof(*es) + es->nr * sizeof(*es->syms) + es->names_len +
	       es->nr_segs * sizeof(*es->segs);
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
