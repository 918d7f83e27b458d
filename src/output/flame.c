// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Flame graph layout (see flame.h): the frame tree of a profile, walked
 * without being stored.  Stacks are sorted once (unless a flame chart), as
 * an array of 8-byte entries; a walk then compares each stack with the
 * frames still open from the one before it: the frames it shares stay
 * open, the others close and new ones open.  A frame's width is known when
 * it closes, so it is handed over (or, too narrow to see, dropped) right
 * there; memory holds the open path, never a node per frame.  The first
 * walk measures the graph (depth, largest change) for the picture's
 * header; the writer's walk draws.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/flame.h"
#include "lib/grow.h"

/* A frame on the current path, not yet closed. */
struct open_frame {
	const char *name;
	uint32_t id, len, flags; /* id: the profile's name id; ROOT_ID for "all" */
	double x, before0; /* samples (AFTER and BEFORE) when it opened */
};

struct builder {
	const struct flame *f;
	struct flame *stats; /* the first walk measures the graph */
	flame_visit visit;
	void *ctx;
	struct open_frame *open;
	size_t nopen, capopen;
	double cum, cumb; /* samples merged so far */
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

/* A stack to merge, 8 bytes (sorting moves these): which one of the
 * profile's, and its depth. */
struct flame_ent {
	uint32_t idx, depth;
};

/* Frame i of a stack, counted from the root, or from the leaf with reverse. */
static inline uint32_t frame_id(const struct flame *f, struct flame_ent e, uint32_t i)
{
	const uint32_t *ids = profile__ids(f->p, &f->p->stacks[e.idx]);

	return f->reverse ? ids[e.depth - 1 - i] : ids[i];
}

/* Frame-wise order of names (a name before any longer name it begins),
 * a stack before the longer stacks it begins: "a;x" < "a b;x". */
static bool less(const struct flame *f, struct flame_ent a, struct flame_ent b)
{
	const uint32_t *x = profile__ids(f->p, &f->p->stacks[a.idx]);
	const uint32_t *y = profile__ids(f->p, &f->p->stacks[b.idx]);
	uint32_t n = a.depth < b.depth ? a.depth : b.depth;
	const uint32_t *rank = f->rank;

	if (f->reverse) {
		x += a.depth - 1;
		y += b.depth - 1;
		for (uint32_t i = 0; i < n; i++, x--, y--)
			if (*x != *y)
				return rank[*x] < rank[*y];
	} else {
		for (uint32_t i = 0; i < n; i++, x++, y++)
			if (*x != *y)
				return rank[*x] < rank[*y];
	}
	return a.depth < b.depth;
}

#define LESS(x, y) less(base, (x), (y))
#define SWAP(x, y) do { struct flame_ent t_ = (x); (x) = (y); (y) = t_; } while (0)

/*
 * The stacks are sorted in place by an introsort (quicksort, heapsort
 * where it goes quadratic, insertion sort for short runs): qsort may
 * allocate a copy of the array, and on big profiles the memory beside the
 * profile's own text is what the graph costs.
 */
static void insertion_sort(const struct flame *base, struct flame_ent *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && LESS(v[j], v[j - 1]); j--)
			SWAP(v[j], v[j - 1]);
}

static void sift_down(const struct flame *base, struct flame_ent *v, size_t root, size_t n)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && LESS(v[child], v[child + 1]))
			child++;
		if (!LESS(v[root], v[child]))
			return;
		SWAP(v[root], v[child]);
	}
}

static void heap_sort(const struct flame *base, struct flame_ent *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(base, v, i, n);
	for (size_t end = n; end-- > 1;) {
		SWAP(v[0], v[end]);
		sift_down(base, v, 0, end);
	}
}

/* Hoare's partition around the median of the first, middle and last
 * stacks; returns k with v[0..k) <= pivot <= v[k..n), both parts
 * non-empty. */
