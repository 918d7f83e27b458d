// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's BTF as libbpf parses it, at half the memory: every call of
 * btf__load_vmlinux_btf(), libbpf's own inside bpf_object__load included,
 * comes here (the link wraps it: -Wl,--wrap=btf__load_vmlinux_btf).
 *
 * libbpf 1.1 reads /sys/kernel/btf/vmlinux into a buffer and copies it
 * into its struct btf before freeing the buffer: 2 x 5.5 MB on a 6.18
 * kernel, the peak RSS of a whole capture, and a page fault for each of
 * those pages (~40 us apiece on a VM).  Kernels since 6.16 let the file be
 * mapped read-only; the mapping is of the kernel's own pages, counted in no
 * RSS, so only libbpf's copy is ours (as libbpf 1.6 and later do, without
 * even the copy).  Where the file cannot be mapped, libbpf reads it as
 * before.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lib/log.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

struct btf *__real_btf__load_vmlinux_btf(void);
struct btf *__wrap_btf__load_vmlinux_btf(void);

/* The BTF parsed from a read-only mapping of the file, or NULL. */
static struct btf *from_mapping(void)
{
	int fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	struct btf *btf = NULL;
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
	btf = btf__new(p, st.st_size);
	munmap(p, st.st_size);
	if (libbpf_get_error(btf))
		return NULL;
	return btf;
}

struct btf *__wrap_btf__load_vmlinux_btf(void)
{
	struct btf *btf = from_mapping();

	if (btf) {
		debug("kernel BTF from a mapping of " VMLINUX_BTF ": %u types", btf__type_cnt(btf) - 1);
		return btf;
	}
	return __real_btf__load_vmlinux_btf();
}
