// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for unwind tables (src/unwind/unwind_table.c).  The first byte
 * of an input says what the rest is:
 *   'f'  a whole ELF file, read through a memfd as mapped files are, and
 *        given again as its own separate debug file (.debug_frame too);
 *   'e', 'd'  16 hex digits (the section's vaddr), then the bytes of an
 *        .eh_frame or a .debug_frame, put in a small x86_64 ELF image whose
 *        one executable segment spans the first 4 GiB: mutations reach the
 *        CFA programs instead of dying in the ELF headers;
 *   'h'  the same as 'e' without section headers: .eh_frame is found
 *        through PT_GNU_EH_FRAME and an .eh_frame_hdr pointing at it;
 *   'E', 'D', 'H'  the same in an arm64 image: its CFA programs' rules
 *        are read as arm64's (unwind_cfi.c picks by e_machine).
 * The functions' starts (unwind_funcs, for naming) are listed from the
 * same file: as many as the table has FDEs when neither stopped early, and
 * each offset's start at or before it.
 * Every table built is then checked beyond not crashing: rows sorted from
 * pc 0, merged, closed by a gap, statistics that add up, lookups that find
 * each row, arm64's flags only in arm64 tables and only on rows that
 * unwind, and work within its budget (a multiple of the CFI's size).
 * Work that grows faster than the input without being counted shows as a
 * timeout (tests/cli/fuzz_smoke.sh: 5 s an input).
 */
#include <elf.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "lib/log.h"
#include "unwind/unwind_table.h"


/* An arm64 row's flags (include/unwind.h): only on rows that unwind. */
static bool flags_ok(const struct unwind_row *r, bool a64)
{
	uint8_t flags = r->kind & ~0x0f;

	if (flags & ~(UNWIND_AT_BASE | UNWIND_FP_BELOW))
		return false;
	if (!flags)
		return true;
	return a64 && (UNWIND_KIND(r->kind) == UNWIND_CFA_RSP ||
		       UNWIND_KIND(r->kind) == UNWIND_CFA_RBP);
}

static void check(const struct unwind_table *t, bool a64)
{
	const struct unwind_stats *s = unwind_table__stats(t);
	const struct unwind_row *rows;
	size_t i, nr, sum = 0, cfi = 0;

	if (!t)
		return;
	rows = unwind_table__rows(t, &nr);
	if (!nr || rows[0].pc || rows[nr - 1].kind != UNWIND_GAP || s->rows != nr ||
	    unwind_table__bytes(t) < nr * sizeof(*rows))
		abort();
	for (i = 0; i < nr; i++) {
		if (UNWIND_KIND(rows[i].kind) >= UNWIND_KIND__MAX || !flags_ok(&rows[i], a64) ||
		    unwind_table__find(t, unwind_table__base(t) + rows[i].pc) != &rows[i])
			abort();
		if (i && (rows[i].pc <= rows[i - 1].pc ||
			  (rows[i].kind == rows[i - 1].kind && rows[i].cfa_off == rows[i - 1].cfa_off &&
			   rows[i].rbp_off == rows[i - 1].rbp_off)))
			abort();
	}
	for (i = 0; i < UNWIND_KIND__MAX; i++) {
		sum += s->rows_by_kind[i];
		cfi += s->cfi_rows_by_kind[i];
	}
	if (sum != nr || cfi != s->cfi_rows)
		abort();
	/* the default budget, overrun by the last record read at most */
	if (s->work > 9 * s->cfi_bytes + (64 << 10))
		abort();
	(void)unwind_table__rules(t);
}

/*
 * A little-endian ELF64 image for machine (x86_64 or arm64): an R+X PT_LOAD over [0, 4 GiB) with
 * no file bytes, an R one mapping the file so that the CFI bytes are at
 * vaddr, the CFI as section `name` at vaddr, and (for files without section
 * headers) an .eh_frame_hdr v1 in PT_GNU_EH_FRAME pointing at them.
 */
static void *image(uint16_t machine, const char *name, uint64_t vaddr, const uint8_t *cfi,
		   size_t len, bool headers, size_t *size)
{
	static const char strs[] = "\0.eh_frame\0.debug_frame\0.shstrtab";
	size_t hdr_off = 64 + 3 * 56, cfi_off = hdr_off + 8, str_off = cfi_off + len;
	size_t sh_off = (str_off + sizeof(strs) + 7) & ~7ul;
	uint64_t file_vaddr = vaddr - cfi_off;
	uint8_t *p = calloc(1, sh_off + 3 * 64);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)p;
	Elf64_Phdr *ph = (Elf64_Phdr *)(p + 64);
	Elf64_Shdr *sh = (Elf64_Shdr *)(p + sh_off);
	int32_t rel = (int32_t)(vaddr - (file_vaddr + hdr_off + 4));

	if (!p)
		return NULL;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = machine;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = 64;
	eh->e_phoff = 64;
	eh->e_phentsize = 56;
	eh->e_phnum = 3;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			      .p_memsz = 1ull << 32, .p_align = 4096 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_vaddr = file_vaddr,
			      .p_filesz = sh_off, .p_memsz = sh_off, .p_align = 4096 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_GNU_EH_FRAME, .p_flags = PF_R, .p_offset = hdr_off,
			      .p_vaddr = file_vaddr + hdr_off, .p_filesz = 8, .p_memsz = 8 };
	/* version 1, eh_frame_ptr pcrel sdata4, no FDE count, no table */
	memcpy(p + hdr_off, "\x01\x1b\xff\xff", 4);
	memcpy(p + hdr_off + 4, &rel, 4);
	memcpy(p + cfi_off, cfi, len);
	memcpy(p + str_off, strs, sizeof(strs));
	if (headers) {
		eh->e_shoff = sh_off;
		eh->e_shentsize = 64;
		eh->e_shnum = 3;
		eh->e_shstrndx = 2;
		sh[1] = (Elf64_Shdr){ .sh_name = !strcmp(name, ".eh_frame") ? 1 : 11,
				      .sh_type = SHT_PROGBITS, .sh_addr = vaddr,
				      .sh_offset = cfi_off, .sh_size = len };
		sh[2] = (Elf64_Shdr){ .sh_name = 24, .sh_type = SHT_STRTAB,
				      .sh_offset = str_off, .sh_size = sizeof(strs) };
	}
	*size = sh_off + 3 * 64;
	return p;
}

