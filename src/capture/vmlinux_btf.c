// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's BTF as libbpf parses it, in place: every call of
 * btf__load_vmlinux_btf(), libbpf's own inside bpf_object__load included,
 * comes here (the link wraps it: -Wl,--wrap=btf__load_vmlinux_btf).
 *
 * libbpf 1.1 reads /sys/kernel/btf/vmlinux into a buffer and copies it
 * into its struct btf: 2 x 5.5 MB on a 6.18 kernel, the peak RSS of a
 * whole capture, and a page fault for each of those pages (~40 us apiece
 * on a VM).  Kernels since 6.16 let the file be mapped; the mapping is of
 * the kernel's own pages, counted in no RSS.  libbpf 1.6 parses such a
 * mapping where it lies; 1.1 always copies (btf_new: malloc, memcpy).  So
 * the build links libbpf's btf.o with its malloc, memcpy and free renamed
 * to the three below (Makefile: LIBBPF_BTF_O): while a mapping is being
 * parsed, the malloc of its size is answered with the mapping itself and
 * the copy onto itself is skipped; freeing it unmaps it.  Every other
 * allocation of btf.o passes through.  Without the renamed btf.o (unit
 * tests, tools) or where the file cannot be mapped, libbpf copies as
 * before.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lib/log.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
/* parses alive at once: libbpf's, the probe's, off-CPU's, kctx's */
#define MAX_MAPPED 8

struct btf *__real_btf__load_vmlinux_btf(void);
struct btf *__wrap_btf__load_vmlinux_btf(void);
void *vmlinux_btf__malloc(size_t size);
void *vmlinux_btf__memcpy(void *dst, const void *src, size_t n);
void vmlinux_btf__free(void *p);

/* The mapping this thread is parsing, offered to btf_new's malloc. */
static __thread void *offered;
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

/*
 * The BTF parsed from a read-only mapping of the file, or NULL.  The
 * kernel maps it read-only only; libbpf writes nothing to a native-endian
 * BTF's raw data (extending one copies it first).
 */
static struct btf *from_mapping(void)
{
	int fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	struct btf *btf = NULL;
	bool in_place;
	struct stat st;
	void *p;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	close(fd);
	offered = p;
	offered_size = st.st_size;
	btf = btf__new(p, st.st_size);
	in_place = !offered; /* libbpf's copy was the mapping: it unmaps it */
	offered = NULL;
	if (!in_place)
		munmap(p, st.st_size);
	if (libbpf_get_error(btf))
		return NULL;
	debug("kernel BTF from a mapping of " VMLINUX_BTF ", %s: %u types",
	      in_place ? "parsed in place" : "copied", btf__type_cnt(btf) - 1);
	return btf;
}

struct btf *__wrap_btf__load_vmlinux_btf(void)
{
	struct btf *btf = from_mapping();

	return btf ? btf : __real_btf__load_vmlinux_btf();
}
