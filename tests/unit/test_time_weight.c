// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A time-weighted profile (--off-cpu: counts are microseconds, CPU samples
 * weighted by their period, waits by their length) through the folded,
 * SVG, speedscope and report writers: each names the unit, writes whole
 * microseconds that agree with the others, leaves out what rounds to none,
 * and the folded text reads back as it was written.  (test_pprof checks
 * pprof's time sample type.)
 */
#include <stdlib.h>
#include "profile/folded_read.h"
#include "output/format.h"
#include "unit.h"
#include "output/folded.h"
#include "output/report.h"
#include "output/speedscope.h"
#include "output/svg.h"

/* 7 samples at 49 Hz (20408.163265 us each), 250 ms asleep, with
 * [off-cpu:S] and its waker past the kernel section, as --wakers has it,
 * and 0.3 us of a stack that rounds to none. */
#define CPU_US (7 * 20408.163265)
#define ALL_US 392857 /* CPU_US + 250000 + 0.3, whole */

static const struct {
	const char *frames;
	double us;
	uint16_t n_user, n_delim, n_kernel;
} stacks[] = {
	{ "split;main;compute", CPU_US, 2, 0, 0 },
	{ "split;main;nap;clock_nanosleep;-;do_nanosleep;schedule;[off-cpu:S];"
	  "woken-by:writer;try_to_wake_up", 250000, 3, 1, 2 },
	{ "split;main;blip", 0.3, 2, 0, 0 },
};

/* The profile a capture hands the writers, with origins (process split,
 * PID 42: one head frame). */
static struct profile *time_profile(bool time_weighted)
{
	struct profile *p = profile__new();

	p->time_weighted = time_weighted;
	p->period_ns = 20408163;
	CHECK(profile__with_origins(p) == 0);
	for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
		struct stack_origin o = { .tgid = 42, .tid = 0, .cpu = -1, .comm = "split", .n_head = 1,
					  .n_user = stacks[i].n_user, .n_delim = stacks[i].n_delim,
					  .n_kernel = stacks[i].n_kernel };
		uint32_t ids[16], depth = 0;
		const char *s = stacks[i].frames;

		for (const char *e; depth < 16; s = e + 1) {
			e = strchr(s, ';');
			if (!e)
				e = s + strlen(s);
			ids[depth++] = (uint32_t)profile__intern(p, s, e - s);
			if (!*e)
				break;
		}
		CHECK(profile__add_ids(p, ids, depth, stacks[i].us, &o) == 0);
	}
	return p;
}

typedef int (*writer)(FILE *out, const struct profile *p, const struct render_opts *o);

static int folded_w(FILE *out, const struct profile *p, const struct render_opts *o)
{
	(void)o;
	return folded__write(out, p);
}

static int report_w(FILE *out, const struct profile *p, const struct render_opts *o)
{
	(void)o;
	return report__write(out, p, false);
}

static char *written(writer w, const struct profile *p, const struct render_opts *o)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	CHECK(w(f, p, o) == 0);
	fclose(f);
	return buf;
}

TEST(folded_whole_microseconds_read_back)
{
	struct profile *p = time_profile(true), *back = profile__new();
	char *s = written(folded_w, p, NULL), errbuf[256] = "";
	FILE *in = fmemopen(s, strlen(s), "r");

	CHECK_STR(s, "split;main;compute 142857\n"
		     "split;main;nap;clock_nanosleep;-;do_nanosleep;schedule;[off-cpu:S];"
		     "woken-by:writer;try_to_wake_up 250000\n");
	CHECK(folded_read__parse(in, "t.folded", back, errbuf, sizeof(errbuf)) == 0);
	CHECK(back->nr == 2 && !back->fractional);
	if (back->nr == 2) {
		char *again;

		CHECK(back->stacks[0].count == 142857 && back->stacks[1].count == 250000);
		/* what it says, read back as time, is written the same */
		back->time_weighted = true;
		again = written(folded_w, back, NULL);
		CHECK_STR(again, s);
		free(again);
	}
	fclose(in);
	free(s);
	profile__free(back);
	profile__free(p);
}

TEST(svg_counts_in_us_unless_named)
{
	struct profile *p = time_profile(true), *q = time_profile(false);
	struct render_opts named = { .countname = "ms" };
	char *s = written(svg__write, p, NULL), *n = written(svg__write, p, &named);
	char *c = written(svg__write, q, NULL);

	CHECK(strstr(s, "<title>compute (142,857 us, 36.36%)</title>"));
	CHECK(strstr(s, "<title>all (392,857 us, 100.00%)</title>"));
	CHECK(strstr(s, "<title>[off-cpu:S] (250,000 us, 63.64%)</title>"));
	CHECK(!strstr(s, " samples, "));
	/* --countname wins, as flamegraph.pl's */
	CHECK(strstr(n, "<title>compute (142,857 ms, 36.36%)</title>"));
	CHECK(!strstr(n, " us, "));
	/* the same profile counted in samples says so, decimals and all */
	CHECK(strstr(c, "<title>compute (142857.14 samples, 36.36%)</title>"));
	CHECK(!strstr(c, " us, "));
	free(s);
	free(n);
	free(c);
	profile__free(q);
	profile__free(p);
}

TEST(speedscope_unit_microseconds)
{
	struct profile *p = time_profile(true), *q = time_profile(false);
	char *s = written(speedscope__write, p, NULL), *c = written(speedscope__write, q, NULL);

	CHECK(strstr(s, "\"name\":\"split (42)\",\"unit\":\"microseconds\","
			"\"startValue\":0,\"endValue\":392857,\n"));
	CHECK(strstr(s, "\"weights\":[142857,250000]}"));
	CHECK(!strstr(s, "blip")); /* its 0.3 us round to none, as in the folded file */
	CHECK(strstr(c, "\"unit\":\"none\""));
	CHECK(strstr(c, "blip"));
	free(s);
	free(c);
	profile__free(q);
	profile__free(p);
}

TEST(report_says_us)
{
	struct profile *p = time_profile(true), *q = time_profile(false);
	char *s = written(report_w, p, NULL), *c = written(report_w, q, NULL);

	/* in the profile's order; the waker and the marker leaf-most, above
	 * the kernel; blip's 0.3 us left out, as in the folded file */
	CHECK_STR(s, "    compute\n    main\n    -                split (42)\n        142857 us\n\n"
		     "    try_to_wake_up\n    woken-by:writer\n    [off-cpu:S]\n"
		     "    schedule\n    do_nanosleep\n    --\n"
		     "    clock_nanosleep\n    nap\n    main\n"
		     "    -                split (42)\n        250000 us\n\n");
	CHECK(strstr(c, "    -                split (42)\n        142857\n\n"));
	free(s);
	free(c);
	profile__free(q);
	profile__free(p);
}

int main(void)
{
	RUN(folded_whole_microseconds_read_back);
	RUN(svg_counts_in_us_unless_named);
	RUN(speedscope_unit_microseconds);
	RUN(report_says_us);
	UNIT_EXIT();
}
