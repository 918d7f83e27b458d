/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where counted samples are read from: a capture (finish__capture_source),
 * or a recording of one (recording.h).  As capture.h's readers.
 */
#ifndef SMOLDER_SAMPLE_SOURCE_H
#define SMOLDER_SAMPLE_SOURCE_H

#include "capture/capture.h"

struct sample_source {
	int (*for_each)(void *arg, sample_fn fn, void *fn_arg);
	int (*stack)(void *arg, uint64_t id, struct stack_trace *out);
	int (*work_desc)(void *arg, uint64_t id, struct work_desc *out);
	void *arg;
	int (*waker_desc)(void *arg, uint64_t id, struct waker_desc *out); /* or NULL */
};

#endif
