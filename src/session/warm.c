// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Naming ahead (warm.h): owns the set of (image, stack) pairs already
 * named ahead (an open-addressing table of their hashes) and a pass's
 * frames, sorted by process image and address.
 */
#include <errno.h>
#include <stdlib.h>
#include "lib/grow.h"
#include "lib/hash.h"
#include "session/warm.h"

struct warm_frame {
	uint32_t tgid, gen;
	uint64_t addr;
};

struct warm {
	uint64_t *seen; /* hashes, 0 empty; at most half full */
	size_t nr, cap;
	struct warm_frame *frames; /* this pass's */
	size_t nr_frames, cap_frames;
	const struct sample_source *src;
	struct stack_trace st;
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

/* Gathers the frames of a stack not named ahead yet. */
static int gather(const struct sample_key *key, uint64_t count, void *arg)
{
	struct warm *w = arg;
	struct stack_trace *st = &w->st;
	uint64_t h;

	(void)count;
	if (!key->ustack || (key->flags & SAMPLE_FOREIGN_PID))
		return 0;
	h = key_hash(key);
	if (w->cap && *slot(w, h) == h)
		return 0;
	if (w->src->stack(w->src->arg, key->ustack, st))
		return 0; /* named when folded, or counted there as lost */
	if (st->nr > sizeof(st->ip) / sizeof(st->ip[0]) ||
	    w->nr_frames + st->nr > WARM_MAX_FRAMES || !room(w) ||
	    GROW(w->frames, w->cap_frames, w->nr_frames + st->nr, 1024))
		return 1; /* the rest waits for the next pass */
	for (uint32_t i = 0; i < st->nr; i++)
		w->frames[w->nr_frames++] = (struct warm_frame){
			key->tgid, key->gen, stack_trace__frame_addr(st, (int)i) };
	*slot(w, h) = h;
	w->nr++;
	return 0;
}

static int by_image_then_addr(const void *a, const void *b)
{
	const struct warm_frame *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Each frame of the pass named ahead (or marked): false when b expired. */
static bool warm_frames(const struct warm *w, struct usyms *us, const struct budget *b, bool mark)
{
	const struct warm_frame *last = NULL;

	for (size_t i = 0; i < w->nr_frames; last = &w->frames[i++]) {
		const struct warm_frame *f = &w->frames[i];

		if (last && !by_image_then_addr(last, f))
			continue;
		if (!usyms__warm_frame(us, (pid_t)f->tgid, f->gen, f->addr, b, mark))
			return false; /* the rest is named when folded */
	}
	return true;
}

bool warm__pass(struct warm *w, const struct sample_source *src, struct usyms *us,
		const struct budget *b)
{
	bool expired = false;

	if (!w)
		return false;
	w->src = src;
	w->nr_frames = 0;
	src->for_each(src->arg, gather, w);
	qsort(w->frames, w->nr_frames, sizeof(*w->frames), by_image_then_addr);
	/* marked first, so that a file's units are read in one go */
	for (int mark = 1; mark >= 0 && !expired; mark--)
		expired = !warm_frames(w, us, b, mark);
	return expired;
}

void warm__free(struct warm *w)
{
	if (w) {
		free(w->seen);
		free(w->frames);
	}
	free(w);
}
