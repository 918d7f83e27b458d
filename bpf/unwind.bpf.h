/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The DWARF unwinder for user stacks (--unwind dwarf), included by
 * smolder.bpf.c: walks a user stack with the unwind tables the loader put
 * in the kernel (include/unwind.h, src/unwind/unwind_maps.c), frame by frame:
 * finds the mapping of the pc (a per-process LPM trie, looked up again only
 * when the pc leaves the last mapping), the file's rows for the pc's page,
 * the row by binary search, then the CFA, the return address and the saved
 * rbp (one read when they are adjacent, as after push %rbp; on arm64, x30
 * from the link register or the stack, and x29, include/unwind.h).  Code without
 * a table (JIT, files without CFI) is walked with frame pointers, checked
 * (above the stack pointer, aligned, not far), and the walk goes on in
 * table code after it; code whose table is not loaded yet only where the
 * frame is provably its function's own (own_frame).  Each fallback is a reason bit,
 * counted once per stack by the caller.
 *
 * How it stays verifiable on 5.10 to the newest kernels, two ways, the
 * includer's program picking one (unwind_walk's loop):
 *  - bpf_loop (5.17): one frame is the loop's callback, so the verifier
 *    checks a frame's code once, whatever the depth (issue 27: this halves
 *    the sampler's verification);
 *  - before 5.17: a few frames (UNWIND_STEP_FRAMES) are one call of
 *    unwind_step, a global (BTF_FUNC_GLOBAL) function taking a scalar, so
 *    the verifier checks it once, on its own, whatever calls it; its loops
 *    are those frames and each frame's binary search (UNWIND_SEARCH_STEPS).
 *    The caller's loop of calls is cheap to verify (a call and a test per
 *    iteration).
 * Either way the walk's state lives in a per-CPU map slot, not on the
 * caller's stack (5.10 passes only scalars to global functions), and a
 * program that calls bpf_loop is one 5.10 never loads (it rejects the
 * callback's address even in dead code).  No tail calls, so a tracing
 * program (issue 15's sched_switch) can run the same walk, in its own
 * state slot.
 *
 * Plain C over the maps and helpers below (bpf_loop too: user space gives
 * a plain loop), without kernel types or configuration of its own (the includer defines unwind_shard_bits and
 * image_events, and starts walks from a task's registers: smolder.bpf.c),
 * so that tests/replay compiles this same file for user space and replays
 * recorded stacks through it.
 */
#ifndef SMOLDER_UNWIND_BPF_H
#define SMOLDER_UNWIND_BPF_H

#include <bpf/bpf_endian.h>
#include "unwind.h"
#include "unwind_arch.bpf.h"

/*
 * Shards of rows, created by the loader as tables need them.  Inner arrays
 * are all alike (same max_entries), so their lookups are inlined;
 * BPF_F_MMAPABLE lets the loader write rows with a memcpy.
 */
struct unwind_shard {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8);
	__uint(max_entries, 1); /* 1 << unwind_shard_bits, set by the loader */
	__uint(map_flags, BPF_F_MMAPABLE);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 1); /* shards the budget allows, set by the loader */
	__array(values, struct unwind_shard);
} unwind_shards SEC(".maps");

/* Preallocated: before 5.13 perf_event programs may use no other hash. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct unwind_file);
	__uint(max_entries, 1); /* set by the loader */
} unwind_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__type(key, struct unwind_map_key);
	__type(value, struct unwind_mapping);
	__uint(max_entries, 1); /* set by the loader */
	__uint(map_flags, BPF_F_NO_PREALLOC);
} unwind_mappings SEC(".maps");

/* What the mapping of the current pc says about its frames. */
enum unwind_map_kind {
	MK_NONE,       /* no mapping looked up yet */
	MK_TABLE,      /* a loaded table */
	MK_NO_TABLE,   /* anonymous code, or a file without CFI */
	MK_NOT_LOADED, /* its file's table is not loaded */
	MK_UNKNOWN,    /* no mapping known for pc (maps not read yet, or not
			* mapped at all: a frame pointer walk's garbage) */
};

/* Fallback reasons of one walk, each counted once (enum counter). */
enum unwind_reason {
	R_NO_TABLE = 1 << 0,
	R_NOT_LOADED = 1 << 1,
	R_UNREADABLE = 1 << 2,
	R_UNSUPPORTED = 1 << 3,
	R_BAD_FRAME = 1 << 4,
	R_DEPTH = 1 << 5,
};

