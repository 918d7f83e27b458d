/*
 * hostile_cfi: writes an x86-64 ELF shared object whose .eh_frame makes an
 * unwind-table builder (src/unwind/unwind_table.c) work, the kind of file a
 * hostile user can leave for a root profiler to parse.  One page of real
 * code at file offset and address 0x1000 (a counted loop with a frame, as
 * tests/tools/many_syms writes it), which tests/workloads/hostile maps
 * executable and runs, and an .eh_frame of:
 *   - CIES CIEs, each with the augmentation "z" and AUGLEN letters "S"
 *     after it, and INIT DW_CFA_nop among its initial instructions.  Each
 *     starts at an offset that falls in the same slot of a 64-entry
 *     direct-mapped cache indexed by (offset ^ offset >> 7) % 64 (nops pad
 *     them there): a cache of parsed CIEs keyed so thrashes between them;
 *   - FDES FDEs, using the CIEs in turn, each covering LEN bytes (0: empty
 *     FDEs, all at 0x1000; else one after the other from 0x1000, the
 *     executable segment's size following) with NOPS DW_CFA_nop as its
 *     program (no CIEs either when FDES is 0: the file has no CFI);
 *   - with -z SIZE, a zlib-compressed .debug_frame too, which inflates to
 *     SIZE bytes of zeros (a terminator: no records);
 *   - with -g NAME, a .gnu_debuglink naming NAME with a CRC no file has,
 *     so that a debug-file search reads every candidate whole;
 *   - with -s SIZE, .eh_frame padded with zeros to SIZE bytes, and (without
 *     -z) a .debug_frame of SIZE zeros: holes in the file, which costs
 *     nothing on disk and SIZE bytes of memory to whoever reads it;
 *   - with -H, an .eh_frame_hdr (and its PT_GNU_EH_FRAME) that lies: its
 *     FDE count says 2^31 - 1, and its search table, which should be
 *     sorted by pc and point at the FDEs, has FDES entries in descending
 *     order pointing nowhere (a reader that trusts it to binary-search or
 *     to size an allocation is misled).
 * The issue 21 file: -c 2 -a 1000000 -f 10000 (2.2 MB).
 * Usage: hostile_cfi [-c CIES] [-a AUGLEN] [-i INIT] [-f FDES] [-l LEN]
 *                    [-n NOPS] [-z SIZE] [-g NAME] [-s SIZE] [-H] OUT
 */
#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define CODE_OFF 0x1000
#define EH_OFF 0x2000
#define EH_VADDR 0x10000000ul
#define HDR_VADDR 0x0f000000ul
#define CACHE_SLOTS 64

static const unsigned char code[] = {
	0x55,                                         /* push %rbp */
	0x48, 0x89, 0xe5,                             /* mov %rsp, %rbp */
	0x48, 0xb9, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, /* mov $1000000, %rcx */
	0x48, 0xff, 0xc9,                             /* 1: dec %rcx */
	0x75, 0xfb,                                   /* jnz 1b */
	0x5d,                                         /* pop %rbp */
	0xc3,                                         /* ret */
};
/* The .eh_frame being written. */
struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("hostile_cfi");
			exit(1);
		}
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_u8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put_nops(struct buf *b, size_t n)
{
	while (n--)
		put_u8(b, 0); /* DW_CFA_nop */
}

static unsigned int slot(size_t off)
{
	return (off ^ (off >> 7)) % CACHE_SLOTS;
}

/* A CIE at b's end, padded so that the next record starts in slot 0. */
static void put_cie(struct buf *b, unsigned long auglen, unsigned long init)
{
	static const unsigned char rules[] = {
		0x0c, 0x07, 0x08, /* DW_CFA_def_cfa rsp 8 */
		0x90, 0x01,       /* DW_CFA_offset r16 (return address) at cfa - 8 */
	};
	size_t start = b->len, end;

	put_u32(b, 0); /* the length, set below */
	put_u32(b, 0); /* CIE id */
	put_u8(b, 1);  /* version */
	put_u8(b, 'z');
	while (auglen--)
		put_u8(b, 'S');
	put_u8(b, 0);
	put_u8(b, 1);    /* code alignment factor */
	put_u8(b, 0x78); /* data alignment factor, -8 */
	put_u8(b, 16);   /* return address column */
	put_u8(b, 0);    /* augmentation data length */
	put(b, rules, sizeof(rules));
	put_nops(b, init);
	for (end = b->len; slot(end) != 0; end++)
		put_u8(b, 0);
	*(uint32_t *)(b->p + start) = b->len - start - 4;
}

