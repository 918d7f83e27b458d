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
