// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Flame graph layout (flame.c) and the SVG writer (svg__write.c) on small
 * profiles whose frames are known: merging, order, widths, pruning, diff
 * counts, colours, and names that try to break the XML or run script.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "unit.h"
#include "output/flame.h"
#include "output/format.h"
#include "profile/profile.h"
#include "output/svg.h"

/* A profile from "stack count" (or "stack before after" with diff) lines. */
static struct profile *prof(bool diff, const char *const *lines)
{
	struct profile *p = profile__new();

	p->diff = diff;
	for (; *lines; lines++) {
		const char *sp = strrchr(*lines, ' ');
		double c = atof(sp + 1), b = 0;
		size_t len = sp - *lines;

		if (diff) {
			const char *sp2 = memrchr(*lines, ' ', len);

			b = atof(sp2 + 1);
			len = sp2 - *lines;
		}
		profile__add(p, *lines, len, c, b);
	}
	return p;
}

/* A layout kept whole for inspection: the frames flame__walk() hands over,
 * put in pre-order (each frame before its subtree, which follows it). */
struct lay {
	struct flame_frame *frames;
	size_t nr, cap;
	double total, total_before, max_delta;
	uint32_t max_depth;
	size_t measured; /* flame's own count of visible frames */
	struct flame *f; /* kept: names may point into its reversed text */
};

static int collect(void *ctx, const struct flame_frame *fr)
{
	struct lay *l = ctx;

	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->frames = realloc(l->frames, l->cap * sizeof(*l->frames));
	}
	l->frames[l->nr++] = *fr;
	return 0;
}

static struct lay *layout(const struct profile *p, const struct render_opts *o)
{
	struct flame *f = flame__new(p, o);
	struct lay *l = calloc(1, sizeof(*l));

	CHECK(flame__walk(f, collect, l) == 0);
	/* Post-order, root last: reversed, a pre-order. */
	for (size_t i = 0, j = l->nr - 1; i < j; i++, j--) {
		struct flame_frame t = l->frames[i];

		l->frames[i] = l->frames[j];
		l->frames[j] = t;
	}
	l->total = f->total;
	l->total_before = f->total_before;
	l->max_delta = f->max_delta;
	l->max_depth = f->max_depth;
	l->measured = f->nr;
	l->f = f;
	return l;
}

static void lay_free(struct lay *l)
{
	flame__free(l->f);
	free(l->frames);
	free(l);
}

static const struct flame_frame *find(const struct lay *f, uint32_t depth,
				      const char *name, int nth)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->frames[i].depth == depth && f->frames[i].len == strlen(name) &&
		    !memcmp(f->frames[i].name, name, f->frames[i].len) && nth-- == 0)
			return &f->frames[i];
	return NULL;
}

static int count_at(const struct lay *f, uint32_t depth)
{
	int n = 0;

	for (size_t i = 0; i < f->nr; i++)
		n += f->frames[i].depth == depth;
	return n;
}

/* Every frame's children fit inside it, side by side, and the frames at
 * each depth never overlap. */
static bool nested(const struct lay *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		const struct flame_frame *p = &f->frames[i];
		double sum = 0;

		for (size_t j = i + 1; j < f->nr && f->frames[j].depth > p->depth; j++) {
			const struct flame_frame *c = &f->frames[j];

			if (c->x < p->x || c->x + c->count > p->x + p->count + 1e-9)
				return false;
			if (c->depth == p->depth + 1)
				sum += c->count;
		}
		if (sum > p->count + 1e-9)
			return false;
	}
	return true;
}

TEST(widths_sum_to_parents)
{
	const char *in[] = { "main;a;x 3", "main;a;y 2", "main;b 5", "other 10", "main 1", NULL };
	struct profile *p = prof(false, in);
	struct lay *f = layout(p, NULL);

	CHECK(f && f->nr == 7 && f->measured == 7);
	CHECK(f->total == 21);
	CHECK(f->frames[0].depth == 0 && f->frames[0].count == 21);
	CHECK(f->frames[0].len == 3 && !memcmp(f->frames[0].name, "all", 3));
	CHECK(find(f, 1, "main", 0)->count == 11);
	CHECK(find(f, 2, "a", 0)->count == 5);
	CHECK(find(f, 1, "other", 0)->count == 10);
	CHECK(f->max_depth == 3);
	CHECK(nested(f));
	lay_free(f);
	profile__free(p);
}

