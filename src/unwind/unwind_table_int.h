/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the unwind tables, shared by unwind_cfi.c (reading call-frame
 * information: records, CIEs, FDE headers, CFA programs, and what x86_64's
 * and arm64's rules mean as rows) and unwind_table.c (the table a build makes
 * of them); nothing else includes this.  The byte reader is here, inline,
 * because both read CFI bytes (unwind_table.c: .eh_frame_hdr).
 */
#ifndef SMOLDER_UNWIND_TABLE_INT_H
#define SMOLDER_UNWIND_TABLE_INT_H

#include <gelf.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/budget.h"
#include "unwind.h"
#include "unwind/unwind_table.h"

/* DW_CFA_remember_state nesting: compilers use 1 or 2. */
#define MAX_STATE_STACK 32

enum {
	DW_EH_PE_absptr = 0x00, DW_EH_PE_uleb128 = 0x01, DW_EH_PE_udata2 = 0x02,
	DW_EH_PE_udata4 = 0x03, DW_EH_PE_udata8 = 0x04, DW_EH_PE_sleb128 = 0x09,
	DW_EH_PE_sdata2 = 0x0a, DW_EH_PE_sdata4 = 0x0b, DW_EH_PE_sdata8 = 0x0c,
	DW_EH_PE_pcrel = 0x10, DW_EH_PE_datarel = 0x30,
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

/* The registers a row needs (the others do not matter to the unwinder). */
enum slot { SLOT_FP, SLOT_SP, SLOT_RA, SLOTS };

/* ---- Bounds-checked reading of little-endian CFI bytes. */
struct rd {
	const uint8_t *p, *end;
	bool bad; /* a read ran past end or a number overflowed */
};

static inline bool rd_need(struct rd *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return false;
	}
	return true;
}

static inline uint64_t rd_u(struct rd *r, size_t n)
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

static inline uint8_t rd_u8(struct rd *r)
{
	return rd_u(r, 1);
}

/* LEB128 of up to 64 bits; longer or wider is bad. */
static inline uint64_t rd_leb(struct rd *r, bool sign)
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

static inline uint64_t rd_uleb(struct rd *r)
{
	return rd_leb(r, false);
}

static inline int64_t rd_sleb(struct rd *r)
{
	return (int64_t)rd_leb(r, true);
}

/* A value in pointer encoding fmt's format (the low 4 bits). */
static inline uint64_t rd_enc(struct rd *r, uint8_t fmt, uint8_t addr_size)
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
static inline uint64_t rd_ptr(struct rd *r, uint8_t enc, uint8_t addr_size, uint64_t here)
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

/* What the CFA program says at one location. */
struct cfa_state {
	struct rule cfa;  /* RULE_VAL_OFFSET: cfa_reg + off; RULE_EXPR; RULE_UNDEF
			   * before any DW_CFA_def_cfa */
	uint64_t cfa_reg;
	struct rule regs[SLOTS];
};

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

/*
 * The work of a build, paid by every step whose cost grows with what the
 * file holds: a record's bytes each time it is read (a CIE each time it is
 * parsed), one unit per instruction.  Its budgets are a multiple of the
 * CFI's size (max) and an absolute cap on instructions (max_insns), so a
 * build's time is bounded by its file's size whatever the file holds.
 */
struct cfi_work {
	uint64_t used, max;
	uint64_t insns, max_insns;
	const atomic_bool *cancel; /* polled each time used passes 4 Ki units */
	const struct budget *budget; /* likewise (a clock read, a sigpending) */
	enum unwind_stop spent;    /* the budget spent (or the cancel), or NONE */
};

#define CFI_CANCEL_POLL_SHIFT 12

/* Pays n units (of which insns instructions): false, with w->spent set,
 * once a budget is spent or the build was cancelled; then for good. */
static inline bool cfi_pay(struct cfi_work *w, uint64_t n, uint64_t insns)
{
	uint64_t before = w->used;

	if (w->spent)
		return false;
	w->used += n;
	w->insns += insns;
	if (w->insns > w->max_insns)
		w->spent = UNWIND_STOP_INSNS;
	else if (w->used > w->max)
		w->spent = UNWIND_STOP_WORK;
	else if ((before ^ w->used) >> CFI_CANCEL_POLL_SHIFT &&
		 ((w->cancel && atomic_load_explicit(w->cancel, memory_order_relaxed)) ||
		  budget__expired(w->budget)))
		w->spent = UNWIND_STOP_CANCELLED;
	return !w->spent;
}

/* An architecture whose rules are read (unwind_cfi.c). */
struct cfi_arch;

/* A program being run: a CIE's initial instructions or an FDE's. */
struct cfi_exec {
	const struct cfi_arch *arch; /* which registers matter, which opcodes */
	const struct cie *cie;
	uint64_t here; /* vaddr of the section's first byte, for set_loc */
	const uint8_t *sec_data;
	struct cfa_state st;
	struct cfa_state *saved; /* the caller's: never zeroed per program */
	unsigned int depth;
	uint64_t loc, end; /* the FDE's range; a CIE has none */
	bool fde;
	struct cfi_work *work; /* the whole build's: one unit per instruction */
	/* The state st holds for [from, to): 0, or -errno to stop the run. */
	int (*emit)(void *arg, uint64_t from, uint64_t to, const struct cfa_state *st,
		    const struct cie *c);
	void *arg;
};

