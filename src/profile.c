// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Profiles: counted stacks of interned frame names (see profile.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"
#include "profile.h"

#define BLOCK_BYTES (64 * 1024)

/* Names' bytes, in blocks that never move (the string table points in). */
struct name_block {
	struct name_block *next;
	size_t used, size;
	char bytes[];
};

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

static const char *keep_bytes(struct profile *p, const char *s, size_t len)
{
	struct name_block *b = p->blocks;

	if (!b || b->size - b->used < len) {
		size_t size = len > BLOCK_BYTES ? len : BLOCK_BYTES;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->next = p->blocks;
		b->used = 0;
		b->size = size;
		p->blocks = b;
	}
	memcpy(b->bytes + b->used, s, len);
	b->used += len;
	return b->bytes + b->used - len;
}

/* The id of name s[0..len), its bytes copied into the profile if new;
 * -ENOMEM.  (Repeated names, the common case, are hashed once.) */
static long intern(struct profile *p, const char *s, size_t len)
{
	long id = strtab__find(&p->names, s, len);
	const char *kept;

	if (id >= 0)
		return id;
	kept = keep_bytes(p, s, len);
	return kept ? strtab__intern(&p->names, kept, len) : -ENOMEM;
}

static int push_id(struct profile *p, uint32_t id)
{
	if (p->nr_ids == p->cap_ids) {
		size_t cap = p->cap_ids ? p->cap_ids * 2 : 4096;
		uint32_t *n = realloc(p->ids, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->ids = n;
		p->cap_ids = cap;
	}
	p->ids[p->nr_ids++] = id;
	return 0;
}

static struct pstack *new_stack(struct profile *p)
{
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct pstack *s = realloc(p->stacks, cap * sizeof(*s));

		if (!s)
			return NULL;
		p->stacks = s;
		p->cap = cap;
	}
	return &p->stacks[p->nr];
}

int profile__add(struct profile *p, const char *text, size_t len,
		 double count, double before)
{
	struct pstack *s = new_stack(p);
	const char *t = text, *end = text + len;

	if (!s)
		return -ENOMEM;
	*s = (struct pstack){ .first = p->nr_ids, .count = count, .before = before };
	while (len && t <= end) {
		const char *e = memchr(t, ';', end - t);
		size_t n = e ? (size_t)(e - t) : (size_t)(end - t);
		long id = intern(p, t, n);

		if (id < 0 || push_id(p, (uint32_t)id)) {
			p->nr_ids = s->first;
			return -ENOMEM;
		}
		s->depth++;
		t += n + 1;
	}
	if (count != floor(count) || before != floor(before))
		p->fractional = true;
	p->nr++;
	return 0;
}

/* The thread and CPU of a folded stack, from its leading frames ("cpu_3",
 * "comm-PID/TID"), when the view put them there. */
static void origin_of(const struct folded *f, struct stack_origin *o)
{
	const char *s = f->text;
	unsigned int tgid, tid;
	int cpu, n;

	*o = (struct stack_origin){ .tgid = f->tgid, .cpu = -1,
				    .kernel_from = f->n_head + f->n_user + f->n_delim };
	memcpy(o->comm, f->comm, sizeof(o->comm) < sizeof(f->comm) ? sizeof(o->comm) : sizeof(f->comm));
	o->comm[sizeof(o->comm) - 1] = '\0';
	for (uint16_t i = 0; i < f->n_head && s; i++) {
		const char *end = strchr(s, ';'), *dash;
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (sscanf(s, "cpu_%d%n", &cpu, &n) == 1 && (size_t)n == len)
			o->cpu = cpu;
		dash = memrchr(s, '-', len);
		if (dash && sscanf(dash, "-%u/%u%n", &tgid, &tid, &n) == 2 &&
		    (size_t)(dash - s) + n == len && tgid == f->tgid)
			o->tid = tid;
		s = end ? end + 1 : NULL;
	}
}

struct profile *profile__from_folded(const struct folded *st, size_t nr,
				     uint64_t period_ns)
{
	struct profile *p = profile__new();

	if (!p)
		return NULL;
	p->period_ns = period_ns;
	p->origins = calloc(nr ? nr : 1, sizeof(*p->origins));
	if (!p->origins) {
		profile__free(p);
		return NULL;
	}
	for (size_t i = 0; i < nr; i++) {
		if (profile__add(p, st[i].text, strlen(st[i].text), st[i].count, 0)) {
			profile__free(p);
			return NULL;
		}
		origin_of(&st[i], &p->origins[i]);
	}
	return p;
}

