// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A native frame's inline chain, for folding (fold_int.h): the functions
 * the compiler inlined at its address become frames of their own at that
 * address, each with its source function and line for pprof and
 * speedscope; --lines puts the leaf's line in its name.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fold/fold_int.h"
#include "profile/frame_name.h"

/* The length of name without its annotation ("_[i]", "_[j]"...), if any. */
static uint32_t unannotated(const char *name, uint32_t len)
{
	if (len >= 4 && name[len - 1] == ']' && name[len - 4] == '_' && name[len - 3] == '[')
		return len - 4;
	if (len >= 5 && name[len - 1] == ']' && name[len - 5] == '_' && name[len - 4] == '[')
		return len - 5;
	return len;
}

/* The last frame pushed, renamed "name (file:line)" with file's base name,
 * before its annotation (--lines): its location keeps its address and
 * source. */
static int retitle_leaf(struct fold *f, const char *file, uint32_t line)
{
	uint32_t len;
	const char *old = profile__name(f->p, f->ids[f->nr_ids - 1], &len);
	uint32_t bare = unannotated(old, len);
	const char *base = strrchr(file, '/');
	char buf[NAME_MAX_LEN + 64];
	long id;
	int n;

	if (len > NAME_MAX_LEN)
		len = bare = NAME_MAX_LEN;
	n = snprintf(buf, sizeof(buf), "%.*s (%s:%u)%.*s", (int)bare, old, base ? base + 1 : file,
		     line, (int)(len - bare), old + bare);
	frame_name__sanitize(buf);
	id = profile__intern(f->p, buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	if (id < 0)
		return -ENOMEM;
	f->ids[f->nr_ids - 1] = (uint32_t)id;
	return 0;
}

/* The source of the frame just pushed, from DWARF frame d: its function
 * as display names it, and where it was.  -ENOMEM. */
static int frame_source(struct fold *f, const char *display, const struct dwarf_frame *d)
{
	struct paddr_source s = { .func = display, .file = d->decl_file ? d->decl_file : d->file,
				  .line = d->line, .start_line = d->decl_line };

	return paddrs__line(f->p->addrs, &s, &f->at[f->nr_ids - 1]);
}

int fold_inline_frames(struct fold *f, const char *outer, const struct dwarf_chain *c,
			 bool leaf)
{
	const struct dwarf_frame *in = &c->f[c->n - 1];
	char name[NAME_MAX_LEN];

	if (frame_source(f, outer, &c->f[0]))
		return -ENOMEM;
	for (uint32_t k = 1; k < c->n && f->nr_inlined < FOLD_MAX_INLINED; k++) {
		struct paddr_frame at = f->at[f->nr_ids - 1];

		snprintf(name, sizeof(name), "%s", c->f[k].func ? c->f[k].func : "[unknown]");
		frame_name__sanitize(name);
		if (fold_push_frame(f, name, f->o.annotate ? "_[i]" : ""))
			return -ENOMEM;
		f->nr_inlined++;
		at.inlined = true;
		f->at[f->nr_ids - 1] = at;
		if (frame_source(f, name, &c->f[k]))
			return -ENOMEM;
		in = &c->f[k];
	}
	if (!leaf || !f->o.source_lines || !in->file || !in->line)
		return 0;
	return retitle_leaf(f, in->file, in->line);
}

