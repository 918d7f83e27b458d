// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind tables: owns reading a file's call-frame information (the CIEs and
 * FDEs of .eh_frame and .debug_frame, and their CFA programs) and reducing
 * it to the rows of include/unwind.h that the BPF unwinder walks.
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
 * bounds-checked, and every instruction counts against a budget.
 *
 * A build has two passes.  The first lists the FDEs of every source (pc
 * range, where the record is), sorts them and drops overlaps (.eh_frame
 * wins).  The second runs the FDEs' programs in address order, appending
 * rows, merging each with the last when their rules are equal and putting
 * a gap row wherever no FDE covers the code.  Memory is that list, the rows
 * and the CFI sections' bytes.  .eh_frame_hdr only serves to find .eh_frame
 * in a file without section headers, as the C runtime's unwinder finds it:
 * its sorted index would save a sort, at the price of trusting it.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf_syms.h"
#include "unwind_table.h"

/* libLLVM-14, 105 MB: 0.95 Mi rows, a 4.9 MiB .eh_frame, 2.2 Mi instructions. */
#define DEFAULT_MAX_ROWS (2u << 20)
#define DEFAULT_MAX_CFI_BYTES (64u << 20)
#define DEFAULT_MAX_INSNS (64ull << 20)
/* Section offsets are kept in 32 bits. */
#define MAX_CFI_BYTES 0xffffffffu
/* DW_CFA_remember_state nesting: compilers use 1 or 2. */
#define MAX_STATE_STACK 32
/* Parsed CIEs, direct-mapped by offset: a linked .eh_frame has a handful,
 * a .debug_frame one per compilation unit, used by neighbouring FDEs. */
#define CIE_CACHE 64
#define MAX_EXEC_SEGS 16
#define MAX_PHDRS (1u << 16)

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
};

enum {
	DW_EH_PE_absptr = 0x00, DW_EH_PE_uleb128 = 0x01, DW_EH_PE_udata2 = 0x02,
	DW_EH_PE_udata4 = 0x03, DW_EH_PE_udata8 = 0x04, DW_EH_PE_sleb128 = 0x09,
	DW_EH_PE_sdata2 = 0x0a, DW_EH_PE_sdata4 = 0x0b, DW_EH_PE_sdata8 = 0x0c,
	DW_EH_PE_pcrel = 0x10, DW_EH_PE_datarel = 0x30,
};

enum {
	DW_OP_deref = 0x06, DW_OP_and = 0x1a, DW_OP_plus = 0x22, DW_OP_shl = 0x24,
	DW_OP_ge = 0x2a, DW_OP_lit0 = 0x30, DW_OP_breg0 = 0x70,
};

/* A register's rule, as the CFA program leaves it. */
enum how {
	RULE_SAME,       /* not mentioned, or DW_CFA_same_value */
	RULE_UNDEF,
	RULE_OFFSET,     /* saved at CFA + off */
	RULE_VAL_OFFSET, /* is CFA + off */
	RULE_REG,        /* in register off */
	RULE_EXPR,       /* saved at the address expr computes */
	RULE_VAL_EXPR,
};

struct rule {
	enum how how;
	int64_t off;
	const uint8_t *expr; /* inside the CFI section */
	size_t len;
};

/*
 * ---- x86_64: the architecture's registers and the CFA expressions that
 * mean something of their own.  An arm64 port adds its own version of this
 * block (sp 31, x29, the return address in x30, and the opcode 0x2d, which
 * is DW_CFA_AARCH64_negate_ra_state there) and picks one by e_machine.
 */
#define REG_FP 6  /* rbp */
#define REG_SP 7  /* rsp */
#define REG_RA 16 /* the return address column */
enum slot { SLOT_FP, SLOT_SP, SLOT_RA, SLOTS };

static int reg_slot(uint64_t reg)
{
	switch (reg) {
	case REG_FP:
		return SLOT_FP;
	case REG_SP:
		return SLOT_SP;
	case REG_RA:
		return SLOT_RA;
	}
	return -1; /* the other registers do not matter to the unwinder */
}

static bool arch_supported(const GElf_Ehdr *eh)
{
	return eh->e_machine == EM_X86_64 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB;
}

/* ---- Bounds-checked reading of little-endian CFI bytes. */
struct rd {
	const uint8_t *p, *end;
	bool bad; /* a read ran past end or a number overflowed */
};

