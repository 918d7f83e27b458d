/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Emitting a run's outputs: each in the format it asks for (by --format,
 * else by its name: format.h), regular files through a temporary file
 * renamed into place so that no reader ever sees half a file, devices and
 * FIFOs in place (destination.h).  A failed output does not keep the
 * others from being written.
 */
#ifndef SMOLDER_OUTPUT_EMIT_H
#define SMOLDER_OUTPUT_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "output/format.h"

#define MAX_OUTPUTS 8

struct destination_dir;

struct out_spec {
	const char *path; /* NULL or "-": standard output */
	enum out_format fmt;
	struct destination_dir *at; /* or NULL; else a new file in a directory
				* already open, path only names it (destination.h) */
	FILE *stream; /* or NULL; else written there as it is (--serve's
		       * memory stream), path only names it */
};

/* What one run has to write: the profile every format reads. */
struct out_data {
	const struct profile *prof;
	const struct render_opts *render;
	bool hottest_last;         /* the report: as bcc prints it */
};

/* Writes one output.  0, or -1 after printing why. */
int emit__one(const struct out_spec *o, const struct out_data *d);
/* Writes every output, whatever fails: 0, or -1 when one or more failed
 * (each said why, one line each). */
int emit__all(const struct out_spec *outs, size_t nr, const struct out_data *d);
/* At start: every output path may be written (see destination__check).  0, or
 * -1 after printing why. */
int emit__check(const struct out_spec *outs, size_t nr);

#endif
