// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Call-frame information, for the unwind tables (unwind_table.c builds
 * them): owns reading CFI records (the CIEs and FDEs of .eh_frame and
 * .debug_frame), running CFA programs to the register rules they state at
 * each location, and, for x86_64 and arm64 (picked by e_machine), what
 * those rules mean as a row of include/unwind.h.
 *
 * The CFI reader is our own, not elfutils' libdw, although Debian 12's
 * libdw (0.188) links statically (libdw.a with libbz2.a) and lists every
 * row of libLLVM-14 (95k FDEs, 861k rows) in 0.26 s and 14 MB of RSS:
 *  - Ten minutes of libFuzzer on it (dwarf_getcfi_elf, dwarf_next_cfi,
 *    dwarf_cfi_addrframe on every row) found six inputs, the first within
 *    a minute, a 35 KB file, for which execute_cfi asks malloc for up to
 *    1.2 GB: a register number read from the file sizes its register
 *    array.  libdw.a is not ours to fix (nor built with sanitizers, so its
 *    stray reads go unseen), and guarding it would mean decoding every
 *    instruction first, which is this parser.
 *  - It cannot list an FDE's rows: each row is another dwarf_cfi_addrframe,
 *    which reruns the FDE's program from its start, so the work grows with
 *    the square of an FDE's length, which hostile input picks.
 *  - dwarf_next_cfi returns raw entries: finding an FDE's range (its CIE's
 *    augmentation, the pointer encodings) would be ours anyway.
 *  - .debug_frame needs a Dwarf handle, and dwarf_begin_elf reads every
 *    debug section of the file: hundreds of MB for a big library's debug
 *    file, to use one section.
 *  - Rules come back as DWARF expressions, to be matched back into the
 *    register + offset rules the program stated.
 * CFA programs are a small, stable instruction set (DWARF 5, 6.4.2, and
 * three GNU opcodes).  Here each FDE's program runs once, every operand is
 * bounds-checked, and every instruction counts against a budget; reading a
 * CIE walks its whole record (augmentation string, initial instructions),
 * which its caller pays for first (struct cfi_work).
 */
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "unwind/unwind_table_int.h"

/* DWARF constants read here (dwarf.h comes with libdw, not used). */
enum {
	DW_CFA_advance_loc = 0x40, DW_CFA_offset = 0x80, DW_CFA_restore = 0xc0,
	DW_CFA_nop = 0x00, DW_CFA_set_loc = 0x01, DW_CFA_advance_loc1 = 0x02,
	DW_CFA_advance_loc2 = 0x03, DW_CFA_advance_loc4 = 0x04,
	DW_CFA_offset_extended = 0x05, DW_CFA_restore_extended = 0x06,
	DW_CFA_undefined = 0x07, DW_CFA_same_value = 0x08,
	DW_CFA_register = 0x09, DW_CFA_remember_state = 0x0a,
	DW_CFA_restore_state = 0x0b, DW_CFA_def_cfa = 0x0c,
	DW_CFA_def_cfa_register = 0x0d, DW_CFA_def_cfa_offset = 0x0e,
	DW_CFA_def_cfa_expression = 0x0f, DW_CFA_expression = 0x10,
	DW_CFA_offset_extended_sf = 0x11, DW_CFA_def_cfa_sf = 0x12,
	DW_CFA_def_cfa_offset_sf = 0x13, DW_CFA_val_offset = 0x14,
	DW_CFA_val_offset_sf = 0x15, DW_CFA_val_expression = 0x16,
	DW_CFA_GNU_args_size = 0x2e, DW_CFA_GNU_negative_offset_extended = 0x2f,
	DW_CFA_AARCH64_negate_ra_state = 0x2d, /* arm64's; SPARC's window_save */
};

enum {
	DW_OP_deref = 0x06, DW_OP_and = 0x1a, DW_OP_plus = 0x22, DW_OP_shl = 0x24,
	DW_OP_ge = 0x2a, DW_OP_lit0 = 0x30, DW_OP_breg0 = 0x70,
};