static bool rd_need(struct rd *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return false;
	}
	return true;
}

static uint64_t rd_u(struct rd *r, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (!rd_need(r, n))
		return 0;
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint8_t rd_u8(struct rd *r)
{
	return rd_u(r, 1);
}

/* LEB128 of up to 64 bits; longer or wider is bad. */
static uint64_t rd_leb(struct rd *r, bool sign)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t byte;

	do {
		if (!rd_need(r, 1) || shift >= 64) {
			r->bad = true;
			return 0;
		}
		byte = *r->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (sign && shift < 64 && (byte & 0x40))
		v |= ~0ull << shift;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	return rd_leb(r, false);
}

static int64_t rd_sleb(struct rd *r)
{
	return (int64_t)rd_leb(r, true);
}

/* A value in pointer encoding fmt's format (the low 4 bits). */
static uint64_t rd_enc(struct rd *r, uint8_t fmt, uint8_t addr_size)
{
	switch (fmt & 0x0f) {
	case DW_EH_PE_absptr:
		return rd_u(r, addr_size);
	case DW_EH_PE_uleb128:
		return rd_uleb(r);
	case DW_EH_PE_udata2:
		return rd_u(r, 2);
	case DW_EH_PE_udata4:
		return rd_u(r, 4);
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return rd_u(r, 8);
	case DW_EH_PE_sleb128:
		return rd_sleb(r);
	case DW_EH_PE_sdata2:
		return (uint64_t)(int64_t)(int16_t)rd_u(r, 2);
	case DW_EH_PE_sdata4:
		return (uint64_t)(int64_t)(int32_t)rd_u(r, 4);
	}
	r->bad = true;
	return 0;
}

/*
 * A pointer in encoding enc at r, whose bytes are at vaddr here.  Code
 * addresses are absolute or relative to themselves; the other bases
 * (text, data, function) and indirection are not used for them.
 */
static uint64_t rd_ptr(struct rd *r, uint8_t enc, uint8_t addr_size, uint64_t here)
{
	uint64_t v = rd_enc(r, enc, addr_size);

	switch (enc & 0xf0) {
	case DW_EH_PE_absptr:
		return v;
	case DW_EH_PE_pcrel:
		return here + v;
	}
	r->bad = true;
	return 0;
}

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

/* What the CFA program says at one location. */
struct cfa_state {
	struct rule cfa;  /* RULE_VAL_OFFSET: cfa_reg + off; RULE_EXPR; RULE_UNDEF
			   * before any DW_CFA_def_cfa */
	uint64_t cfa_reg;
	struct rule regs[SLOTS];
};

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

/*
 * The row for a CFA program's state; *why gets the unsupported reason, or
 * -1.  Every kind that unwinds has the caller's rsp at the CFA and its
 * return address at CFA - 8: anything else is unsupported.
 */
static struct unwind_row classify(const struct cfa_state *st, uint64_t ra_reg,
				  bool signal, int *why)
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

/* ---- CFI sections, records and CIEs */

/* A CFI section's bytes and where they are mapped (pcrel pointers need it). */
struct cfi_sec {
	const uint8_t *data; /* libelf's, or owned */
	size_t size;
	uint64_t vaddr;
	bool eh;     /* .eh_frame's CIE ids and CIE pointers, else .debug_frame's */
	void *owned; /* an inflated copy to free */
};

/* One CIE or FDE. */
struct rec {
	const uint8_t *id_at; /* the CIE id, or the FDE's CIE pointer */
	const uint8_t *body, *end;
	uint64_t id;
	bool cie;
};

struct cie {
	bool used, ok; /* cache slot in use; parsed and usable */
	uint8_t src;
	size_t off;
	uint64_t caf, ra;
	int64_t daf;
	uint8_t fde_enc, addr_size;
	bool aug_z, signal;
	struct cfa_state init; /* after the initial instructions */
};

/* The record at off: 0, 1 past the last one (end or zero terminator), or
 * -EINVAL.  *next is where the following one starts. */
static int read_record(const struct cfi_sec *s, size_t off, struct rec *rec,
		       size_t *next)
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

/* Where an FDE's CIE is: relative to the pointer in .eh_frame, from the
 * section's start in .debug_frame.  SIZE_MAX when outside. */
static size_t cie_offset(const struct cfi_sec *s, const struct rec *fde)
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

/* Version, augmentation, factors and return address column of a CIE; r
 * is left at its initial instructions. */
static bool read_cie_header(struct rd *r, struct cie *c)
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

/* ---- The table being built */

struct unwind_table {
	uint64_t base;
	struct unwind_row *rows;
	size_t nr;
	struct unwind_stats stats;
};

/* An FDE kept for the second pass; pcs relative to the base. */
struct fde_ref {
	uint32_t pc, len;
	uint32_t off; /* of its record in its section */
	uint8_t src;  /* enum unwind_source */
};

struct exec_seg {
	uint64_t lo, hi;
};

struct builder {
	struct unwind_table *t;
	size_t cap, max_rows;
	uint64_t max_insns;
	uint64_t base;
	uint64_t covered; /* vaddr up to which rows were appended */
	struct exec_seg segs[MAX_EXEC_SEGS];
	size_t nr_segs;
	struct cfi_sec sec[UNWIND_SRC__MAX];
	struct fde_ref *fdes;
	size_t nr_fdes, fdes_cap;
	struct cie cies[CIE_CACHE];
	struct cfa_state saved[MAX_STATE_STACK]; /* DW_CFA_remember_state's */
	bool fdes_full; /* no room for more FDEs: list no more */
	bool halt;      /* a budget is spent, or memory: build no more */
	bool nomem;
};

static void note_stop(struct builder *b, enum unwind_stop why)
{
	if (!b->t->stats.stopped)
		b->t->stats.stopped = why;
}

/* A budget is spent: the table ends where the rows got to. */
static void stop(struct builder *b, enum unwind_stop why)
{
	note_stop(b, why);
	b->halt = true;
}

static bool stopped(const struct builder *b)
{
	return b->halt || b->nomem;
}

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off;
}

