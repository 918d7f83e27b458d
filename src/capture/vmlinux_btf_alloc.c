// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The allocator of libbpf's btf.o (vmlinux_btf_alloc.h): every allocation
 * passes through to the C library's, but the one malloc vmlinux_btf.c
 * offers a mapping for, and that mapping's free.  Apart from vmlinux_btf.c
 * (which the link wraps around libbpf), so that programs linking
 * libsmolder.a without that wrap (unit tests, tools) link too.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture/vmlinux_btf_alloc.h"

/* parses alive at once: libbpf's, the probe's, off-CPU's, kctx's */
#define MAX_MAPPED 8

/* The mapping this thread is parsing, offered to btf_new's malloc. */
static __thread void *offered;
static __thread bool taken;
static __thread size_t offered_size;

static struct mapped {
	void *p;
	size_t size;
} mapped[MAX_MAPPED];
static pthread_mutex_t mapped_lock = PTHREAD_MUTEX_INITIALIZER;

/* Records p as a struct btf's raw data; false if the table is full. */
static bool adopt(void *p, size_t size)
{
	bool ok = false;

	pthread_mutex_lock(&mapped_lock);
	for (int i = 0; i < MAX_MAPPED && !ok; i++)
		if (!mapped[i].p) {
			mapped[i] = (struct mapped){ p, size };
			ok = true;
		}
	pthread_mutex_unlock(&mapped_lock);
	return ok;
}

/* Forgets p if it is an adopted mapping: its size, else 0. */
static size_t disown(void *p)
{
	size_t size = 0;

	pthread_mutex_lock(&mapped_lock);
	for (int i = 0; i < MAX_MAPPED && !size; i++)
		if (p && mapped[i].p == p) {
			size = mapped[i].size;
			mapped[i] = (struct mapped){ 0 };
		}
	pthread_mutex_unlock(&mapped_lock);
	return size;
}

void *vmlinux_btf__malloc(size_t size)
{
	void *p = offered;

	if (p && size == offered_size && adopt(p, size)) {
		offered = NULL;
		taken = true;
		return p;
	}
	return malloc(size);
}

void *vmlinux_btf__memcpy(void *dst, const void *src, size_t n)
{
	return dst == src ? dst : memcpy(dst, src, n);
}

void vmlinux_btf__free(void *p)
{
	size_t size = disown(p);

	if (size)
		munmap(p, size);
	else
		free(p);
}

void vmlinux_btf_alloc__offer(void *p, size_t size)
{
	offered = p;
	offered_size = size;
	taken = false;
}

bool vmlinux_btf_alloc__taken(void)
{
	bool t = taken;

	offered = NULL;
	taken = false;
	return t;
}
