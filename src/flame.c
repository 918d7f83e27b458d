// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Flame graph layout (see flame.h): the frame tree of a profile, built in
 * one pass over its stacks.  Stacks are sorted (unless a flame chart) by a
 * pointer array, then each is compared with the frames still open from the
 * stack before it: the frames it shares stay open, the others close and
 * new ones open.  A frame's width is known when it closes, so a frame too
 * narrow to see is dropped right there; memory holds the open path and the
 * visible frames, never a node per input frame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flame.h"

/* One stack to merge: its text (the profile's, or reversed) and which
 * stack it is.  16 bytes: sorting moves these around. */
struct key {
	const char *s;
	uint32_t len, idx;
};

/* A frame on the current path, not yet closed. */
struct open_frame {
	const char *name;
	uint32_t len, flags;
	double x, before0; /* samples (AFTER and BEFORE) when it opened */
};

struct builder {
	struct flame *f;
	const struct pstack *stacks; /* the profile's, for the counts */
	struct open_frame *open;
	size_t nopen, capopen;
	double cum, cumb; /* samples merged so far */
	double min;       /* smallest visible count */
};

double flame__plot_width(const struct render_opts *o)
{
	unsigned w = o && o->width ? o->width : FLAME_DEFAULT_WIDTH;

	return w > 2 * FLAME_XPAD + 1 ? w - 2 * FLAME_XPAD : 1;
}

double flame__min_count(const struct render_opts *o, double total)
{
	double mw = o && o->minwidth ? o->minwidth : FLAME_DEFAULT_MINWIDTH;

	if (mw < 0)
		return -mw / 100 * total;
	return mw * total / flame__plot_width(o);
}

/* Counts that are not positive numbers (NaN too) count as nothing. */
static double sane(double c)
{
	return c > 0 && c < 1e300 ? c : 0;
}

/* Index of the first byte where a[0..n) and b[0..n) differ, or n.  Eight
 * bytes at a time: sorted stacks share long prefixes, and comparing them
 * was most of the time of a big graph. */
