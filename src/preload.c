// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Images waiting for their maps to be read (see preload.h): owns the queue
 * and its set of keys.  Why here, in the wait loop, and not in a thread:
 * usyms is not thread-safe, and the work would still have to stop at the
 * deadline and at a signal (the readers of untrusted files check a budget
 * for that, and for memory, either way); a thread would add locks around
 * every name and pause at every interval's end for nothing.  The loop
 * calls preload__run between polls of the ring buffer, with the capture's
 * deadline and signals as the budget.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "hash.h"
#include "preload.h"

#define SET_SIZE (PRELOAD_MAX * 2) /* open addressing, at most half full */

struct item {
	uint32_t tgid, gen;
	double due; /* CLOCK_MONOTONIC s */
};

struct preload {
	struct usyms *us;
	struct item items[PRELOAD_MAX]; /* announcement order */
	size_t nr;
	uint64_t set[SET_SIZE]; /* keys of the items, + 1; 0: empty */
	uint64_t done, dropped;
};

static uint64_t key_of(uint32_t tgid, uint32_t gen)
{
	return ((uint64_t)tgid << 32 | gen) + 1;
}

static size_t slot_of(uint64_t key)
{
	return hash_mix64(key) & (SET_SIZE - 1);
}

/* Inserts key; false if it was there. */
static bool set_add(struct preload *q, uint64_t key)
{
	size_t i = slot_of(key);

	for (; q->set[i]; i = (i + 1) & (SET_SIZE - 1))
		if (q->set[i] == key)
			return false;
	q->set[i] = key;
	return true;
}

/* Removes key, shifting back the entries after it (no tombstones). */
static void set_del(struct preload *q, uint64_t key)
{
	size_t i = slot_of(key), j, home;

	while (q->set[i] != key) {
		if (!q->set[i])
			return;
		i = (i + 1) & (SET_SIZE - 1);
	}
	q->set[i] = 0;
	for (j = (i + 1) & (SET_SIZE - 1); q->set[j]; j = (j + 1) & (SET_SIZE - 1)) {
		home = slot_of(q->set[j]);
		/* move it back when its home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			q->set[i] = q->set[j];
			q->set[j] = 0;
			i = j;
		}
	}
}

struct preload *preload__new(struct usyms *us)
{
	struct preload *q = calloc(1, sizeof(*q));

	if (q)
		q->us = us;
	return q;
}

void preload__add(struct preload *q, uint32_t tgid, uint32_t gen)
{
	if (q->nr == PRELOAD_MAX) {
		if (!set_add(q, key_of(tgid, gen)))
			return; /* waiting already */
		set_del(q, key_of(tgid, gen));
		q->dropped++;
		usyms__mark_late(q->us, tgid, gen);
		return;
	}
	if (!set_add(q, key_of(tgid, gen)))
		return;
	q->items[q->nr++] = (struct item){
		.tgid = tgid, .gen = gen, .due = usyms__preload_due(q->us, tgid, gen),
	};
}

double preload__run(struct preload *q, const struct budget *b)
{
	double now = clock__now(), next = 0;
	size_t i, out = 0;
	bool stop = false;

	for (i = 0; i < q->nr; i++) {
		struct item it = q->items[i];

		if (!stop && it.due <= now) {
			bool read = usyms__preload(q->us, it.tgid, it.gen) != -ETIMEDOUT;

			stop = !read || budget__expired(b);
			if (read) {
				q->done++;
				set_del(q, key_of(it.tgid, it.gen));
				continue;
			}
			now = clock__now();
		}
		if (!next || it.due < next)
			next = it.due ? it.due : now;
		q->items[out++] = it;
	}
	q->nr = out;
	return next;
}

void preload__mark_waiting(struct preload *q)
{
	for (size_t i = 0; i < q->nr; i++)
		usyms__mark_late(q->us, q->items[i].tgid, q->items[i].gen);
}

void preload__stats(const struct preload *q, struct preload_stats *out)
{
	out->done = q->done;
	out->dropped = q->dropped;
	out->waiting = q->nr;
}

void preload__free(struct preload *q)
{
	free(q);
}
