/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CPython frames in a native stack: each run of the interpreter loop
 * (a native _PyEval_EvalFrameDefault frame) gives way to the Python frames
 * it ran, outermost first, with the native frames between them kept in
 * place; and the name a Python frame goes by.
 *
 * Runs and loop frames are matched from the outermost: the innermost loop
 * frame may not have pushed its first Python frame yet (or has popped its
 * last).  When the native stack has fewer loop frames than the Python
 * stack has runs (a native stack cut short, or walked without frame
 * pointers), the outer runs go before the outermost loop frame, or before
 * every native frame when there is none.
 */
#ifndef SMOLDER_PYFRAMES_H
#define SMOLDER_PYFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "interp/python/py_names.h"
#include "smolder.h"

/* One frame of a merged user stack: native frame `index` of the user
 * stack, or Python frame `index` of the Python stack (0: innermost). */
struct merged_frame {
	uint16_t index;
	bool python;
};

/* The longest merged stack. */
#define PYFRAMES_MAX (SMOLDER_MAX_DEPTH + PY_MAX_FRAMES)

/*
 * The user stack ust (leaf first; NULL: none) merged with Python stack
 * pyst, root first, into out[PYFRAMES_MAX]; addr(i) is native frame i's
 * address to name.  Returns the number of frames.
 */
size_t pyframes__merge(const struct py_interp *pi, const struct stack_trace *ust,
		       uint64_t (*addr)(const struct stack_trace *st, int i),
		       const struct stack_trace *pyst, struct merged_frame *out);
/* "qualname (file)", or with lines "qualname (file:line)"; the file
 * shortened to what follows site-packages/, dist-packages/ or
 * lib/pythonX.Y/, else its base name. */
void pyframes__name(const struct py_frame *pf, bool lines, char *buf, size_t len);

#endif