/*
 * Appends the row for [from, to), merged into the last row when their rules
 * are equal.  Rows arrive in address order and each starts where the last
 * one ended (build_rows puts gaps between).  One row stays free for the
 * closing gap.
 */
static int emit_row(struct builder *b, uint64_t from, uint64_t to,
		    struct unwind_row row)
{
	struct unwind_table *t = b->t;
	struct unwind_row *rows;

	row.pc = from - b->base;
	if (t->nr && same_rule(&t->rows[t->nr - 1], &row)) {
		b->covered = to;
		return 0;
	}
	if (t->nr + 1 >= b->max_rows) {
		stop(b, UNWIND_STOP_ROWS);
		return -E2BIG;
	}
	if (t->nr >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;

		if (cap > b->max_rows)
			cap = b->max_rows;
		rows = realloc(t->rows, cap * sizeof(*rows));
		if (!rows) {
			b->nomem = true;
			return -ENOMEM;
		}
		t->rows = rows;
		b->cap = cap;
	}
	t->rows[t->nr++] = row;
	b->covered = to;
	return 0;
}

/* The row of a CFA program's state, counted among the CFI's rows. */
static int emit_cfi(struct builder *b, uint64_t from, uint64_t to,
		    const struct cfa_state *st, const struct cie *c)
{
	struct unwind_stats *s = &b->t->stats;
	int why;
	struct unwind_row row = classify(st, c->ra, c->signal, &why);

	s->cfi_rows++;
	s->cfi_rows_by_kind[row.kind]++;
	if (why >= 0)
		s->unsupported[why]++;
	return emit_row(b, from, to, row);
}

static int emit_bad(struct builder *b, uint64_t from, uint64_t to)
{
	struct unwind_stats *s = &b->t->stats;

	s->cfi_rows++;
	s->cfi_rows_by_kind[UNWIND_UNSUPPORTED]++;
	s->unsupported[UNWIND_UNSUP_BAD_CFI]++;
	return emit_row(b, from, to, (struct unwind_row){ .kind = UNWIND_UNSUPPORTED });
}

/* ---- CFA programs */

/* A program being run: a CIE's initial instructions or an FDE's. */
struct exec {
	struct builder *b;
	const struct cie *cie;
	uint64_t here; /* vaddr of the section's first byte, for set_loc */
	const uint8_t *sec_data;
	struct cfa_state st;
	struct cfa_state *saved; /* the builder's: never zeroed per program */
	unsigned int depth;
	uint64_t loc, end; /* the FDE's range; a CIE has none */
	bool fde;
};