TEST(alphabetical_merge)
{
	const char *in[] = { "b;x 1", "a;y 2", "b;x 3", "a 1", "a b;z 4", NULL };
	struct profile *p = prof(false, in);
	struct lay *f = layout(p, NULL);
	const struct flame_frame *a = find(f, 1, "a", 0), *ab = find(f, 1, "a b", 0);
	const struct flame_frame *b = find(f, 1, "b", 0);

	CHECK(count_at(f, 1) == 3);
	/* Frame-wise order: "a" < "a b" < "b"; equal stacks merged. */
	CHECK(a && a->x == 0 && a->count == 3);
	CHECK(ab && ab->x == 3 && ab->count == 4);
	CHECK(b && b->x == 7 && b->count == 4);
	CHECK(find(f, 2, "x", 0)->count == 4 && !find(f, 2, "x", 1));
	CHECK(nested(f));
	lay_free(f);
	profile__free(p);
}

/* Frame-wise order of two names (a name before the longer ones it
 * starts). */
static int cmp_names(const struct flame_frame *a, const struct flame_frame *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, n);

	return c ? c : (a->len > n) - (b->len > n);
}

/* Many random stacks, in random order, from names that prefix each other:
 * every frame's children must come in name order, each name once. */
TEST(sort_merges_many_stacks)
{
	static const char *names[] = { "a", "ab", "a b", "b", "ba", "c;", "zz", "a;b" };
	struct profile *p = profile__new();
	struct lay *f;
	size_t bad = 0, *parent;
	char buf[512];

	srand(7);
	for (int i = 0; i < 20000; i++) {
		size_t len = 0;

		for (int d = rand() % 12; d >= 0; d--)
			len += snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? ";" : "",
					names[rand() % 6]);
		profile__add(p, buf, len, 1 + rand() % 5, 0);
	}
	f = layout(p, &(struct render_opts){ .minwidth = 1e-9 });
	parent = calloc(f->nr, sizeof(*parent));
	for (size_t i = 1; i < f->nr; i++) {
		size_t q = i - 1;

		while (f->frames[q].depth >= f->frames[i].depth)
			q = parent[q];
		parent[i] = q;
	}
	/* Siblings appear in the frames array in reverse x order. */
	for (size_t i = 1; i < f->nr; i++)
		for (size_t j = i + 1; j < f->nr && f->frames[j].depth >= f->frames[i].depth; j++)
			if (parent[j] == parent[i])
				bad += f->frames[j].x >= f->frames[i].x || cmp_names(&f->frames[j], &f->frames[i]) >= 0;
	CHECK(bad == 0);
	CHECK(find(f, 1, "a", 0) && !find(f, 1, "a", 1) && nested(f));
	CHECK(f->frames[0].count == profile__total(p));
	free(parent);
	lay_free(f);
	profile__free(p);
}

TEST(flamechart_keeps_input_order)
{
	const char *in[] = { "m;b 1", "m;b;c 1", "m;a 1", "m;b 2", NULL };
	struct profile *p = prof(false, in);
	struct render_opts o = { .flamechart = true };
	struct lay *f = layout(p, &o);

	/* Only adjacent stacks merge: b, a, b again. */
	CHECK(count_at(f, 1) == 1 && find(f, 1, "m", 0)->count == 5);
	CHECK(count_at(f, 2) == 3);
	CHECK(find(f, 2, "b", 0) && find(f, 2, "b", 1) && !find(f, 2, "b", 2));
	CHECK(find(f, 2, "a", 0)->x == 2);
	CHECK(find(f, 3, "c", 0)->x == 1);
	CHECK(nested(f));
	lay_free(f);
	profile__free(p);
}

