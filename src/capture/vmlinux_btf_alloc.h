/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The allocator libbpf's btf.o is linked against (its malloc, memcpy and
 * free renamed: Makefile's LIBBPF_BTF_O), so that vmlinux_btf.c can have
 * it parse a mapping of the kernel's BTF in place instead of copying it.
 */
#ifndef SMOLDER_VMLINUX_BTF_ALLOC_H
#define SMOLDER_VMLINUX_BTF_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* The next malloc of size bytes on this thread gets p (a mapping). */
void vmlinux_btf_alloc__offer(void *p, size_t size);
/* Whether the offer was taken (then libbpf's free of it unmaps it); the
 * offer ends either way. */
bool vmlinux_btf_alloc__taken(void);

void *vmlinux_btf__malloc(size_t size);
void *vmlinux_btf__memcpy(void *dst, const void *src, size_t n);
void vmlinux_btf__free(void *p);

#endif