/*
 * ---- x86_64: the architecture's registers and the CFA expressions that
 * mean something of their own.  arm64's block follows; struct cfi_arch
 * (below both) names them, and a file's e_machine picks one.
 */
#define REG_FP 6  /* rbp */
#define REG_SP 7  /* rsp */
#define REG_RA 16 /* the return address column */

/* "DW_OP_breg<reg> off" at r. */
static bool rd_breg(struct rd *r, unsigned int reg, int64_t *off)
{
	if (rd_u8(r) != DW_OP_breg0 + reg)
		return false;
	*off = rd_sleb(r);
	return !r->bad;
}

/*
 * The linker's CFA for PLT entries: rsp + a + ((rip & 15) >= k ? 8 : 0),
 * "breg7 a; breg16 0; lit15; and; litk; ge; lit3; shl; plus".
 */
static bool match_plt(const struct rule *cfa, int64_t *a, unsigned int *k)
{
	static const uint8_t tail[] = { DW_OP_ge, DW_OP_lit0 + 3, DW_OP_shl, DW_OP_plus };
	struct rd r = { cfa->expr, cfa->expr + cfa->len, false };
	int64_t rip_off;
	uint8_t lit;

	if (!rd_breg(&r, REG_SP, a) || !rd_breg(&r, REG_RA, &rip_off) || rip_off ||
	    rd_u8(&r) != DW_OP_lit0 + 15 || rd_u8(&r) != DW_OP_and)
		return false;
	lit = rd_u8(&r);
	if (lit < DW_OP_lit0 || lit > DW_OP_lit0 + 15)
		return false;
	*k = lit - DW_OP_lit0;
	return r.end - r.p == sizeof(tail) && !memcmp(r.p, tail, sizeof(tail));
}

/* An expression "breg7 off" (and "; deref" when deref): a slot of the
 * ucontext at rsp. */
static bool match_rsp_slot(const struct rule *rule, bool deref, int64_t *off)
{
	struct rd r = { rule->expr, rule->expr + rule->len, false };

	if (!rd_breg(&r, REG_SP, off) || (deref && rd_u8(&r) != DW_OP_deref))
		return false;
	return r.p == r.end && *off > 0 && *off % 8 == 0;
}

/*
 * The sigreturn trampoline's rules (glibc's __restore_rt): CFA = *(rsp + n),
 * return address at rsp + n + 8, rbp at rsp + m, all inside the ucontext
 * the kernel pushed.  The row records n / 8 and m / 8.
 */
static bool signal_row(const struct rule *cfa, const struct rule *regs,
		       struct unwind_row *row)
{
	int64_t n, ra, fp;

	if (cfa->how != RULE_EXPR || regs[SLOT_RA].how != RULE_EXPR ||
	    regs[SLOT_FP].how != RULE_EXPR || !match_rsp_slot(cfa, true, &n) ||
	    !match_rsp_slot(&regs[SLOT_RA], false, &ra) ||
	    !match_rsp_slot(&regs[SLOT_FP], false, &fp) || ra != n + 8 ||
	    n / 8 > UINT16_MAX || fp / 8 > INT8_MAX)
		return false;
	*row = (struct unwind_row){ .kind = UNWIND_SIGNAL, .cfa_off = n / 8,
				    .rbp_off = fp / 8 };
	return true;
}

/* The rbp rule as a row's rbp_off: 0 unchanged, or its slot below the CFA. */
static bool fp_offset(const struct rule *fp, int8_t *rbp_off)
{
	*rbp_off = 0;
	if (fp->how == RULE_SAME)
		return true;
	if (fp->how != RULE_OFFSET || fp->off >= 0 || fp->off % 8 ||
	    fp->off / 8 < INT8_MIN)
		return false;
	*rbp_off = fp->off / 8;
	return true;
}

