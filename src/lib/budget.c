// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Budgets for work on other processes' behalf (see budget.h). */
#include "lib/budget.h"
#include "lib/clock.h"

bool budget__expired(const struct budget *b)
{
	sigset_t pending, both;

	if (!b)
		return false;
	if (b->cancel && atomic_load_explicit(b->cancel, memory_order_relaxed))
		return true;
	if (b->until > 0 && clock__now() >= b->until)
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
	return !b || b->until <= 0 || clock__now() + seconds <= b->until;
}

bool budget__too_big(const struct budget *b, size_t bytes)
{
	return b && b->max_bytes && bytes > b->max_bytes;
}