TEST(reverse_merges_leaves)
{
	const char *in[] = { "main;a;leaf 2", "main;b;leaf 3", "main;c 1", NULL };
	struct profile *p = prof(false, in);
	struct render_opts o = { .reverse = true };
	struct lay *f = layout(p, &o);

	CHECK(find(f, 1, "leaf", 0) && find(f, 1, "leaf", 0)->count == 5);
	CHECK(find(f, 1, "c", 0)->count == 1);
	CHECK(find(f, 2, "a", 0)->count == 2 && find(f, 2, "b", 0)->count == 3);
	CHECK(find(f, 3, "main", 0) && find(f, 3, "main", 1) && find(f, 2, "main", 0));
	CHECK(nested(f));
	lay_free(f);
	profile__free(p);
}

TEST(minwidth_prunes_narrow_frames)
{
	struct profile *p = profile__new();
	char buf[64];
	struct render_opts pct = { .minwidth = -1 }, px = { .minwidth = 50 };
	struct lay *f;

	profile__add(p, "main;big;leaf", 13, 100000, 0);
	for (int i = 0; i < 1000; i++)
		profile__add(p, buf, snprintf(buf, sizeof(buf), "main;tiny%d;x", i), 1, 0);
	profile__add(p, "main;mid", 8, 1200, 0); /* 1.2% of 102,200: ~14 px */
	f = layout(p, NULL); /* 0.1 px = 8.7 samples */
	CHECK(f->nr == 5 && find(f, 1, "main", 0)->count == 102200);
	CHECK(find(f, 2, "mid", 0) && !find(f, 2, "tiny7", 0));
	lay_free(f);
	f = layout(p, &pct); /* 1%: mid stays */
	CHECK(f->nr == 5 && find(f, 2, "mid", 0));
	lay_free(f);
	f = layout(p, &px); /* 50 px: mid goes */
	CHECK(f->nr == 4 && !find(f, 2, "mid", 0) && find(f, 3, "leaf", 0));
	lay_free(f);
	profile__free(p);
}

TEST(diff_counts)
{
	const char *in[] = { "a;b 4 10", "a;c 6 0", "a;d 5 5", "e 0 3", NULL };
	struct profile *p = prof(true, in);
	struct lay *f = layout(p, NULL);

	CHECK(f->total == 18 && f->total_before == 15);
	CHECK(find(f, 1, "a", 0)->count == 15 && find(f, 1, "a", 0)->before == 15);
	CHECK(find(f, 2, "b", 0)->before == 4 && find(f, 2, "b", 0)->count == 10);
	CHECK(!find(f, 2, "c", 0)); /* gone in AFTER: no width */
	CHECK(find(f, 2, "d", 0)->before == 5);
	CHECK(f->max_delta == 6);
	lay_free(f);
	profile__free(p);
}

TEST(kernel_and_jit_frames)
{
	const char *in[] = { "app;main;-;entry;ksys_read 1", "app;vfs_read_[k] 1",
			     "app;jitted_[j] 1", NULL };
	struct profile *p = prof(false, in);
	struct lay *f = layout(p, NULL);

	CHECK(find(f, 3, "-", 0)->flags & FLAME_DELIM);
	CHECK(find(f, 4, "entry", 0)->flags & FLAME_KERNEL);
	CHECK(find(f, 5, "ksys_read", 0)->flags & FLAME_KERNEL);
	CHECK(!(find(f, 2, "main", 0)->flags & FLAME_KERNEL));
	CHECK(find(f, 2, "vfs_read_[k]", 0)->flags & FLAME_KERNEL);
	CHECK(find(f, 2, "jitted_[j]", 0)->flags & FLAME_JIT);
	lay_free(f);
	profile__free(p);
}

/* A wait and everything above it is waiting; its siblings and parents are
 * not.  Reversed (leaf first), only the marker itself is known to be. */