/* A factored operand: n * factor, false when it overflows. */
static bool scale(int64_t n, int64_t factor, int64_t *out)
{
	return !__builtin_mul_overflow(n, factor, out);
}

/* The location moves to `to`: the rows so far cover [loc, to). */
static int move_to(struct exec *x, uint64_t to)
{
	int err;

	if (!x->fde || to < x->loc)
		return -EINVAL; /* a CIE has no location; set_loc went back */
	if (to == x->loc)
		return 0;
	if (to > x->end)
		to = x->end;
	err = emit_cfi(x->b, x->loc, to, &x->st, x->cie);
	x->loc = to;
	return err;
}

static int advance(struct exec *x, uint64_t n)
{
	uint64_t delta, to;

	if (__builtin_mul_overflow(n, x->cie->caf, &delta) ||
	    __builtin_add_overflow(x->loc, delta, &to))
		to = UINT64_MAX;
	return move_to(x, to);
}

static int set_loc(struct exec *x, struct rd *r)
{
	uint64_t here = x->here + (r->p - x->sec_data);
	uint64_t to = rd_ptr(r, x->cie->fde_enc, x->cie->addr_size, here);

	return r->bad ? -EINVAL : move_to(x, to);
}

/* DW_CFA_restore: back to the CIE's rule (inside a CIE: unspecified). */
static void restore(struct exec *x, uint64_t reg)
{
	int slot = reg_slot(reg);

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
static int step_reg(struct exec *x, struct rd *r, uint8_t op)
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
	if (reg_slot(reg) >= 0)
		x->st.regs[reg_slot(reg)] = rule;
	return 0;
}

/* Instructions that set the CFA rule; -ENOENT for the others. */
static int step_cfa(struct exec *x, struct rd *r, uint8_t op)
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
static int step(struct exec *x, struct rd *r)
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
		if (reg_slot(op & 0x3f) >= 0)
			x->st.regs[reg_slot(op & 0x3f)] = (struct rule){ RULE_OFFSET, off, NULL, 0 };
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
	}
	if ((err = step_cfa(x, r, op)) != -ENOENT || (err = step_reg(x, r, op)) != -ENOENT)
		return err;
	return -EINVAL; /* unknown, or another architecture's */
}

/*
 * Runs the program in r: 0 at its end or the FDE's, -EINVAL at a malformed
 * instruction, -E2BIG when a budget stopped the build.
 */
static int run(struct exec *x, struct rd *r)
{
	struct unwind_stats *s = &x->b->t->stats;
	int err;

	while (r->p < r->end && (!x->fde || x->loc < x->end)) {
		if (++s->insns > x->b->max_insns) {
			stop(x->b, UNWIND_STOP_INSNS);
			return -E2BIG;
		}
		err = step(x, r);
		if (err)
			return err == -EINVAL ? err : -E2BIG;
	}
	return 0;
}

/* The CIE at off in source src, parsed once and cached; NULL if unusable. */
static const struct cie *get_cie(struct builder *b, uint8_t src, size_t off)
{
	const struct cfi_sec *s = &b->sec[src];
	struct cie *c = &b->cies[(off ^ (off >> 7) ^ src) % CIE_CACHE];
	struct exec x = { .b = b, .cie = c, .here = s->vaddr, .sec_data = s->data,
			  .saved = b->saved };
	struct rec rec;
	struct rd r;
	size_t next;

	if (c->used && c->off == off && c->src == src)
		return c->ok ? c : NULL;
	*c = (struct cie){ .used = true, .src = src, .off = off };
	if (read_record(s, off, &rec, &next) || !rec.cie)
		return NULL;
	r = (struct rd){ rec.body, rec.end, false };
	if (!read_cie_header(&r, c))
		return NULL;
	x.st.cfa.how = RULE_UNDEF;
	if (run(&x, &r)) {
		if (stopped(b)) /* not the CIE's fault: parse it again next time */
			c->used = false;
		return NULL;
	}
	c->init = x.st;
	c->ok = true;
	return c;
}

/* ---- FDEs */

struct fde {
	const struct cie *cie;
	uint64_t start, end;
	const uint8_t *insns, *insns_end;
};

