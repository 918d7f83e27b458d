// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Budgets for work on other processes' behalf (see budget.h). */
#include <time.h>
#include "budget.h"

double budget__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool budget__expired(const struct budget *b)
{
	sigset_t pending, both;

	if (!b)
		return false;
	if (b->until > 0 && budget__now() >= b->until)
		return true;
	if (!b->sigs || sigpending(&pending))
		return false;
	sigandset(&both, &pending, b->sigs);
	return !sigisemptyset(&both);
}

bool budget__affords(const struct budget *b, double seconds)
{
	if (budget__expired(b))
		return false;
	return !b || b->until <= 0 || budget__now() + seconds <= b->until;
}

bool budget__too_big(const struct budget *b, size_t bytes)
{
	return b && b->max_bytes && bytes > b->max_bytes;
}