/* Bytes read of a function's start, to find its frame-pointer prologue
 * (own_frame): endbr64, push, mov and 8 pushes or a sub. */
#define PROLOGUE_BYTES 32

struct unwind_scratch {
	struct stack_trace trace; /* the frames, leaf first */
	__u64 pc, sp, bp;         /* registers of the frame being unwound */
	__u64 lr;                 /* arm64: x30, while the frame's registers
				   * are live (exact) */
	__u64 a64_read[4];        /* arm64: what a step reads from the stack
				   * and code, here, not on the BPF stack:
				   * unwind_step's frame with them (136
				   * bytes) did not fit beside on_switch's
				   * in 512 on 5.10 and 6.1 */
	__u64 map_start, map_end, map_bias; /* the mapping of the last pc */
	__u64 row_at;             /* the address last searched (0: none), */
	struct unwind_row row;    /* and its row: recursion repeats pcs */
	__u32 pages, n_pages, shift;        /* its file's page index */
	__u32 map_kind;           /* enum unwind_map_kind */
	__u32 tgid, gen;          /* the process image walked */
	__u32 reasons;            /* enum unwind_reason */
	__u8 exact;               /* pc is exact (leaf, signal frame), not a
				   * return address: look it up as it is */
	__u8 complete;            /* reached an UNWIND_END row */
	__u8 unchecked;           /* pc came from a frame pointer no check
				   * vouched for, in a process whose maps we
				   * know */
	__u8 sp_low;              /* arm64: sp is a lower bound only (a frame
				   * pointer step): no CFA from it */
	__u8 in_sigreturn;        /* the saved registers are those of an
				   * rt_sigreturn system call: pc is after its
				   * syscall or svc, past the trampoline's
				   * end, sp at the signal frame (SIGRETURN_*) */
	/* the start of a function, for own_frame; 8 spare bytes so the
	 * prologue's reads need no bounds of their own */
	__u8 code[PROLOGUE_BYTES + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_scratch);
	__uint(max_entries, UNWIND_SLOTS);
} unwind_scratch SEC(".maps");

#define UNWIND_GO 0
#define UNWIND_STOP 1
/* in_sigreturn: known by the system call's number, or (arm64, on entry
 * before the kernel recorded it) if the code before pc is the
 * trampoline's */
#define SIGRETURN_YES 1
#define SIGRETURN_IF_CODE 2
/* Frame pointers are trusted this far above the stack pointer: larger
 * frames than this are rare, and the check keeps garbage rbp values out. */
#define MAX_FP_DISTANCE (8u << 20)

/* The mapping of address at, and what its file's table is. */
static __always_inline void find_mapping(struct unwind_scratch *s, __u64 at)
{
	struct unwind_map_key key = {
		.prefixlen = 96,
		.tgid = bpf_htonl(s->tgid),
		.addr = bpf_cpu_to_be64(at),
	};
	struct unwind_mapping *m = bpf_map_lookup_elem(&unwind_mappings, &key);
	struct unwind_file *f;

	s->map_start = s->map_end = 0;
	if (!m || m->gen != s->gen) {
		s->map_kind = MK_UNKNOWN;
		return;
	}
	s->map_start = m->start;
	s->map_end = m->end;
	s->map_bias = m->bias;
	if (m->flags & UNWIND_MAP_ANON) {
		s->map_kind = MK_NO_TABLE;
		return;
	}
	f = bpf_map_lookup_elem(&unwind_files, &m->file);
	if (!f) {
		s->map_kind = MK_NOT_LOADED;
		return;
	}
	s->pages = f->pages;
	s->n_pages = f->n_pages;
	s->shift = f->shift & 31;
	s->map_kind = f->n_pages ? MK_TABLE : MK_NO_TABLE;
}

/* The 8-byte slot at a global slot number, or NULL. */
static __always_inline void *slot_ptr(__u32 slot)
{
	__u32 shard_idx = slot >> (unwind_shard_bits & 31);
	__u32 idx = slot & ((1u << (unwind_shard_bits & 31)) - 1);
	void *shard = bpf_map_lookup_elem(&unwind_shards, &shard_idx);

	return shard ? bpf_map_lookup_elem(shard, &idx) : NULL;
}

