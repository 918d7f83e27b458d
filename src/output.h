/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Output formats of folded stacks; each writes to an open stream. */
#ifndef SMOLDER_OUTPUT_H
#define SMOLDER_OUTPUT_H

#include <stdio.h>
#include "fold.h"

/* flamegraph.pl's input: "frame;frame;... COUNT" per line. */
int output_folded(FILE *out, const struct folded *stacks, size_t nr);
/* bcc profile's readable report: leaf first, a stack per paragraph. */
int output_report(FILE *out, const struct folded *stacks, size_t nr);

#endif
