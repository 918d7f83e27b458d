/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* speedscope: one output format's writer (output/format.h says what all share). */
#ifndef SMOLDER_OUTPUT_SPEEDSCOPE_H
#define SMOLDER_OUTPUT_SPEEDSCOPE_H

#include <stdbool.h>
#include <stdio.h>
#include "output/format.h"

/* speedscope's file format, one "sampled" profile. */
int speedscope__write(FILE *out, const struct profile *p, const struct render_opts *o);
#endif