/* An FDE's CIE, range and program. */
static int read_fde(struct builder *b, uint8_t src, const struct rec *rec,
		    struct fde *fd)
{
	const struct cfi_sec *s = &b->sec[src];
	size_t cie_off = cie_offset(s, rec);
	struct rd r = { rec->body, rec->end, false };
	uint64_t len, aug_len;

	if (cie_off == SIZE_MAX || !(fd->cie = get_cie(b, src, cie_off)))
		return -EINVAL;
	fd->start = rd_ptr(&r, fd->cie->fde_enc, fd->cie->addr_size,
			   s->vaddr + (r.p - s->data));
	len = rd_enc(&r, fd->cie->fde_enc, fd->cie->addr_size);
	if (fd->cie->aug_z) {
		aug_len = rd_uleb(&r);
		if (!r.bad && aug_len <= (uint64_t)(r.end - r.p))
			r.p += aug_len;
		else
			r.bad = true;
	}
	if (r.bad || __builtin_add_overflow(fd->start, len, &fd->end))
		return -EINVAL;
	fd->insns = r.p;
	fd->insns_end = r.end;
	return 0;
}

/* Whether [lo, hi) lies in one executable segment (then its pcs fit in 32
 * bits: segments were clipped to 4 GiB past the base). */
static bool in_exec_segment(const struct builder *b, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < b->nr_segs; i++)
		if (lo >= b->segs[i].lo && hi <= b->segs[i].hi)
			return true;
	return false;
}

static int push_fde(struct builder *b, const struct fde_ref *e)
{
	struct fde_ref *fdes;

	/* Every FDE takes a row at least: those listed so far are built. */
	if (b->nr_fdes + 1 >= b->max_rows) {
		note_stop(b, UNWIND_STOP_ROWS);
		b->fdes_full = true;
		return -E2BIG;
	}
	if (b->nr_fdes == b->fdes_cap) {
		size_t cap = b->fdes_cap ? b->fdes_cap * 2 : 1024;

		if (cap > b->max_rows)
			cap = b->max_rows;
		fdes = realloc(b->fdes, cap * sizeof(*fdes));
		if (!fdes) {
			b->nomem = true;
			return -ENOMEM;
		}
		b->fdes = fdes;
		b->fdes_cap = cap;
	}
	b->fdes[b->nr_fdes++] = *e;
	return 0;
}

/* Pass one: the FDEs of one source.  A record that cannot be read ends the
 * section, since the next one's start is unknown. */
static void list_fdes(struct builder *b, uint8_t src)
{
	const struct cfi_sec *s = &b->sec[src];
	struct unwind_stats *st = &b->t->stats;
	size_t off = 0, next;
	struct rec rec;
	struct fde fd;
	int rc;

	while (!stopped(b) && !b->fdes_full &&
	       (rc = read_record(s, off, &rec, &next)) == 0) {
		if (!rec.cie && read_fde(b, src, &rec, &fd)) {
			st->fdes_bad += !stopped(b);
		} else if (!rec.cie && fd.start != fd.end) {
			if (!in_exec_segment(b, fd.start, fd.end))
				st->fdes_outside++;
			else if (push_fde(b, &(struct fde_ref){
					.pc = fd.start - b->base, .len = fd.end - fd.start,
					.off = off, .src = src }))
				return;
		}
		off = next;
	}
	if (!stopped(b) && !b->fdes_full && rc < 0)
		st->fdes_bad++;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->src - y->src;
}

/*
 * Sorts the FDEs and drops overlaps.  Where two overlap, the one from the
 * better source stays (.eh_frame, which the C runtime unwinds with, before
 * .debug_frame), else the first.  Those kept end before the next starts,
 * so only the last kept can overlap the next one.
 */
static void sort_fdes(struct builder *b)
{
	size_t i, n = 0;
	struct fde_ref *last;

	if (!b->nr_fdes)
		return;
	qsort(b->fdes, b->nr_fdes, sizeof(*b->fdes), fde_cmp);
	for (i = 0; i < b->nr_fdes; i++) {
		const struct fde_ref *e = &b->fdes[i];

		last = n ? &b->fdes[n - 1] : NULL;
		if (last && (uint64_t)last->pc + last->len > e->pc) {
			b->t->stats.fdes_overlap++;
			if (e->src >= last->src)
				continue;
			n--; /* e replaces last */
		}
		b->fdes[n++] = *e;
	}
	b->nr_fdes = n;
}

