/*
 * hostile_dwarf: writes a copy of an x86-64 ELF program (IN, built without
 * DWARF) with crafted DWARF appended, the kind of file a hostile user can
 * leave for a root profiler to name (src/files/dwarf_names.c, through
 * elfutils' libdw).  The copy still runs: only sections are added, and
 * every DIE that has an address covers IN's .text.  MODE is one of:
 *   cycle     DIEs whose references loop: an inlined instance whose
 *             abstract_origin is itself, one whose origin is the
 *             subprogram around it, a specification and an abstract_origin
 *             that point at each other, an origin past the unit's end;
 *   length    a good unit, then one whose unit_length says 0xfffffff0
 *             (-n 64: the 64-bit form, 2^63 - 16) in a small section;
 *   line      a line program of SIZE (-s, 8 MiB) bytes of DW_LNS_copy, a
 *             row each, without an end_sequence (-n 1: its unit_length
 *             says 0xfffffff0, more than the section holds);
 *   lhead     a line program header listing N (-n, 1M) files (-n 0: whose
 *             header_length says 0xfffffff0);
 *   deep      N (-n, 1M) lexical blocks nested in each other, each
 *             covering the code (a walk that recurses per level needs a
 *             deep stack);
 *   units     N (-n, 1M) compilation units of 28 bytes, each covering the
 *             code;
 *   abbrev    N (-n, 1000) units sharing one abbreviation table of 100000
 *             abbreviations, whose last is their first DIE's (a reader
 *             that parses a table again for each unit holding it parses
 *             it N times);
 *   wide      one unit with N (-n, 1M) subprograms elsewhere before the
 *             one covering the code, which has 16 inlined instances nested
 *             in it (each level's scopes are searched from the unit's
 *             start);
 *   altlink   a good unit whose inlined function's origin is in the
 *             .gnu_debugaltlink file (DW_FORM_GNU_ref_alt), which names
 *             PATH (-p) and a build id no file has;
 *   skeleton  a DWARF 5 skeleton unit covering the code, whose split
 *             DWARF is in PATH (-p, DW_AT_dwo_name);
 *   sparse    a .debug_info of SIZE (-s, 1 GiB) whose good unit is
 *             followed by a hole: the section header points past the end
 *             of the data written, and the file is extended sparsely;
 *   zlib      a compressed .debug_info (SHF_COMPRESSED) whose header says
 *             it inflates to SIZE (-s, 1 GiB) but holds one small unit;
 *   zbomb     a compressed .debug_info whose header says 4 KiB but whose
 *             zlib stream inflates to SIZE (-s, 64 MiB) of zeros.
 * Usage: hostile_dwarf [-n N] [-s SIZE] [-p PATH] MODE IN OUT
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <dwarf.h>

/* The abbreviations every mode's DIEs use (codes). */
enum {
	AB_CU = 1,       /* compile_unit: name, low_pc, high_pc, stmt_list; children */
	AB_SUB,          /* subprogram: name, low_pc, high_pc; children */
	AB_INLINED,      /* inlined_subroutine: abstract_origin, low_pc, high_pc,
			  * call_file, call_line; children */
	AB_BLOCK,        /* lexical_block: low_pc, high_pc; children */
	AB_ABSTRACT,     /* subprogram: name, inline; no children */
	AB_SPEC,         /* subprogram: specification, inline */
	AB_ORIGIN,       /* subprogram: abstract_origin, inline */
	AB_TINY_CU,      /* compile_unit: low_pc, high_pc; no children */
	AB_SUB_LEAF,     /* subprogram: name, low_pc, high_pc; no children */
	AB_INLINED_ALT,  /* inlined_subroutine: abstract_origin in the alt file,
			  * low_pc, high_pc; no children */
	AB_SKELETON,     /* skeleton_unit: dwo_name, comp_dir, low_pc, high_pc */
};

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p) {
			perror("hostile_dwarf");
			exit(1);
		}
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void u8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void u16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void u64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void str(struct buf *b, const char *s) { put(b, s, strlen(s) + 1); }