/* The row of address at in the current mapping's table; its kind. */
static __always_inline __u32 find_row(struct unwind_scratch *s, __u64 at, struct unwind_row *out)
{
	__u64 off = at - s->map_bias;
	struct unwind_page *pg;
	struct unwind_row *r;
	__u32 shard_idx, lo, hi, mid, page;
	void *shard;

	if (off >> 32)
		return UNWIND_GAP; /* below the table's base, or far past it */
	page = (__u32)off >> s->shift;
	if (page >= s->n_pages)
		return UNWIND_GAP;
	pg = slot_ptr(s->pages + page);
	if (!pg)
		return UNWIND_GAP;
	shard_idx = pg->row >> (unwind_shard_bits & 31);
	lo = pg->row & ((1u << (unwind_shard_bits & 31)) - 1);
	hi = lo + pg->count;
	shard = bpf_map_lookup_elem(&unwind_shards, &shard_idx);
	if (!shard)
		return UNWIND_GAP;
	/* the last row at or below off: rows[lo].pc <= page start <= off */
	for (int i = 0; i < UNWIND_SEARCH_STEPS; i++) {
		if (hi - lo <= 1)
			break;
		mid = lo + (hi - lo) / 2;
		r = bpf_map_lookup_elem(shard, &mid);
		if (!r)
			return UNWIND_GAP;
		if (r->pc <= (__u32)off)
			lo = mid;
		else
			hi = mid;
	}
	r = bpf_map_lookup_elem(shard, &lo);
	if (!r)
		return UNWIND_GAP;
	*out = *r;
	return UNWIND_KIND(r->kind);
}

/*
 * Code that may well have no frame pointer (its table is expected, not
 * loaded yet) is walked by frame pointer only where that is provably the
 * frame of the function being unwound, for rbp there may be garbage, or
 * still an outer function's frame pointer, which would skip the frames in
 * between: a wrong caller.  The proof: the return address at rbp + 8
 * follows a direct call (e8 rel32) of a function F at or below pc (within
 * MAX_CALLEE_SIZE), F starts with the frame-pointer prologue ([endbr64]
 * push %rbp; mov %rsp,%rbp; pushes; sub $n,%rsp), and rbp is exactly as far
 * above the stack pointer as that prologue put it.  An outer function's
 * frame fails the last test: while it calls, the stack pointer is at least
 * its prologue's bytes plus a return address below its rbp.  Code that
 * moves the stack pointer further (argument pushes, alloca, realignment) or
 * a prologue read differently is cut short here, never given a caller.
 */
#define MAX_CALLEE_SIZE (64u << 10)
#define PROLOGUE_INSNS 8  /* pushes and the sub after mov %rsp,%rbp */

/* The bytes F's prologue (in s->code) puts between rbp and rsp, or -1 if F
 * does not start with the frame-pointer prologue. */
static __always_inline __s64 prologue_frame_size(struct unwind_scratch *s)
{
	const __u8 *c = s->code;
	__u32 i = 0, imm;
	__s64 size = 0;

	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		i = 4; /* endbr64 */
	if (c[i] != 0x55 || c[i + 1] != 0x48 || c[i + 2] != 0x89 || c[i + 3] != 0xe5)
		return -1;
	i += 4;
	for (int n = 0; n < PROLOGUE_INSNS; n++) {
		i &= PROLOGUE_BYTES - 1; /* never past 24: bounds the reads */
		if (c[i] >= 0x50 && c[i] <= 0x57) { /* push %reg */
			size += 8;
			i += 1;
		} else if (c[i] == 0x41 && c[i + 1] >= 0x50 && c[i + 1] <= 0x57) {
			size += 8; /* push %r8..%r15 */
			i += 2;
		} else if (c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0xec) {
			if (c[i + 3] & 0x80) /* sub of a negative imm8 */
				return -1;
			return size + c[i + 3];
		} else if (c[i] == 0x48 && c[i + 1] == 0x81 && c[i + 2] == 0xec) {
			imm = c[i + 3] | c[i + 4] << 8 | c[i + 5] << 16 | (__u32)c[i + 6] << 24;
			if (imm >> 31)
				return -1;
			return size + imm;
		} else {
			break;
		}
	}
	return size;
}

/* Whether bp (above s->sp) is the frame pointer of the function holding at,
 * and ra (at bp + 8) its return address: see above. */