static void put_fde(struct buf *b, size_t cie, uint64_t pc, uint64_t len, unsigned long nops)
{
	put_u32(b, 4 + 8 + 8 + 1 + nops);
	put_u32(b, b->len - cie); /* back from this field to the CIE */
	put_u64(b, pc);           /* absolute: the CIE has no 'R' */
	put_u64(b, len);
	put_u8(b, 0); /* augmentation data length */
	put_nops(b, nops);
}

/* b: a compressed section's bytes (header, then zlib's) for size zeros. */
static void put_zeros_compressed(struct buf *b, uint64_t size)
{
	static const unsigned char zero[1 << 16];
	Elf64_Chdr ch = { .ch_type = ELFCOMPRESS_ZLIB, .ch_size = size, .ch_addralign = 1 };
	unsigned char out[1 << 16];
	z_stream z = { 0 };
	int flush;

	put(b, &ch, sizeof(ch));
	if (deflateInit(&z, 9) != Z_OK)
		exit(1);
	do {
		z.next_in = (unsigned char *)zero;
		z.avail_in = size < sizeof(zero) ? size : sizeof(zero);
		size -= z.avail_in;
		flush = size ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			deflate(&z, flush);
			put(b, out, sizeof(out) - z.avail_out);
		} while (!z.avail_out);
	} while (flush != Z_FINISH);
	deflateEnd(&z);
}

/* A section after the code page: its header (name, type, flags, address),
 * bytes, and zeros after them (a hole in the file). */
struct sect {
	const char *name;
	Elf64_Shdr sh;
	struct buf b;
	size_t hole;
};

static void headers(Elf64_Ehdr *eh, Elf64_Phdr *ph, uint64_t code_size, int shnum, int phnum)
{
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = phnum;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = shnum;
	eh->e_shstrndx = shnum - 1;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_offset = ph->p_vaddr = ph->p_paddr = CODE_OFF;
	ph->p_filesz = 0x1000;
	ph->p_memsz = code_size;
	ph->p_align = 0x1000;
}

/* False when n bytes could not all be written. */
static bool written(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n;
}

/*
 * The file: headers, the code page (.text), then sections n of sec (the
 * section names last) from EH_OFF on, then the section headers.
 */
static int write_file(const char *path, struct sect *sec, int n, uint64_t code_size)
{
	static const unsigned char zero[EH_OFF];
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[2] = { { 0 } };
	int phnum = 1;
	Elf64_Shdr sh[8] = { { 0 } };
	struct buf names = { 0 };
	size_t off = EH_OFF;
	FILE *f = fopen(path, "wb");
	int i, bad;

	if (!f)
		return -1;
	put_u8(&names, 0);
	sh[1] = (Elf64_Shdr){ .sh_name = names.len, .sh_type = SHT_PROGBITS, .sh_addr = CODE_OFF,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_offset = CODE_OFF,
			      .sh_size = 0x1000, .sh_addralign = 1 };
	put(&names, ".text", sizeof(".text"));
	sec[n].name = ".shstrtab";
	sec[n].sh.sh_type = SHT_STRTAB;
	for (i = 0; i <= n; i++) {
		sh[i + 2] = sec[i].sh;
		sh[i + 2].sh_name = names.len;
		put(&names, sec[i].name, strlen(sec[i].name) + 1);
	}
	sec[n].b = names;
	for (i = 0; i <= n; i++) {
		sh[i + 2].sh_offset = off;
		sh[i + 2].sh_size = sec[i].b.len + sec[i].hole;
		sh[i + 2].sh_addralign = 1;
		off += sh[i + 2].sh_size;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(sec[i].name, ".eh_frame_hdr"))
			ph[phnum++] = (Elf64_Phdr){ .p_type = PT_GNU_EH_FRAME, .p_flags = PF_R,
						    .p_offset = sh[i + 2].sh_offset,
						    .p_vaddr = sh[i + 2].sh_addr,
						    .p_paddr = sh[i + 2].sh_addr,
						    .p_filesz = sh[i + 2].sh_size,
						    .p_memsz = sh[i + 2].sh_size, .p_align = 4 };
	headers(&eh, ph, code_size, n + 3, phnum);
	eh.e_shoff = (off + 7) & ~7ul;
	bad = !written(f, &eh, sizeof(eh)) || !written(f, ph, sizeof(ph[0]) * phnum) ||
	      !written(f, zero, CODE_OFF - sizeof(eh) - sizeof(ph[0]) * phnum) ||
	      !written(f, code, sizeof(code)) ||
	      !written(f, zero, EH_OFF - CODE_OFF - sizeof(code));
	for (i = 0; i <= n && !bad; i++)
		bad = !written(f, sec[i].b.p, sec[i].b.len) || fseek(f, sec[i].hole, SEEK_CUR);
	bad = bad || !written(f, zero, eh.e_shoff - off) ||
	      !written(f, sh, sizeof(sh[0]) * (n + 3));
	free(names.p);
	return fclose(f) || bad ? -1 : 0;
}

