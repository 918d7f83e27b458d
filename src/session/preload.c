// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Images waiting for their maps to be read (see preload.h): owns the queue,
 * its set of keys, and the time each user's images take to read.  Why here, in the wait loop, and not in a thread:
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

#include "lib/clock.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "session/preload.h"
#include "files/proc_maps.h"

#define SET_SIZE (PRELOAD_MAX * 2) /* open addressing, at most half full */
/* The longest one run reads before it returns to the ring buffer, for
 * the announcements of new images. */
#define SLICE_S 0.05
/* After its maps took t to read, a user's images are read again only
 * after RATIO * t: one user's maps, 65,000 lines each, take at most about
 * a tenth of the time.  Reads under FREE_S (a process with a few thousand
 * mappings, or an ordinary one on a busy machine) are not counted; nor is
 * reading symbols, whose files are cached. */
#define RATIO 9
#define FREE_S 0.020
#define USERS 256 /* users with their own account; the others share one */

struct item {
	uint32_t tgid, gen;
	double due; /* CLOCK_MONOTONIC s */
	uid_t uid;  /* the process's real uid */
	bool first; /* its maps were never read */
	bool light; /* read before, never over USYMS_LIGHT_MAPS mappings */
	bool glanced; /* its maps read ahead of its files (glance) */
	bool done;  /* read in this run */
};

struct user {
	uid_t uid;
	bool used;
	double busy_until; /* its images are read again from then on */
};

struct preload {
	struct usyms *us;
	struct item items[PRELOAD_MAX]; /* announcement order */
	size_t nr;
	uint64_t set[SET_SIZE]; /* keys of the items, + 1; 0: empty */
	struct user users[USERS]; /* open addressing; the last slot when full */
	uint64_t done, dropped;
};

static uint64_t key_of(uint32_t tgid, uint32_t gen)
{
	return ((uint64_t)tgid << 32 | gen) + 1;
}

static size_t slot_of(uint64_t key)
{
	return hash__mix64(key) & (SET_SIZE - 1);
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

static struct user *user_of(struct preload *q, uid_t uid)
{
	size_t i = hash__mix64(uid) & (USERS - 1);

	for (size_t n = 0; n < USERS - 1; n++, i = (i + 1) & (USERS - 1)) {
		if (!q->users[i].used)
			q->users[i] = (struct user){ .uid = uid, .used = true };
		if (q->users[i].uid == uid)
			return &q->users[i];
	}
	return &q->users[USERS - 1]; /* 255 users at once: the rest share */
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
		.uid = proc_maps__real_uid(tgid), .first = !usyms__preloaded(q->us, tgid, gen),
		.light = usyms__light_maps(q->us, tgid, gen),
	};
}

/* When item it may be read: a re-read waits for its user's turn too,
 * unless the image's maps are light (usyms__light_maps): then a starting
 * process's libraries are read while it lives even when another process
 * of its user made the turns long. */
static double due(struct preload *q, const struct item *it)
{
	double busy = user_of(q, it->uid)->busy_until;

	return it->first || it->light || it->due > busy ? it->due : busy;
}

/* Charges its user RATIO times the t seconds its maps took, when over
 * FREE_S: that user's images wait their turn after it. */
static void charge(struct preload *q, const struct item *it, double t)
{
	double now = clock__now();
	struct user *u = user_of(q, it->uid);

	if (t <= FREE_S)
		return;
	u->busy_until = (u->busy_until > now ? u->busy_until : now) + RATIO * t;
	debug("maps of pid %u took %.0f ms: uid %d's next read after %.0f ms", it->tgid, t * 1000,
	      (int)it->uid, (u->busy_until - now) * 1000);
}

/* Reads it, charging its user RATIO times the time its maps took; false
 * when the budget left no time to. */
static bool read_item(struct preload *q, struct item *it)
{
	if (usyms__preload(q->us, it->tgid, it->gen) == -ETIMEDOUT)
		return false;
	charge(q, it, usyms__maps_read_s(q->us));
	q->done++;
	it->done = true;
	set_del(q, key_of(it->tgid, it->gen));
	return true;
}

/*
 * Reads the due items of one pass, oldest first, until b expires or the
 * slice that began at `start` is over (false then).  Pass 0: the images of
 * users whose turn it is, new or read before (a starting process is read
 * again as it maps its libraries); 1: the new images of the others, and
 * their light ones read before.
 */
static bool run_pass(struct preload *q, const struct budget *b, int pass, double start)
{
	for (size_t i = 0; i < q->nr; i++) {
		struct item *it = &q->items[i];
		double now = clock__now();

		if (it->done || due(q, it) > now ||
		    (pass == 0 && user_of(q, it->uid)->busy_until > now))
			continue;
		if (budget__expired(b) || now - start > SLICE_S || !read_item(q, it))
			return false;
	}
	return true;
}


/*
 * A new image's maps, ahead of any image's files: what its next samples
 * need (unwind tables, its interpreter) waits on nobody's symbol files.
 * Users take turns here too: one whose maps took long (65,000 mappings)
 * is glanced at again only in its turn, and its images are read whole
 * in the passes.
 */
static void glance_new(struct preload *q, const struct budget *b, double start)
{
	for (size_t i = 0; i < q->nr; i++) {
		struct item *it = &q->items[i];
		double t0 = clock__now();

		if (!it->first || it->glanced || it->done ||
		    user_of(q, it->uid)->busy_until > t0)
			continue;
		if (budget__expired(b) || t0 - start > SLICE_S)
			return;
		it->glanced = true;
		/* gone or not, its full read follows: that says why it is */
		usyms__preload_maps(q->us, it->tgid, it->gen);
		charge(q, it, clock__now() - t0);
	}
}

void preload__glance_new(struct preload *q, const struct budget *b)
{
	glance_new(q, b, clock__now());
}

size_t preload__glance_all(struct preload *q, const struct budget *b)
{
	size_t n = 0;

	for (size_t i = 0; i < q->nr; i++) {
		struct item *it = &q->items[i];

		if (!budget__expired(b) && usyms__preload_maps(q->us, it->tgid, it->gen) == 0)
			n++;
		set_del(q, key_of(it->tgid, it->gen));
	}
	q->nr = 0;
	return n;
}

/* Users whose maps took the least time go first: a process that maps and
 * unmaps in a loop, 65,000 mappings long, is read again and again, while a
 * short-lived one of another user must be read before it exits. */
double preload__run(struct preload *q, const struct budget *b)
{
	double start = clock__now(), now, next = 0;
	size_t out = 0;

	glance_new(q, b, start);
	for (int pass = 0; pass < 2 && run_pass(q, b, pass, start); pass++)
		;
	now = clock__now();
	for (size_t i = 0; i < q->nr; i++) {
		struct item it = q->items[i];

		if (it.done)
			continue;
		it.due = due(q, &it);
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
