// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Folded stacks output: the text flamegraph.pl, speedscope and others read. */
#include <inttypes.h>
#include "output.h"

int output_folded(FILE *out, const struct folded *stacks, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		fprintf(out, "%s %" PRIu64 "\n", stacks[i].text, stacks[i].count);
	return ferror(out) ? -1 : 0;
}

static void put_frames(FILE *out, const struct profile *p, const struct pstack *s)
{
	const uint32_t *ids = profile__ids(p, s);

	for (uint32_t i = 0; i < s->depth; i++) {
		uint32_t len;
		const char *name = profile__name(p, ids[i], &len);

		if (i)
			putc(';', out);
		fwrite(name, 1, len, out);
	}
}

/* %.17g keeps every digit of a decimal count; whole counts print as such. */
int output_folded_profile(FILE *out, const struct profile *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		const struct pstack *s = &p->stacks[i];

		put_frames(out, p, s);
		if (p->diff)
			fprintf(out, " %.17g %.17g\n", s->before, s->count);
		else
			fprintf(out, " %.17g\n", s->count);
	}
	return ferror(out) ? -1 : 0;
}
