// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Folded stacks output: the text flamegraph.pl, speedscope and others read,
 * the only place a profile becomes text (folded_read.c reads it back).
 * Counts are samples, or with --off-cpu whole microseconds, as offcputime
 * -f prints them: the text does not say which. */
#include <inttypes.h>
#include <string.h>
#include "profile/folded_read.h"
#include "output/folded.h"

static void put_frames(FILE *out, const struct profile *p, const struct pstack *s)
{
	const uint32_t *ids = profile__ids(p, s);

	for (uint32_t i = 0; i < s->depth; i++) {
		uint32_t len;
		const char *name = profile__name(p, ids[i], &len);

		if (i)
			putc(';', out);
		fwrite(name, 1, len, out);
	}
}

/*
 * " COUNT" as the folded reader reads it back (folded_read.h): digits and
 * at most one dot, never an exponent.  Whole counts print as such, others
 * with 17 significant digits (every digit of a double); sums past
 * FOLDED_COUNT_MAX (a diff's) as FOLDED_COUNT_MAX.
 */
static void put_count(FILE *out, double v)
{
	char buf[400];
	int zeros = 0;

	if (!(v >= 0)) /* not a number: no such count comes in */
		v = 0;
	if (v > FOLDED_COUNT_MAX)
		v = FOLDED_COUNT_MAX;
	if (v == (double)(uint64_t)v) {
		fprintf(out, " %" PRIu64, (uint64_t)v);
		return;
	}
	snprintf(buf, sizeof(buf), "%.17g", v);
	if (strchr(buf, 'e')) {
		/* below 1e-4: as many decimals as the leading zeros need */
		for (double t = v; t < 0.1 && zeros < 330; t *= 10)
			zeros++;
		snprintf(buf, sizeof(buf), "%.*f", zeros + 17, v);
		for (size_t n = strlen(buf); n > 1 && buf[n - 1] == '0' && buf[n - 2] != '.'; n--)
			buf[n - 1] = '\0';
	}
	fprintf(out, " %s", buf);
}

/* A time-weighted profile's counts are whole microseconds (format.h); a
 * stack that rounds to none (under half of one) is left out, as pprof
 * leaves it out. */
/* An interval of continuous mode (or a range of them) says which, in the
 * header line folded_read.h describes; other profiles keep bcc's format. */
static void put_header(FILE *out, const struct profile *p)
{
	const struct capture_info *ci = &p->info;
	struct folded_header h = {
		.start_ns = ci->start_ns, .end_ns = ci->start_ns + ci->duration_ns,
		.samples = ci->samples, .lost = ci->lost, .rate_hz = ci->rate_hz,
	};

	if (!ci->interval || !ci->start_ns)
		return;
	snprintf(h.host, sizeof(h.host), "%s", ci->host);
	folded_read__put_header(out, &h);
}

int folded__write(FILE *out, const struct profile *p)
{
	put_header(out, p);
	for (size_t i = 0; i < p->nr; i++) {
		const struct pstack *s = &p->stacks[i];
		double count = format__count(p, s);

		if (p->time_weighted && !(count > 0))
			continue;
		put_frames(out, p, s);
		if (p->diff)
			put_count(out, s->before);
		put_count(out, count);
		putc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}
