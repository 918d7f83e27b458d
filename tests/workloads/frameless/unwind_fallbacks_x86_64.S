/*
 * Hand-written leaves for tests/workloads/frameless/unwind_fallbacks.c:
 * hot loops whose call-frame information the DWARF unwinder's rows cannot
 * use, as code in the wild sometimes has (hand-written assembly, other
 * compilers' expressions).  Each keeps a real frame pointer (push %rbp;
 * mov %rsp,%rbp), so the frame-pointer fallback finds the true caller.
 *
 *   spin_cfa_expr(n)        CFA given as an expression (DW_CFA_def_cfa_
 *                           expression "rbp + 16"), not the PLT's
 *   spin_ra_expr(n)         return address given as an expression
 *                           (DW_CFA_expression r16 "rbp + 8")
 *   spin_unreadable(n, fp)  CFA = rbp + 16 (a plain, supported rule) with
 *                           rbp set to fp for the loop: the caller passes
 *                           the address of a page it made unreadable, so
 *                           the unwinder must read unreadable memory
 *
 * All return a number from n iterations of a multiply loop.
 */
	.text

	.globl	spin_cfa_expr
	.type	spin_cfa_expr, @function
spin_cfa_expr:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	/* DW_CFA_def_cfa_expression, 2 bytes: DW_OP_breg6 (rbp) 16 */
	.cfi_escape 0x0f, 0x02, 0x76, 0x10
	mov	%rdi, %rcx
	mov	%rdi, %rax
1:	imul	%rcx, %rax
	add	$1, %rax
	dec	%rcx
	jnz	1b
	pop	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	spin_cfa_expr, .-spin_cfa_expr

	.globl	spin_ra_expr
	.type	spin_ra_expr, @function
spin_ra_expr:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	/* DW_CFA_expression r16 (return address), 2 bytes: DW_OP_breg6 8 */
	.cfi_escape 0x10, 0x10, 0x02, 0x76, 0x08
	mov	%rdi, %rcx
	mov	%rdi, %rax
1:	imul	%rcx, %rax
	add	$1, %rax
	dec	%rcx
	jnz	1b
	pop	%rbp
	.cfi_def_cfa_offset 8
	.cfi_restore %rbp
	.cfi_restore 16
	ret
	.cfi_endproc
	.size	spin_ra_expr, .-spin_ra_expr

	.globl	spin_unreadable
	.type	spin_unreadable, @function
spin_unreadable:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsi, %rbp
	/* what CFI says a frame-pointer frame is, with rbp pointing at the
	 * unreadable page: the CFA, the return address and the saved rbp
	 * are all read from there */
	.cfi_def_cfa %rbp, 16
	mov	%rdi, %rcx
	mov	%rdi, %rax
1:	imul	%rcx, %rax
	add	$1, %rax
	dec	%rcx
	jnz	1b
	pop	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	spin_unreadable, .-spin_unreadable

	.section .note.GNU-stack, "", @progbits