TEST(waiting_frames)
{
	const char *in[] = { "app;read;schedule;[off-cpu:S];woken-by-timer 3",
			     "app;read;schedule;[off-cpu:D];woken-by:w;wake 2", "app;read;copy 1",
			     NULL };
	struct profile *p = prof(false, in);
	struct lay *f = layout(p, NULL), *r;
	struct render_opts rev = { .reverse = true };

	CHECK(find(f, 4, "[off-cpu:S]", 0)->flags & FLAME_WAITING);
	CHECK(find(f, 5, "woken-by-timer", 0)->flags & FLAME_WAITING);
	CHECK(find(f, 6, "wake", 0)->flags & FLAME_WAITING);
	CHECK(!(find(f, 3, "schedule", 0)->flags & FLAME_WAITING));
	CHECK(!(find(f, 3, "copy", 0)->flags & FLAME_WAITING));
	CHECK(!(find(f, 2, "read", 0)->flags & FLAME_WAITING));
	lay_free(f);
	r = layout(p, &rev);
	CHECK(find(r, 2, "[off-cpu:S]", 0)->flags & FLAME_WAITING);
	CHECK(!(find(r, 3, "schedule", 0)->flags & FLAME_WAITING));
	lay_free(r);
	profile__free(p);
}

/* The SVG of p as a string (caller frees). */
static char *svg_of(struct profile *p, const struct render_opts *o, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	CHECK(svg__write(m, p, o) == 0);
	fclose(m);
	return buf;
}

static int occurrences(const char *s, const char *what)
{
	int n = 0;

	for (const char *q = s; (q = strstr(q, what)); q++)
		n++;
	return n;
}

static bool valid_utf8_no_controls(const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned c = s[i], n = c < 0x80 ? 0 : c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 9;

		if (n == 9 || (c < 0x20 && c != '\n' && c != '\t') || (n && i + n >= len))
			return false;
		for (unsigned k = 1; k <= n; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += n + 1;
	}
	return true;
}

TEST(hostile_names_are_escaped)
{
	struct profile *p = profile__new();
	static const char *bad[] = {
		"<script>alert(1)</script>", "]]>", "\"quoted\" 'single' & amp",
		"ctl\x01\x1b[31m\x7f", "bad\xff\xfe utf8 \xc3\x28 \xed\xa0\x80 \xf0\x9f\x94\xa5 ok",
		"<![CDATA[", "</g></svg>", "javascript:alert(2)",
	};
	char *big = malloc(100001), *svg;
	size_t len;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char stack[128];

		snprintf(stack, sizeof(stack), "main;%s;%s", bad[i], bad[(i + 1) % 8]);
		profile__add(p, stack, strlen(stack), 10, 0);
	}
	memset(big, 'x', 100000);
	memcpy(big, "main;", 5);
	profile__add(p, big, 100000, 10, 0);
	svg = svg_of(p, NULL, &len);
	CHECK(occurrences(svg, "<script") == 1 && occurrences(svg, "]]>") == 1);
	CHECK(occurrences(svg, "<![CDATA[") == 1 && occurrences(svg, "</svg>") == 1);
	CHECK(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(strstr(svg, "&quot;quoted&quot; &apos;single&apos; &amp; amp"));
	CHECK(strstr(svg, "]]&gt;") && strstr(svg, "\xf0\x9f\x94\xa5 ok"));
	CHECK(valid_utf8_no_controls((unsigned char *)svg, len));
	/* The 100 KB name is cut in its title ("…"), and in its frame (".."). */
	CHECK(len < 60000 && strstr(svg, "xxx\xe2\x80\xa6 (10 samples"));
	free(svg);
	free(big);
	profile__free(p);
}

/* The fill of the frame whose title starts with "name (". */
static char *fill_of(const char *svg, const char *name, char *out, size_t size)
{
	char key[128];
	const char *t, *fl;

	snprintf(key, sizeof(key), "<title>%s (", name);
	t = strstr(svg, key);
	fl = t ? strstr(t, "fill=\"") : NULL;
	if (!fl)
		return NULL;
	fl += 6;
	snprintf(out, size, "%.*s", (int)strcspn(fl, "\""), fl);
	return out;
}

