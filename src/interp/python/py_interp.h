/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finding CPython in a process: the libpython it maps (or the program
 * itself, when libpython is linked in), its version, and what the BPF walk
 * needs of it (struct py_proc): where _PyRuntime's thread-state key is and
 * where glibc keeps a thread's keys.  Also where the interpreter loop's
 * code is, so that folding can put the Python frames in place of it.
 */
#ifndef SMOLDER_PY_INTERP_H
#define SMOLDER_PY_INTERP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "files/proc_maps.h"
#include "interp/python/py_layout.h"
#include "python.h"

struct py_interp {
	unsigned major, minor;          /* 0.0 when unknown */
	const struct py_layout *layout; /* NULL: a version we cannot read */
	struct py_proc bpf;             /* its gen is the caller's to set */
	uint64_t eval[2][2];            /* [start, end) of _PyEval_EvalFrameDefault
					 * and of its .cold part (0, 0: unknown) */
};

/*
 * Looks for CPython in process pid, whose mappings are pm.  0 when found;
 * -ENOENT: no CPython; -ENOTSUP: a CPython we cannot read (an old or
 * unknown version: major and minor say which, 0 when unknown); else
 * -errno (-ESRCH: the process is gone).
 */
int py_interp__find(pid_t pid, const struct proc_maps *pm, struct py_interp *out);
/* True when addr is in the interpreter loop's code. */
bool py_interp__is_eval(const struct py_interp *pi, uint64_t addr);

#endif