/* An .eh_frame_hdr at HDR_VADDR for .eh_frame at EH_VADDR, whose count
 * and search table lie (see -H): entries descending, pointing nowhere. */
static void put_lying_hdr(struct buf *b, unsigned long entries)
{
	put_u8(b, 1);    /* version */
	put_u8(b, 0x1b); /* eh_frame_ptr: pcrel sdata4 */
	put_u8(b, 0x03); /* fde_count: udata4 */
	put_u8(b, 0x3b); /* table: datarel sdata4 */
	put_u32(b, (uint32_t)(EH_VADDR - (HDR_VADDR + 4)));
	put_u32(b, 0x7fffffff);
	for (unsigned long i = 0; i < entries; i++) {
		put_u32(b, (uint32_t)(CODE_OFF + (entries - i) * 64 - HDR_VADDR));
		put_u32(b, 0x7ffffff0u - (uint32_t)i * 8);
	}
}

/* A .gnu_debuglink naming name (its CRC 0: no file matches, every candidate
 * is read whole to find out). */
static void put_debuglink(struct buf *b, const char *name)
{
	put(b, name, strlen(name) + 1);
	while (b->len % 4)
		put_u8(b, 0);
	put_u32(b, 0);
}

int main(int argc, char **argv)
{
	unsigned long cies = 2, auglen = 0, init = 0, fdes = 0, len = 0, nops = 0, zsize = 0;
	unsigned long holes = 0, i;
	struct sect sec[6] = { { .name = ".eh_frame", .sh = { .sh_type = SHT_PROGBITS,
							     .sh_flags = SHF_ALLOC,
							     .sh_addr = EH_VADDR } } };
	const char *link = NULL;
	bool lying_hdr = false;
	struct buf *b = &sec[0].b;
	size_t *cie_at;
	uint64_t code_size;
	int opt, n = 1, err;

	while ((opt = getopt(argc, argv, "c:a:i:f:l:n:z:g:s:H")) != -1) {
		unsigned long v = optarg ? strtoul(optarg, NULL, 0) : 0;

		switch (opt) {
		case 'c': cies = v; break;
		case 'a': auglen = v; break;
		case 'i': init = v; break;
		case 'f': fdes = v; break;
		case 'l': len = v; break;
		case 'n': nops = v; break;
		case 'z': zsize = v; break;
		case 'g': link = optarg; break;
		case 's': holes = v; break;
		case 'H': lying_hdr = true; break;
		default: goto usage;
		}
	}
	if (optind + 1 != argc || !cies)
		goto usage;
	cie_at = calloc(cies, sizeof(*cie_at));
	if (!cie_at)
		return 1;
	for (i = 0; i < cies && fdes; i++) {
		cie_at[i] = b->len;
		put_cie(b, auglen, init);
	}
	for (i = 0; i < fdes; i++)
		put_fde(b, cie_at[i % cies], CODE_OFF + i * len, len, nops);
	put_u32(b, 0); /* the terminator */
	if (holes > b->len)
		sec[0].hole = holes - b->len;
	if (zsize) {
		sec[n] = (struct sect){ .name = ".debug_frame",
					.sh = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_COMPRESSED } };
		put_zeros_compressed(&sec[n++].b, zsize);
	} else if (holes) {
		sec[n++] = (struct sect){ .name = ".debug_frame", .sh = { .sh_type = SHT_PROGBITS },
					  .hole = holes };
	}
	if (lying_hdr) {
		sec[n] = (struct sect){ .name = ".eh_frame_hdr",
					.sh = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
						.sh_addr = HDR_VADDR } };
		put_lying_hdr(&sec[n++].b, fdes);
	}
	if (link) {
		sec[n] = (struct sect){ .name = ".gnu_debuglink", .sh = { .sh_type = SHT_PROGBITS } };
		put_debuglink(&sec[n++].b, link);
	}
	code_size = len * fdes > 0x1000 ? (len * fdes + 0xfff) & ~0xffful : 0x1000;
	err = write_file(argv[optind], sec, n, code_size);
	for (i = 0; i < (unsigned long)n; i++)
		free(sec[i].b.p);
	free(cie_at);
	if (err) {
		perror(argv[optind]);
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: hostile_cfi [-c CIES] [-a AUGLEN] [-i INIT] [-f FDES] [-l LEN] "
			"[-n NOPS] [-z SIZE] [-g NAME] [-s SIZE] [-H] OUT\n");
	return 2;
}