static void uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		u8(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void set32(struct buf *b, size_t at, uint32_t v) { memcpy(b->p + at, &v, 4); }

static void abbrev(struct buf *b, unsigned code, unsigned tag, bool children, const unsigned *attrs)
{
	uleb(b, code);
	uleb(b, tag);
	u8(b, children);
	for (; *attrs; attrs += 2) {
		uleb(b, attrs[0]);
		uleb(b, attrs[1]);
	}
	u8(b, 0);
	u8(b, 0);
}

/* Abbreviations no DIE uses, before those that are: a parse goes through them. */
static void filler_abbrevs(struct buf *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		abbrev(b, 1000 + i, DW_TAG_variable, false, (const unsigned[]){
			DW_AT_name, DW_FORM_string, 0 });
}

static void abbrevs(struct buf *b)
{
	abbrev(b, AB_CU, DW_TAG_compile_unit, true, (const unsigned[]){
		DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_data8, DW_AT_stmt_list, DW_FORM_sec_offset, 0 });
	abbrev(b, AB_SUB, DW_TAG_subprogram, true, (const unsigned[]){
		DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_data8, 0 });
	abbrev(b, AB_INLINED, DW_TAG_inlined_subroutine, true, (const unsigned[]){
		DW_AT_abstract_origin, DW_FORM_ref4, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_data8, DW_AT_call_file, DW_FORM_data1,
		DW_AT_call_line, DW_FORM_data4, 0 });
	abbrev(b, AB_BLOCK, DW_TAG_lexical_block, true, (const unsigned[]){
		DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data8, 0 });
	abbrev(b, AB_ABSTRACT, DW_TAG_subprogram, false, (const unsigned[]){
		DW_AT_name, DW_FORM_string, DW_AT_inline, DW_FORM_data1, 0 });
	abbrev(b, AB_SPEC, DW_TAG_subprogram, false, (const unsigned[]){
		DW_AT_specification, DW_FORM_ref4, DW_AT_inline, DW_FORM_data1, 0 });
	abbrev(b, AB_ORIGIN, DW_TAG_subprogram, false, (const unsigned[]){
		DW_AT_abstract_origin, DW_FORM_ref4, DW_AT_inline, DW_FORM_data1, 0 });
	abbrev(b, AB_TINY_CU, DW_TAG_compile_unit, false, (const unsigned[]){
		DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data8, 0 });
	abbrev(b, AB_SUB_LEAF, DW_TAG_subprogram, false, (const unsigned[]){
		DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_data8, 0 });
	abbrev(b, AB_INLINED_ALT, DW_TAG_inlined_subroutine, false, (const unsigned[]){
		DW_AT_abstract_origin, DW_FORM_GNU_ref_alt, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_data8, 0 });
	abbrev(b, AB_SKELETON, DW_TAG_skeleton_unit, false, (const unsigned[]){
		DW_AT_dwo_name, DW_FORM_string, DW_AT_comp_dir, DW_FORM_string,
		DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data8, 0 });
	u8(b, 0);
}

/* The code's range: IN's .text. */
static uint64_t lo, hi;

/* A DWARF 4 unit header; returns where its unit_length is, to patch. */
static size_t unit_start(struct buf *b)
{
	size_t at = b->len;

	u32(b, 0);
	u16(b, 4);
	u32(b, 0); /* abbrev offset */
	u8(b, 8);  /* address size */
	return at;
}

static void unit_end(struct buf *b, size_t at)
{
	set32(b, at, (uint32_t)(b->len - at - 4));
}

static void cu_die(struct buf *b, const char *name)
{
	uleb(b, AB_CU);
	str(b, name);
	u64(b, lo);
	u64(b, hi - lo);
	u32(b, 0); /* stmt_list */
}

static void sub_die(struct buf *b, const char *name, uint64_t from, uint64_t to)
{
	uleb(b, AB_SUB);
	str(b, name);
	u64(b, from);
	u64(b, to - from);
}

static void inlined_die(struct buf *b, uint32_t origin, uint64_t from, uint64_t to)
{
	uleb(b, AB_INLINED);
	u32(b, origin);
	u64(b, from);
	u64(b, to - from);
	u8(b, 1);
	u32(b, 7);
}

/* A unit naming the code "outer", with one inlined function in it. */
static void good_unit(struct buf *b)
{
	size_t at = unit_start(b), abstract;

	cu_die(b, "good.c");
	abstract = b->len - at;
	uleb(b, AB_ABSTRACT);
	str(b, "inner");
	u8(b, DW_INL_inlined);
	sub_die(b, "outer", lo, hi);
	inlined_die(b, (uint32_t)abstract, lo, hi);
	u8(b, 0);
	u8(b, 0);
	u8(b, 0);
	unit_end(b, at);
}

/* A unit naming the code "outer", whose inlined function is in the alt file. */
static void alt_unit(struct buf *b)
{
	size_t at = unit_start(b);

	cu_die(b, "alt.c");
	sub_die(b, "outer", lo, hi);
	uleb(b, AB_INLINED_ALT);
	u32(b, 0x10);
	u64(b, lo);
	u64(b, hi - lo);
	u8(b, 0);
	u8(b, 0);
	unit_end(b, at);
}

static void skeleton_unit(struct buf *b, const char *dwo)
{
	size_t at = b->len;

	u32(b, 0);
	u16(b, 5);
	u8(b, DW_UT_skeleton);
	u8(b, 8);  /* address size */
	u32(b, 0); /* abbrev offset */
	u64(b, 0x1234567890abcdefull); /* dwo_id */
	uleb(b, AB_SKELETON);
	str(b, dwo);
	str(b, "/");
	u64(b, lo);
	u64(b, hi - lo);
	unit_end(b, at);
}

static void cycle_unit(struct buf *b)
{
	uint64_t q = (hi - lo) / 4;
	size_t at = unit_start(b), spec, origin, sub, self;

	cu_die(b, "cycle.c");
	spec = b->len - at;
	uleb(b, AB_SPEC);
	u32(b, 0); /* patched: the next DIE */
	u8(b, DW_INL_inlined);
	origin = b->len - at;
	uleb(b, AB_ORIGIN);
	u32(b, (uint32_t)spec);
	u8(b, DW_INL_inlined);
	set32(b, at + spec + 1, (uint32_t)origin);
	sub = b->len - at;
	sub_die(b, "outer", lo, hi);
	/* origin: itself, with an instance of the subprogram around it inside */
	self = b->len - at;
	inlined_die(b, (uint32_t)self, lo, lo + q);
	inlined_die(b, (uint32_t)sub, lo, lo + q);
	u8(b, 0);
	u8(b, 0);
	/* the specification and origin that point at each other */
	inlined_die(b, (uint32_t)spec, lo + q, lo + 2 * q);
	inlined_die(b, (uint32_t)origin, lo + q, lo + 2 * q);
	u8(b, 0);
	u8(b, 0);
	/* its own parent, the subprogram */
	inlined_die(b, (uint32_t)sub, lo + 2 * q, lo + 3 * q);
	u8(b, 0);
	/* past the unit's end */
	inlined_die(b, 0xffffff, lo + 3 * q, hi);
	u8(b, 0);
	u8(b, 0);
	u8(b, 0);
	unit_end(b, at);
}

static void deep_unit(struct buf *b, uint64_t n)
{
	size_t at = unit_start(b);

	cu_die(b, "deep.c");
	sub_die(b, "outer", lo, hi);
	for (uint64_t i = 0; i < n; i++) {
		uleb(b, AB_BLOCK);
		u64(b, lo);
		u64(b, hi - lo);
	}
	for (uint64_t i = 0; i < n + 2; i++)
		u8(b, 0);
	unit_end(b, at);
}

static void tiny_units(struct buf *b, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		size_t at = unit_start(b);

		uleb(b, AB_TINY_CU);
		u64(b, lo);
		u64(b, hi - lo);
		unit_end(b, at);
	}
}

