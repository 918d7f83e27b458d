// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * speedscope output: a profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), "sampled" profiles
 * whose samples are arrays of indexes into shared.frames, root first, and
 * whose weights are the stacks' sample counts (unit "none"), or with
 * --off-cpu their time in whole microseconds (unit "microseconds"), so
 * their totals are the folded output's.  A capture's file has one profile per
 * process, or per thread with --per-thread ("comm (PID)", "comm
 * (PID/TID)"), hottest first, for speedscope's profile switcher; a folded
 * file's has one.  speedscope opens a file in its time-order view; counted
 * stacks have no time order, so each profile's samples go in the order of
 * their frame names, as flamegraph.pl sorts them: that view is then a
 * flame graph (equal callers side by side, merged), and Left Heavy the
 * same by weight.  --flamechart keeps the input order, which is time.
 *
 * A frame named from a source location (a CPython frame: profile_addr.h)
 * has its "file" and "line".  A frame is a name, and a name may stand
 * for a function sampled at several lines (the lines merge unless the name
 * carries one): its line is then where the function starts, as speedscope
 * itself gives a frame the function's start line when it imports pprof;
 * when all the name's samples were at one line (always so for a name
 * that carries it), that line, which is where they were.
 *
 * It streams: each stack's frames are looked up (or added) in a hash table
 * as its sample is written, so shared.frames, known only at the end, comes
 * after the profiles; JSON readers do not care about key order.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/speedscope.h"
#include "lib/utf8.h"

/* Writes s[0..len) as a JSON string that is always valid: quotes and
 * backslashes escaped, control bytes as \u00XX, ill-formed UTF-8 as U+FFFD,
 * and "</" as "<\/" so that the file can sit inside an HTML <script>. */
static void json_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0;
	int k;

	putc_unlocked('"', f);
	while (i < len) {
		unsigned c = u[i];

		if (c >= 0x80 && (k = utf8__seq(u + i, len - i)) > 0) {
			i += k; /* valid UTF-8 goes as it is */
			continue;
		}
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    !(c == '/' && i > 0 && u[i - 1] == '<')) {
			i++;
			continue;
		}
		fwrite_unlocked(u + start, 1, i - start, f);
		if (c >= 0x80) {
			fputs_unlocked("\\ufffd", f);
			i += -utf8__seq(u + i, len - i);
		} else {
			if (c == '"' || c == '\\' || c == '/')
				fprintf(f, "\\%c", c);
			else
				fprintf(f, "\\u%04x", c);
			i++;
		}
		start = i;
	}
	fwrite_unlocked(u + start, 1, i - start, f);
	putc_unlocked('"', f);
}

static void json_uint(FILE *f, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(p, 1, buf + sizeof(buf) - p, f);
}

/* Whole counts as integers; decimals (from folded files) with every digit,
 * as the folded output prints them. */
static void json_number(FILE *f, double v)
{
	if (v >= 0 && v < 9007199254740992.0 && v == (double)(uint64_t)v)
		json_uint(f, (uint64_t)v);
	else
		fprintf(f, "%.17g", v);
}

/* Stacks with no samples (a diff's stack that AFTER no longer has) are
 * left out: a zero weight would add nothing but a frame to the chart.  So
 * are counts JSON cannot write (infinity, not a number), and in a
 * time-weighted profile stacks under half a microsecond, which the folded
 * output leaves out too (format__count). */
static bool kept_weight(double w)
{
	return w > 0 && isfinite(w);
}

static bool kept_count(const struct pstack *s)
{
	return kept_weight(s->count);
}

static bool kept_us(const struct pstack *s)
{
	return s->count >= 0.5 && isfinite(s->count); /* format__count's whole ones > 0 */
}

static bool kept(const struct profile *p, const struct pstack *s)
{
	return kept_weight(format__count(p, s));
}

/* One sample: its frames' indexes in shared.frames, root first. */
static void write_sample(FILE *f, const struct profile *p, const struct pstack *s,
			 const struct used_names *u)
{
	const uint32_t *ids = profile__ids(p, s);

	putc_unlocked('[', f);
	for (uint32_t i = 0; i < s->depth; i++) {
		if (i)
			putc_unlocked(',', f);
		json_uint(f, u->number[ids[i]] - 1);
	}
	putc_unlocked(']', f);
}