/* Pass two, one FDE: its program's rows; a malformed instruction makes the
 * rest of its range UNSUPPORTED. */
static void run_fde(struct builder *b, const struct fde_ref *e)
{
	const struct cfi_sec *s = &b->sec[e->src];
	struct exec x = { .b = b, .here = s->vaddr, .sec_data = s->data,
			  .saved = b->saved, .fde = true };
	struct rec rec;
	struct fde fd;
	struct rd r;
	size_t next;
	int err;

	if (read_record(s, e->off, &rec, &next) || read_fde(b, e->src, &rec, &fd))
		return; /* read in pass one; only a budget stops it now */
	x.cie = fd.cie;
	x.st = fd.cie->init;
	x.loc = fd.start;
	x.end = fd.end;
	r = (struct rd){ fd.insns, fd.insns_end, false };
	err = run(&x, &r);
	if (err == -EINVAL)
		emit_bad(b, x.loc, x.end);
	else if (!err && x.loc < x.end)
		emit_cfi(b, x.loc, x.end, &x.st, x.cie);
	if (!stopped(b))
		b->t->stats.fdes_by_source[e->src]++;
}

/* The rows of every FDE kept, with gaps between, and the closing gap. */
static int build_rows(struct builder *b)
{
	struct unwind_table *t = b->t;
	struct unwind_row *rows;
	const struct fde_ref *e;
	size_t i;

	b->covered = b->base;
	for (i = 0; i < b->nr_fdes && !stopped(b); i++) {
		e = &b->fdes[i];
		if (b->covered < b->base + e->pc &&
		    emit_row(b, b->covered, b->base + e->pc, (struct unwind_row){ 0 }))
			break;
		run_fde(b, e);
	}
	if (b->nomem)
		return -ENOMEM;
	/* The closing gap (room was kept for it), and no spare capacity. */
	rows = realloc(t->rows, (t->nr + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	t->rows = rows;
	if (!t->nr || t->rows[t->nr - 1].kind != UNWIND_GAP)
		t->rows[t->nr++] = (struct unwind_row){ .pc = b->covered - b->base };
	return 0;
}

/* ---- Reading the file */

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *n;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS || !sh->sh_size)
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * Section name of f into s.  Its first max bytes only (a cut record ends
 * the list there); a compressed one is inflated whole, within max, or left
 * out.  Either counts as a budget stop.
 */
static void load_section(struct builder *b, struct elf_file *f, const char *name,
			 size_t max, struct cfi_sec *s)
{
	Elf *elf = elf_file__elf(f);
	GElf_Shdr sh;
	Elf_Data *d;
	size_t len;

	if (!elf || !find_section(elf, name, &sh))
		return;
	s->vaddr = sh.sh_addr;
	if (sh.sh_flags & SHF_COMPRESSED) {
		s->owned = elf_file__section(f, name, max, &len);
		if (!s->owned)
			note_stop(b, UNWIND_STOP_BYTES);
		s->data = s->owned;
		s->size = s->owned ? len : 0;
		return;
	}
	if (sh.sh_size > max)
		note_stop(b, UNWIND_STOP_BYTES);
	d = elf_getdata_rawchunk(elf, sh.sh_offset, sh.sh_size > max ? max : sh.sh_size,
				 ELF_T_BYTE);
	if (d && d->d_buf) {
		s->data = d->d_buf;
		s->size = d->d_size;
	}
}

/* The PT_LOAD holding vaddr: its bytes from vaddr on, within max. */
static Elf_Data *segment_bytes(Elf *elf, uint64_t vaddr, size_t max)
{
	GElf_Phdr ph;
	size_t i, n;
	uint64_t skip;

	if (elf_getphdrnum(elf, &n))
		return NULL;
	for (i = 0; i < n && i < MAX_PHDRS; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		skip = vaddr - ph.p_vaddr;
		return elf_getdata_rawchunk(elf, ph.p_offset + skip,
					    ph.p_filesz - skip > max ? max : ph.p_filesz - skip,
					    ELF_T_BYTE);
	}
	return NULL;
}

/*
 * Without a .eh_frame section header: PT_GNU_EH_FRAME's .eh_frame_hdr
 * points at .eh_frame, as the C runtime's unwinder finds it.  Its size is
 * unknown: up to its zero terminator, read within its segment.
 */
static void load_eh_frame_phdr(Elf *elf, size_t max, struct cfi_sec *s)
{
	GElf_Phdr ph;
	Elf_Data *hdr = NULL, *d;
	struct rd r;
	size_t i, n;
	uint8_t enc;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && i < MAX_PHDRS && !hdr; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_GNU_EH_FRAME &&
		    ph.p_filesz >= 12)
			hdr = elf_getdata_rawchunk(elf, ph.p_offset, 12, ELF_T_BYTE);
	if (!hdr || !hdr->d_buf || hdr->d_size < 12)
		return;
	r = (struct rd){ hdr->d_buf, (const uint8_t *)hdr->d_buf + 12, false };
	if (rd_u8(&r) != 1)
		return; /* version */
	enc = rd_u8(&r);
	r.p += 2; /* the FDE count's and search table's encodings */
	s->vaddr = (enc & 0xf0) == DW_EH_PE_datarel ? ph.p_vaddr + rd_enc(&r, enc, 8) :
		   rd_ptr(&r, enc, 8, ph.p_vaddr + 4);
	d = r.bad ? NULL : segment_bytes(elf, s->vaddr, max);
	if (d && d->d_buf) {
		s->data = d->d_buf;
		s->size = d->d_size;
	}
}

