// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The readable report, in bcc profile's layout: each stack leaf first, one
 * frame per line, kernel frames above user frames ("--" between them when
 * delimited), then the process line and the count; hottest last, as bcc
 * prints it, or first.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"

/* Splits a folded text in place into at most max frames; returns the count. */
static size_t split_frames(char *text, char **frames, size_t max)
{
	size_t n = 0;

	for (char *p = text; p && n < max; n++) {
		frames[n] = p;
		p = strchr(p, ';');
		if (p)
			*p++ = 0;
	}
	return n;
}

static void print_stack(FILE *out, const struct folded *s, char **fr, size_t n)
{
	size_t user = s->n_head, kernel = user + s->n_user + s->n_delim;

	if (n < kernel + s->n_kernel)
		return; /* inconsistent counts: nothing sane to print */
	for (size_t i = kernel + s->n_kernel; i-- > kernel;)
		fprintf(out, "    %s\n", fr[i]);
	if (s->n_delim)
		fprintf(out, "    --\n");
	for (size_t i = user + s->n_user; i-- > user;)
		fprintf(out, "    %s\n", fr[i]);
	fprintf(out, "    %-16s", "-");
	for (size_t i = 0; i < s->n_head; i++)
		fprintf(out, " %s", fr[i]);
	fprintf(out, " (%u)\n        %" PRIu64 "\n\n", s->tgid, s->count);
}

int output_report(FILE *out, const struct folded *stacks, size_t nr, bool hottest_last)
{
	size_t max = 2 + 5 + 2 * 127 + 1; /* cpu, process, context frames, stacks, "-" */
	char **frames = calloc(max, sizeof(*frames));

	if (!frames)
		return -1;
	for (size_t n = 0; n < nr; n++) {
		size_t i = hottest_last ? nr - 1 - n : n;
		char *copy = strdup(stacks[i].text);

		if (!copy)
			break;
		print_stack(out, &stacks[i], frames, split_frames(copy, frames, max));
		free(copy);
	}
	free(frames);
	return ferror(out) ? -1 : 0;
}