/* One profile's samples and weights: stacks order[0..n) of p. */
static void write_samples(FILE *f, const struct profile *p, const size_t *order, size_t n,
			  const struct used_names *u)
{
	const char *sep = "\n";
	size_t i;

	fputs("\"samples\":[", f);
	for (i = 0; i < n; i++) {
		if (!kept(p, &p->stacks[order[i]]))
			continue;
		fputs(sep, f);
		write_sample(f, p, &p->stacks[order[i]], u);
		sep = ",\n";
	}
	fputs("],\n\"weights\":[", f);
	sep = "";
	for (i = 0; i < n; i++) {
		if (!kept(p, &p->stacks[order[i]]))
			continue;
		fputs(sep, f);
		json_number(f, format__count(p, &p->stacks[order[i]]));
		sep = ",";
	}
	fputs("]}", f);
}

/* A run of stacks of one process (or thread): order[first .. first + n). */
struct group {
	size_t first, n;
	double total;
};

struct sort_ctx {
	const struct profile *p;
	bool by_name; /* else input order */
};

/* Stack i's and j's frames, root first, by name (a prefix first). */
static int by_frames(const struct profile *p, size_t i, size_t j)
{
	const struct pstack *a = &p->stacks[i], *b = &p->stacks[j];
	const uint32_t *x = profile__ids(p, a), *y = profile__ids(p, b);

	for (uint32_t k = 0; k < a->depth && k < b->depth; k++) {
		uint32_t la, lb;
		const char *na, *nb;
		int c;

		if (x[k] == y[k])
			continue;
		na = profile__name(p, x[k], &la);
		nb = profile__name(p, y[k], &lb);
		c = memcmp(na, nb, la < lb ? la : lb);
		if (c || la != lb)
			return c ? c : la < lb ? -1 : 1;
	}
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

/* Stacks by process and thread, then by frame names or input order. */
static int by_origin(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;
	const struct stack_origin *o = s->p->origins;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c;

	if (o && o[i].tgid != o[j].tgid)
		return o[i].tgid < o[j].tgid ? -1 : 1;
	if (o && o[i].tid != o[j].tid)
		return o[i].tid < o[j].tid ? -1 : 1;
	if (s->by_name && (c = by_frames(s->p, i, j)))
		return c;
	return i < j ? -1 : i > j;
}

static int by_total(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->total > y->total ? -1 : x->total < y->total ? 1 : (x->first > y->first) - (x->first < y->first);
}

/*
 * The stacks' order (order[p->nr]) and the profiles, hottest first: one per
 * process or thread with origins, else one.  The number of groups, or 0
 * on -ENOMEM (*groups NULL).
 */
static size_t group_stacks(const struct profile *p, bool by_name, size_t *order,
			   struct group **groups)
{
	const struct stack_origin *o = p->origins;
	struct sort_ctx ctx = { .p = p, .by_name = by_name };
	size_t ng = 0;
	struct group *g;

	for (size_t i = 0; i < p->nr; i++)
		order[i] = i;
	*groups = g = calloc(p->nr ? p->nr : 1, sizeof(*g));
	if (!g)
		return 0;
	if (p->nr && (o || by_name))
		qsort_r(order, p->nr, sizeof(*order), by_origin, &ctx);
	if (!o || !p->nr) {
		g[0] = (struct group){ .first = 0, .n = p->nr };
		for (size_t i = 0; i < p->nr; i++)
			if (kept(p, &p->stacks[i]))
				g[0].total += format__count(p, &p->stacks[i]);
		return 1;
	}
	for (size_t i = 0; i < p->nr; i++) {
		const struct stack_origin *x = &o[order[i]], *prev = i ? &o[order[i - 1]] : NULL;

		if (!prev || prev->tgid != x->tgid || prev->tid != x->tid)
			g[ng++] = (struct group){ .first = i };
		g[ng - 1].n++;
		if (kept(p, &p->stacks[order[i]]))
			g[ng - 1].total += format__count(p, &p->stacks[order[i]]);
	}
	qsort(g, ng, sizeof(*g), by_total);
	return ng;
}

/* A group's profile name: the title for a folded file's one profile, else
 * "comm (PID)" or "comm (PID/TID)". */
static void write_profile_name(FILE *f, const struct profile *p, const size_t *order,
			       const struct group *g, const char *title)
{
	const struct stack_origin *o = p->origins && g->n ? &p->origins[order[g->first]] : NULL;
	char buf[64];

	if (!o) {
		json_string(f, title, strlen(title));
		return;
	}
	if (o->tid)
		snprintf(buf, sizeof(buf), "%s (%u/%u)", o->comm, o->tgid, o->tid);
	else
		snprintf(buf, sizeof(buf), "%s (%u)", o->comm, o->tgid);
	json_string(f, buf, strlen(buf));
}

static void write_profiles(FILE *f, const struct profile *p, const size_t *order,
			   const struct group *g, size_t ng, const struct used_names *u,
			   const char *title)
{
	fputs("\"profiles\":[", f);
	for (size_t k = 0; k < ng; k++) {
		fputs(k ? ",\n{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":", f);
		write_profile_name(f, p, order, &g[k], title);
		fputs(p->time_weighted ? ",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":"
					: ",\"unit\":\"none\",\"startValue\":0,\"endValue\":", f);
		json_number(f, g[k].total);
		fputs(",\n", f);
		write_samples(f, p, order + g[k].first, g[k].n, u);
	}
	fputs("],\n", f);
}

/* A used name's source location, when it names one: its first location
 * (index + 1 into the profile's addrs->locs, 0 when none) and whether its
 * every location is that one's function and line. */
struct frame_source {
	uint32_t loc;
	bool one_line;
};

/* Each used name's source location, or NULL when none has one (a folded
 * file's profile, a capture without source frames); *err on -ENOMEM. */
static struct frame_source *frame_sources(const struct profile *p, const struct used_names *u,
					  int *err)
{
	const struct paddrs *a = p->addrs;
	struct frame_source *fs;

	*err = 0;
	if (!a || !a->nr_srcs)
		return NULL;
	if (!(fs = calloc(u->nr + 1, sizeof(*fs)))) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < a->nr_locs; i++) {
		const struct ploc *l = &a->locs[i];
		struct frame_source *x;
		uint32_t src, line, src0, line0;

		if (!ploc__has_source(l, &src, &line) || !u->number[l->name])
			continue;
		x = &fs[u->number[l->name] - 1];
		if (!x->loc)
			*x = (struct frame_source){ .loc = (uint32_t)i + 1, .one_line = true };
		else if (ploc__has_source(&a->locs[x->loc - 1], &src0, &line0) &&
			 (src0 != src || line0 != line))
			x->one_line = false;
	}
	return fs;
}

/* ,"file":..,"line":.. of a frame named from source location x. */
static void write_frame_source(FILE *f, const struct paddrs *a, const struct frame_source *x)
{
	uint32_t s = 0, at = 0, len, line;
	const struct psource *src;
	const char *file;

	ploc__has_source(&a->locs[x->loc - 1], &s, &at);
	src = &a->srcs[s];
	line = x->one_line && at ? at : src->start_line;
	file = paddrs__src_str(a, src->file, &len);

	fputs(",\"file\":", f);
	json_string(f, file, len);
	if (line) {
		fputs(",\"line\":", f);
		json_uint(f, line);
	}
}

/* The names the kept stacks use, numbered as write_sample numbers them. */
static void write_frames(FILE *f, const struct profile *p, const struct used_names *u,
			 const struct frame_source *fs)
{
	fputs("\"shared\":{\"frames\":[", f);
	for (size_t i = 0; i < u->nr; i++) {
		const struct strtab_ent *e = &p->names.ent[u->order[i]];

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_string(f, e->s, e->len);
		if (fs && fs[i].loc)
			write_frame_source(f, p->addrs, &fs[i]);
		putc_unlocked('}', f);
	}
	fputs("]}}\n", f);
}

/* The file's name: the profile's, then what it shows (format__subtitle),
 * which speedscope shows above the graph. */
static void write_name(FILE *f, const struct profile *p, const struct render_opts *o,
		       const char *name)
{
	char what[512], full[768];

	format__subtitle(p, o, what, sizeof(what));
	snprintf(full, sizeof(full), *what ? "%s (%s)" : "%s", name, what);
	json_string(f, full, strlen(full));
}

int speedscope__write(FILE *out, const struct profile *p, const struct render_opts *o)
{
	const char *name = format__profile_name(o);
	size_t *order = malloc((p->nr ? p->nr : 1) * sizeof(*order)), ng = 0;
	struct group *g = NULL;
	struct used_names u;
	struct frame_source *fs = NULL;
	int err = 0;

	if (order)
		ng = group_stacks(p, !(o && o->flamechart), order, &g);
	if (!ng || profile__used_names(p, p->time_weighted ? kept_us : kept_count, &u)) {
		free(order);
		free(g);
		return -ENOMEM;
	}
	fs = frame_sources(p, &u, &err);
	if (err) {
		used_names__free(&u);
		free(order);
		free(g);
		return err;
	}
	errno = 0;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"smolder " SMOLDER_VERSION "\",\n\"name\":", out);
	write_name(out, p, o, name);
	fputs(",\n\"activeProfileIndex\":0,\n", out);
	write_profiles(out, p, order, g, ng, &u, name);
	write_frames(out, p, &u, fs);
	free(fs);
	used_names__free(&u);
	free(order);
	free(g);
	if (ferror(out)) {
		if (!errno)
			errno = EIO;
		err = -1;
	}
	return err;
}
