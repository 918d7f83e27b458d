/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* pprof: one output format's writer (output/format.h says what all share). */
#ifndef SMOLDER_OUTPUT_PPROF_H
#define SMOLDER_OUTPUT_PPROF_H

#include <stdbool.h>
#include <stdio.h>
#include "output/format.h"

/* pprof: a gzip-compressed profile.proto. */
int pprof__write(FILE *out, const struct profile *p, const struct render_opts *o);
#endif
