// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF files: owns opening an ELF file or in-memory image for reading, the
 * checks of its headers, its sections (found by name, bounds-checked,
 * inflated when SHF_COMPRESSED) and its build ID.  Files come from other
 * processes and may be hostile or truncated while we read them, so libelf
 * only ever reads (never mmaps), every table size and offset is checked
 * against the file size before libelf is asked to load it, and a
 * compressed section is inflated only when its announced size is plausible
 * and under a cap.  Under a budget (budget.h), what libelf would hold for
 * the section headers and any section read into memory must fit it too:
 * sections too big for it are refused, never read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/elf_file_int.h"
#include "lib/log.h"

#define MAX_SECTIONS (1u << 20)
#define MAX_SEGMENTS (1u << 16)
/* What libelf holds per section header (its Elf_Scn and the header). */
#define SECTION_COST 256
/* Compressed sections: per section, per file, and zlib's best ratio. */
#define MAX_INFLATE (256u << 20)
#define MAX_INFLATE_FILE (512u << 20)
#define ZLIB_MAX_RATIO 1032
#define MAX_NOTE_SEGMENT (1u << 20)

bool src_read(const struct esrc *s, uint64_t off, void *buf, size_t len)
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

uint64_t elf_rd(const unsigned char *p, int n, bool big)
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
static bool headers_sane(const struct esrc *s, const struct budget *b)
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
	phoff = is64 ? elf_rd(eh + 32, 8, big) : elf_rd(eh + 28, 4, big);
	shoff = is64 ? elf_rd(eh + 40, 8, big) : elf_rd(eh + 32, 4, big);
	phent = elf_rd(eh + (is64 ? 54 : 42), 2, big);
	phnum = elf_rd(eh + (is64 ? 56 : 44), 2, big);
	shent = elf_rd(eh + (is64 ? 58 : 46), 2, big);
	shnum = elf_rd(eh + (is64 ? 60 : 48), 2, big);
	if (shoff) {
		if (shent != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
		    !src_read(s, shoff, sh0, shent))
			return false;
		if (!shnum)
			shnum = is64 ? elf_rd(sh0 + 32, 8, big) : elf_rd(sh0 + 20, 4, big);
		if (phnum == PN_XNUM)
			phnum = elf_rd(sh0 + (is64 ? 44 : 28), 4, big);
		if (shnum > MAX_SECTIONS || !table_fits(shoff, shnum, shent, s->size))
			return false;
		if (budget__too_big(b, shnum * SECTION_COST)) {
			errno = E2BIG;
			return false;
		}
	}
	if (phoff && phnum) {
		if (phent != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) ||
		    phnum > MAX_SEGMENTS || !table_fits(phoff, phnum, phent, s->size))
			return false;
	}
	return true;
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
	if (budget__too_big(f->budget, f->inflated_bytes + ch.ch_size)) {
		f->over_budget = true;
		return -E2BIG;
	}
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
		if (!(sh->sh_flags & SHF_COMPRESSED) && budget__too_big(f->budget, sh->sh_size)) {
			f->over_budget = true;
			return NULL;
		}
		if ((sh->sh_flags & SHF_COMPRESSED) && inflate_section(f, scn, sh))
			return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return NULL;
	return d;
}


bool elf_file__region(struct elf_file *f, Elf_Scn *scn, GElf_Shdr *sh, struct region *r)
{
	Elf_Data *d;

	*r = (struct region){ .src = &f->src };
	if (!was_inflated(f, scn) && !(sh->sh_flags & SHF_COMPRESSED)) {
		/* read from the file a piece at a time, never whole */
		if (!raw_fits(sh, f->src.size))
			return false;
		r->off = sh->sh_offset;
		r->size = sh->sh_size;
		return true;
	}
	d = section_data(f, scn, sh);
	if (!d)
		return false;
	r->mem = d->d_buf;
	r->size = d->d_size;
	return true;
}

bool region_read(const struct region *r, uint64_t at, void *buf, size_t len)
{
	if (at > r->size || len > r->size - at)
		return false;
	if (r->mem) {
		memcpy(buf, r->mem + at, len);
		return true;
	}
	return src_read(r->src, r->off + at, buf, len);
}

/* Opens s (image: the memory libelf reads, owned by the result). */
static struct elf_file *file_open(const struct esrc *s, char *image, const struct budget *b)
{
	struct elf_file *f;
	GElf_Ehdr eh;

	errno = 0;
	if (elf_version(EV_CURRENT) == EV_NONE || !headers_sane(s, b))
		goto bad;
	f = calloc(1, sizeof(*f));
	if (!f) {
		free(image);
		return NULL;
	}
	f->src = *s;
	f->image = image;
	f->budget = b;
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
	errno = errno == E2BIG ? E2BIG : ENOEXEC;
	return NULL;
}