static void wide_unit(struct buf *b, uint64_t n)
{
	size_t at = unit_start(b), abstract;

	cu_die(b, "wide.c");
	abstract = b->len - at;
	uleb(b, AB_ABSTRACT);
	str(b, "level");
	u8(b, DW_INL_inlined);
	for (uint64_t i = 0; i < n; i++) {
		uleb(b, AB_SUB_LEAF);
		str(b, "elsewhere");
		u64(b, 0x10);
		u64(b, 1);
	}
	sub_die(b, "outer", lo, hi);
	for (int i = 0; i < 16; i++)
		inlined_die(b, (uint32_t)abstract, lo, hi);
	for (int i = 0; i < 16 + 2; i++)
		u8(b, 0);
	unit_end(b, at);
}

/* A DWARF 4 line program header with nfiles files (at least one). */
static size_t line_header(struct buf *b, uint64_t nfiles, bool lying_header)
{
	size_t at = b->len, hl;

	u32(b, 0);
	u16(b, 4);
	hl = b->len;
	u32(b, 0);
	u8(b, 1);   /* minimum_instruction_length */
	u8(b, 1);   /* maximum_operations_per_instruction */
	u8(b, 1);   /* default_is_stmt */
	u8(b, -5);  /* line_base */
	u8(b, 14);  /* line_range */
	u8(b, 13);  /* opcode_base */
	put(b, (const uint8_t[]){ 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 }, 12);
	u8(b, 0);   /* no include directories */
	for (uint64_t i = 0; i < (nfiles ? nfiles : 1); i++) {
		str(b, "f.c");
		put(b, (const uint8_t[]){ 0, 0, 0 }, 3);
	}
	u8(b, 0);
	set32(b, hl, lying_header ? 0xfffffff0u : (uint32_t)(b->len - hl - 4));
	return at;
}

