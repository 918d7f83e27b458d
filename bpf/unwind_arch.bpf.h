/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The facts the user stack walk needs of the architecture it runs on, in
 * one place: bpf/unwind.bpf.h's walk (the BPF programs', and its build for
 * user space in src/unwind/task_walk.c and tests/replay) and the programs
 * that start walks from a task's registers (smolder.bpf.c, offcpu.bpf.h)
 * include this.  What a row means on each is include/unwind.h's; how the
 * walk steps from one is unwind.bpf.h's "where the architectures differ".
 *
 * UNWIND_ARM64 is 1 for arm64: the BPF target's (__TARGET_ARCH_arm64), else
 * the compiler's (__aarch64__), unless the includer set it.
 */
#ifndef SMOLDER_UNWIND_ARCH_BPF_H
#define SMOLDER_UNWIND_ARCH_BPF_H

#ifndef UNWIND_ARM64
#if defined(__TARGET_ARCH_arm64) || (!defined(__TARGET_ARCH_x86) && defined(__aarch64__))
#define UNWIND_ARM64 1
#else
#define UNWIND_ARM64 0
#endif
#endif

#if UNWIND_ARM64
/*
 * User code is below 2^48 (arm64's 48-bit user address space; 52-bit
 * kernels map there too unless a process asks for more with mmap hints):
 * the bits above a saved x30 are a pointer authentication code (a row
 * whose CFI toggles DW_CFA_AARCH64_negate_ra_state), or 0.  Every return
 * address is masked, signed or not, so rows need not know which.
 */
#define UNWIND_PC_MASK ((1ull << 48) - 1)

/* The instructions that end a function once its frame is popped: ret
 * (x30), and the pointer authentication forms (autiasp, autibsp before a
 * ret; retaa, retab). */
#define A64_RET 0xd65f03c0u
#define A64_AUTIASP 0xd50323bfu
#define A64_AUTIBSP 0xd50323ffu
#define A64_RETAA 0xd65f0bffu
#define A64_RETAB 0xd65f0fffu

/* The vDSO's __kernel_rt_sigreturn, the only signal frame the walk
 * trusts: mov x8, #139 (__NR_rt_sigreturn); svc #0. */
#define A64_MOV_X8_SIGRETURN 0xd2801168u
#define A64_SVC_0 0xd4000001u

/*
 * At the trampoline sp points at the kernel's struct rt_sigframe
 * (arch/arm64/kernel/signal.c): a siginfo (128 bytes), then a ucontext
 * whose uc_mcontext, a 16-aligned struct sigcontext, starts 176 bytes in:
 * fault_address, regs[31], sp, pc, pstate.  The offsets are the ABI's,
 * the same from 3.7 on; smolder.bpf.c checks them against the arm64
 * kernel's BTF (vmlinux.h) when it builds.
 */
#define A64_SIGCONTEXT (128 + 176)
#define A64_SC_X29 (A64_SIGCONTEXT + 8 + 29 * 8) /* then x30 */
#define A64_SC_SP (A64_SIGCONTEXT + 8 + 31 * 8)  /* then pc */
#else
#define UNWIND_PC_MASK (~0ull) /* x86_64 return addresses are whole */
#endif

#ifdef __VMLINUX_H__
/* The registers a walk starts from: pc, sp, the frame pointer (rbp,
 * x29), and the link register (x30; arm64 only, else 0). */
struct unwind_regs {
	__u64 pc, sp, fp, lr;
};

#if UNWIND_ARM64
#define UNWIND_LR(regs) PT_REGS_RET(regs)
#define UNWIND_LR_CORE(regs) PT_REGS_RET_CORE(regs)
#else
#define UNWIND_LR(regs) 0
#define UNWIND_LR_CORE(regs) 0
#endif

/* r from a user pt_regs through the accessors IP, SP, FP and LR: the
 * sample's own (ctx->regs, BPF memory) with PT_REGS_*, a task's saved
 * ones (kernel memory) with PT_REGS_*_CORE (CO-RE reads). */
#define unwind_read_regs_by(regs, r, IP, SP, FP, LR)                           \
	do {                                                                   \
		(r)->pc = IP(regs);                                            \
		(r)->sp = SP(regs);                                            \
		(r)->fp = FP(regs);                                            \
		(r)->lr = LR(regs);                                            \
	} while (0)
#define unwind_read_regs(regs, r)                                              \
	unwind_read_regs_by(regs, r, PT_REGS_IP, PT_REGS_SP, PT_REGS_FP, UNWIND_LR)
#define unwind_read_regs_core(regs, r)                                         \
	unwind_read_regs_by(regs, r, PT_REGS_IP_CORE, PT_REGS_SP_CORE, PT_REGS_FP_CORE, \
			    UNWIND_LR_CORE)

/*
 * A task's saved ones read straight into a walk's scratch s (map memory):
 * no struct on the stack nor a temporary per CO-RE read, for which
 * on_switch had no room on arm64 (5.10 and 6.1: "combined stack size of 2
 * calls is 544").
 */
#if UNWIND_ARM64
#define unwind_read_lr_into(s, regs)                                           \
	bpf_core_read(&(s)->lr, sizeof((s)->lr), &__PT_REGS_CAST(regs)->__PT_RET_REG)
#else
#define unwind_read_lr_into(s, regs) ((s)->lr = 0)
#endif
#define unwind_read_saved_regs(regs, s)                                        \
	do {                                                                   \
		bpf_core_read(&(s)->pc, sizeof((s)->pc), &__PT_REGS_CAST(regs)->__PT_IP_REG); \
		bpf_core_read(&(s)->sp, sizeof((s)->sp), &__PT_REGS_CAST(regs)->__PT_SP_REG); \
		bpf_core_read(&(s)->bp, sizeof((s)->bp), &__PT_REGS_CAST(regs)->__PT_FP_REG); \
		unwind_read_lr_into(s, regs);                                  \
	} while (0)

/* A walk's registers (unwind.bpf.h's scratch) from r. */
#define unwind_set_regs(s, r)                                                  \
	do {                                                                   \
		(s)->pc = (r)->pc;                                             \
		(s)->sp = (r)->sp;                                             \
		(s)->bp = (r)->fp;                                             \
		(s)->lr = (r)->lr;                                             \
	} while (0)

#if UNWIND_ARM64
_Static_assert(__builtin_offsetof(struct rt_sigframe, uc.uc_mcontext.regs[29]) == A64_SC_X29,
	       "arm64 rt_sigframe: x29");
_Static_assert(__builtin_offsetof(struct rt_sigframe, uc.uc_mcontext.sp) == A64_SC_SP,
	       "arm64 rt_sigframe: sp");
_Static_assert(__builtin_offsetof(struct rt_sigframe, uc.uc_mcontext.pc) == A64_SC_SP + 8,
	       "arm64 rt_sigframe: pc");
#endif
#endif /* __VMLINUX_H__ */

#endif /* SMOLDER_UNWIND_ARCH_BPF_H */
