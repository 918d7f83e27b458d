// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * arm64's vDSO, whose CFI says too little: owns the rows its code proves.
 * Since 5.10 the kernel gives its sigreturn trampoline no CFI (unwinders are
 * to know it by its code), and since 6.1 the vDSO has no .eh_frame at all.
 * The frame-pointer fallback then misreads its functions, which are leaves
 * without a frame record: x29 is their caller's, so the walk skipped the
 * caller (now;__kernel_clock_gettime under run_mode's caller's caller).
 *
 * So for each of the vDSO's functions no FDE covers, the code is read: one
 * that never moves sp, never writes x29 or x30 (save pointer
 * authentication's signing, which the walk masks) and calls nothing keeps
 * its caller's sp and its return address in x30 throughout, which is the
 * row "CFA = sp, return address in x30".  A function that does anything
 * else is UNSUPPORTED, which falls back to its frame record as before: not
 * a gap, whose leaf the walk would take for a PLT entry's, caller in x30.  The trampoline,
 * __kernel_rt_sigreturn (mov x8, #139; svc #0), gets the SIGNAL row, from
 * the nop before it, which the kernel puts there for unwinders that look a
 * return address up at pc - 1.
 */
#include <gelf.h>
#include <string.h>

#include "unwind/unwind_table_int.h"

/* A vDSO has a handful of functions; a file with more is not one. */
#define MAX_VDSO_SYMS 64
#define MAX_FUNC_BYTES (64u << 10)

#define A64_NOP 0xd503201fu
#define A64_MOV_X8_SIGRETURN 0xd2801168u
#define A64_SVC_0 0xd4000001u

static bool writes_sp_or_link(uint32_t i)
{
	unsigned rd = i & 31, rn = (i >> 5) & 31, rt2 = (i >> 10) & 31;
	bool no_flags = !(i & (1u << 29));

	/* x29 or x30 as a destination (or a source: counted too) */
	if (rd == 29 || rd == 30)
		return true;
	/* add/sub immediate or extended register, logical immediate: rd 31 is sp */
	if (rd == 31 && no_flags &&
	    ((i & 0x1f000000) == 0x11000000 || (i & 0x1f200000) == 0x0b200000))
		return true;
	if (rd == 31 && (i & 0x1f800000) == 0x12000000 && ((i >> 29) & 3) != 3)
		return true;
	/* load/store pair: x29/x30 as the second register; writeback to sp */
	if ((i & 0x3a000000) == 0x28000000)
		return rt2 == 29 || rt2 == 30 || (rn == 31 && ((i >> 23) & 1));
	/* load/store register, pre- or post-indexed, writing back to sp */
	if ((i & 0x3b200000) == 0x38000000 && rn == 31 && ((i >> 10) & 1))
		return true;
	return false;
}

static bool calls(uint32_t i)
{
	if ((i & 0xfc000000) == 0x94000000) /* bl */
		return true;
	/* branch to register: only ret, retaa, retab and br stay in the frame */
	if ((i & 0xfe000000) == 0xd6000000)
		return i != 0xd65f03c0 && i != 0xd65f0bff && i != 0xd65f0fff &&
		       (i & 0xfffffc1f) != 0xd61f0000;
	return false;
}

/* Whether the n instructions at code keep sp and x30 as the call left them. */
bool a64_frameless_leaf(const unsigned char *code, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint32_t i;

		memcpy(&i, code + 4 * k, 4); /* arm64 code is little-endian */
		if (writes_sp_or_link(i) || calls(i))
			return false;
	}
	return n > 0;
}

/* The instruction at vaddr, or false when it is not in the file. */
static bool insn_at(Elf *elf, uint64_t vaddr, uint32_t *i)
{
	Elf_Data *d = cfi_segment_bytes(elf, vaddr, 4);

	if (!d || !d->d_buf || d->d_size < 4)
		return false;
	memcpy(i, d->d_buf, 4);
	return true;
}

static void push_code(struct builder *b, uint64_t lo, uint64_t hi, enum unwind_kind kind)
{
	if (lo >= b->base && hi > lo && cfi_in_exec_segment(b, lo, hi))
		cfi_push_fde(b, &(struct fde_ref){ .pc = lo - b->base, .len = hi - lo,
						   .off = kind, .src = UNWIND_SRC_A64_CODE });
}

/*
 * The trampoline's SIGNAL row, from the nop before it.  A sample in its
 * system call has the pc after its svc, which the walk looks up at pc - 1
 * (its in_sigreturn): what follows may be another function (6.12's
 * getrandom).
 */
static void list_trampoline(struct builder *b, Elf *elf, uint64_t at)
{
	uint32_t i0, i1, before;
	uint64_t lo = at;

	if (!insn_at(elf, at, &i0) || i0 != A64_MOV_X8_SIGRETURN || !insn_at(elf, at + 4, &i1) ||
	    i1 != A64_SVC_0)
		return;
	if (insn_at(elf, at - 4, &before) && before == A64_NOP)
		lo -= 4;
	push_code(b, lo, at + 8, UNWIND_SIGNAL);
}

static void list_symbol(struct builder *b, Elf *elf, const GElf_Sym *s)
{
	Elf_Data *d;

	if (GELF_ST_TYPE(s->st_info) != STT_FUNC || !s->st_size || s->st_size % 4 ||
	    s->st_size > MAX_FUNC_BYTES)
		return;
	d = cfi_segment_bytes(elf, s->st_value, s->st_size);
	push_code(b, s->st_value, s->st_value + s->st_size,
		  d && d->d_buf && d->d_size == s->st_size &&
				  a64_frameless_leaf(d->d_buf, s->st_size / 4) ?
			  UNWIND_CFA_RSP :
			  UNWIND_UNSUPPORTED);
}

void cfi_list_a64_code(struct builder *b, Elf *elf)
{
	uint64_t tramp = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n;
	GElf_Sym s;
	Elf_Data *d;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			break;
	if (!scn || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (size_t k = 1; k < n && k <= MAX_VDSO_SYMS && !b->fdes_full; k++) {
		const char *name = gelf_getsym(d, (int)k, &s) ?
					   elf_strptr(elf, sh.sh_link, s.st_name) : NULL;

		if (!name || s.st_shndx == SHN_UNDEF)
			continue;
		if (!strcmp(name, "__kernel_rt_sigreturn"))
			tramp = s.st_value;
		else
			list_symbol(b, elf, &s);
	}
	if (tramp)
		list_trampoline(b, elf, tramp);
}
