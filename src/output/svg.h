/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The SVG flame graph: one output format's writer (output/format.h says what all share). */
#ifndef SMOLDER_OUTPUT_SVG_H
#define SMOLDER_OUTPUT_SVG_H

#include <stdbool.h>
#include <stdio.h>
#include "output/format.h"

/* A self-contained interactive flame graph (no network, no external file). */
int svg__write(FILE *out, const struct profile *p, const struct render_opts *o);
#endif