static size_t partition(const struct flame *base, struct flame_ent *v, size_t n)
{
	size_t mid = n / 2, i = 0, j = n - 1;
	struct flame_ent pivot;

	if (LESS(v[mid], v[0]))
		SWAP(v[mid], v[0]);
	if (LESS(v[n - 1], v[mid])) {
		SWAP(v[n - 1], v[mid]);
		if (LESS(v[mid], v[0]))
			SWAP(v[mid], v[0]);
	}
	pivot = v[mid];
	for (;;) {
		while (LESS(v[i], pivot))
			i++;
		while (LESS(pivot, v[j]))
			j--;
		if (i >= j)
			return j + 1;
		SWAP(v[i], v[j]);
		i++;
		j--;
	}
}

static void sort_stacks(const struct flame *base, struct flame_ent *v, size_t n, unsigned depth)
{
	while (n > 16) {
		size_t k;

		if (depth-- == 0) {
			heap_sort(base, v, n);
			return;
		}
		k = partition(base, v, n);
		/* Recurse into the smaller part: the stack stays O(log n). */
		if (k < n - k) {
			sort_stacks(base, v, k, depth);
			v += k;
			n -= k;
		} else {
			sort_stacks(base, v + k, n - k, depth);
			n = k;
		}
	}
	insertion_sort(base, v, n);
}

static int by_name(const void *a, const void *b, void *names)
{
	const struct strtab_ent *x = &((const struct strtab *)names)->ent[*(const uint32_t *)a];
	const struct strtab_ent *y = &((const struct strtab *)names)->ent[*(const uint32_t *)b];
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* rank[id]: the name's place among all names in byte order, so that
 * comparing stacks compares numbers, not text. */
static int rank_names(struct flame *f)
{
	size_t n = f->p->names.nr;
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));

	f->rank = malloc((n ? n : 1) * sizeof(*f->rank));
	if (!order || !f->rank) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_name, (void *)&f->p->names);
	for (size_t i = 0; i < n; i++)
		f->rank[order[i]] = i;
	free(order);
	return 0;
}

/* The stacks in input order; 4 billion stacks are refused: 8-byte
 * entries keep the sort small. */
