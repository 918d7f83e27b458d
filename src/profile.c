// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Profiles: counted stacks for the picture formats (see profile.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"
#include "profile.h"

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

int profile__add(struct profile *p, const char *frames, size_t len,
		 double count, double before)
{
	struct pstack *s;

	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;

		s = realloc(p->stacks, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		p->stacks = s;
		p->cap = cap;
	}
	s = &p->stacks[p->nr];
	s->frames = strndup(frames, len);
	if (!s->frames)
		return -ENOMEM;
	s->count = count;
	s->before = before;
	if (count != floor(count) || before != floor(before))
		p->fractional = true;
	p->nr++;
	return 0;
}

struct profile *profile__from_folded(const struct folded *st, size_t nr,
				     uint64_t period_ns)
{
	struct profile *p = profile__new();

	if (!p)
		return NULL;
	p->period_ns = period_ns;
	for (size_t i = 0; i < nr; i++) {
		if (profile__add(p, st[i].text, strlen(st[i].text), st[i].count, 0)) {
			profile__free(p);
			return NULL;
		}
	}
	return p;
}

double profile__total(const struct profile *p)
{
	double t = 0;

	for (size_t i = 0; i < p->nr; i++)
		t += p->stacks[i].count;
	return t;
}

double profile__total_before(const struct profile *p)
{
	double t = 0;

	for (size_t i = 0; i < p->nr; i++)
		t += p->stacks[i].before;
	return t;
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++)
		free(p->stacks[i].frames);
	free(p->stacks);
	free(p);
}
