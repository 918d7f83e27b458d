/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The readable report: one output format's writer (output/format.h says what all share). */
#ifndef SMOLDER_OUTPUT_REPORT_H
#define SMOLDER_OUTPUT_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "output/format.h"

/* bcc profile's readable report: leaf first, a stack per paragraph; the
 * hottest stack last (bcc's order: the answer stays on screen) or first.
 * -1 with EINVAL for a profile without origins. */
int report__write(FILE *out, const struct profile *p, bool hottest_last);
#endif
