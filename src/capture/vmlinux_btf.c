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
 * to vmlinux_btf_alloc.c's (Makefile: LIBBPF_BTF_O), which answer the
 * malloc of the mapping's size with the mapping itself while it is
 * parsed.  Where the file cannot be mapped, libbpf copies as before.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "capture/vmlinux_btf_alloc.h"
#include "lib/log.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

struct btf *__real_btf__load_vmlinux_btf(void);
struct btf *__wrap_btf__load_vmlinux_btf(void);

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
	vmlinux_btf_alloc__offer(p, st.st_size);
	btf = btf__new(p, st.st_size);
	in_place = vmlinux_btf_alloc__taken(); /* then libbpf's free unmaps it */
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