static __always_inline bool own_frame(struct unwind_scratch *s, __u64 bp, __u64 ra, __u64 at)
{
	__u8 insn[8];
	__s32 rel;
	__u64 target;

	if (UNWIND_ARM64) /* x86_64's call and prologue only: no proof */
		return false;
	if (bpf_probe_read_user(insn, sizeof(insn), (void *)(ra - 8)) || insn[3] != 0xe8)
		return false;
	__builtin_memcpy(&rel, &insn[4], sizeof(rel));
	target = ra + (__s64)rel;
	if (target > at || at - target >= MAX_CALLEE_SIZE)
		return false;
	if (bpf_probe_read_user(s->code, PROLOGUE_BYTES, (void *)target))
		return false;
	return prologue_frame_size(s) == (__s64)(bp - s->sp);
}

/* A frame without a usable table: its caller by frame pointer, if rbp looks
 * like one (at or above rsp, aligned, within MAX_FP_DISTANCE); with
 * strict, only where own_frame proves it this function's. */
static __always_inline int fp_step(struct unwind_scratch *s, __u64 at, bool strict)
{
	__u64 bp = s->bp, fr[2];

	if (bp < s->sp || (bp & 7) || bp - s->sp > MAX_FP_DISTANCE)
		return UNWIND_STOP;
	if (bpf_probe_read_user(fr, sizeof(fr), (void *)bp)) {
		s->reasons |= R_UNREADABLE;
		return UNWIND_STOP;
	}
	if (strict && !own_frame(s, bp, fr[1], at))
		return UNWIND_STOP;
	s->sp = bp + 16;
	s->bp = fr[0];
	s->pc = fr[1] & UNWIND_PC_MASK;
	s->exact = 0;
	s->unchecked = !strict && image_events;
	s->sp_low = UNWIND_ARM64; /* arm64's frame record is not at the top */
	return s->pc ? UNWIND_GO : UNWIND_STOP;
}

/*
 * ---- Where the architectures differ: a frame's caller from its row
 * (frame_step), a signal frame (sigframe_step), a frame in code no row
 * covers (gap_step).  x86_64's first.
 */
#if !UNWIND_ARM64
/* The caller of a frame whose CFA is known: return address at CFA - 8,
 * rbp unchanged or saved at CFA + rbp_off * 8. */
static __always_inline int cfa_step(struct unwind_scratch *s, __u64 cfa, __s8 rbp_off)
{
	__u64 fr[2], ra;

	if (cfa <= s->sp) {
		s->reasons |= R_BAD_FRAME;
		return UNWIND_STOP;
	}
	if (rbp_off == -2) { /* push %rbp right after the call */
		if (bpf_probe_read_user(fr, sizeof(fr), (void *)(cfa - 16)))
			goto unreadable;
		s->bp = fr[0];
		ra = fr[1];
	} else {
		if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
			goto unreadable;
		if (rbp_off && bpf_probe_read_user(&s->bp, sizeof(s->bp),
						   (void *)(cfa + (__s64)rbp_off * 8)))
			goto unreadable;
	}
	s->sp = cfa;
	s->pc = ra;
	s->exact = 0;
	s->unchecked = 0;
	return ra ? UNWIND_GO : UNWIND_STOP;
unreadable:
	s->reasons |= R_UNREADABLE;
	return UNWIND_STOP;
}

/* glibc's __restore_rt: rsp points at the ucontext the kernel saved; the
 * interrupted frame's rip there is exact. */
static __always_inline int signal_step(struct unwind_scratch *s, const struct unwind_row *row)
{
	__u64 sp_ip[2], bp;

	if (bpf_probe_read_user(sp_ip, sizeof(sp_ip), (void *)(s->sp + (__u64)row->cfa_off * 8)) ||
	    bpf_probe_read_user(&bp, sizeof(bp), (void *)(s->sp + (__s64)row->rbp_off * 8))) {
		s->reasons |= R_UNREADABLE;
		return UNWIND_STOP;
	}
	s->sp = sp_ip[0];
	s->pc = sp_ip[1];
	s->bp = bp;
	s->exact = 1;
	s->unchecked = 0;
	return sp_ip[1] ? UNWIND_GO : UNWIND_STOP;
}

