/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The commands that draw folded files: smolder flamegraph and smolder diff. */
#ifndef SMOLDER_CONVERT_H
#define SMOLDER_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "output/emit.h"

struct convert_opts {
	char *const *inputs;            /* flamegraph: FILE... (none: stdin); diff: BEFORE AFTER */
	size_t nr_inputs;
	bool strict;                    /* a line that is not a stack is an error */
	bool normalize;                 /* diff: BEFORE scaled to AFTER's total */
	const struct out_spec *outputs; /* each with its format */
	size_t nr_outputs;
	const struct render_opts *render;
	uint64_t from_ns, to_ns;        /* flamegraph --from, --to (0: not given) */
};

/* Each returns the exit code: 0, 2 for unusable input, 1 for other errors. */
int convert__flamegraph(const struct convert_opts *o);
int convert__diff(const struct convert_opts *o);

#endif
