// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * a64_image BIN SAMPLES OUT: an unwind recording (unwind_image.h) of a
 * static arm64 program sampled under qemu-user (tests/replay/qemu_samples.py
 * wrote SAMPLES: a recording's header lines, then samples with their x30
 * and stacks).  Added here, as the loader and smolder would have them:
 *  - BIN's unwind table, built by src/unwind (unwind_table__build, the
 *    arm64 rows), laid out as include/unwind.h says: a page index of 4 KiB
 *    pages in shard 0, the rows contiguous from shard 1;
 *  - its one mapping (a static program runs at its own addresses) and file;
 *  - the code around each sample's pc (the walk reads the instructions of
 *    a frame with live registers: the arm64 epilogue and the sigreturn
 *    trampoline), from BIN;
 *  - the names of the addresses a walk may reach (each sample's pc and x30,
 *    each word of its stack inside BIN's code, less its pointer
 *    authentication bits; return addresses named at - 1), from BIN's
 *    symbols by elf_syms, as smolder names frames.
 * The replay's arm64 build walks it (tests/check/unwind_arm64_qemu.sh).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "unwind/unwind_table.h"
#include "unwind_image.h"

#define SHARD_BITS 16
#define PAGE_SHIFT 12
#define PAC_MASK ((1ull << 48) - 1) /* as bpf/unwind_arch.bpf.h strips */

static void die(const char *what)
{
	fprintf(stderr, "a64_image: %s\n", what);
	exit(1);
}

/* The page index and rows of t, as the loader lays them out. */
static void add_table(struct unwind_image *img, const struct unwind_table *t)
{
	size_t nr, lo = 0, n_pages;
	const struct unwind_row *rows = unwind_table__rows(t, &nr);
	uint64_t v;

	if (!nr || nr > (1u << SHARD_BITS))
		die("no table, or too many rows for one shard");
	n_pages = (rows[nr - 1].pc >> PAGE_SHIFT) + 1;
	if (n_pages > (1u << SHARD_BITS))
		die("too many pages");
	for (size_t p = 0; p < n_pages; p++) {
		uint32_t start = (uint32_t)p << PAGE_SHIFT, end = start + (1u << PAGE_SHIFT);
		struct unwind_page pg;
		size_t hi = lo;

		while (lo + 1 < nr && rows[lo + 1].pc <= start)
			lo++; /* the last row at or below the page's start */
		while (hi < nr && (hi == lo || rows[hi].pc < end))
			hi++;
		if (hi - lo > UNWIND_MAX_PAGE_ROWS)
			die("a page with too many rows");
		pg = (struct unwind_page){ .row = (1u << SHARD_BITS) + lo, .count = hi - lo };
		memcpy(&v, &pg, sizeof(v));
		if (unwind_image__add_slot(img, p, v))
			die("memory");
	}
	for (size_t i = 0; i < nr; i++) {
		memcpy(&v, &rows[i], sizeof(v));
		if (unwind_image__add_slot(img, (1u << SHARD_BITS) + i, v))
			die("memory");
	}
	img->shard_bits = SHARD_BITS;
	img->nr_shards = 2;
	if (unwind_image__add_file(img, 1, &(struct unwind_file){ .pages = 0, .n_pages = n_pages,
								  .shift = PAGE_SHIFT }))
		die("memory");
}

/* The LPM entry of [start, end) for the image's process: the smallest
 * aligned block holding it. */
static void add_mapping(struct unwind_image *img, uint64_t start, uint64_t end, uint64_t bias)
{
	unsigned int bits = 0;
	struct unwind_map_key k;

	while (bits < 64 && (start >> bits) != ((end - 1) >> bits))
		bits++;
	k = (struct unwind_map_key){ .prefixlen = 32 + 64 - bits, .tgid = htonl(img->tgid),
				     .addr = htobe64(bits < 64 ? start >> bits << bits : 0) };
	if (unwind_image__add_mapping(img, &k, &(struct unwind_mapping){
			.start = start, .end = end, .bias = bias, .file = 1, .gen = img->gen }))
		die("memory");
}