static __always_inline int frame_step(struct unwind_scratch *s, __u64 at __attribute__((unused)),
				      __u64 cfa, const struct unwind_row *row)
{
	return cfa_step(s, cfa, row->rbp_off);
}

static __always_inline int sigframe_step(struct unwind_scratch *s, const struct unwind_row *row)
{
	return signal_step(s, row);
}

static __always_inline int gap_step(struct unwind_scratch *s, __u64 at)
{
	return fp_step(s, at, false);
}
#else /* arm64 */
/*
 * Whether a frame with live registers is at its function's last
 * instructions, its frame popped: sp is the CFA and x30 the return
 * address, whatever its row says.  clang 14 writes no CFI for arm64
 * epilogues, so its rows there still have x30 on the stack, which the
 * function already popped (the caller's frame is read instead: a wrong
 * caller).  The instruction at pc tells.
 */
static __always_inline bool at_return(struct unwind_scratch *s)
{
	__u32 *code = (__u32 *)s->a64_read, insn;

	if (!s->exact || bpf_probe_read_user(code, sizeof(*code), (void *)s->pc))
		return false;
	insn = *code;
	return insn == A64_RET || insn == A64_AUTIASP || insn == A64_AUTIBSP ||
	       insn == A64_RETAA || insn == A64_RETAB;
}

/*
 * The caller of a frame whose CFA is known (include/unwind.h's arm64
 * rows): x30 still in the link register, which only a frame with live
 * registers has (the leaf, one a signal interrupted), or saved at CFA +
 * rbp_off * 8, or at the CFA's base register + (__u8)rbp_off * 8, and x29
 * right below it or unchanged.  sp stays put only when x30 comes from the
 * register, which the caller's frame no longer has: each step moves on.
 */
static __always_inline int frame_step(struct unwind_scratch *s, __u64 at, __u64 cfa,
				      const struct unwind_row *row)
{
	bool in_lr = !row->rbp_off && !(row->kind & UNWIND_AT_BASE);
	__u64 *fr = s->a64_read, slot, ra;

	if (s->sp_low && UNWIND_KIND(row->kind) == UNWIND_CFA_RSP)
		return fp_step(s, at, false); /* no sp to take the CFA from */
	if (!in_lr && at_return(s)) {
		cfa = s->sp;
		in_lr = true;
	}
	if (cfa < s->sp || (cfa == s->sp && !in_lr) || (in_lr && !s->exact)) {
		s->reasons |= R_BAD_FRAME;
		return UNWIND_STOP;
	}
	if (in_lr) {
		ra = s->lr;
	} else {
		slot = row->kind & UNWIND_AT_BASE ?
			       cfa - (__u64)row->cfa_off * 8 + (__u64)(__u8)row->rbp_off * 8 :
			       cfa + (__s64)row->rbp_off * 8;
		if (row->kind & UNWIND_FP_BELOW ? /* a frame record: one read */
			    bpf_probe_read_user(fr, 2 * sizeof(*fr), (void *)(slot - 8)) :
			    bpf_probe_read_user(&fr[1], sizeof(fr[1]), (void *)slot)) {
			s->reasons |= R_UNREADABLE;
			return UNWIND_STOP;
		}
		if (row->kind & UNWIND_FP_BELOW)
			s->bp = fr[0];
		ra = fr[1];
	}
	s->sp = cfa;
	s->pc = ra & UNWIND_PC_MASK;
	s->exact = 0;
	s->unchecked = 0;
	s->sp_low = 0;
	return s->pc ? UNWIND_GO : UNWIND_STOP;
}

/*
 * The vDSO's __kernel_rt_sigreturn, its address exact (a handler's return
 * address, the leaf's pc at either instruction, or after its svc while the
 * kernel runs the system call): sp points at the rt_sigframe the kernel
 * pushed, whose sigcontext holds the interrupted registers
 * (unwind_arch.bpf.h).  Only there: a signal row anywhere else is not
 * unwound.
 */
