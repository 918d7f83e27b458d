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

/* %.17g keeps every digit of a decimal count; whole counts print as such. */
int output_folded_profile(FILE *out, const struct profile *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		const struct pstack *s = &p->stacks[i];

		if (p->diff)
			fprintf(out, "%s %.17g %.17g\n", s->frames, s->before, s->count);
		else
			fprintf(out, "%s %.17g\n", s->frames, s->count);
	}
	return ferror(out) ? -1 : 0;
}
