/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading folded stacks, flamegraph.pl's grammar: one stack per line,
 * frames separated by ';', then whitespace and a sample count, the line's
 * last field: a whole or decimal number ("12", "12.", "12.5").  Frame names
 * may hold spaces.  A line whose stack also ends in a count ("a;b 10 12",
 * difffolded.pl's output) is read as BEFORE and AFTER counts; a profile's
 * first stack decides which of the two kinds every line must be.  Blank
 * lines are skipped.
 *
 * Other lines are not stacks: no count at the end ("# key: value" headers
 * of Python profilers, a stray message in a pipe), a NUL byte, a line of the
 * other kind, a line over FOLDED_LINE_MAX, and (only when skipping) a
 * comment: '#' first and no ';'.  flamegraph.pl skips such lines and
 * warns; folded_read__skip() does too, counting them in a struct
 * folded_skips that keeps the first one for the warning; folded_read__parse() is
 * strict: each is an error naming its line, and a "# key: 12" line is a
 * one-frame stack, as it always was.
 *
 * smolder's own header: a continuous-mode interval's folded file starts
 * with "# smolder-interval start=2026-11-28T10:02:00.123Z
 * end=2026-11-28T10:03:00.125Z host=web1 samples=1140 lost=0 rate=19Hz",
 * which says what the file holds.  Both readers skip it silently as the
 * first line of an input (elsewhere it is a comment like any other); a
 * line that ends in a count or holds a ';' is a stack, never the header;
 * flamegraph.pl skips it as a line without a count ("Ignored 1 lines with
 * invalid format"), so it never ends in " DIGITS".
 *
 * Bounds, so that hostile or broken input costs little and whatever
 * smolder writes it reads back: a line is at most FOLDED_LINE_MAX bytes
 * (longer: strict, an error before the rest of it is read; skipping, the
 * rest is read and dropped, never held), and a count at most
 * FOLDED_COUNT_MAX (10^18; more, or "inf": an error either way, since that
 * line is a stack, and dropping a stack would change the picture; "1e5" has
 * no count flamegraph.pl reads, so is skipped).  The folded writer never
 * writes an exponent and writes larger sums (of a diff) as
 * FOLDED_COUNT_MAX.
 */
#ifndef SMOLDER_FOLDED_READ_H
#define SMOLDER_FOLDED_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "profile/profile.h"

#define FOLDED_LINE_MAX (4u << 20) /* bytes: far more than a real stack needs */
#define FOLDED_COUNT_MAX 1e18
#define FOLDED_QUOTE_MAX 60        /* bytes of a skipped line quoted */

#define FOLDED_HEADER "# smolder-interval "

/* What smolder's header says (0 or "" where it does not). */
struct folded_header {
	uint64_t start_ns, end_ns; /* ns since the epoch */
	char host[65];
	uint64_t samples, lost;
	double rate_hz;
};

/* Reads line[0..len) as smolder's header: true when it is one, with a
 * start and an end that is not before it. */
bool folded_read__header(const char *line, size_t len, struct folded_header *h);
/* Writes it, newline included (h->host must hold no whitespace). */
void folded_read__put_header(FILE *out, const struct folded_header *h);

/* Lines that were not stacks, over one or more inputs: how many, and where
 * the first one was, with its start made printable for a quote ("\x01",
 * "\"", "..." when cut). */
struct folded_skips {
	size_t nr;
	size_t line;                    /* the first one's line number */
	char name[256];                 /* its input's name */
	char text[4 * FOLDED_QUOTE_MAX + 4];
};

/*
 * Appends in's stacks to p, in input order (identical stacks are not merged
 * here).  Returns 0, or -EINVAL with "line N of NAME: what is wrong" in errbuf
 * for a malformed line, -EIO (errno-style message) when in failed, -ENOMEM.
 */
int folded_read__parse(FILE *in, const char *name, struct profile *p, char *errbuf, size_t errlen);

/* The same, skipping lines that are not stacks and counting them in *skips
 * (skips NULL: strict, as folded_read__parse()).  Errors are only those a stack's
 * count makes, and the input's own. */
int folded_read__skip(FILE *in, const char *name, struct profile *p, struct folded_skips *skips,
		     char *errbuf, size_t errlen);

/* "skipped 3 lines that are not \"stack count\" (first: line 1 of x: \"# a: b\")"
 * into buf (diff: "stack before after"); "" when nothing was skipped. */
void folded_skips__describe(const struct folded_skips *s, bool diff, char *buf, size_t len);

#endif