/* The CFA as a row's kind and cfa_off, or the reason it is unsupported. */
static int cfa_row(const struct cfa_state *st, struct unwind_row *row)
{
	int64_t off = st->cfa.off;
	unsigned int k;

	if (st->cfa.how == RULE_EXPR) {
		if (!match_plt(&st->cfa, &off, &k) || row->rbp_off)
			return UNWIND_UNSUP_CFA_EXPR;
		row->kind = UNWIND_PLT;
		row->rbp_off = k;
	} else if (st->cfa.how == RULE_VAL_OFFSET && st->cfa_reg == REG_SP) {
		row->kind = UNWIND_CFA_RSP;
	} else if (st->cfa.how == RULE_VAL_OFFSET && st->cfa_reg == REG_FP) {
		row->kind = UNWIND_CFA_RBP;
	} else {
		return UNWIND_UNSUP_CFA_REG;
	}
	if (off <= 0 || off % 8 || off / 8 > UINT16_MAX)
		return UNWIND_UNSUP_CFA_OFF;
	row->cfa_off = off / 8;
	return -1;
}

static struct unwind_row x86_classify(const struct cfa_state *st, uint64_t ra_reg, bool signal,
				      int *why)
{
	const struct rule *ra = &st->regs[SLOT_RA], *sp = &st->regs[SLOT_SP];
	struct unwind_row row = { .kind = UNWIND_UNSUPPORTED };

	*why = -1;
	if (signal) {
		if (!signal_row(&st->cfa, st->regs, &row))
			*why = UNWIND_UNSUP_SIGNAL;
		return row;
	}
	if (ra_reg == REG_RA && ra->how == RULE_UNDEF)
		return (struct unwind_row){ .kind = UNWIND_END };
	if (ra_reg != REG_RA || ra->how != RULE_OFFSET || ra->off != -8)
		*why = UNWIND_UNSUP_RA;
	else if (sp->how != RULE_SAME && !(sp->how == RULE_VAL_OFFSET && !sp->off))
		*why = UNWIND_UNSUP_RSP;
	else if (!fp_offset(&st->regs[SLOT_FP], &row.rbp_off))
		*why = UNWIND_UNSUP_RBP;
	else
		*why = cfa_row(st, &row);
	if (*why >= 0)
		row = (struct unwind_row){ .kind = UNWIND_UNSUPPORTED };
	return row;
}
/* ---- end of x86_64 */

/*
 * ---- arm64 (AAPCS64): sp is DWARF register 31, x29 the frame pointer, x30
 * the link register and the return address column.  What the rules mean
 * as rows is include/unwind.h's "arm64 rows".  Pointer authentication
 * (DW_CFA_AARCH64_negate_ra_state, opcode 0x2d) only toggles whether the
 * saved x30 is signed: the walk strips the signature from every return
 * address (bpf/unwind_arch.bpf.h), so rows need not know it.
 */
#define A64_FP 29
#define A64_LR 30
#define A64_SP 31

/* Where x30 is, given the CFA's offset from its base register: a row's
 * rbp_off and UNWIND_AT_BASE; false when no row can say it. */
static bool a64_ra_slot(const struct rule *ra, int64_t cfa_off, struct unwind_row *row)
{
	int64_t from_base;

	if (ra->how == RULE_SAME)
		return true; /* rbp_off 0: still in x30 */
	if (ra->how != RULE_OFFSET || ra->off >= 0 || ra->off % 8)
		return false;
	if (ra->off / 8 >= INT8_MIN) {
		row->rbp_off = ra->off / 8;
		return true;
	}
	from_base = cfa_off + ra->off; /* the bottom of a big frame */
	if (from_base < 0 || from_base / 8 > UINT8_MAX)
		return false;
	row->kind |= UNWIND_AT_BASE;
	row->rbp_off = (int8_t)(uint8_t)(from_base / 8);
	return true;
}

/* The CFA: sp or x29 plus a multiple of 8, 0 included (a leaf's CFA is
 * its sp); the kind, cfa_off, or the reason it is unsupported. */