/* The record at off: 0, 1 past the last one (end or zero terminator), or
 * -EINVAL.  *next is where the following one starts. */
int cfi_read_record(const struct cfi_sec *s, size_t off, struct rec *rec, size_t *next);
/* Where an FDE's CIE is: relative to the pointer in .eh_frame, from the
 * section's start in .debug_frame.  SIZE_MAX when outside. */
size_t cfi_cie_offset(const struct cfi_sec *s, const struct rec *fde);
/* Version, augmentation, factors and return address column of a CIE; r
 * is left at its initial instructions.  Its time grows with the record's
 * length (the augmentation string is walked whole): pay for it first. */
bool cfi_read_cie_header(struct rd *r, struct cie *c);
/*
 * Runs the program in r: 0 at its end or the FDE's, -EINVAL at a malformed
 * instruction, -E2BIG when emit failed, -ETIME when the work's budget ran
 * out (or the build was cancelled: work->spent says which).
 */
int cfi_run(struct cfi_exec *x, struct rd *r);

/* The architecture of a file whose rules are read (64-bit little-endian
 * x86_64 or arm64), or NULL. */
const struct cfi_arch *cfi_arch_of(const GElf_Ehdr *eh);
/* Whether a is the architecture this program was built for. */
bool cfi_arch_is_host(const struct cfi_arch *a);
/*
 * The row for a CFA program's state; *why gets the unsupported reason, or
 * -1.  Every kind that unwinds has the caller's stack pointer at the CFA;
 * its return address is at CFA - 8 (x86_64) or where x30 is (arm64):
 * anything else is unsupported.
 */
struct unwind_row cfi_classify(const struct cfi_arch *a, const struct cfa_state *st,
			       uint64_t ra_reg, bool signal, int *why);

/* ---- A build (unwind_table.c), whose first pass unwind_funcs.c also runs */

/* libLLVM-14, 105 MB: 0.95 Mi rows, a 4.9 MiB .eh_frame, 2.2 Mi instructions. */
#define DEFAULT_MAX_ROWS (2u << 20)
/* The CFI sections together: over 30 times libLLVM-14's, more than
 * max_rows can hold rows of. */
#define DEFAULT_MAX_CFI_BYTES (32u << 20)
#define DEFAULT_MAX_INSNS (64ull << 20)
/*
 * Work per byte of CFI: a build reads each record once per pass, runs each
 * instruction once and parses a CIE again only when the cache lost it, so
 * real files take 2.2 to 2.5 units a byte (Debian 12: libc 2.39, libLLVM-14
 * 2.44, libpython3.11 2.47, chromium 2.36, a .debug_frame 2.23).  Over
 * three times that leaves room for files with more CIEs; hostile ones (two
 * megabyte-long CIEs that take turns in one cache slot: issue 21) stop at
 * it, in milliseconds.  The base is for files with a few bytes of CFI.
 */
#define WORK_PER_BYTE 8
#define WORK_BASE (64u << 10)
/* Section offsets are kept in 32 bits. */
#define MAX_CFI_BYTES 0xffffffffu
/* Parsed CIEs, direct-mapped by offset: a linked .eh_frame has a handful,
 * a .debug_frame one per compilation unit, used by neighbouring FDEs. */
#define CIE_CACHE 64
#define MAX_EXEC_SEGS 16
#define MAX_PHDRS (1u << 16)

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
	const struct cfi_arch *arch;
	struct unwind_table *t;
	size_t cap, max_rows;
	struct cfi_work work;
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
	bool a64_vdso;  /* rows from the code where no CFI covers it */
	Elf *elf;       /* the file's, while building */
};

/* A builder for files of arch, for o (NULL: the defaults); NULL without
 * memory. */
struct builder *cfi_builder_new(const struct cfi_arch *arch, const struct unwind_build_opts *o);
/* Frees b and what it read, not its table b->t. */
void cfi_builder_free(struct builder *b);
/* The executable PT_LOADs and the base: 0, or -ENOEXEC. */
int cfi_load_segments(struct builder *b, Elf *elf);
/* f's CFI sections and dbg's .debug_frame, within max bytes. */
void cfi_load_sections(struct builder *b, struct elf_file *f, struct elf_file *dbg, size_t max);
/* The work budget from the sections' sizes, unless o gave one. */
void cfi_size_work(struct builder *b);
/* The PT_LOAD holding vaddr: its bytes from vaddr on, within max. */
Elf_Data *cfi_segment_bytes(Elf *elf, uint64_t vaddr, size_t max);
/* Whether [lo, hi) lies in one executable segment. */
bool cfi_in_exec_segment(const struct builder *b, uint64_t lo, uint64_t hi);
/* Lists e for pass two; an error (room, memory) stops the listing. */
int cfi_push_fde(struct builder *b, const struct fde_ref *e);
/* arm64's vDSO: its functions' rows from their code, as UNWIND_SRC_A64_CODE
 * refs whose off is the row's kind (unwind_a64_code.c). */
void cfi_list_a64_code(struct builder *b, Elf *elf);
/* Whether n arm64 instructions at code keep sp and x30 as a call left them. */
bool a64_frameless_leaf(const unsigned char *code, size_t n);
/* Pass one: the FDEs of source src into b->fdes; then sorted, overlaps dropped. */
void cfi_list_fdes(struct builder *b, uint8_t src);
void cfi_sort_fdes(struct builder *b);

#endif
