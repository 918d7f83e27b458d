/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading folded stacks, flamegraph.pl's grammar: one stack per line,
 * frames separated by ';', then whitespace and a sample count, the line's
 * last field: a whole or decimal number ("12", "12.", "12.5").  Frame names
 * may hold spaces.  A line whose stack also ends in a count ("a;b 10 12",
 * difffolded.pl's output) is read as BEFORE and AFTER counts; a profile's
 * first line decides which of the two kinds every line must be.  Blank
 * lines are skipped; any other line without a count is an error naming it.
 *
 * Bounds, so that hostile or broken input costs little and whatever
 * smolder writes it reads back: a line is at most FOLDED_LINE_MAX bytes
 * (longer: an error, before the rest of it is read), and a count at most
 * FOLDED_COUNT_MAX (10^18; more, or "1e5", "inf": an error).  The folded
 * writer never writes an exponent and writes larger sums (of a diff) as
 * FOLDED_COUNT_MAX.
 */
#ifndef SMOLDER_FOLDED_READ_H
#define SMOLDER_FOLDED_READ_H

#include <stddef.h>
#include <stdio.h>
#include "profile.h"

#define FOLDED_LINE_MAX (4u << 20) /* bytes: far more than a real stack needs */
#define FOLDED_COUNT_MAX 1e18

/*
 * Appends in's stacks to p, in input order (identical stacks are not merged
 * here).  Returns 0, or -EINVAL with "line N of NAME: what is wrong" in errbuf
 * for a malformed line, -EIO (errno-style message) when in failed, -ENOMEM.
 */
int folded_read(FILE *in, const char *name, struct profile *p, char *errbuf, size_t errlen);

#endif
