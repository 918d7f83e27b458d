// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * speedscope output: the whole file for a small profile against the text
 * it must be, JSON escaping of hostile names byte for byte, decimal and
 * diff counts, frame deduplication on many stacks, and write errors.
 * (tests/check/formats.sh validates files against speedscope's schema.)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "unit.h"
#include "output/format.h"
#include "output/speedscope.h"

static char *render(const struct profile *p, const struct render_opts *o, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	*rc = speedscope__write(f, p, o);
	fclose(f);
	return buf;
}

static struct profile *make(const char *const *frames, const double *counts, size_t n)
{
	struct profile *p = profile__new();

	for (size_t i = 0; i < n; i++)
		profile__add(p, frames[i], strlen(frames[i]), counts[i], 0);
	return p;
}

/* The text between `"name":` of the first frame and the end. */
static const char *frames_of(const char *json)
{
	const char *s = json ? strstr(json, "\"shared\":{\"frames\":[") : NULL;

	return s ? s + strlen("\"shared\":{\"frames\":[") : "(no frames)";
}

TEST(speedscope_whole_file)
{
	static const char *const fr[] = {
		"main;run_loop;burn_a;spin", "main;run_loop;burn_b;spin", "main;init",
	};
	static const double c[] = { 75, 25, 1 };
	struct profile *p = make(fr, c, 3);
	int rc;
	char *s = render(p, NULL, &rc);

	CHECK(rc == 0);
	CHECK_STR(s,
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
		"\"exporter\":\"smolder " SMOLDER_VERSION "\",\n"
		"\"name\":\"smolder\",\n"
		"\"activeProfileIndex\":0,\n"
		"\"profiles\":[{\"type\":\"sampled\",\"name\":\"smolder\",\"unit\":\"none\","
		"\"startValue\":0,\"endValue\":101,\n"
		/* by frame names, as flamegraph.pl sorts them: the time-order
		 * view speedscope opens in is then a flame graph */
		"\"samples\":[\n[0,5],\n[0,1,2,3],\n[0,1,4,3]],\n"
		"\"weights\":[1,75,25]}],\n"
		"\"shared\":{\"frames\":[\n{\"name\":\"main\"},\n{\"name\":\"run_loop\"},\n"
		"{\"name\":\"burn_a\"},\n{\"name\":\"spin\"},\n{\"name\":\"burn_b\"},\n"
		"{\"name\":\"init\"}]}}\n");
	free(s);
	profile__free(p);
}

TEST(speedscope_flamechart_keeps_input_order)
{
	static const char *const fr[] = { "main;b", "main;a", "main;b" };
	static const double c[] = { 1, 2, 3 };
	struct profile *p = make(fr, c, 3);
	struct render_opts o = { .flamechart = true };
	int rc;
	char *s = render(p, &o, &rc);

	CHECK(rc == 0);
	CHECK(s && strstr(s, "\"samples\":[\n[0,1],\n[0,2],\n[0,1]],\n\"weights\":[1,2,3]"));
	free(s);
	s = render(p, NULL, &rc);
	CHECK(s && strstr(s, "\"samples\":[\n[0,2],\n[0,1],\n[0,1]],\n\"weights\":[2,1,3]"));
	free(s);
	profile__free(p);
}

TEST(speedscope_escapes_hostile_names)
{
	static const char *const fr[] = {
		"q\"b;back\\slash;c\x01\x1f\x7f\t\n;</script>;\xff\xfe;\xc3(;\xe2\x82;"
		"\xed\xa0\x80;\xf0\x9f\x98\x80\xc3\xa9;a/b",
	};
	static const double c[] = { 1 };
	struct profile *p = make(fr, c, 1);
	int rc;
	char *s = render(p, NULL, &rc);

	CHECK(rc == 0);
	CHECK_STR(frames_of(s),
		"\n{\"name\":\"q\\\"b\"},"
		"\n{\"name\":\"back\\\\slash\"},"
		"\n{\"name\":\"c\\u0001\\u001f\\u007f\\u0009\\u000a\"},"
		"\n{\"name\":\"<\\/script>\"},"
		"\n{\"name\":\"\\ufffd\\ufffd\"},"        /* two invalid bytes */
		"\n{\"name\":\"\\ufffd(\"},"              /* lead byte, then ASCII */
		"\n{\"name\":\"\\ufffd\"},"               /* truncated: one U+FFFD */
		"\n{\"name\":\"\\ufffd\\ufffd\\ufffd\"},"  /* a surrogate: 3 */
		"\n{\"name\":\"\xf0\x9f\x98\x80\xc3\xa9\"},"  /* valid: as it is */
		"\n{\"name\":\"a/b\"}]}}\n");
	free(s);
	profile__free(p);
}

TEST(speedscope_name_is_escaped)
{
	struct profile *p = profile__new();
	struct render_opts o = { .name = "run \"1\"\n" };
	int rc;
	char *s = render(p, &o, &rc);

	CHECK(rc == 0);
	CHECK(s && strstr(s, "\n\"name\":\"run \\\"1\\\"\\u000a\",\n"));
	CHECK(s && strstr(s, "\"type\":\"sampled\",\"name\":\"run \\\"1\\\"\\u000a\","));
	/* no stacks: empty arrays, endValue 0 */
	CHECK(s && strstr(s, "\"endValue\":0,\n\"samples\":[],\n\"weights\":[]}]"));
	CHECK_STR(frames_of(s), "]}}\n");
	free(s);
	profile__free(p);
}

TEST(speedscope_decimal_and_diff_counts)
{
	struct profile *p = profile__new();
	int rc;
	char *s;

	p->diff = true;
	profile__add(p, "a;b", 3, 2.5, 1);
	profile__add(p, "a;gone", 6, 0, 9);   /* AFTER has none: left out */
	profile__add(p, "a;c", 3, 0.1, 0);
	profile__add(p, "a;d", 3, 1e6, 3);
	profile__add(p, "a;inf", 5, INFINITY, 0); /* JSON has no infinity */
	profile__add(p, "a;nan", 5, NAN, 0);
	s = render(p, NULL, &rc);
	CHECK(rc == 0);
	CHECK(s && strstr(s, "\"endValue\":1000002.6,\n"
			     "\"samples\":[\n[0,1],\n[0,2],\n[0,3]],\n"
			     "\"weights\":[2.5,0.10000000000000001,1000000]}]"));
	CHECK(s && !strstr(s, "gone") && !strstr(s, "inf") && !strstr(s, "nan"));
	free(s);
	profile__free(p);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; s && (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* 20,000 stacks of 30 frames over 300 names: 300 frames listed once each,
 * 20,000 samples, and the weights' total as endValue. */
TEST(speedscope_many_stacks_share_frames)
{
	struct profile *p = profile__new();
	char buf[1024];
	char *s;
	int rc;

	for (int i = 0; i < 20000; i++) {
		size_t n = 0;

		for (int j = 0; j < 30; j++)
			n += snprintf(buf + n, sizeof(buf) - n, "%sfn_%d", j ? ";" : "",
				      (i * 7 + j * 13 + (i >> j % 8)) % 300);
		profile__add(p, buf, n, 2, 0);
	}
	s = render(p, NULL, &rc);
	CHECK(rc == 0);
	CHECK(count(frames_of(s), "{\"name\":\"fn_") == 300);
	CHECK(count(s, "\n[") == 20000);
	CHECK(s && strstr(s, "\"endValue\":40000,"));
	CHECK(s && strstr(s, "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,"
			     "20,21,22,23,24,25,26,27,28,29],\n"));
	free(s);
	profile__free(p);
}

TEST(speedscope_write_error)
{
	static const char *const fr[] = { "a;b" };
	static const double c[] = { 1 };
	struct profile *p = make(fr, c, 1);
	FILE *f = fopen("/dev/full", "w");
	int rc;

	CHECK(f != NULL);
	if (!f)
		return;
	setvbuf(f, NULL, _IONBF, 0); /* fail at the write, not at fclose */
	rc = speedscope__write(f, p, NULL);
	CHECK(rc == -1);
	CHECK(errno == ENOSPC);
	fclose(f);
	profile__free(p);
}

int main(void)
{
	RUN(speedscope_whole_file);
	RUN(speedscope_flamechart_keeps_input_order);
	RUN(speedscope_escapes_hostile_names);
	RUN(speedscope_name_is_escaped);
	RUN(speedscope_decimal_and_diff_counts);
	RUN(speedscope_many_stacks_share_frames);
	RUN(speedscope_write_error);
	UNIT_EXIT();
}
