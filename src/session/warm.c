// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Naming ahead (warm.h): owns the set of (image, stack) pairs already
 * named ahead, an open-addressing table of their hashes.
 */
#include <errno.h>
#include <stdlib.h>
#include "lib/hash.h"
#include "session/warm.h"

struct warm {
	uint64_t *seen; /* hashes, 0 empty; at most half full */
	size_t nr, cap;
};

struct warm_walk {
	struct warm *w;
	struct capture *c;
	struct usyms *us;
	const struct budget *b;
	bool expired;
};

struct warm *warm__new(void)
{
	return calloc(1, sizeof(struct warm));
}

static uint64_t key_hash(const struct sample_key *k)
{
	uint64_t h = hash__mix64(k->ustack ^ hash__mix64((uint64_t)k->tgid << 32 | k->gen));

	return h ? h : 1;
}

static uint64_t *slot(const struct warm *w, uint64_t h)
{
	size_t i = h & (w->cap - 1);

	while (w->seen[i] && w->seen[i] != h)
		i = (i + 1) & (w->cap - 1);
	return &w->seen[i];
}

/* Room for one more hash: false when full (WARM_MAX_STACKS) or short of memory. */
static bool room(struct warm *w)
{
	size_t cap = w->cap ? w->cap * 2 : 1024;
	uint64_t *old = w->seen;
	size_t n = w->cap;

	if (2 * (w->nr + 1) <= w->cap)
		return true;
	if (w->nr >= WARM_MAX_STACKS || !(w->seen = calloc(cap, sizeof(*w->seen)))) {
		w->seen = old;
		return false;
	}
	w->cap = cap;
	for (size_t i = 0; i < n; i++)
		if (old[i])
			*slot(w, old[i]) = old[i];
	free(old);
	return true;
}

static int warm_sample(const struct sample_key *key, uint64_t count, void *arg)
{
	struct warm_walk *ww = arg;
	struct stack_trace st;
	uint64_t h, *at;

	(void)count;
	if (!key->ustack || (key->flags & SAMPLE_FOREIGN_PID))
		return 0;
	h = key_hash(key);
	if (ww->w->cap && *slot(ww->w, h) == h)
		return 0;
	if (budget__expired(ww->b)) {
		ww->expired = true;
		return 1; /* ends the walk */
	}
	if (!room(ww->w))
		return 1;
	if (capture__stack(ww->c, key->ustack, &st))
		return 0; /* named at the end, or counted there as lost */
	if (!usyms__warm_stack(ww->us, (pid_t)key->tgid, key->gen, &st, ww->b)) {
		ww->expired = true;
		return 1;
	}
	at = slot(ww->w, h);
	*at = h;
	ww->w->nr++;
	return 0;
}

bool warm__pass(struct warm *w, struct capture *c, struct usyms *us, const struct budget *b)
{
	struct warm_walk ww = { .w = w, .c = c, .us = us, .b = b };

	if (!w)
		return false;
	capture__for_each_sample(c, warm_sample, &ww);
	return ww.expired;
}

void warm__free(struct warm *w)
{
	if (w)
		free(w->seen);
	free(w);
}
