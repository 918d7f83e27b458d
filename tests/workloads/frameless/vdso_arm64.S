/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * arm64's vDSO as Debian's 6.1 and 6.12 kernels build it: no CFI at all
 * (5.10's has none for the sigreturn trampoline), leaf functions without
 * a frame record (__kernel_clock_gettime: paciasp, branches, a system call
 * as its fallback, autiasp, ret), and the trampoline after its nop.  The
 * others are what the table builder must not take for such leaves: a
 * function with a frame record that calls, one that moves sp, one that
 * writes x30, one that calls through a register; and one that only jumps
 * on (br), which is a leaf.  test_unwind_table checks the rows built from
 * this code (src/unwind/unwind_a64_code.c).
 */
	.text
	.globl	__kernel_clock_gettime, framed, moves_sp, writes_lr, calls_reg, jumps_on
	.globl	__kernel_rt_sigreturn
	.type	__kernel_clock_gettime, %function
__kernel_clock_gettime:
	paciasp
	cmp	w0, #15
	b.hi	1f
	ldp	x2, x3, [x1]
	add	x4, sp, x2
	ldr	xzr, [x4]
	stp	x2, x3, [x1]
	mov	w0, #0
	autiasp
	ret
1:	mov	x8, #113
	svc	#0
	autiasp
	ret
	.size	__kernel_clock_gettime, . - __kernel_clock_gettime

	.type	framed, %function
framed:
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	bl	jumps_on
	ldp	x29, x30, [sp], #16
	ret
	.size	framed, . - framed

	.type	moves_sp, %function
moves_sp:
	sub	sp, sp, #16
	str	x0, [sp]
	add	sp, sp, #16
	ret
	.size	moves_sp, . - moves_sp

	.type	writes_lr, %function
writes_lr:
	ldr	x30, [x0]
	ret
	.size	writes_lr, . - writes_lr

	.type	calls_reg, %function
calls_reg:
	blr	x1
	ret
	.size	calls_reg, . - calls_reg

	.type	jumps_on, %function
jumps_on:
	cbz	x0, 1f
	br	x1
1:	ret
	.size	jumps_on, . - jumps_on

	nop	/* the kernel's: a return address - 1 lands here */
__kernel_rt_sigreturn:
	mov	x8, #139	/* __NR_rt_sigreturn */
	svc	#0
	.size	__kernel_rt_sigreturn, . - __kernel_rt_sigreturn