/* The executable PT_LOADs, the base (the lowest), each clipped to 4 GiB
 * past the base so that every pc in them fits a row. */
static int load_segments(struct builder *b, Elf *elf)
{
	uint64_t lo = UINT64_MAX, limit;
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n && i < MAX_PHDRS && b->nr_segs < MAX_EXEC_SEGS; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !ph.p_memsz ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		b->segs[b->nr_segs++] = (struct exec_seg){ ph.p_vaddr, ph.p_vaddr + ph.p_memsz };
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
	}
	if (!b->nr_segs)
		return -ENOEXEC;
	b->base = lo;
	limit = lo + UINT32_MAX < lo ? UINT64_MAX : lo + UINT32_MAX;
	for (i = 0; i < b->nr_segs; i++) {
		if (b->segs[i].hi > limit)
			b->segs[i].hi = limit;
		if (b->segs[i].lo > limit)
			b->segs[i].lo = limit;
	}
	return 0;
}

/* f's CFI sections and dbg's .debug_frame (when dbg is the same machine). */
static void load_sections(struct builder *b, struct elf_file *f,
			  struct elf_file *dbg, size_t max)
{
	GElf_Ehdr feh, deh;

	load_section(b, f, ".eh_frame", max, &b->sec[UNWIND_SRC_EH_FRAME]);
	if (!b->sec[UNWIND_SRC_EH_FRAME].data)
		load_eh_frame_phdr(elf_file__elf(f), max, &b->sec[UNWIND_SRC_EH_FRAME]);
	b->sec[UNWIND_SRC_EH_FRAME].eh = true;
	load_section(b, f, ".debug_frame", max, &b->sec[UNWIND_SRC_DEBUG_FRAME]);
	if (dbg && gelf_getehdr(elf_file__elf(f), &feh) &&
	    gelf_getehdr(elf_file__elf(dbg), &deh) && feh.e_machine == deh.e_machine)
		load_section(b, dbg, ".debug_frame", max, &b->sec[UNWIND_SRC_DBG_DEBUG_FRAME]);
}

static void builder_free(struct builder *b)
{
	size_t i;

	for (i = 0; i < UNWIND_SRC__MAX; i++)
		free(b->sec[i].owned);
	free(b->fdes);
	free(b);
}

static struct builder *builder_new(const struct unwind_build_opts *o)
{
	struct builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->t = calloc(1, sizeof(*b->t));
	if (!b->t) {
		free(b);
		return NULL;
	}
	b->max_rows = o && o->max_rows ? o->max_rows : DEFAULT_MAX_ROWS;
	b->max_insns = o && o->max_insns ? o->max_insns : DEFAULT_MAX_INSNS;
	return b;
}