static int make_order(const struct profile *p, struct flame *f)
{
	if (p->nr > UINT32_MAX)
		return -E2BIG;
	f->v = calloc(p->nr ? p->nr : 1, sizeof(*f->v));
	if (!f->v)
		return -ENOMEM;
	f->nv = p->nr;
	f->p = p;
	for (size_t i = 0; i < p->nr; i++)
		f->v[i] = (struct flame_ent){ .idx = i, .depth = p->stacks[i].depth };
	return rank_names(f);
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* "[off-cpu:S]", "[off-cpu:D]": where a stack stops running and waits
 * (fold.c's add_offcpu). */
static bool is_wait_marker(const char *s, size_t len)
{
	static const char prefix[] = "[off-cpu:";

	return len > sizeof(prefix) && !memcmp(s, prefix, sizeof(prefix) - 1) && s[len - 1] == ']';
}

static void measure(struct flame *f, const struct flame_frame *fr)
{
	double delta = fr->count - fr->before;

	f->nr++;
	if (fr->depth > f->max_depth)
		f->max_depth = fr->depth;
	if (delta < 0)
		delta = -delta;
	if (delta > f->max_delta)
		f->max_delta = delta;
}

/* Closes the top open frame; hands it over when wide enough (the root
 * always). */
static int close_top(struct builder *b)
{
	struct open_frame *o = &b->open[--b->nopen];
	struct flame_frame fr = {
		.name = o->name, .len = o->len, .depth = b->nopen, .flags = o->flags,
		.x = o->x, .count = b->cum - o->x, .before = b->cumb - o->before0,
	};

	if (b->nopen && (fr.count <= 0 || fr.count < b->f->min))
		return 0;
	if (b->stats)
		measure(b->stats, &fr);
	return b->visit ? b->visit(b->ctx, &fr) : 0;
}

#define ROOT_ID UINT32_MAX

static int open_frame(struct builder *b, uint32_t id)
{
	uint32_t len = 3;
	const char *name = id == ROOT_ID ? "all" : profile__name(b->f->p, id, &len);
	struct open_frame *o;
	uint32_t pflags = b->nopen ? b->open[b->nopen - 1].flags : 0;

	if (GROW(b->open, b->capopen, b->nopen + 1, 64))
		return -ENOMEM;
	o = &b->open[b->nopen++];
	*o = (struct open_frame){ .name = name, .id = id, .len = len, .x = b->cum,
				  .before0 = b->cumb };
	if (ends_with(name, len, "_[k]"))
		o->flags |= FLAME_KERNEL;
	if (ends_with(name, len, "_[j]"))
		o->flags |= FLAME_JIT;
	if (ends_with(name, len, "_[py]"))
		o->flags |= FLAME_PYTHON;
	if (ends_with(name, len, "_[i]"))
		o->flags |= FLAME_INLINE;
	if (is_wait_marker(name, len) || (!b->f->reverse && (pflags & FLAME_WAITING)))
		o->flags |= FLAME_WAITING;
	if (len == 1 && name[0] == '-')
		o->flags |= FLAME_DELIM;
	/* Reversed stacks put kernel frames below the "-", not above. */
	else if (!b->f->reverse && (pflags & (FLAME_DELIM | FLAME_ABOVE_DELIM)))
		o->flags |= FLAME_ABOVE_DELIM | FLAME_KERNEL;
	return 0;
}

/* Merges one stack: keeps the open frames it shares, closes the rest,
 * opens its own. */
static int merge(struct builder *b, struct flame_ent e)
{
	const struct pstack *st = &b->f->p->stacks[e.idx];
	size_t d = 1; /* open[0] is the root */
	int err;

	for (uint32_t i = 0; i < e.depth; i++, d++) {
		uint32_t id = frame_id(b->f, e, i);

		if (d < b->nopen) {
			if (b->open[d].id == id)
				continue;
			while (b->nopen > d)
				if ((err = close_top(b)))
					return err;
		}
		if (open_frame(b, id))
			return -ENOMEM;
	}
	while (b->nopen > d)
		if ((err = close_top(b)))
			return err;
	b->cum += sane(st->count);
	b->cumb += sane(st->before);
	return 0;
}

static int walk(const struct flame *f, struct flame *stats, flame_visit visit, void *ctx)
{
	struct builder b = { .f = f, .stats = stats, .visit = visit, .ctx = ctx };
	int err = open_frame(&b, ROOT_ID) ? -ENOMEM : 0;

	for (size_t i = 0; !err && i < f->nv; i++)
		err = merge(&b, f->v[i]);
	while (!err && b.nopen)
		err = close_top(&b);
	free(b.open);
	return err;
}

int flame__walk(const struct flame *f, flame_visit visit, void *ctx)
{
	return walk(f, NULL, visit, ctx);
}

struct flame *flame__new(const struct profile *p, const struct render_opts *o)
{
	struct flame *f = calloc(1, sizeof(*f));
	unsigned depth = 2;

	if (!f)
		return NULL;
	f->reverse = o && o->reverse;
	for (size_t i = 0; i < p->nr; i++) {
		f->total += sane(p->stacks[i].count);
		f->total_before += sane(p->stacks[i].before);
	}
	f->min = flame__min_count(o, f->total);
	if (make_order(p, f)) {
		flame__free(f);
		return NULL;
	}
	for (size_t n = p->nr; n > 1; n /= 2)
		depth += 2;
	if (!(o && o->flamechart))
		sort_stacks(f, f->v, p->nr, depth);
	if (walk(f, f, NULL, NULL)) {
		flame__free(f);
		return NULL;
	}
	return f;
}

void flame__free(struct flame *f)
{
	if (!f)
		return;
	free(f->v);
	free(f->rank);
	free(f);
}
