// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A debug section read front to back, inside dwarf_names: inflated from
 * its zlib stream in 64 KiB chunks (or read in place when it is not
 * compressed), the file's compressed pages let go as they pass, for the
 * sparse sections (dwarf_sparse.c), which list units and copy the kept
 * ones without holding the section inflated.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "files/dwarf_names_int.h"

/* Inflated at a time: the stream's buffer. */
#define CHUNK (64u << 10)
/* The compressed pages passed, let go every so many bytes: a stream's
 * peak holds this much of them, not the whole section. */
#define DROP_EVERY (256u << 10)

bool dwarf_stream__open(struct dwarf_stream *s, Elf *elf, Elf_Scn *scn, uint64_t size, bool packed)
{
	size_t file_size;
	const unsigned char *file = (const unsigned char *)elf_rawfile(elf, &file_size);
	GElf_Shdr sh;
	size_t chdr;

	memset(s, 0, sizeof(*s));
	if (!file || !gelf_getshdr(scn, &sh) || sh.sh_offset > file_size ||
	    sh.sh_size > file_size - sh.sh_offset)
		return false;
	s->size = size;
	s->elf = elf;
	s->file = file;
	s->in = s->dropped = file + sh.sh_offset;
	s->in_size = sh.sh_size;
	s->packed = packed;
	if (!s->packed) {
		s->buf = s->in;
		s->len = s->in_size;
		return true;
	}
	chdr = gelf_getclass(elf) == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
	if (s->in_size < chdr || !(s->own = malloc(CHUNK)))
		return false;
	s->z.next_in = (unsigned char *)s->in + chdr;
	s->z.avail_in = (uInt)(s->in_size - chdr);
	if (s->in_size - chdr > UINT32_MAX || inflateInit(&s->z) != Z_OK) {
		free(s->own);
		s->own = NULL;
		return false;
	}
	s->buf = s->own;
	return true;
}

void dwarf_stream__close(struct dwarf_stream *s)
{
	if (s->own) {
		inflateEnd(&s->z);
		free(s->own);
	}
	s->own = NULL;
}

/* The file's pages up to next_in let go: read once, and again (from the
 * file) only by the next stream. */
static void drop_passed(struct dwarf_stream *s, const unsigned char *upto)
{
	struct dwarf_file_range r = { (uint64_t)(s->dropped - s->file),
				      (uint64_t)(upto - s->dropped) };

	dwarf_sections__drop_pages(s->elf, &r, 1);
	s->dropped = upto;
}

/* At least n (<= MAX_HEADER) bytes from buf[at] when the section has them;
 * false when it does not, or its data does not inflate to its size. */
bool dwarf_stream__ensure(struct dwarf_stream *s, size_t n)
{
	while (s->len - s->at < n && s->packed && !s->failed) {
		uint64_t had = s->pos + (s->len - s->at);
		size_t got;
		int ret;

		if (had >= s->size)
			return false;
		memmove(s->own, s->own + s->at, s->len - s->at);
		s->len -= s->at;
		s->at = 0;
		s->z.next_out = s->own + s->len;
		s->z.avail_out = (uInt)(CHUNK - s->len);
		ret = inflate(&s->z, Z_NO_FLUSH);
		if (s->z.next_in - s->dropped >= DROP_EVERY)
			drop_passed(s, s->z.next_in);
		got = CHUNK - s->len - s->z.avail_out;
		/* no more than it says it holds, and no less */
		if ((ret != Z_OK && ret != Z_STREAM_END) || !got || got > s->size - had ||
		    (ret == Z_STREAM_END && had + got != s->size))
			s->failed = true;
		else
			s->len += got;
	}
	return s->len - s->at >= n;
}

/* Copies the next n bytes into dst (NULL: passes over them); false short. */
bool dwarf_stream__take(struct dwarf_stream *s, unsigned char *dst, uint64_t n)
{
	while (n) {
		size_t k;

		if (!dwarf_stream__ensure(s, 1))
			return false;
		k = s->len - s->at < n ? s->len - s->at : (size_t)n;
		if (dst) {
			memcpy(dst, s->buf + s->at, k);
			dst += k;
		}
		s->at += k;
		s->pos += k;
		n -= k;
		if (!s->packed && s->buf + s->at - s->dropped >= DROP_EVERY)
			drop_passed(s, s->buf + s->at);
	}
	return true;
}

bool dwarf_stream__seek(struct dwarf_stream *s, uint64_t off)
{
	return off >= s->pos && dwarf_stream__take(s, NULL, off - s->pos);
}

bool dwarf_stream__byte(struct dwarf_stream *s, unsigned char *c)
{
	return dwarf_stream__take(s, c, 1);
}

bool dwarf_stream__uleb(struct dwarf_stream *s, uint64_t *v)
{
	unsigned char c;

	*v = 0;
	for (unsigned shift = 0; shift < 64 && dwarf_stream__byte(s, &c); shift += 7) {
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
	}
	return false;
}
