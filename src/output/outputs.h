/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where results go: the format each output file asks for (by --format, else
 * by its name), and writing every output of one run: regular files through
 * a temporary file renamed into place so that no reader ever sees half a
 * file, devices and FIFOs in place (outfile.h).  A failed output does not
 * keep the others from being written.
 */
#ifndef SMOLDER_OUTPUTS_H
#define SMOLDER_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include "output/output.h"

#define MAX_OUTPUTS 8

struct outfile_at;

struct out_spec {
	const char *path; /* NULL or "-": standard output */
	enum out_format fmt;
	struct outfile_at *at; /* or NULL; else a new file in a directory
				* already open, path only names it (outfile.h) */
};

/* What a name asks for: .folded/.txt, .svg, .speedscope.json, .pb.gz;
 * FMT_AUTO when the name says nothing. */
enum out_format outputs__format_of(const char *path);
/* "folded", "report", "svg", "speedscope", "pprof": 0, or -1 if unknown. */
int outputs__parse_format(const char *name, enum out_format *out);
const char *outputs__format_name(enum out_format fmt);

/* What one run has to write: the profile every format reads. */
struct out_data {
	const struct profile *prof;
	const struct render_opts *render;
	bool hottest_last;         /* the report: as bcc prints it */
};

/* Writes one output.  0, or -1 after printing why. */
int outputs__write(const struct out_spec *o, const struct out_data *d);
/* Writes every output, whatever fails: 0, or -1 when one or more failed
 * (each said why, one line each). */
int outputs__write_all(const struct out_spec *outs, size_t nr, const struct out_data *d);
/* At start: every output path may be written (see outfile__check).  0, or
 * -1 after printing why. */
int outputs__check(const struct out_spec *outs, size_t nr);

#endif
