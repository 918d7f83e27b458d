/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Folded stacks: one output format's writer (output/format.h says what all share). */
#ifndef SMOLDER_OUTPUT_FOLDED_H
#define SMOLDER_OUTPUT_FOLDED_H

#include <stdbool.h>
#include <stdio.h>
#include "output/format.h"

/* flamegraph.pl's input: "frame;frame;... COUNT" per line (a diff's
 * "frame;... BEFORE AFTER"; counts with decimals kept as given). */
int folded__write(FILE *out, const struct profile *p);
#endif