TEST(colors_by_name_and_delta)
{
	const char *in1[] = { "main;alpha 5", "main;beta 7", NULL };
	const char *in2[] = { "zeta;alpha 1", "other;x;beta 100", NULL };
	const char *ind[] = { "m;grew 2 10", "m;shrank 10 5", "m;same 4 4", NULL };
	struct profile *p1 = prof(false, in1), *p2 = prof(false, in2), *pd = prof(true, ind);
	char *s1 = svg_of(p1, NULL, &(size_t){ 0 }), *s2 = svg_of(p2, NULL, &(size_t){ 0 });
	char *sd = svg_of(pd, NULL, &(size_t){ 0 }), a[64], b[64];

	CHECK_STR(fill_of(s1, "alpha", a, sizeof(a)), fill_of(s2, "alpha", b, sizeof(b)));
	CHECK_STR(fill_of(s1, "beta", a, sizeof(a)), fill_of(s2, "beta", b, sizeof(b)));
	CHECK(strcmp(fill_of(s1, "alpha", a, sizeof(a)), fill_of(s1, "beta", b, sizeof(b))));
	CHECK(!strncmp(fill_of(sd, "grew", a, sizeof(a)), "rgb(255,", 8));
	CHECK(strstr(fill_of(sd, "shrank", a, sizeof(a)), ",255)") != NULL);
	CHECK_STR(fill_of(sd, "same", a, sizeof(a)), "rgb(250,250,250)");
	CHECK(strstr(sd, "<title>grew (10 samples, 52.63%; +8 (+42.11%))</title>"));
	CHECK(strstr(sd, ">Differential Flame Graph<"));
	free(s1);
	free(s2);
	free(sd);
	profile__free(p1);
	profile__free(p2);
	profile__free(pd);
}

TEST(titles_labels_and_options)
{
	const char *in[] = { "main;a_function 2", "main;b_function_with_a_really_long_name 20",
			     "main;tiny 0.001", "main;sys_x_[k] 50", NULL };
	struct profile *p = prof(false, in);
	struct render_opts inv = { .inverted = true, .colors = "kernel", .countname = "ms (cpu)",
				   .subtitle = "sub<t>", .width = 300 };
	char *s = svg_of(p, NULL, &(size_t){ 0 }), *si = svg_of(p, &inv, &(size_t){ 0 });

	CHECK(strstr(s, ">Flame Graph<") && strstr(si, ">Icicle Graph<"));
	CHECK(strstr(si, ">sub&lt;t&gt;<") && strstr(si, "width=\"300\""));
	CHECK(strstr(si, "<title>main (72.00 ms [cpu], 100.00%)</title>"));
	/* Kernel palette: "_[k]" only in the title, not in the drawn name. */
	CHECK(strstr(si, ">sys_x</text>") && strstr(si, "<title>sys_x_[k] (50 ms"));
	/* Labels are cut to fit with "..", and left out under 3 characters:
	 * a_function is 33 px wide at 1200 px, 8 px at 300 px. */
	CHECK(strstr(s, "\">a_..</text>") && !strstr(si, "\">a_"));
	CHECK(strstr(s, ">b_function_with_a_really_long_name</text>"));
	CHECK(strstr(si, ">b_functi..</text>"));
	CHECK(!strstr(s, "tiny")); /* under 0.1 px */
	free(s);
	free(si);
	profile__free(p);
}

TEST(empty_and_deep_profiles)
{
	struct profile *p = profile__new();
	size_t len, n = 20000 * 2;
	char *s = svg_of(p, NULL, &len), *deep = malloc(n);
	struct lay *f;

	CHECK(s && strstr(s, "</svg>") && strstr(s, "<title>all (0 samples"));
	free(s);
	for (size_t i = 0; i < n; i += 2)
		deep[i] = 'f', deep[i + 1] = ';';
	profile__add(p, deep, n - 1, 3, 0);
	f = layout(p, NULL);
	CHECK(f && f->nr == 20001 && f->max_depth == 20000);
	lay_free(f);
	free(deep);
	profile__free(p);
}

int main(void)
{
	RUN(widths_sum_to_parents);
	RUN(alphabetical_merge);
	RUN(sort_merges_many_stacks);
	RUN(flamechart_keeps_input_order);
	RUN(reverse_merges_leaves);
	RUN(minwidth_prunes_narrow_frames);
	RUN(diff_counts);
	RUN(kernel_and_jit_frames);
	RUN(waiting_frames);
	RUN(hostile_names_are_escaped);
	RUN(colors_by_name_and_delta);
	RUN(titles_labels_and_options);
	RUN(empty_and_deep_profiles);
	UNIT_EXIT();
}
