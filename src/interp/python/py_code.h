/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A CPython code object read from a live process (process_vm_readv): its
 * qualified name, file, first line, flags and line table, to name a frame
 * the BPF walk recorded (include/python.h) and give the line of its
 * instruction.  The process may be hostile: every read is bounded, names
 * are cut to PY_NAME_MAX bytes of UTF-8 and the line table to
 * PY_LINES_MAX bytes, and a decoder's work is bounded by the table it has.
 */
#ifndef SMOLDER_PY_CODE_H
#define SMOLDER_PY_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "interp/python/py_layout.h"

#define PY_NAME_MAX 1024        /* bytes of UTF-8 kept of a name, then "..." */
#define PY_LINES_MAX (64 << 10) /* bytes kept of a line table */

struct py_code {
	char *qualname;       /* co_qualname (3.11+) or co_name, UTF-8 */
	char *file;           /* co_filename, UTF-8 */
	uint32_t firstlineno; /* with flags, py_code_identity() */
	uint32_t flags;
	uint8_t *lines;       /* co_lnotab or co_linetable, cut at PY_LINES_MAX */
	size_t nr_lines;      /* its bytes */
	bool lines_cut;       /* the table was longer: past its end no line
			       * is known */
	uint32_t nr_instr;    /* instructions are below, in the unit BPF
			       * records (struct py_layout's instr_unit) */
};

/* Reads the code object at addr in process pid into *out (zeroed first;
 * py_code__free it after success).  0, or -errno: -ESRCH the process is
 * gone, -EPERM not ours to read, -EFAULT memory unreadable, -EINVAL
 * contents that make no sense for a code object (a negative or absurd
 * length, a string kind that does not exist), -ENOMEM. */
int py_code__read(const struct py_layout *l, pid_t pid, uint64_t addr, struct py_code *out);
void py_code__free(struct py_code *c);
/* Heap bytes c holds, for the names' memory bound. */
size_t py_code__bytes(const struct py_code *c);

/* The source line of instruction instr (as BPF records it, PY_INSTR_MASK
 * for a frame that has not started) in c, 0 when unknown. */
int py_code__line(const struct py_layout *l, const struct py_code *c, uint32_t instr);

#endif /* SMOLDER_PY_CODE_H */