static void set_address(struct buf *b, uint64_t addr)
{
	u8(b, 0);
	uleb(b, 9);
	u8(b, DW_LNE_set_address);
	u64(b, addr);
}

/* A line program covering the code: one row per byte of SIZE when forever. */
static void line_program(struct buf *b, uint64_t size, bool forever, bool lying_length,
			 uint64_t nfiles, bool lying_header)
{
	size_t at = line_header(b, nfiles, lying_header);

	set_address(b, lo);
	u8(b, DW_LNS_copy);
	if (forever) {
		for (uint64_t i = 0; i < size; i++)
			u8(b, DW_LNS_copy);
	} else {
		u8(b, DW_LNS_advance_pc);
		uleb(b, hi - lo);
		put(b, (const uint8_t[]){ 0, 1, DW_LNE_end_sequence }, 3);
	}
	set32(b, at, lying_length ? 0xfffffff0u : (uint32_t)(b->len - at - 4));
}

/* A zlib stream of in, or of size zeros when in is NULL. */
static void deflated(struct buf *out, const void *in, uint64_t size)
{
	static unsigned char zeros[1 << 16], chunk[1 << 16];
	z_stream z = { 0 };
	uint64_t left = size;
	int flush;

	deflateInit(&z, 9);
	do {
		z.next_in = in ? (Bytef *)in : zeros;
		z.avail_in = in ? (uInt)size : (uInt)(left < sizeof(zeros) ? left : sizeof(zeros));
		left -= z.avail_in;
		flush = in || !left ? Z_FINISH : Z_NO_FLUSH;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			deflate(&z, flush);
			put(out, chunk, sizeof(chunk) - z.avail_out);
		} while (!z.avail_out);
	} while (flush != Z_FINISH);
	deflateEnd(&z);
}

static void compressed(struct buf *out, const struct buf *in, uint64_t claim, uint64_t zeros)
{
	Elf64_Chdr ch = { .ch_type = ELFCOMPRESS_ZLIB, .ch_size = claim, .ch_addralign = 1 };

	put(out, &ch, sizeof(ch));
	deflated(out, zeros ? NULL : in->p, zeros ? zeros : in->len);
}