static int a64_cfa(const struct cfa_state *st, struct unwind_row *row)
{
	int64_t off = st->cfa.off;

	if (st->cfa.how == RULE_EXPR)
		return UNWIND_UNSUP_CFA_EXPR;
	if (st->cfa.how != RULE_VAL_OFFSET || (st->cfa_reg != A64_SP && st->cfa_reg != A64_FP))
		return UNWIND_UNSUP_CFA_REG;
	if (off < 0 || off % 8 || off / 8 > UINT16_MAX)
		return UNWIND_UNSUP_CFA_OFF;
	row->kind = st->cfa_reg == A64_SP ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
	row->cfa_off = off / 8;
	return -1;
}

static struct unwind_row a64_classify(const struct cfa_state *st, uint64_t ra_reg, bool signal,
				      int *why)
{
	const struct rule *ra = &st->regs[SLOT_RA], *fp = &st->regs[SLOT_FP];
	const struct rule *sp = &st->regs[SLOT_SP];
	struct unwind_row row = { .kind = UNWIND_UNSUPPORTED };

	*why = -1;
	if (signal) /* the vDSO's sigreturn: the walk checks its code */
		return (struct unwind_row){ .kind = UNWIND_SIGNAL };
	if (ra_reg == A64_LR && ra->how == RULE_UNDEF)
		return (struct unwind_row){ .kind = UNWIND_END };
	if (ra_reg != A64_LR)
		*why = UNWIND_UNSUP_RA;
	else if (sp->how != RULE_SAME && !(sp->how == RULE_VAL_OFFSET && !sp->off))
		*why = UNWIND_UNSUP_RSP;
	else if ((*why = a64_cfa(st, &row)) >= 0)
		;
	else if (!a64_ra_slot(ra, st->cfa.off, &row))
		*why = UNWIND_UNSUP_RA;
	else if (fp->how == RULE_OFFSET && ra->how == RULE_OFFSET && fp->off == ra->off - 8)
		row.kind |= UNWIND_FP_BELOW;
	else if (fp->how != RULE_SAME)
		*why = UNWIND_UNSUP_RBP;
	if (*why >= 0)
		row = (struct unwind_row){ .kind = UNWIND_UNSUPPORTED };
	return row;
}
/* ---- end of arm64 */

/* The architectures whose CFI is read, by e_machine. */
struct cfi_arch {
	uint16_t machine;
	uint64_t fp, sp, ra; /* DWARF register numbers */
	bool negate_ra_state; /* opcode 0x2d is DW_CFA_AARCH64_negate_ra_state */
	struct unwind_row (*classify)(const struct cfa_state *st, uint64_t ra_reg, bool signal,
				      int *why);
};

static const struct cfi_arch arches[] = {
	{ EM_X86_64, REG_FP, REG_SP, REG_RA, false, x86_classify },
	{ EM_AARCH64, A64_FP, A64_SP, A64_LR, true, a64_classify },
};

const struct cfi_arch *cfi_arch_of(const GElf_Ehdr *eh)
{
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return NULL;
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].machine == eh->e_machine)
			return &arches[i];
	return NULL;
}

bool cfi_arch_is_host(const struct cfi_arch *a)
{
#if defined(__x86_64__)
	return a->machine == EM_X86_64;
#elif defined(__aarch64__)
	return a->machine == EM_AARCH64;
#else
	return false;
#endif
}

struct unwind_row cfi_classify(const struct cfi_arch *a, const struct cfa_state *st,
			       uint64_t ra_reg, bool signal, int *why)
{
	return a->classify(st, ra_reg, signal, why);
}

static int reg_slot(const struct cfi_arch *a, uint64_t reg)
{
	if (reg == a->fp)
		return SLOT_FP;
	if (reg == a->sp)
		return SLOT_SP;
	if (reg == a->ra)
		return SLOT_RA;
	return -1; /* the other registers do not matter to the unwinder */
}


/* ---- CFI records and CIEs */