static size_t first_difference(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return i + __builtin_ctzll(x ^ y) / 8;
#else
			return i + __builtin_clzll(x ^ y) / 8;
#endif
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Frame-wise order: the end of a frame (';') sorts before any byte, the
 * end of the stack before that, so "a;x" < "a b;x" as "a" < "a b". */
static int cmp_keys(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;
	size_t n = a->len < b->len ? a->len : b->len;
	size_t i = first_difference(a->s, b->s, n);
	int ca, cb;

	if (i == n)
		return (a->len > n) - (b->len > n);
	ca = (unsigned char)a->s[i];
	cb = (unsigned char)b->s[i];
	ca = ca == ';' ? 0 : ca + 1;
	cb = cb == ';' ? 0 : cb + 1;
	return ca - cb;
}

/* Writes s[0..len)'s frames to dst in reverse order; returns bytes written. */
static size_t reverse_frames(char *dst, const char *s, size_t len)
{
	size_t end = len, out = 0;

	for (;;) {
		size_t start = end;

		while (start > 0 && s[start - 1] != ';')
			start--;
		memcpy(dst + out, s + start, end - start);
		out += end - start;
		if (start == 0)
			break;
		dst[out++] = ';';
		end = start - 1;
	}
	dst[out] = '\0';
	return out;
}

static struct key *make_keys(const struct profile *p, struct flame *f, bool reverse)
{
	struct key *k = calloc(p->nr ? p->nr : 1, sizeof(*k));
	size_t room = 0, off = 0;

	if (!k)
		return NULL;
	if (reverse) {
		for (size_t i = 0; i < p->nr; i++)
			room += strnlen(p->stacks[i].frames, UINT32_MAX) + 1;
		f->rev = malloc(room ? room : 1);
		if (!f->rev) {
			free(k);
			return NULL;
		}
	}
	for (size_t i = 0; i < p->nr; i++) {
		const char *s = p->stacks[i].frames;
		size_t len = strnlen(s, UINT32_MAX); /* longer: cut (4 GB stacks) */

		if (reverse) {
			len = reverse_frames(f->rev + off, s, len);
			s = f->rev + off;
			off += len + 1;
		}
		k[i] = (struct key){ .s = s, .len = len, .idx = i };
	}
	return k;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

static int push_frame(struct flame *f, const struct flame_frame *fr)
{
	if (f->nr == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024;
		struct flame_frame *n = realloc(f->frames, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->frames = n;
		f->cap = cap;
	}
	f->frames[f->nr++] = *fr;
	return 0;
}

/* Closes the top open frame; keeps it when wide enough (the root always). */
static int close_top(struct builder *b)
{
	struct open_frame *o = &b->open[--b->nopen];
	struct flame_frame fr = {
		.name = o->name, .len = o->len, .depth = b->nopen, .flags = o->flags,
		.x = o->x, .count = b->cum - o->x, .before = b->cumb - o->before0,
	};
	double delta = fr.count - fr.before;

	if (b->nopen && (fr.count <= 0 || fr.count < b->min))
		return 0;
	if (fr.depth > b->f->max_depth)
		b->f->max_depth = fr.depth;
	if (delta < 0)
		delta = -delta;
	if (delta > b->f->max_delta)
		b->f->max_delta = delta;
	return push_frame(b->f, &fr);
}

static int open_frame(struct builder *b, const char *name, size_t len, bool reverse)
{
	struct open_frame *o;
	uint32_t pflags = b->nopen ? b->open[b->nopen - 1].flags : 0;

	if (b->nopen == b->capopen) {
		size_t cap = b->capopen ? b->capopen * 2 : 64;

		o = realloc(b->open, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		b->open = o;
		b->capopen = cap;
	}
	o = &b->open[b->nopen++];
	*o = (struct open_frame){ .name = name, .len = len, .x = b->cum, .before0 = b->cumb };
	if (ends_with(name, len, "_[k]"))
		o->flags |= FLAME_KERNEL;
	if (ends_with(name, len, "_[j]"))
		o->flags |= FLAME_JIT;
	if (len == 1 && name[0] == '-')
		o->flags |= FLAME_DELIM;
	/* Reversed stacks put kernel frames below the "-", not above. */
	else if (!reverse && (pflags & (FLAME_DELIM | FLAME_ABOVE_DELIM)))
		o->flags |= FLAME_ABOVE_DELIM | FLAME_KERNEL;
	return 0;
}

/* Merges one stack: keeps the open frames it shares, closes the rest,
 * opens its own. */
static int merge(struct builder *b, const struct key *k, bool reverse)
{
	const char *s = k->s, *end = k->s + k->len;
	size_t d = 1; /* open[0] is the root */

	while (s < end) {
		const char *e = memchr(s, ';', end - s);
		size_t len = e ? (size_t)(e - s) : (size_t)(end - s);

		if (d < b->nopen) {
			if (b->open[d].len == len && !memcmp(b->open[d].name, s, len)) {
				d++;
				s += len + 1;
				continue;
			}
			while (b->nopen > d)
				if (close_top(b))
					return -ENOMEM;
		}
		if (open_frame(b, s, len, reverse))
			return -ENOMEM;
		d++;
		s += len + 1;
	}
	while (b->nopen > d)
		if (close_top(b))
			return -ENOMEM;
	b->cum += sane(b->stacks[k->idx].count);
	b->cumb += sane(b->stacks[k->idx].before);
	return 0;
}

/* Pre-order from the close order (post-order): reversed, every frame comes
 * before its subtree, which follows it contiguously. */
static void reverse_order(struct flame *f)
{
	for (size_t i = 0, j = f->nr ? f->nr - 1 : 0; i < j; i++, j--) {
		struct flame_frame t = f->frames[i];

		f->frames[i] = f->frames[j];
		f->frames[j] = t;
	}
}

static int build(struct flame *f, struct key *k, const struct profile *p,
		 const struct render_opts *o)
{
	struct builder b = { .f = f, .stacks = p->stacks };
	bool reverse = o && o->reverse;
	size_t nr = p->nr;
	int err = 0;

	for (size_t i = 0; i < nr; i++) {
		f->total += sane(p->stacks[i].count);
		f->total_before += sane(p->stacks[i].before);
	}
	b.min = flame__min_count(o, f->total);
	if (!(o && o->flamechart))
		qsort(k, nr, sizeof(*k), cmp_keys);
	err = open_frame(&b, "all", 3, reverse);
	for (size_t i = 0; !err && i < nr; i++)
		err = merge(&b, &k[i], reverse);
	while (!err && b.nopen)
		err = close_top(&b);
	free(b.open);
	reverse_order(f);
	return err;
}

struct flame *flame__build(const struct profile *p, const struct render_opts *o)
{
	struct flame *f = calloc(1, sizeof(*f));
	struct key *k;

	if (!f)
		return NULL;
	k = make_keys(p, f, o && o->reverse);
	if (!k || build(f, k, p, o)) {
		free(k);
		flame__free(f);
		return NULL;
	}
	free(k);
	return f;
}

void flame__free(struct flame *f)
{
	if (!f)
		return;
	free(f->frames);
	free(f->rev);
	free(f);
}
