/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Budgets for work done on other processes' behalf: reading their maps,
 * perf maps, ELF and debug files.  Any user can make that work as big as
 * they like, so it runs against a deadline on the monotonic clock, stops
 * when a signal the caller waits for is pending (SIGINT, SIGTERM: they act
 * within a second whatever is being read) or when another thread cancels
 * it (a thread that does not take those signals), and holds at most
 * max_bytes of memory per file.  Readers check the budget as they go and
 * give up cleanly: ETIMEDOUT when out of time (or a signal came), E2BIG
 * when the file would take more memory; the caller then names frames by
 * file offset and counts what it gave up.
 */
#ifndef SMOLDER_BUDGET_H
#define SMOLDER_BUDGET_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct budget {
	double until;         /* clock__now() seconds; 0: no deadline */
	const sigset_t *sigs; /* a pending one of these ends the work; NULL: none */
	const atomic_bool *cancel; /* true (another thread's store) ends the
				    * work; NULL: none */
	size_t max_bytes;     /* memory one file's read may hold; 0: no limit */
};

/* True once the deadline has passed, one of the signals is pending or the
 * work was cancelled; false for NULL.  Costs a clock read and a
 * sigpending(2). */
bool budget__expired(const struct budget *b);
/* False when b expired, or will have before seconds more of work are done
 * (for steps that cannot stop halfway, like a sort); true for NULL. */
bool budget__affords(const struct budget *b, double seconds);
/* True when bytes are more than b lets one read hold; false for NULL. */
bool budget__too_big(const struct budget *b, size_t bytes);

#endif