static __always_inline int sigframe_step(struct unwind_scratch *s,
					 const struct unwind_row *row __attribute__((unused)))
{
	__u32 *code = (__u32 *)s->a64_read;
	__u64 *fp_lr = s->a64_read, *sp_pc = s->a64_read + 2;

	if (bpf_probe_read_user(code, 4 * sizeof(*code), (void *)(s->pc - 8)))
		goto unreadable;
	if (!(code[2] == A64_MOV_X8_SIGRETURN && code[3] == A64_SVC_0) &&
	    !(code[1] == A64_MOV_X8_SIGRETURN && code[2] == A64_SVC_0) &&
	    !(code[0] == A64_MOV_X8_SIGRETURN && code[1] == A64_SVC_0)) {
		s->reasons |= R_UNSUPPORTED;
		return UNWIND_STOP;
	}
	if (bpf_probe_read_user(fp_lr, 2 * sizeof(*fp_lr), (void *)(s->sp + A64_SC_X29)) ||
	    bpf_probe_read_user(sp_pc, 2 * sizeof(*sp_pc), (void *)(s->sp + A64_SC_SP)))
		goto unreadable;
	s->bp = fp_lr[0];
	s->lr = fp_lr[1] & UNWIND_PC_MASK;
	s->sp = sp_pc[0];
	s->pc = sp_pc[1] & UNWIND_PC_MASK;
	s->exact = 1;
	s->unchecked = 0;
	s->sp_low = 0;
	return s->pc ? UNWIND_GO : UNWIND_STOP;
unreadable:
	s->reasons |= R_UNREADABLE;
	return UNWIND_STOP;
}

/* Whether the two instructions before pc are the trampoline's mov x8,
 * #139; svc #0: the system call it made is rt_sigreturn. */
static __always_inline bool after_sigreturn_svc(struct unwind_scratch *s)
{
	__u32 *code = (__u32 *)s->a64_read;

	return !bpf_probe_read_user(code, 2 * sizeof(*code), (void *)(s->pc - 8)) &&
	       code[0] == A64_MOV_X8_SIGRETURN && code[1] == A64_SVC_0;
}

/*
 * Code a table's file has but no FDE covers, with live registers: a PLT
 * entry (arm64's linkers write no CFI for them) or a leaf written without
 * CFI.  Neither moves sp or x30 (PLT0's stp, on a lazy binding's first
 * call, is the exception), so the caller is x30's.  Else frame pointers.
 */
static __always_inline int gap_step(struct unwind_scratch *s, __u64 at)
{
	if (!s->exact || s->map_kind != MK_TABLE || s->sp_low)
		return fp_step(s, at, false);
	s->pc = s->lr & UNWIND_PC_MASK;
	s->exact = 0;
	s->unchecked = 0;
	return s->pc ? UNWIND_GO : UNWIND_STOP;
}
#endif
/* ---- end of where the architectures differ */

/*
 * One frame: records the pc of the frame and moves the registers to its
 * caller's.  UNWIND_STOP when the stack ends (complete or not: see reasons
 * and complete).
 */
static __always_inline int unwind_frame(struct unwind_scratch *s)
{
	struct unwind_row row = {};
	__u64 at, cfa;
	__u32 n, kind = UNWIND_GAP;

	n = s->trace.nr;
	if (n >= SMOLDER_MAX_DEPTH) {
		s->reasons |= R_DEPTH;
		return UNWIND_STOP;
	}
	if ((__s64)s->pc <= 0) /* no user address: the stack ends */
		return UNWIND_STOP;
	/* in rt_sigreturn, the trampoline's row is the one before pc (what
	 * follows it may be another function: 6.12's arm64 vDSO's getrandom) */
#if UNWIND_ARM64
	if (s->in_sigreturn == SIGRETURN_IF_CODE)
		s->in_sigreturn = !n && after_sigreturn_svc(s);
#endif
	at = s->exact && !(s->in_sigreturn && !n) ? s->pc : s->pc - 1;
	if (at < s->map_start || at >= s->map_end) {
		find_mapping(s, at);
		s->row_at = 0;
	}
	/* An unchecked frame pointer's return address in no mapping of a
	 * process whose maps we know: garbage, not a frame. */
	if (s->map_kind == MK_UNKNOWN && s->unchecked)
		return UNWIND_STOP;
	/* the leaf in rt_sigreturn is its syscall/svc instruction, not pc */
	s->trace.ip[n] = s->pc - (s->in_sigreturn && !n);
	s->trace.nr = n + 1;
	if (s->exact && n && n < 32)
		s->trace.exact |= 1u << n;
	if (s->map_kind == MK_TABLE && at == s->row_at) {
		row = s->row;
		kind = UNWIND_KIND(row.kind);
	} else if (s->map_kind == MK_TABLE) {
		kind = find_row(s, at, &row);
		s->row = row;
		s->row_at = at;
	}

	switch (kind) {
	case UNWIND_CFA_RSP:
		cfa = s->sp + (__u64)row.cfa_off * 8;
		break;
	case UNWIND_CFA_RBP:
		cfa = s->bp + (__u64)row.cfa_off * 8;
		break;
	case UNWIND_PLT: /* 8 more once the entry pushed its index */
		cfa = s->sp + (__u64)row.cfa_off * 8 + ((s->pc & 15) >= (__u8)row.rbp_off ? 8 : 0);
		row.rbp_off = 0;
		break;
	case UNWIND_SIGNAL:
		return sigframe_step(s, &row);
	case UNWIND_END:
		s->complete = 1;
		return UNWIND_STOP;
	case UNWIND_UNSUPPORTED:
		s->reasons |= R_UNSUPPORTED;
		return fp_step(s, at, false);
	case UNWIND_GAP:
		if (s->map_kind == MK_TABLE || s->map_kind == MK_NO_TABLE) {
			s->reasons |= R_NO_TABLE;
			return gap_step(s, at);
		}
		/*
		 * Its table is expected but not in yet (or the process's maps
		 * are not read yet): the code most likely has no frame pointer.
		 * Without image events the maps come only at the end: then this
		 * is bpf_get_stack's walk, as good as it gets.
		 */
		s->reasons |= R_NOT_LOADED;
		return fp_step(s, at, image_events);
	default: /* no kind we write */
		s->reasons |= R_UNSUPPORTED;
		return UNWIND_STOP;
	}
	return frame_step(s, at, cfa, &row);
}