/* Appends a copy of src's stack s (names interned anew) with these counts. */
static int add_copy(struct profile *p, const struct profile *src, const struct pstack *s,
		    double count, double before)
{
	const uint32_t *ids = profile__ids(src, s);
	struct pstack *n = new_stack(p);

	if (!n)
		return -ENOMEM;
	*n = (struct pstack){ .first = p->nr_ids, .depth = s->depth, .count = count,
			      .before = before };
	for (uint32_t i = 0; i < s->depth; i++) {
		uint32_t len;
		const char *name = profile__name(src, ids[i], &len);
		long id = intern(p, name, len);

		if (id < 0 || push_id(p, (uint32_t)id)) {
			p->nr_ids = n->first;
			return -ENOMEM;
		}
	}
	p->nr++;
	return 0;
}

/* Stacks of a diff by their ids, to pair up BEFORE and AFTER. */
struct stack_map {
	uint32_t *slots; /* stack index + 1; 0 empty */
	size_t nslots;
};

static uint64_t hash_ids(const uint32_t *ids, uint32_t n)
{
	uint64_t h = 1469598103934665603ull ^ n;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ ids[i]) * 1099511628211ull;
	return h ^ h >> 29;
}

/* Adds src's stack to the diff d, or its counts to the equal one there. */
static int diff_add(struct profile *d, struct stack_map *m, const struct profile *src,
		    const struct pstack *s, double count, double before)
{
	struct pstack *n;
	size_t j;

	if (add_copy(d, src, s, count, before))
		return -ENOMEM;
	n = &d->stacks[d->nr - 1];
	j = hash_ids(profile__ids(d, n), n->depth) & (m->nslots - 1);
	for (; m->slots[j]; j = (j + 1) & (m->nslots - 1)) {
		struct pstack *o = &d->stacks[m->slots[j] - 1];

		if (o->depth == n->depth && !memcmp(profile__ids(d, o), profile__ids(d, n),
						    n->depth * sizeof(uint32_t))) {
			o->count += count;
			o->before += before;
			d->nr_ids = n->first; /* the copy goes again */
			d->nr--;
			return 0;
		}
	}
	m->slots[j] = (uint32_t)d->nr;
	return 0;
}

struct profile *profile__diff(const struct profile *before, const struct profile *after,
			      bool normalize)
{
	double tb = profile__total(before), ta = profile__total(after);
	double scale = normalize && tb > 0 ? ta / tb : 1;
	struct stack_map m = { .nslots = 16 };
	struct profile *d = profile__new();
	int e = 0;

	while (m.nslots < (before->nr + after->nr) * 2)
		m.nslots <<= 1;
	m.slots = calloc(m.nslots, sizeof(*m.slots));
	if (!d || !m.slots || before->nr + after->nr >= UINT32_MAX)
		e = -ENOMEM;
	for (size_t i = 0; !e && i < after->nr; i++)
		e = diff_add(d, &m, after, &after->stacks[i], after->stacks[i].count, 0);
	for (size_t i = 0; !e && i < before->nr; i++)
		e = diff_add(d, &m, before, &before->stacks[i], 0, before->stacks[i].count * scale);
	free(m.slots);
	if (e) {
		profile__free(d);
		return NULL;
	}
	d->diff = true;
	d->fractional = before->fractional || after->fractional || scale != 1;
	d->period_ns = after->period_ns;
	return d;
}

int profile__used_names(const struct profile *p, bool (*kept)(const struct pstack *s),
			struct used_names *out)
{
	size_t n = p->names.nr ? p->names.nr : 1;

	out->nr = 0;
	out->number = calloc(n, sizeof(*out->number));
	out->order = malloc(n * sizeof(*out->order));
	if (!out->number || !out->order) {
		used_names__free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nr; i++) {
		const struct pstack *s = &p->stacks[i];
		const uint32_t *ids = profile__ids(p, s);

		if (kept && !kept(s))
			continue;
		for (uint32_t j = 0; j < s->depth; j++)
			if (!out->number[ids[j]]) {
				out->order[out->nr] = ids[j];
				out->number[ids[j]] = ++out->nr;
			}
	}
	return 0;
}

void used_names__free(struct used_names *u)
{
	free(u->number);
	free(u->order);
	u->number = u->order = NULL;
}

size_t profile__text(const struct profile *p, const struct pstack *s, char *buf, size_t len)
{
	const uint32_t *ids = profile__ids(p, s);
	size_t n = 0;

	for (uint32_t i = 0; i < s->depth; i++) {
		uint32_t l;
		const char *name = profile__name(p, ids[i], &l);

		if (i && n + 1 < len)
			buf[n] = ';';
		n += !!i;
		for (uint32_t j = 0; j < l; j++, n++)
			if (n + 1 < len)
				buf[n] = name[j];
	}
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return n;
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
	while (p->blocks) {
		struct name_block *b = p->blocks;

		p->blocks = b->next;
		free(b);
	}
	strtab__free(&p->names);
	free(p->ids);
	free(p->stacks);
	free(p->origins);
	free(p);
}
