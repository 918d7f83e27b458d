// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind shares, inside the unwind maps: owns what each user's processes
 * hold of the tables that every process shares (the files known, with
 * their "unwind_files" entries; the shards' slots; the "unwind_mappings"
 * entries), so that no one user can fill a table for everyone else, and
 * the choice of what to evict when a table is full.
 *
 * A user knows at most 1/SHARE_USER of the files the files map holds and
 * holds at most that of the LPM entries; of the shards' slots it may use
 * more while no one else needs them, but those tables are the first to go
 * when another user's do not fit.  A file is paid for by the user whose
 * process made it known first (libc by whoever ran first).
 * Users are told apart by real uid (proc_maps__real_uid).  Eviction takes files no process maps first, then
 * those of users over their share, then the asker's own, least recently
 * mapped first; never a mapped file of another user within its share.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "unwind/unwind_maps_int.h"

struct ushare *unwind_shares_of(struct unwind_maps *um, pid_t pid)
{
	uid_t uid = proc_maps__real_uid(pid);
	struct ushare **pp = &um->shares[hash__mix64(uid) % SHARE_BUCKETS];

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->uid == uid)
			return *pp;
	*pp = calloc(1, sizeof(**pp));
	if (*pp)
		(*pp)->uid = uid;
	return *pp;
}

void unwind_shares_free(struct unwind_maps *um)
{
	for (size_t b = 0; b < SHARE_BUCKETS; b++)
		for (struct ushare *s = um->shares[b], *n; s; s = n) {
			n = s->next;
			free(s);
		}
}

size_t unwind_shares_files(void)
{
	return UNWIND_MAX_FILES / SHARE_USER;
}

size_t unwind_shares_prefixes(void)
{
	return UNWIND_MAX_MAPPINGS / SHARE_USER;
}

uint64_t unwind_shares_slots(const struct unwind_maps *um)
{
	return um->st.budget / 8 / SHARE_USER;
}

static bool over_share(const struct unwind_maps *um, const struct ushare *s, bool slots)
{
	return slots ? s->slots > unwind_shares_slots(um) : s->files > unwind_shares_files();
}

struct pick {
	struct unwind_maps *um;
	const struct ushare *asker;
	enum victims which;
	struct ufile *best;
	int best_rank;
};

/* 0: no process maps it; 1: another user's, over its share; 2: the
 * asker's own; -1: not to be evicted. */
static int rank(const struct pick *p, const struct ufile *uf)
{
	bool slots = p->which != VICTIM_ENTRY;

	if ((uf->state != F_LOADED && (slots || uf->state != F_NO_TABLE)) || uf->queued)
		return -1;
	if (!uf->ent.refs)
		return 0;
	if (uf->share != p->asker && uf->share && over_share(p->um, uf->share, slots))
		return 1;
	/* not the tables of the image being read: it needs them now */
	if (uf->share == p->asker && p->which != VICTIM_SLOTS_RELOAD &&
	    uf->ent.last_used != p->um->tick)
		return 2;
	return -1;
}

static void consider(struct filecache_ent *e, void *arg)
{
	struct pick *p = arg;
	struct ufile *uf = (struct ufile *)e;
	int r = rank(p, uf);

	if (r >= 0 && (!p->best || r < p->best_rank ||
		       (r == p->best_rank && e->last_used < p->best->ent.last_used))) {
		p->best = uf;
		p->best_rank = r;
	}
}

struct ufile *unwind_shares_victim(struct unwind_maps *um, const struct ushare *sh,
				   enum victims which)
{
	struct pick p = { .um = um, .asker = sh, .which = which };

	filecache__for_each(um->files, consider, &p);
	return p.best;
}