struct code {
	uint64_t lo, hi, off; /* the executable segment, and its file offset */
	const struct elf_syms *syms;
	const char *base;
};

/* Names at (when in the code), as smolder would. */
static void name(struct unwind_image *img, const struct code *c, uint64_t at)
{
	char buf[256];
	const char *n;

	if (at < c->lo || at >= c->hi)
		return;
	n = elf_syms__map_offset(c->syms, at - c->lo + c->off, NULL, NULL);
	if (!n)
		snprintf(buf, sizeof(buf), "[%s+0x%" PRIx64 "]", c->base, at - c->lo + c->off);
	if (unwind_image__add_name(img, at, n ? n : buf))
		die("memory");
}

/* The 16 bytes of code from pc - 4 into each sample's memory, before its
 * stack (regions stay in address order). */
static void add_code(struct unwind_image *img, const struct code *c, int fd)
{
	uint8_t code[16];

	for (size_t i = 0; i < img->nr_samples; i++) {
		struct image_sample *s = &img->samples[i];
		struct image_mem *stack = s->mem;
		size_t nr = s->nr_mem;

		if (s->pc < c->lo + 4 || s->pc + 12 > c->hi ||
		    pread(fd, code, sizeof(code), s->pc - 4 - c->lo + c->off) != sizeof(code))
			continue;
		s->mem = NULL;
		s->nr_mem = 0;
		if (unwind_image__add_mem(s, s->pc - 4, code, sizeof(code)))
			die("memory, or a stack below the code");
		for (size_t j = 0; j < nr; j++) {
			if (unwind_image__add_mem(s, stack[j].addr, stack[j].bytes, stack[j].len))
				die("memory, or a stack below the code");
			free(stack[j].bytes);
		}
		free(stack);
	}
}

/* Every address a walk of the samples may name. */
static void add_names(struct unwind_image *img, const struct code *c)
{
	uint64_t w;

	for (size_t i = 0; i < img->nr_samples; i++) {
		const struct image_sample *s = &img->samples[i];

		name(img, c, s->pc);
		name(img, c, (s->lr & PAC_MASK) - 1);
		for (size_t j = 0; j < s->nr_mem; j++)
			for (uint32_t o = 0; s->mem[j].bytes && o + 8 <= s->mem[j].len; o += 8) {
				memcpy(&w, s->mem[j].bytes + o, 8);
				name(img, c, (w & PAC_MASK) - 1);
			}
	}
	unwind_image__sort(img);
}

/* BIN's executable segment: code addresses and their file offsets. */
static void find_code(struct elf_file *f, struct code *c)
{
	Elf *elf = elf_file__elf(f);
	GElf_Phdr ph;
	size_t n;

	if (!elf || elf_getphdrnum(elf, &n))
		die("not an ELF file");
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*c = (struct code){ .lo = ph.p_vaddr, .hi = ph.p_vaddr + ph.p_memsz,
					    .off = ph.p_offset };
			return;
		}
	die("no executable segment");
}

int main(int argc, char **argv)
{
	char err[256];
	struct unwind_image *img;
	struct unwind_table *t;
	struct elf_file *f;
	struct code c;
	int fd;

	if (argc != 4)
		die("usage: a64_image BIN SAMPLES OUT");
	elf_version(EV_CURRENT);
	if (!(img = unwind_image__load(argv[2], err, sizeof(err))))
		die(err);
	if ((fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0 || !(f = elf_file__open_fd(fd)))
		die("cannot open BIN");
	if (!(t = unwind_table__build(f, NULL, NULL)))
		die("no unwind table");
	find_code(f, &c);
	c.base = basename(argv[1]);
	if (!(c.syms = elf_syms__open_fd(fd)))
		die("no symbols");
	add_table(img, t);
	add_mapping(img, c.lo, c.hi, unwind_table__base(t));
	add_code(img, &c, fd);
	add_names(img, &c);
	if (unwind_image__save(img, NULL, "arm64, sampled under qemu-user: tests/replay/a64_image.c",
			       argv[3]))
		die("cannot write OUT");
	unwind_table__free(t);
	elf_file__close(f);
	unwind_image__free(img);
	return 0;
}