int cfi_read_record(const struct cfi_sec *s, size_t off, struct rec *rec, size_t *next)
{
	size_t id_size = 4;
	struct rd r;
	uint64_t len;

	if (!s->data || off >= s->size)
		return 1;
	r = (struct rd){ s->data + off, s->data + s->size, false };
	len = rd_u(&r, 4);
	if (!r.bad && !len)
		return 1;
	if (len == 0xffffffff) {
		len = rd_u(&r, 8);
		id_size = s->eh ? 4 : 8; /* 64-bit DWARF */
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return -EINVAL;
	r.end = r.p + len;
	rec->end = r.end;
	rec->id_at = r.p;
	rec->id = rd_u(&r, id_size);
	if (r.bad)
		return -EINVAL;
	rec->cie = s->eh ? !rec->id : rec->id == (id_size == 8 ? UINT64_MAX : 0xffffffff);
	rec->body = r.p;
	*next = rec->end - s->data;
	return 0;
}

size_t cfi_cie_offset(const struct cfi_sec *s, const struct rec *fde)
{
	size_t at = fde->id_at - s->data;

	if (s->eh)
		return fde->id <= at ? at - fde->id : SIZE_MAX;
	return fde->id < s->size ? fde->id : SIZE_MAX;
}

/*
 * The augmentation string and data ("zRS": data length, FDE pointer
 * encoding, signal frame).  Strings without 'z' cannot be skipped, so only
 * the empty one is read; so is every letter GCC and LLVM write for x86_64.
 */
static bool read_augmentation(struct rd *r, const char *aug, struct cie *c)
{
	struct rd data;
	uint64_t len;

	c->fde_enc = DW_EH_PE_absptr;
	if (!*aug)
		return true;
	if (*aug != 'z')
		return false;
	c->aug_z = true;
	len = rd_uleb(r);
	if (r->bad || len > (uint64_t)(r->end - r->p))
		return false;
	data = (struct rd){ r->p, r->p + len, false };
	r->p += len;
	for (aug++; *aug; aug++) {
		if (*aug == 'R') {
			c->fde_enc = rd_u8(&data);
		} else if (*aug == 'P') {
			uint8_t enc = rd_u8(&data);

			rd_enc(&data, enc, 8); /* the personality routine */
		} else if (*aug == 'L') {
			rd_u8(&data); /* the LSDA's encoding */
		} else if (*aug == 'S') {
			c->signal = true;
		} else {
			return false;
		}
	}
	return !data.bad;
}

bool cfi_read_cie_header(struct rd *r, struct cie *c)
{
	const char *aug;
	size_t len;
	uint8_t version = rd_u8(r);

	if (version != 1 && version != 3 && version != 4)
		return false;
	aug = (const char *)r->p;
	len = strnlen(aug, r->end - r->p);
	if (len == (size_t)(r->end - r->p))
		return false;
	r->p += len + 1;
	c->addr_size = 8;
	if (version == 4) { /* .debug_frame v4: address and segment sizes */
		c->addr_size = rd_u8(r);
		if (rd_u8(r) || (c->addr_size != 4 && c->addr_size != 8))
			return false;
	}
	c->caf = rd_uleb(r);
	c->daf = rd_sleb(r);
	c->ra = version == 1 ? rd_u8(r) : rd_uleb(r);
	return !r->bad && read_augmentation(r, aug, c);
}
/* ---- CFA programs */


/* A factored operand: n * factor, false when it overflows. */
static bool scale(int64_t n, int64_t factor, int64_t *out)
{
	return !__builtin_mul_overflow(n, factor, out);
}

/* The location moves to `to`: the rows so far cover [loc, to). */
static int move_to(struct cfi_exec *x, uint64_t to)
{
	int err;

	if (!x->fde || to < x->loc)
		return -EINVAL; /* a CIE has no location; set_loc went back */
	if (to == x->loc)
		return 0;
	if (to > x->end)
		to = x->end;
	err = x->emit(x->arg, x->loc, to, &x->st, x->cie);
	x->loc = to;
	return err;
}

static int advance(struct cfi_exec *x, uint64_t n)
{
	uint64_t delta, to;

	if (__builtin_mul_overflow(n, x->cie->caf, &delta) ||
	    __builtin_add_overflow(x->loc, delta, &to))
		to = UINT64_MAX;
	return move_to(x, to);
}

static int set_loc(struct cfi_exec *x, struct rd *r)
{
	uint64_t here = x->here + (r->p - x->sec_data);
	uint64_t to = rd_ptr(r, x->cie->fde_enc, x->cie->addr_size, here);

	return r->bad ? -EINVAL : move_to(x, to);
}

/* DW_CFA_restore: back to the CIE's rule (inside a CIE: unspecified). */
static void restore(struct cfi_exec *x, uint64_t reg)
{
	int slot = reg_slot(x->arch, reg);

	if (slot >= 0)
		x->st.regs[slot] = x->fde ? x->cie->init.regs[slot] : (struct rule){ 0 };
}

/* A DWARF expression block operand: its bytes stay in the section. */
static bool read_block(struct rd *r, struct rule *rule)
{
	uint64_t len = rd_uleb(r);

	if (r->bad || len > (uint64_t)(r->end - r->p))
		return false;
	rule->expr = r->p;
	rule->len = len;
	r->p += len;
	return true;
}

/* An unsigned factored operand. */
static bool scale_u(uint64_t n, int64_t factor, int64_t *out)
{
	return n <= INT64_MAX && scale((int64_t)n, factor, out);
}

/* Instructions that set one register's rule; -ENOENT for the others. */
static int step_reg(struct cfi_exec *x, struct rd *r, uint8_t op)
{
	struct rule rule = { .how = RULE_OFFSET };
	int64_t daf = x->cie->daf, n;
	uint64_t reg;
	bool ok = true;

	switch (op) {
	case DW_CFA_offset_extended: case DW_CFA_offset_extended_sf:
	case DW_CFA_GNU_negative_offset_extended: case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf: case DW_CFA_register: case DW_CFA_undefined:
	case DW_CFA_same_value: case DW_CFA_expression: case DW_CFA_val_expression:
	case DW_CFA_restore_extended:
		reg = rd_uleb(r);
		break;
	default:
		return -ENOENT;
	}
	switch (op) {
	case DW_CFA_offset_extended:
		ok = scale_u(rd_uleb(r), daf, &rule.off);
		break;
	case DW_CFA_offset_extended_sf:
		ok = scale(rd_sleb(r), daf, &rule.off);
		break;
	case DW_CFA_GNU_negative_offset_extended:
		ok = scale_u(rd_uleb(r), daf, &n) && !__builtin_sub_overflow(0, n, &rule.off);
		break;
	case DW_CFA_val_offset:
		rule.how = RULE_VAL_OFFSET;
		ok = scale_u(rd_uleb(r), daf, &rule.off);
		break;
	case DW_CFA_val_offset_sf:
		rule.how = RULE_VAL_OFFSET;
		ok = scale(rd_sleb(r), daf, &rule.off);
		break;
	case DW_CFA_register:
		rule.how = RULE_REG;
		rule.off = rd_uleb(r) & INT64_MAX;
		break;
	case DW_CFA_undefined:
		rule.how = RULE_UNDEF;
		break;
	case DW_CFA_same_value:
		rule.how = RULE_SAME;
		break;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		rule.how = op == DW_CFA_expression ? RULE_EXPR : RULE_VAL_EXPR;
		ok = read_block(r, &rule);
		break;
	case DW_CFA_restore_extended:
		restore(x, reg);
		return r->bad ? -EINVAL : 0;
	}
	if (!ok || r->bad)
		return -EINVAL;
	if (reg_slot(x->arch, reg) >= 0)
		x->st.regs[reg_slot(x->arch, reg)] = rule;
	return 0;
}

/* Instructions that set the CFA rule; -ENOENT for the others. */
static int step_cfa(struct cfi_exec *x, struct rd *r, uint8_t op)
{
	struct rule *cfa = &x->st.cfa;
	bool ok = true;

	switch (op) {
	case DW_CFA_def_cfa:
		x->st.cfa_reg = rd_uleb(r);
		*cfa = (struct rule){ .how = RULE_VAL_OFFSET };
		ok = scale_u(rd_uleb(r), 1, &cfa->off);
		break;
	case DW_CFA_def_cfa_sf:
		x->st.cfa_reg = rd_uleb(r);
		*cfa = (struct rule){ .how = RULE_VAL_OFFSET };
		ok = scale(rd_sleb(r), x->cie->daf, &cfa->off);
		break;
	case DW_CFA_def_cfa_register: /* only after a register + offset rule */
		x->st.cfa_reg = rd_uleb(r);
		ok = cfa->how == RULE_VAL_OFFSET;
		break;
	case DW_CFA_def_cfa_offset:
		ok = cfa->how == RULE_VAL_OFFSET && scale_u(rd_uleb(r), 1, &cfa->off);
		break;
	case DW_CFA_def_cfa_offset_sf:
		ok = cfa->how == RULE_VAL_OFFSET &&
		     scale(rd_sleb(r), x->cie->daf, &cfa->off);
		break;
	case DW_CFA_def_cfa_expression:
		*cfa = (struct rule){ .how = RULE_EXPR };
		ok = read_block(r, cfa);
		break;
	default:
		return -ENOENT;
	}
	return ok && !r->bad ? 0 : -EINVAL;
}

/* One instruction of any kind. */
static int step(struct cfi_exec *x, struct rd *r)
{
	uint8_t op = rd_u8(r);
	int64_t off;
	int err;

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance(x, op & 0x3f);
	case DW_CFA_offset:
		if (!scale_u(rd_uleb(r), x->cie->daf, &off) || r->bad)
			return -EINVAL;
		if (reg_slot(x->arch, op & 0x3f) >= 0)
			x->st.regs[reg_slot(x->arch, op & 0x3f)] =
				(struct rule){ RULE_OFFSET, off, NULL, 0 };
		return 0;
	case DW_CFA_restore:
		restore(x, op & 0x3f);
		return 0;
	}
	switch (op) {
	case DW_CFA_nop:
		return r->bad ? -EINVAL : 0; /* also what a truncated read gives */
	case DW_CFA_set_loc:
		return set_loc(x, r);
	case DW_CFA_advance_loc1:
	case DW_CFA_advance_loc2:
	case DW_CFA_advance_loc4:
		off = rd_u(r, op == DW_CFA_advance_loc1 ? 1 : op == DW_CFA_advance_loc2 ? 2 : 4);
		return r->bad ? -EINVAL : advance(x, off);
	case DW_CFA_remember_state:
		if (x->depth == MAX_STATE_STACK)
			return -EINVAL;
		x->saved[x->depth++] = x->st;
		return 0;
	case DW_CFA_restore_state:
		if (!x->depth)
			return -EINVAL;
		x->st = x->saved[--x->depth];
		return 0;
	case DW_CFA_GNU_args_size:
		rd_uleb(r);
		return r->bad ? -EINVAL : 0;
	case DW_CFA_AARCH64_negate_ra_state: /* x30 signed or not: the walk strips it */
		if (x->arch->negate_ra_state)
			return 0;
		break;
	}
	if ((err = step_cfa(x, r, op)) != -ENOENT || (err = step_reg(x, r, op)) != -ENOENT)
		return err;
	return -EINVAL; /* unknown, or another architecture's */
}

int cfi_run(struct cfi_exec *x, struct rd *r)
{
	int err;

	while (r->p < r->end && (!x->fde || x->loc < x->end)) {
		if (!cfi_pay(x->work, 1, 1))
			return -ETIME;
		err = step(x, r);
		if (err)
			return err == -EINVAL ? err : -E2BIG;
	}
	return 0;
}