/* f's functions' starts agree with t, built without a debug file. */
static void check_funcs(struct elf_file *f, const struct unwind_table *t)
{
	struct func_ranges *fn = unwind_funcs__build(f, NULL);
	const struct unwind_row *rows;
	uint64_t start, off;
	size_t nr;

	if (t && fn && !unwind_table__stats(t)->stopped && !func_ranges__stopped(fn) &&
	    func_ranges__count(fn) != unwind_table__stats(t)->fdes)
		abort();
	rows = unwind_table__rows(t, &nr);
	for (size_t i = 0; i < nr && i < 4096; i++) {
		off = unwind_table__base(t) + rows[i].pc;
		if (func_ranges__start(fn, off, &start) && start > off)
			abort();
	}
	func_ranges__free(fn);
}

/* 'e', 'd', 'h' (x86_64), 'E', 'D', 'H' (arm64): CFI bytes in an image
 * made for them. */
static void fuzz_section(char mode, const uint8_t *data, size_t size)
{
	bool a64 = mode >= 'A' && mode <= 'Z';
	char hex[17];
	struct elf_file *f;
	struct unwind_table *t;
	size_t len;
	void *img;

	if (size < 16)
		return;
	memcpy(hex, data, 16);
	hex[16] = '\0';
	mode |= 0x20; /* the same shapes for both */
	img = image(a64 ? EM_AARCH64 : EM_X86_64, mode == 'd' ? ".debug_frame" : ".eh_frame",
		    strtoull(hex, NULL, 16), data + 16, size - 16, mode != 'h', &len);
	f = img ? elf_file__open_mem(img, len) : NULL;
	t = unwind_table__build(f, NULL, NULL);
	check(t, a64);
	check_funcs(f, t);
	unwind_table__free(t);
	elf_file__close(f);
}

/* 'f': a whole file, as mapped files are read, and as its own debug file. */
static void fuzz_file(const uint8_t *data, size_t size)
{
	static int mfd = -1;
	struct elf_file *f, *dbg;
	struct unwind_table *t;
	GElf_Ehdr eh;

	if (mfd < 0)
		mfd = memfd_create("fuzz_cfi", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, 0) || pwrite(mfd, data, size, 0) != (ssize_t)size)
		return;
	f = elf_file__open_fd(mfd);
	dbg = elf_file__open_fd(mfd);
	t = unwind_table__build(f, dbg, NULL);
	check(t, t && gelf_getehdr(elf_file__elf(f), &eh) && eh.e_machine == EM_AARCH64);
	check_funcs(f, NULL);
	unwind_table__free(t);
	/* and as the kernel's vDSO: an arm64 file's rows from its code too */
	t = unwind_table__build(f, NULL, &(struct unwind_build_opts){ .vdso = true });
	check(t, t && gelf_getehdr(elf_file__elf(f), &eh) && eh.e_machine == EM_AARCH64);
	unwind_table__free(t);
	elf_file__close(f);
	elf_file__close(dbg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_verbosity = 0;
	if (!size)
		return 0;
	if (data[0] == 'f')
		fuzz_file(data + 1, size - 1);
	else if (data[0] && strchr("edhEDH", data[0]))
		fuzz_section(data[0], data + 1, size - 1);
	return 0;
}