/*
 * UNWIND_STEP_FRAMES frames of slot's walk (fewer when the stack ends:
 * UNWIND_STOP).  Global, so verified once on its own; several frames a call
 * share the call and the state lookup.
 */
#define UNWIND_STEP_FRAMES 4
__noinline int unwind_step(__u32 slot)
{
	struct unwind_scratch *s = bpf_map_lookup_elem(&unwind_scratch, &slot);

	if (!s)
		return UNWIND_STOP;
	for (int i = 0; i < UNWIND_STEP_FRAMES; i++)
		if (unwind_frame(s))
			return UNWIND_STOP;
	return UNWIND_GO;
}

/* A fresh walk in state slot, for process image (tgid, gen); NULL if the
 * slot cannot be had.  Set pc, sp, bp and (arm64) lr, then unwind_walk. */
static __always_inline struct unwind_scratch *unwind_begin(__u32 slot, __u32 tgid, __u32 gen)
{
	struct unwind_scratch *s = bpf_map_lookup_elem(&unwind_scratch, &slot);

	if (!s)
		return NULL;
	s->trace.nr = 0;
	s->trace.exact = 0;
	s->reasons = 0;
	s->complete = 0;
	s->exact = 1;
	s->unchecked = 0;
	s->sp_low = 0;
	s->in_sigreturn = 0;
	s->lr = 0;
	s->map_start = s->map_end = 0;
	s->row_at = 0;
	s->map_kind = MK_NONE;
	s->tgid = tgid;
	s->gen = gen;
	return s;
}

/* One frame of the walk in the state slot at ctx, as bpf_loop's callback:
 * UNWIND_STOP (1) ends the loop. */
static long unwind_loop_frame(__u64 i __attribute__((unused)), void *ctx)
{
	struct unwind_scratch *s = bpf_map_lookup_elem(&unwind_scratch, ctx);

	return s ? unwind_frame(s) : UNWIND_STOP;
}

/*
 * Walks the stack into the slot's trace: with loop (a kernel with
 * bpf_loop), a frame a callback; else a few frames a global call, so this
 * loop costs the verifier a call and a test per call.  Either walks at most
 * SMOLDER_MAX_DEPTH frames and then one that finds the depth reached.
 */
static __always_inline void unwind_walk(__u32 slot, bool loop)
{
	if (loop) {
		bpf_loop(SMOLDER_MAX_DEPTH + 1, unwind_loop_frame, &slot, 0);
		return;
	}
	for (int i = 0; i <= SMOLDER_MAX_DEPTH / UNWIND_STEP_FRAMES; i++)
		if (unwind_step(slot))
			break;
}

#endif /* SMOLDER_UNWIND_BPF_H */
