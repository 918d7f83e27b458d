// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Inline frames, inside usyms: whether frames get their inline chains
 * from DWARF (symcache.h), the chain of a named frame, and naming ahead
 * (session/warm.h), which fills the files' caches before the naming.
 */
#include "files/proc_maps.h"
#include "symbols/usyms_int.h"

void usyms__set_inline(struct usyms *u, bool on, bool lines)
{
	u->inline_frames = on;
	symcache__set_inline(u->syms, on, lines);
}

/* The inline chain of named frame fr in f (fr->chain; left NULL when none). */
void usyms_name_chain(struct usyms *u, struct symfile *f, struct usyms_frame *fr)
{
	struct symcache_read rd = { .budget = u->budget, .phase = u->phase,
				    .allowance = usyms_allowance_cb, .arg = u };

	if (!u->inline_frames || fr->vaddr == UINT64_MAX)
		return;
	if (u->marking)
		symcache__mark(u->syms, f, &rd, fr->vaddr);
	else if (!symcache__chain(u->syms, f, &rd, fr->vaddr, &u->chain) && u->chain.n)
		fr->chain = &u->chain;
}

bool usyms__inline_frames(const struct usyms *u)
{
	return u->inline_frames;
}

/*
 * In a capture's quiet time (b given) only what was read already is used:
 * the image's maps and the file's symbols, read as its processes came
 * (preload), whose reads a slice of time would cut short (a file given up
 * for time is read again only in a later budget, by when a short-lived
 * process is gone); only the DWARF is read here.  Before folding (b NULL)
 * the frame is named as the fold would, in usyms' own budget.
 */
static struct pid_ent *warm_image(struct usyms *u, pid_t pid, uint32_t gen, bool quiet)
{
	struct pid_ent *e = quiet ? usyms_pid_find(u, pid, gen, false) : usyms_pid_get(u, pid, gen);

	return e && e->pm ? e : NULL;
}

bool usyms__warm_frame(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr,
		       const struct budget *b, bool mark)
{
	const struct budget *saved = u->budget;
	struct pid_ent *e;
	const struct proc_map *m;
	struct usyms_frame fr;
	char name[256]; /* thrown away: the caches keep what naming needs */

	if (budget__expired(b ? b : u->budget))
		return false;
	e = warm_image(u, pid, gen, b);
	m = e ? proc_maps__find(e->pm, addr) : NULL;
	if (!m || m->kind != PROC_MAP_FILE)
		return true; /* left to the naming */
	if (b) {
		struct symfile *f = e->files ? e->files[m - e->pm->maps] : NULL;

		if (!f || symfile__retry(f, u->phase))
			return true;
		u->budget = b;
	}
	u->marking = mark;
	usyms_name_file(u, e, m, addr, name, sizeof(name), &fr);
	u->marking = false;
	u->budget = saved;
	return true;
}
