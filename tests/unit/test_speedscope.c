// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * speedscope output: the whole file for a small profile against the text
 * it must be, JSON escaping of hostile names byte for byte, decimal and
 * diff counts, frame deduplication on many stacks, write errors, and the
 * file and line of frames named from source locations (CPython frames).
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

/* ---- source locations (CPython frames: profile_addr.h) ---- */

struct src_frame {
	const char *name, *func, *file;
	uint32_t line, start_line;
};

/* Adds count samples of frames fr[0..depth) as the folder does: names
 * interned, the stack found by its names (or added), its site by the
 * frames' places (a source location when func is set). */
static int add_frames(struct profile *p, const struct src_frame *fr, uint32_t depth, double count)
{
	uint32_t ids[16];
	struct paddr_frame at[16];
	size_t k;

	for (uint32_t i = 0; i < depth; i++) {
		long id = profile__intern(p, fr[i].name, strlen(fr[i].name));

		if (id < 0)
			return (int)id;
		ids[i] = (uint32_t)id;
		at[i] = (struct paddr_frame){ 0 };
		if (fr[i].func && paddrs__source(p->addrs, &(struct paddr_source){
				.func = fr[i].func, .file = fr[i].file, .line = fr[i].line,
				.start_line = fr[i].start_line }, &at[i]))
			return -ENOMEM;
	}
	for (k = 0; k < p->nr; k++)
		if (p->stacks[k].depth == depth &&
		    !memcmp(profile__ids(p, &p->stacks[k]), ids, depth * sizeof(*ids)))
			break;
	if (k == p->nr && profile__add_ids(p, ids, depth, 0, NULL))
		return -ENOMEM;
	p->stacks[k].count += count;
	return paddrs__add_sample(p->addrs, (uint32_t)k, ids, at, depth, count);
}

/*
 * A frame named from a source location has its file and a line: the one
 * line all its samples were at (a name that carries it, or a function
 * sampled at one line), else its function's first line, else none.  The
 * file is JSON-escaped as names are; frames without one are as before.
 */
TEST(speedscope_source_frames)
{
	struct profile *p = profile__new();
	const struct src_frame at5[] = { { .name = "main" }, { "alpha (app.py)", "alpha", "/app.py", 5, 2 } };
	const struct src_frame at4[] = { { .name = "main" }, { "alpha (app.py)", "alpha", "/app.py", 4, 2 } };
	const struct src_frame l9[] = { { .name = "main" }, { "beta (app.py:9)", "beta", "/app.py", 9, 8 } };
	const struct src_frame g1[] = { { .name = "main" }, { "gamma (o\"dd.py)", "gamma", "/o\"dd.py", 1, 0 } };
	const struct src_frame g2[] = { { .name = "main" }, { "gamma (o\"dd.py)", "gamma", "/o\"dd.py", 3, 0 } };
	int rc = -1;
	char *s = NULL;

	CHECK(p && (p->addrs = paddrs__new()));
	if (!p || !p->addrs)
		return;
	CHECK(!add_frames(p, at5, 2, 3) && !add_frames(p, at4, 2, 1) && !add_frames(p, l9, 2, 2) &&
	      !add_frames(p, g1, 2, 1) && !add_frames(p, g2, 2, 1));
	s = render(p, NULL, &rc);
	CHECK(rc == 0);
	CHECK(s && strstr(s, "\"samples\":[\n[0,1],\n[0,2],\n[0,3]],\n\"weights\":[4,2,2]"));
	CHECK_STR(frames_of(s),
		"\n{\"name\":\"main\"},"
		"\n{\"name\":\"alpha (app.py)\",\"file\":\"/app.py\",\"line\":2},"
		"\n{\"name\":\"beta (app.py:9)\",\"file\":\"/app.py\",\"line\":9},"
		"\n{\"name\":\"gamma (o\\\"dd.py)\",\"file\":\"/o\\\"dd.py\"}]}}\n");
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
	RUN(speedscope_source_frames);
	RUN(speedscope_write_error);
	UNIT_EXIT();
}