struct elf_file *elf_file__open_fd(int fd)
{
	return elf_file__open_fd_within(fd, NULL);
}

struct elf_file *elf_file__open_mem(void *image, size_t size)
{
	return elf_file__open_mem_within(image, size, NULL);
}

struct elf_file *elf_file__open_fd_within(int fd, const struct budget *b)
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
	return file_open(&s, NULL, b);
}

struct elf_file *elf_file__open_mem_within(void *image, size_t size, const struct budget *b)
{
	struct esrc s = { .fd = -1, .mem = image, .size = size };

	if (!image || size < sizeof(Elf32_Ehdr)) {
		free(image);
		errno = ENOEXEC;
		return NULL;
	}
	return file_open(&s, image, b);
}

Elf *elf_file__elf(struct elf_file *f)
{
	return f ? f->elf : NULL;
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

void elf_file__set_budget(struct elf_file *f, const struct budget *b)
{
	f->budget = b;
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

/* The GNU build id note in the notes at buf[len] (align: 4 or 8). */
static size_t raw_note_build_id(const uint8_t *buf, size_t len, size_t align,
				unsigned char *id, size_t max)
{
	size_t off = 0, name_at, desc_at, next;
	Elf64_Nhdr nh;

	while (len - off >= sizeof(nh)) {
		memcpy(&nh, buf + off, sizeof(nh));
		name_at = off + sizeof(nh);
		desc_at = name_at + ((nh.n_namesz + align - 1) & ~(align - 1));
		next = desc_at + ((nh.n_descsz + align - 1) & ~(align - 1));
		if (nh.n_namesz > len || nh.n_descsz > len || next > len || next <= off)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz &&
		    !memcmp(buf + name_at, "GNU", 4)) {
			memcpy(id, buf + desc_at, nh.n_descsz < max ? nh.n_descsz : max);
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

/* len bytes at off of the file open on fd: from head, its first bytes,
 * where they are there, else read into buf. */
static const uint8_t *head_or_read(int fd, const uint8_t *head, size_t head_len, uint64_t off,
				   size_t len, uint8_t *buf)
{
	struct esrc s = { .fd = fd, .size = UINT64_MAX };

	if (off <= head_len && len <= head_len - off)
		return head + off;
	return src_read(&s, off, buf, len) ? buf : NULL;
}

size_t elf_file__build_id_fd(int fd, unsigned char *id, size_t max)
{
	uint8_t head[4096], phbuf[16 * sizeof(Elf64_Phdr)], notes[1024];
	const uint8_t *p;
	Elf64_Phdr ph;
	Elf64_Ehdr eh;
	ssize_t got;
	size_t n, len;

	/* one read: the headers and the notes are at the file's start */
	do
		got = pread(fd, head, sizeof(head), 0);
	while (got < 0 && errno == EINTR);
	if (got < (ssize_t)sizeof(eh))
		return 0;
	memcpy(&eh, head, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	n = eh.e_phnum < 16 ? eh.e_phnum : 16; /* linkers put PT_NOTE early */
	p = n ? head_or_read(fd, head, got, eh.e_phoff, n * sizeof(ph), phbuf) : NULL;
	for (size_t i = 0; p && i < n; i++) {
		memcpy(&ph, p + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || !ph.p_filesz)
			continue;
		len = ph.p_filesz < sizeof(notes) ? ph.p_filesz : sizeof(notes);
		const uint8_t *nb = head_or_read(fd, head, got, ph.p_offset, len, notes);

		if (nb && (len = raw_note_build_id(nb, len, ph.p_align == 8 ? 8 : 4, id, max)))
			return len;
	}
	return 0;
}

size_t elf_file__build_id_of(int fd, unsigned char *id, size_t max)
{
	struct budget b = { .max_bytes = 16u << 20 };
	struct elf_file *ef;
	size_t n = elf_file__build_id_fd(fd, id, max);

	if (n)
		return n;
	ef = elf_file__open_fd_within(fd, &b);
	n = ef ? elf_file__build_id(ef, id, max) : 0;
	elf_file__close(ef);
	return n;
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

bool elf_file__linked_strtab(struct elf_file *f, const GElf_Shdr *symsh, struct region *r)
{
	size_t shnum;
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (elf_getshdrnum(f->elf, &shnum) || !symsh->sh_link || symsh->sh_link >= shnum)
		return false;
	scn = elf_getscn(f->elf, symsh->sh_link);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB)
		return false;
	return elf_file__region(f, scn, &sh, r);
}
