// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPython in a process (py_interp.h).  The candidates are the mapped files
 * named libpython3.* and python*: a libpython, or a program with libpython
 * linked in (Debian's /usr/bin/python3.11).  The version is Py_Version
 * (3.11 on), else the file's name; glibc's per-thread key array is placed
 * by the _thread_db_pthread_specific description libc carries for
 * debuggers.  Every file is opened as the process maps it and read within
 * bounds: a file that lies gives "no CPython", never a wrong walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "files/elf_lookup.h"
#include "files/safe_open.h"
#include "interp/python/py_interp.h"
#include "lib/log.h"

/* glibc 2.36's, when libc says nothing: specific_1stblock[0].data */
#define TSD_DEFAULT (0x310 + 8)
#define PTHREAD_KEY_1STBLOCK 32 /* PTHREAD_KEY_2NDLEVEL_SIZE */

enum { SYM_RUNTIME, SYM_VERSION, SYM_EVAL, SYM_EVAL_COLD, SYM__MAX };
static const char *const py_syms[SYM__MAX] = {
	[SYM_RUNTIME] = "_PyRuntime",
	[SYM_VERSION] = "Py_Version",
	[SYM_EVAL] = "_PyEval_EvalFrameDefault",
	[SYM_EVAL_COLD] = "_PyEval_EvalFrameDefault.cold",
};

static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "python3.11", "libpython3.9.so.1.0", "libpython3.12d.so": 3.x from the
 * name; false for names that say nothing. */
static bool version_from_name(const char *name, unsigned *major, unsigned *minor)
{
	if (!strncmp(name, "lib", 3))
		name += 3;
	if (strncmp(name, "python", 6))
		return false;
	return sscanf(name + 6, "%u.%u", major, minor) == 2;
}

static bool candidate(const struct proc_map *m)
{
	const char *name;

	if (m->kind != PROC_MAP_FILE || !m->path || !m->exec)
		return false;
	name = base_name(m->path);
	return !strncmp(name, "libpython", 9) || !strncmp(name, "python", 6);
}

/* The first mapping of the file m maps (its lowest address). */
static const struct proc_map *first_mapping(const struct proc_maps *pm, const struct proc_map *m)
{
	for (size_t i = 0; i < pm->nr; i++)
		if (pm->maps[i].dev == m->dev && pm->maps[i].ino == m->ino)
			return &pm->maps[i];
	return m;
}

/* Looks up names[0..n) in the file mapping m maps, as the process maps it;
 * their process addresses are value + *bias.  -ENOENT unless the first is
 * found (and the bias known). */
static int mapped_symbols(pid_t pid, const struct proc_map *m, const char *const *names,
			  size_t n, struct elf_found *found, uint64_t *bias)
{
	struct elf_file *f;
	struct stat st;
	int fd, e = -ENOENT;

	fd = safe_open__mapped(pid, m, &st);
	if (fd < 0)
		return -ENOENT;
	f = elf_file__open_fd(fd);
	if (f && elf_file__lookup(f, names, n, found) && found[0].found)
		e = elf_file__load_bias(f, m->start, m->pgoff, bias) ? -ENOENT : 0;
	elf_file__close(f);
	close(fd);
	return e;
}

/* The interpreter's symbols in the file of mapping m.  -ENOENT: not a
 * CPython. */
static int file_symbols(pid_t pid, const struct proc_map *m, struct elf_found *found,
			uint64_t *bias)
{
	int e = mapped_symbols(pid, m, py_syms, SYM__MAX, found, bias);

	return !e && found[SYM_EVAL].found ? 0 : -ENOENT;
}

/*
 * glibc's offset of a thread's first key block from the thread pointer,
 * from libc's description of struct pthread for debuggers; TSD_DEFAULT
 * without one.  specific_1stblock is the 32 pairs right before specific;
 * on arm64 struct pthread lies below the thread pointer.
 */
static int32_t tsd_offset(pid_t pid, const struct proc_maps *pm)
{
	static const char *const names[] = { "_thread_db_pthread_specific",
					     "_thread_db_sizeof_pthread" };
	struct elf_found found[2];
	uint32_t desc[3], size = 0; /* desc: bits, count, offset of specific */
	uint64_t bias;

	for (size_t i = 0; i < pm->nr; i++) {
		const struct proc_map *m = &pm->maps[i];

		if (!m->exec || !m->path || strncmp(base_name(m->path), "libc.so", 7))
			continue;
		if (mapped_symbols(pid, m, names, 2, found, &bias) ||
		    read_mem(pid, found[0].value + bias, desc, sizeof(desc)) ||
		    desc[2] < PTHREAD_KEY_1STBLOCK * 16 || desc[2] >= 0x4000)
			break;
#if defined(__aarch64__)
		if (!found[1].found || read_mem(pid, found[1].value + bias, &size, 4) ||
		    size > 0x4000)
			break;
#endif
		return (int32_t)(desc[2] - PTHREAD_KEY_1STBLOCK * 16 + 8) - (int32_t)size;
	}
	return TSD_DEFAULT;
}

/* The version: Py_Version's (3.11 on) or the file name's. */
static void find_version(pid_t pid, const struct proc_map *m, const struct elf_found *found,
			 uint64_t bias, struct py_interp *out)
{
	uint32_t hex;

	if (found[SYM_VERSION].found && !read_mem(pid, found[SYM_VERSION].value + bias, &hex, 4) &&
	    (hex >> 24) == 3) {
		out->major = 3;
		out->minor = (hex >> 16) & 0xff;
		return;
	}
	if (!version_from_name(base_name(m->path), &out->major, &out->minor))
		out->major = out->minor = 0;
}

int py_interp__find(pid_t pid, const struct proc_maps *pm, struct py_interp *out)
{
	struct elf_found found[SYM__MAX];
	uint64_t bias;
	int e = -ENOENT;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < pm->nr && e; i++) {
		const struct proc_map *m = &pm->maps[i];

		if (!candidate(m))
			continue;
		e = file_symbols(pid, first_mapping(pm, m), found, &bias);
		if (e == -ESRCH)
			return e;
		if (!e)
			find_version(pid, m, found, bias, out);
	}
	if (e)
		return e;
	out->layout = py_layout__find(out->major, out->minor);
	if (!out->layout)
		return -ENOTSUP;
	out->bpf.tss_key = found[SYM_RUNTIME].value + bias + out->layout->runtime_tss_key;
	out->bpf.tsd_offset = tsd_offset(pid, pm);
	out->bpf.off = out->layout->bpf;
	out->eval[0][0] = found[SYM_EVAL].value + bias;
	out->eval[0][1] = out->eval[0][0] + (found[SYM_EVAL].size ? found[SYM_EVAL].size : 1);
	if (found[SYM_EVAL_COLD].found) {
		out->eval[1][0] = found[SYM_EVAL_COLD].value + bias;
		out->eval[1][1] = out->eval[1][0] + found[SYM_EVAL_COLD].size;
	}
	return 0;
}

bool py_interp__is_eval(const struct py_interp *pi, uint64_t addr)
{
	return (addr >= pi->eval[0][0] && addr < pi->eval[0][1]) ||
	       (addr >= pi->eval[1][0] && addr < pi->eval[1][1]);
}
