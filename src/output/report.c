// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The readable report, in bcc profile's layout: each stack leaf first, one
 * frame per line, kernel frames above user frames ("--" between them when
 * delimited), then the process line and the count; hottest last, as bcc
 * prints it, or first.  The sections are the stacks' origins (profile.h);
 * frames past the kernel section (an off-CPU stack's [off-cpu:S] marker
 * and its waker) come first, being the leaf-most.  Counts are samples, or
 * with --off-cpu whole microseconds, "N us".
 */
#include <errno.h>
#include <inttypes.h>
#include "output/report.h"

static void put_name(FILE *out, const struct profile *p, uint32_t id)
{
	uint32_t len;
	const char *name = profile__name(p, id, &len);

	fwrite(name, 1, len, out);
}

/* Frames [from, to) of the stack, leaf-most first, one per line. */
static void put_lines(FILE *out, const struct profile *p, const uint32_t *ids, size_t from,
		      size_t to)
{
	for (size_t i = to; i-- > from;) {
		fputs("    ", out);
		put_name(out, p, ids[i]);
		putc('\n', out);
	}
}

static void print_stack(FILE *out, const struct profile *p, size_t i)
{
	const struct pstack *s = &p->stacks[i];
	const struct stack_origin *o = &p->origins[i];
	const uint32_t *ids = profile__ids(p, s);
	size_t user = o->n_head, kernel = stack_origin__kernel_from(o);

	if (s->depth < kernel + o->n_kernel)
		return; /* inconsistent counts: nothing sane to print */
	if (p->time_weighted && !(format__count(p, s) > 0))
		return; /* under half a microsecond: left out, as elsewhere */
	put_lines(out, p, ids, kernel + o->n_kernel, s->depth);
	put_lines(out, p, ids, kernel, kernel + o->n_kernel);
	if (o->n_delim)
		fprintf(out, "    --\n");
	put_lines(out, p, ids, user, user + o->n_user);
	fprintf(out, "    %-16s", "-");
	for (size_t k = 0; k < o->n_head; k++) {
		putc(' ', out);
		put_name(out, p, ids[k]);
	}
	fprintf(out, " (%u)\n        %" PRIu64 "%s\n\n", o->tgid, (uint64_t)format__count(p, s),
		p->time_weighted ? " " FORMAT_TIME_UNIT : "");
}

int report__write(FILE *out, const struct profile *p, bool hottest_last)
{
	if (!p->origins && p->nr) {
		errno = EINVAL;
		return -1;
	}
	for (size_t n = 0; n < p->nr; n++)
		print_stack(out, p, hottest_last ? p->nr - 1 - n : n);
	return ferror(out) ? -1 : 0;
}