/* A section to add to IN. */
struct sect {
	const char *name;
	struct buf data;
	uint64_t flags;
	uint64_t sparse; /* its size when it ends in a hole; 0 if not */
};

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < (long)sizeof(Elf64_Ehdr) ||
	    fseek(f, 0, SEEK_SET) || !(p = malloc(n)) || fread(p, 1, n, f) != (size_t)n) {
		fprintf(stderr, "hostile_dwarf: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*len = n;
	return p;
}

/* Sets lo, hi from in's .text. */
static void find_text(const unsigned char *in, size_t len)
{
	const Elf64_Ehdr *eh = (const void *)in;
	const Elf64_Shdr *sh = (const void *)(in + eh->e_shoff);
	const char *names;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > len || eh->e_shstrndx >= eh->e_shnum) {
		fprintf(stderr, "hostile_dwarf: IN is not a 64-bit ELF file with sections\n");
		exit(1);
	}
	names = (const char *)in + sh[eh->e_shstrndx].sh_offset;
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, ".text")) {
			lo = sh[i].sh_addr;
			hi = lo + sh[i].sh_size;
		}
	if (hi - lo < 4) {
		fprintf(stderr, "hostile_dwarf: IN has no .text\n");
		exit(1);
	}
}

static void pad(struct buf *b, size_t align)
{
	while (b->len % align)
		u8(b, 0);
}

/* Writes IN with the sections added (their headers and names appended). */
static void write_out(const char *out_path, const unsigned char *in, size_t in_len,
		      struct sect *s, int ns)
{
	const Elf64_Ehdr *ieh = (const void *)in;
	const Elf64_Shdr *ish = (const void *)(in + ieh->e_shoff);
	const Elf64_Shdr *istr = &ish[ieh->e_shstrndx];
	struct buf o = { 0 }, names = { 0 };
	uint64_t offs[16], sparse_at = 0;
	size_t names_at, sh_at;
	Elf64_Ehdr eh = *ieh;
	FILE *f;

	put(&o, in, in_len);
	put(&names, in + istr->sh_offset, istr->sh_size);
	for (int i = 0; i < ns; i++) {
		pad(&o, 8);
		offs[i] = o.len;
		if (!s[i].sparse)
			put(&o, s[i].data.p, s[i].data.len);
	}
	names_at = o.len;
	put(&o, names.p, names.len);
	for (int i = 0; i < ns; i++)
		str(&o, s[i].name);
	pad(&o, 8);
	sh_at = o.len;
	put(&o, ish, (size_t)ieh->e_shnum * sizeof(*ish));
	((Elf64_Shdr *)(o.p + sh_at))[ieh->e_shstrndx].sh_offset = names_at;
	for (int i = 0, name = (int)names.len; i < ns; name += (int)strlen(s[i++].name) + 1) {
		Elf64_Shdr sh = {
			.sh_name = name, .sh_type = SHT_PROGBITS, .sh_flags = s[i].flags,
			.sh_offset = offs[i], .sh_size = s[i].data.len, .sh_addralign = 1,
		};

		if (s[i].sparse) {
			sparse_at = sh.sh_offset = (o.len + (ieh->e_shnum + ns) * sizeof(sh) + 4095) & ~4095ul;
			sh.sh_size = s[i].sparse;
		}
		put(&o, &sh, sizeof(sh));
	}
	/* the names' size: they end where the section headers start */
	((Elf64_Shdr *)(o.p + sh_at))[ieh->e_shstrndx].sh_size = sh_at - names_at;
	free(names.p);
	eh.e_shoff = sh_at;
	eh.e_shnum = ieh->e_shnum + ns;
	memcpy(o.p, &eh, sizeof(eh));
	f = fopen(out_path, "wb");
	if (!f || fwrite(o.p, 1, o.len, f) != o.len) {
		fprintf(stderr, "hostile_dwarf: cannot write %s\n", out_path);
		exit(1);
	}
	for (int i = 0; i < ns; i++)
		if (s[i].sparse && (fseek(f, (long)sparse_at, SEEK_SET) ||
				    fwrite(s[i].data.p, 1, s[i].data.len, f) != s[i].data.len ||
				    fflush(f) || ftruncate(fileno(f), (off_t)(sparse_at + s[i].sparse)))) {
			fprintf(stderr, "hostile_dwarf: cannot extend %s\n", out_path);
			exit(1);
		}
	if (fclose(f) || chmod(out_path, 0755)) {
		fprintf(stderr, "hostile_dwarf: cannot write %s\n", out_path);
		exit(1);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: hostile_dwarf [-n N] [-s SIZE] "
		"[-p PATH] cycle|length|line|lhead|deep|units|abbrev|wide|altlink|skeleton|sparse|"
		"zlib|zbomb IN OUT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sect s[4] = { { .name = ".debug_abbrev" }, { .name = ".debug_info" },
			     { .name = ".debug_line" }, { .name = ".gnu_debugaltlink" } };
	const char *path = "/nonexistent";
	int ns = 3;
	uint64_t n = UINT64_MAX, size = 0;
	struct buf info = { 0 };
	unsigned char *in;
	const char *mode;
	size_t in_len;
	int c;

