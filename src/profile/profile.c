// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Profiles: counted stacks of interned frame names (see profile.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow.h"
#include "lib/hash.h"
#include "profile/profile.h"

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

/* (Repeated names, the common case, are hashed once.) */
long profile__intern(struct profile *p, const char *s, size_t len)
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
	if (GROW(p->ids, p->cap_ids, p->nr_ids + 1, 4096))
		return -ENOMEM;
	p->ids[p->nr_ids++] = id;
	return 0;
}

/* Room for one more stack (and its origin, with_origin). */
static struct pstack *new_stack(struct profile *p, bool with_origin)
{
	if (GROW(p->stacks, p->cap, p->nr + 1, 256))
		return NULL;
	if (with_origin && p->cap_origins < p->cap) {
		struct stack_origin *o = realloc(p->origins, p->cap * sizeof(*o));

		if (!o)
			return NULL;
		p->origins = o;
		p->cap_origins = p->cap;
	}
	return &p->stacks[p->nr];
}

int profile__add(struct profile *p, const char *text, size_t len,
		 double count, double before)
{
	struct pstack *s = new_stack(p, false);
	const char *t = text, *end = text + len;

	if (!s)
		return -ENOMEM;
	*s = (struct pstack){ .first = p->nr_ids, .count = count, .before = before };
	while (len && t <= end) {
		const char *e = memchr(t, ';', end - t);
		size_t n = e ? (size_t)(e - t) : (size_t)(end - t);
		long id = profile__intern(p, t, n);

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

int profile__add_ids(struct profile *p, const uint32_t *ids, uint32_t depth, double count,
		     const struct stack_origin *o)
{
	struct pstack *s = new_stack(p, o);

	if (!s)
		return -ENOMEM;
	*s = (struct pstack){ .first = p->nr_ids, .depth = depth, .count = count };
	for (uint32_t i = 0; i < depth; i++)
		if (push_id(p, ids[i])) {
			p->nr_ids = s->first;
			return -ENOMEM;
		}
	if (o)
		p->origins[p->nr] = *o;
	if (count != floor(count))
		p->fractional = true;
	p->nr++;
	return 0;
}

int profile__with_origins(struct profile *p)
{
	size_t cap = p->cap ? p->cap : 1;
	struct stack_origin *o;

	if (p->origins)
		return 0;
	o = calloc(cap, sizeof(*o));
	if (!o)
		return -ENOMEM;
	p->origins = o;
	p->cap_origins = cap;
	return 0;
}

/* Reads a stack's folded text a byte at a time, without joining it. */
struct text_cursor {
	const struct profile *p;
	const uint32_t *ids;
	uint32_t depth, frame, at;
};

/* The next byte of the text, 0 at its end. */
static unsigned char next_byte(struct text_cursor *c)
{
	uint32_t len;
	const char *name;

	while (c->frame < c->depth) {
		name = profile__name(c->p, c->ids[c->frame], &len);
		if (c->at < len)
			return (unsigned char)name[c->at++];
		c->at = 0;
		if (++c->frame < c->depth)
			return ';';
	}
	return 0;
}

/* strcmp of the two stacks' folded texts.  Equal leading frames are equal
 * text (and the ';' after them, when both go on): skipped by id. */
static int text_cmp(const struct profile *p, const struct pstack *a, const struct pstack *b)
{
	const uint32_t *x = profile__ids(p, a), *y = profile__ids(p, b);
	uint32_t i = 0, n = a->depth < b->depth ? a->depth : b->depth;
	struct text_cursor ca = { p, x, a->depth, 0, 0 }, cb = { p, y, b->depth, 0, 0 };
	unsigned char u, v;

	while (i < n && x[i] == y[i])
		i++;
	if (i == a->depth || i == b->depth) /* one ends: '\0' against ';' */
		return (i < a->depth) - (i < b->depth);
	ca.frame = cb.frame = i;
	do {
		u = next_byte(&ca);
		v = next_byte(&cb);
	} while (u == v && u);
	return (int)u - (int)v;
}

static int by_count_then_text(const void *l, const void *r, void *arg)
{
	const struct profile *p = arg;
	size_t i = *(const size_t *)l, j = *(const size_t *)r;
	const struct pstack *a = &p->stacks[i], *b = &p->stacks[j];
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	c = text_cmp(p, a, b);
	return c ? c : (i > j) - (i < j);
}

/* Puts stack order[i] at i, for every i, in place (following each cycle
 * of the permutation once): no second copy of the stacks at the peak. */
static void permute(struct profile *p, size_t *order)
{
	for (size_t i = 0; i < p->nr; i++) {
		struct pstack s = p->stacks[i];
		struct stack_origin o = p->origins ? p->origins[i] : (struct stack_origin){ 0 };
		size_t j = i, k;

		if (order[i] == SIZE_MAX)
			continue;
		for (;; j = k) {
			k = order[j];
			order[j] = SIZE_MAX;
			if (k == i)
				break;
			p->stacks[j] = p->stacks[k];
			if (p->origins)
				p->origins[j] = p->origins[k];
		}
		p->stacks[j] = s;
		if (p->origins)
			p->origins[j] = o;
	}
}

/* The sites of p's stacks follow them to where order puts them. */
static int renumber_sites(struct profile *p, const size_t *order)
{
	uint32_t *to = malloc(p->nr * sizeof(*to));

	if (!to)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr; i++)
		to[order[i]] = (uint32_t)i;
	paddrs__renumber(p->addrs, to);
	free(to);
	return 0;
}

int profile__sort_by_count(struct profile *p)
{
	size_t *order = malloc((p->nr ? p->nr : 1) * sizeof(*order));

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr; i++)
		order[i] = i;
	qsort_r(order, p->nr, sizeof(*order), by_count_then_text, p);
	if (p->addrs && p->addrs->nr_sites && renumber_sites(p, order)) {
		free(order);
		return -ENOMEM;
	}
	permute(p, order);
	free(order);
	return 0;
}

/* Appends a copy of src's stack s (names interned anew) with these counts. */
static int add_copy(struct profile *p, const struct profile *src, const struct pstack *s,
		    double count, double before)
{
	const uint32_t *ids = profile__ids(src, s);
	struct pstack *n = new_stack(p, false);

	if (!n)
		return -ENOMEM;
	*n = (struct pstack){ .first = p->nr_ids, .depth = s->depth, .count = count,
			      .before = before };
	for (uint32_t i = 0; i < s->depth; i++) {
		uint32_t len;
		const char *name = profile__name(src, ids[i], &len);
		long id = profile__intern(p, name, len);

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
	return hash__mix64(hash__fnv1a_words(HASH_FNV_OFFSET ^ n, ids, n));
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
	paddrs__free(p->addrs);
	free(p->ids);
	free(p->stacks);
	free(p->origins);
	free(p);
}
