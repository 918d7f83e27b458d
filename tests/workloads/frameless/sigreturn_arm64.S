/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * arm64's signal trampoline as the kernel's source writes it
 * (arch/arm64/kernel/vdso/sigreturn.S; Debian's built vDSOs keep none of
 * its CFI: vdso_arm64.S), in a library of its own, so that test_unwind_table checks what
 * the table builder makes of its CFI without an arm64 kernel's vDSO.  The
 * CFI marks a signal frame and says only where the frame record is; the
 * registers are in the rt_sigframe at sp (bpf/unwind_arch.bpf.h).
 */
	.text
	.globl	__kernel_rt_sigreturn
	.cfi_startproc
	.cfi_signal_frame
	.cfi_def_cfa	x29, 0
	.cfi_offset	x29, 0 * 8
	.cfi_offset	x30, 1 * 8
	nop	/* the kernel's "mysterious NOP": return address - 1 lands here */
__kernel_rt_sigreturn:
	mov	x8, #139	/* __NR_rt_sigreturn */
	svc	#0
	.cfi_endproc
	.size	__kernel_rt_sigreturn, . - __kernel_rt_sigreturn