	while ((c = getopt(argc, argv, "n:s:p:")) != -1) {
		if (c == 'p')
			path = optarg;
		else if (c == 'n')
			n = strtoull(optarg, NULL, 0);
		else if (c == 's')
			size = strtoull(optarg, NULL, 0);
		else
			usage();
	}
	if (argc - optind != 3)
		usage();
	mode = argv[optind];
	in = slurp(argv[optind + 1], &in_len);
	find_text(in, in_len);
	abbrevs(&s[0].data);
	line_program(&s[2].data, 0, false, false, 1, false);
	if (!strcmp(mode, "cycle")) {
		cycle_unit(&s[1].data);
	} else if (!strcmp(mode, "length")) {
		good_unit(&s[1].data);
		if (n == 64) {
			u32(&s[1].data, 0xffffffffu);
			u64(&s[1].data, (1ull << 63) - 16);
			u16(&s[1].data, 4);
			u64(&s[1].data, 0);
			u8(&s[1].data, 8);
			cu_die(&s[1].data, "lie.c");
		} else {
			size_t at = unit_start(&s[1].data);

			cu_die(&s[1].data, "lie.c");
			set32(&s[1].data, at, 0xfffffff0u);
		}
	} else if (!strcmp(mode, "line") || !strcmp(mode, "lhead")) {
		bool line = !strcmp(mode, "line");

		good_unit(&s[1].data);
		s[2].data.len = 0;
		if (line)
			line_program(&s[2].data, size ? size : 8u << 20, true, n == 1, 1, false);
		else
			line_program(&s[2].data, 0, false, false, n == UINT64_MAX ? 1u << 20 : n, n == 0);
	} else if (!strcmp(mode, "deep")) {
		deep_unit(&s[1].data, n == UINT64_MAX ? 1u << 20 : n);
	} else if (!strcmp(mode, "units")) {
		tiny_units(&s[1].data, n == UINT64_MAX ? 1u << 20 : n);
	} else if (!strcmp(mode, "abbrev")) {
		s[0].data.len = 0;
		filler_abbrevs(&s[0].data, 100000);
		abbrevs(&s[0].data);
		tiny_units(&s[1].data, n == UINT64_MAX ? 1000 : n);
	} else if (!strcmp(mode, "wide")) {
		wide_unit(&s[1].data, n == UINT64_MAX ? 1u << 20 : n);
	} else if (!strcmp(mode, "altlink")) {
		alt_unit(&s[1].data);
		str(&s[3].data, path);
		for (int i = 0; i < 20; i++)
			u8(&s[3].data, 0xab);
		ns = 4;
	} else if (!strcmp(mode, "skeleton")) {
		skeleton_unit(&s[1].data, path);
	} else if (!strcmp(mode, "sparse")) {
		good_unit(&s[1].data);
		s[1].sparse = size ? size : 1ull << 30;
	} else if (!strcmp(mode, "zlib") || !strcmp(mode, "zbomb")) {
		bool bomb = !strcmp(mode, "zbomb");

		good_unit(&info);
		compressed(&s[1].data, &info, bomb ? 4096 : size ? size : 1ull << 30,
			   bomb ? (size ? size : 64u << 20) : 0);
		s[1].flags = SHF_COMPRESSED;
	} else {
		usage();
	}
	write_out(argv[optind + 2], in, in_len, s, ns);
	return 0;
}