/* Both passes, and the table's statistics. */
static int build(struct builder *b)
{
	struct unwind_stats *s = &b->t->stats;
	size_t i;
	int err;

	for (i = 0; i < UNWIND_SRC__MAX; i++)
		list_fdes(b, i);
	if (b->nomem)
		return -ENOMEM;
	sort_fdes(b);
	err = build_rows(b);
	if (err)
		return err;
	for (i = 0; i < UNWIND_SRC__MAX; i++)
		s->fdes += s->fdes_by_source[i];
	s->rows = b->t->nr;
	for (i = 0; i < b->t->nr; i++)
		s->rows_by_kind[b->t->rows[i].kind]++;
	return s->fdes || s->stopped ? 0 : -ENOENT;
}

struct unwind_table *unwind_table__build(struct elf_file *f, struct elf_file *dbg,
					 const struct unwind_build_opts *o)
{
	size_t max = o && o->max_cfi_bytes ? o->max_cfi_bytes : DEFAULT_MAX_CFI_BYTES;
	struct unwind_table *t = NULL;
	struct builder *b;
	GElf_Ehdr eh;
	int err;

	if (!f || !elf_file__elf(f) || !gelf_getehdr(elf_file__elf(f), &eh) ||
	    !arch_supported(&eh)) {
		errno = ENOEXEC;
		return NULL;
	}
	b = builder_new(o);
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	err = load_segments(b, elf_file__elf(f));
	if (!err) {
		load_sections(b, f, dbg, max > MAX_CFI_BYTES ? MAX_CFI_BYTES : max);
		b->t->base = b->base;
		err = build(b);
	}
	if (err)
		unwind_table__free(b->t);
	else
		t = b->t;
	builder_free(b);
	errno = err ? -err : 0;
	return t;
}

const struct unwind_row *unwind_table__find(const struct unwind_table *t,
					    uint64_t vaddr)
{
	size_t lo = 0, hi, mid;
	uint64_t pc;

	if (!t || !t->nr || vaddr < t->base || vaddr - t->base > UINT32_MAX)
		return NULL;
	pc = vaddr - t->base;
	hi = t->nr;
	/* The last row whose pc is at most pc; row 0 is at 0. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

uint64_t unwind_table__base(const struct unwind_table *t)
{
	return t ? t->base : 0;
}

const struct unwind_row *unwind_table__rows(const struct unwind_table *t, size_t *nr)
{
	*nr = t ? t->nr : 0;
	return t ? t->rows : NULL;
}

size_t unwind_table__bytes(const struct unwind_table *t)
{
	return t ? sizeof(*t) + t->nr * sizeof(*t->rows) : 0;
}

const struct unwind_stats *unwind_table__stats(const struct unwind_table *t)
{
	return t ? &t->stats : NULL;
}

/* Adds key (not 0) to an open-addressing set of cap slots (a power of 2);
 * whether it was new. */
static bool set_add(uint32_t *set, size_t cap, uint32_t key)
{
	size_t i = (key * 2654435761u) & (cap - 1);

	while (set[i] && set[i] != key)
		i = (i + 1) & (cap - 1);
	if (set[i])
		return false;
	set[i] = key;
	return true;
}

/* A set twice as large with the same keys; NULL without memory. */
static uint32_t *set_grow(uint32_t *set, size_t cap)
{
	uint32_t *bigger = calloc(cap * 2, sizeof(*bigger));
	size_t i;

	for (i = 0; bigger && i < cap; i++)
		if (set[i])
			set_add(bigger, cap * 2, set[i]);
	free(set);
	return bigger;
}

/* A hash set: distinct rules are a few hundred, whatever the rows. */
size_t unwind_table__rules(const struct unwind_table *t)
{
	size_t i, cap = 1024, distinct = 0;
	uint32_t *set, key;

	if (!t || !(set = calloc(cap, sizeof(*set))))
		return 0;
	for (i = 0; i < t->nr && set; i++) {
		if (t->rows[i].kind == UNWIND_GAP)
			continue;
		key = (uint32_t)t->rows[i].kind << 24 | (uint32_t)t->rows[i].cfa_off << 8 |
		      (uint8_t)t->rows[i].rbp_off;
		distinct += set_add(set, cap, key);
		if (distinct * 2 > cap) {
			set = set_grow(set, cap);
			cap *= 2;
		}
	}
	free(set);
	return set ? distinct : 0;
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}
