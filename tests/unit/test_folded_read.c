// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The folded-stack reader against flamegraph.pl's grammar, and diffs. */
#include <errno.h>
#include <stdlib.h>
#include "profile/folded_read.h"
#include "output/format.h"
#include "unit.h"
#include "output/folded.h"

static char errbuf[256];

/* Stack i's text, as a folded line has it. */
static const char *text(const struct profile *p, size_t i)
{
	static char buf[512];

	profile__text(p, &p->stacks[i], buf, sizeof(buf));
	return buf;
}

/* Reads text as file "in"; returns folded_read's result. */
static int read_text(const char *text, struct profile *p)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int e;

	errbuf[0] = 0;
	e = folded_read__parse(f, "in", p, errbuf, sizeof(errbuf));
	fclose(f);
	return e;
}

TEST(reads_stacks_and_counts_in_order)
{
	struct profile *p = profile__new();

	CHECK(read_text("main;b 3\nmain;a 7\n", p) == 0);
	CHECK(p->nr == 2 && !p->diff && !p->fractional);
	CHECK_STR(text(p, 0), "main;b");
	CHECK(p->stacks[0].count == 3);
	CHECK_STR(text(p, 1), "main;a");
	CHECK(profile__total(p) == 10);
	profile__free(p);
}

TEST(names_keep_their_spaces)
{
	struct profile *p = profile__new();

	CHECK(read_text("java;Foo::bar(int, char) const;[lib a.so+0x10]  12\n", p) == 0);
	CHECK(p->nr == 1);
	CHECK_STR(text(p, 0), "java;Foo::bar(int, char) const;[lib a.so+0x10]");
	CHECK(p->stacks[0].count == 12);
	profile__free(p);
}

TEST(decimal_counts_tabs_and_crlf)
{
	struct profile *p = profile__new();

	CHECK(read_text("a;b 1.5\r\na;c\t2.\r\n\r\n   \na 0\n", p) == 0);
	CHECK(p->nr == 3 && p->fractional);
	CHECK(p->stacks[0].count == 1.5);
	CHECK_STR(text(p, 1), "a;c");
	CHECK(p->stacks[1].count == 2);
	CHECK(p->stacks[2].count == 0);
	profile__free(p);
}

TEST(line_without_count_names_its_line)
{
	struct profile *p = profile__new();

	CHECK(read_text("a;b 1\n\na;c\n", p) == -EINVAL);
	CHECK(strstr(errbuf, "line 3 of in: no sample count") != NULL);
	CHECK(read_text("a;b 1\nx .5\n", p) == -EINVAL);
	CHECK(strstr(errbuf, "line 2 of in:") != NULL);
	CHECK(read_text("a;b 1x\n", p) == -EINVAL);
	CHECK(read_text("a;b -1\n", p) == -EINVAL);
	CHECK(read_text("a;b 1.2.3\n", p) == -EINVAL);
	CHECK(read_text("7\n", p) == -EINVAL);
	CHECK(read_text(" 7\n", p) == -EINVAL);
	CHECK(strstr(errbuf, "line 1 of in: a count without a stack") != NULL);
	profile__free(p);
}

TEST(nul_byte_is_rejected)
{
	static const char bin[] = "a;b 1\na\0b 2\n";
	struct profile *p = profile__new();
	FILE *f = fmemopen((void *)bin, sizeof(bin) - 1, "r");

	CHECK(folded_read__parse(f, "bin", p, errbuf, sizeof(errbuf)) == -EINVAL);
	CHECK(strstr(errbuf, "line 2 of bin: a NUL byte") != NULL);
	fclose(f);
	profile__free(p);
}

TEST(empty_input_reads_nothing)
{
	struct profile *p = profile__new();

	CHECK(read_text("", p) == 0 && p->nr == 0);
	CHECK(read_text("\n\n", p) == 0 && p->nr == 0);
	profile__free(p);
}

TEST(two_counts_are_before_and_after)
{
	struct profile *p = profile__new();

	CHECK(read_text("a;b 3 5\na;c 4 0\n", p) == 0);
	CHECK(p->diff && p->nr == 2);
	CHECK(p->stacks[0].before == 3 && p->stacks[0].count == 5);
	CHECK(profile__total_before(p) == 7 && profile__total(p) == 5);
	CHECK(read_text("a;d 1\n", p) == -EINVAL);
	CHECK(strstr(errbuf, "line 1 of in: one sample count, but the first line had two") != NULL);
	profile__free(p);
}

TEST(name_ending_in_number_after_single_counts)
{
	struct profile *p = profile__new();

	CHECK(read_text("a;b 1\nworker 12 5\n", p) == 0);
	CHECK(!p->diff);
	CHECK_STR(text(p, 1), "worker 12");
	CHECK(p->stacks[1].count == 5);
	profile__free(p);
}

TEST(diff_pairs_stacks_and_normalizes)
{
	struct profile *b = profile__new(), *a = profile__new(), *d;

	CHECK(read_text("m;x 10\nm;y 10\nm;gone 20\n", b) == 0);
	CHECK(read_text("m;x 30\nm;new 10\nm;x 10\n", a) == 0);
	d = profile__diff(b, a, false);
	CHECK(d && d->diff && d->nr == 4);
	CHECK_STR(text(d, 0), "m;x");
	CHECK(d->stacks[0].count == 40 && d->stacks[0].before == 10);
	CHECK(profile__total(d) == 50 && profile__total_before(d) == 40);
	profile__free(d);
	d = profile__diff(b, a, true);
	CHECK(d && profile__total_before(d) == 50);
	CHECK(d->stacks[0].before == 12.5);
	profile__free(d);
	profile__free(a);
	profile__free(b);
}

TEST(counts_over_the_bound_are_rejected)
{
	struct profile *p = profile__new();
	char huge[512];

	CHECK(read_text("a;b 1000000000000000000\n", p) == 0);
	CHECK(read_text("a;b 1000000000000001000\n", p) == -EINVAL);
	CHECK(strstr(errbuf, "line 1 of in: a count over 10^18") != NULL);
	memset(huge, '9', sizeof(huge) - 1); /* strtod: infinity */
	huge[sizeof(huge) - 1] = '\0';
	memcpy(huge, "a;b ", 4);
	CHECK(read_text(huge, p) == -EINVAL);
	CHECK(read_text("a;b inf\n", p) == -EINVAL);
	CHECK(read_text("a;b 1e5\n", p) == -EINVAL);
	profile__free(p);
}

/* A line of n bytes, "a;xxx... 1". */
static int read_line_of(size_t n)
{
	struct profile *p = profile__new();
	char *t = malloc(n + 2);
	int e;

	memset(t, 'x', n);
	memcpy(t, "a;", 2);
	memcpy(t + n - 2, " 1\n", 4);
	e = read_text(t, p);
	free(t);
	profile__free(p);
	return e;
}

TEST(lines_are_capped)
{
	CHECK(read_line_of(FOLDED_LINE_MAX) == 0);
	CHECK(read_line_of(FOLDED_LINE_MAX + 1) == -EINVAL);
	CHECK(strstr(errbuf, "line 1 of in: longer than 4 MiB") != NULL);
}

/* Reads buf[0..len) as file "in", skipping lines that are not stacks. */
static int read_skip(const char *buf, size_t len, struct profile *p, struct folded_skips *sk)
{
	FILE *f = fmemopen((void *)buf, len, "r");
	int e;

	errbuf[0] = 0;
	e = folded_read__skip(f, "in", p, sk, errbuf, sizeof(errbuf));
	fclose(f);
	return e;
}

TEST(skipping_keeps_the_stacks_and_quotes_the_first_other_line)
{
	static const char in[] = "# austin: 3.6.0\n# interval: 100\nP1;T2;a.py:main:3 7\n"
				 "oops, a message\n\nP1;T2;a.py:f:9 3\n# samples: 10\n";
	struct profile *p = profile__new();
	struct folded_skips sk = { 0 };
	char said[512];

	CHECK(read_skip(in, sizeof(in) - 1, p, &sk) == 0);
	CHECK(p->nr == 2 && profile__total(p) == 10);
	CHECK_STR(text(p, 0), "P1;T2;a.py:main:3");
	CHECK(sk.nr == 4 && sk.line == 1);
	folded_skips__describe(&sk, false, said, sizeof(said));
	CHECK_STR(said, "skipped 4 lines that are not \"stack count\" (first: line 1 of in: \"# austin: 3.6.0\")");
	/* strict, the same header is an error naming its line */
	CHECK(read_text(in, p) == -EINVAL);
	CHECK(strstr(errbuf, "line 1 of in: no sample count") != NULL);
	profile__free(p);
}

TEST(skipped_lines_are_quoted_printable_and_cut)
{
	static const char in[] = "\x1b[31m\"x\"\\ \xff\0 5\na;b 1\n";
	static const char lng[] = "0123456789012345678901234567890123456789012345678901234567890123456789\n";
	struct profile *p = profile__new();
	struct folded_skips sk = { 0 };
	char said[512];

	CHECK(read_skip(in, sizeof(in) - 1, p, &sk) == 0 && p->nr == 1 && sk.nr == 1);
	CHECK_STR(sk.text, "\\x1b[31m\\\"x\\\"\\\\ \\xff\\x00 5");
	memset(&sk, 0, sizeof(sk));
	CHECK(read_skip(lng, sizeof(lng) - 1, p, &sk) == 0 && sk.nr == 1);
	CHECK_STR(sk.text, "012345678901234567890123456789012345678901234567890123456789...");
	folded_skips__describe(&sk, false, said, sizeof(said));
	CHECK(strstr(said, "skipped 1 line that is not") == said);
	profile__free(p);
}

TEST(skipping_a_diff_skips_one_count_lines)
{
	static const char in[] = "# before after\na;b 3 5\na;c 4\na;d 1 0\n";
	struct profile *p = profile__new();
	struct folded_skips sk = { 0 };
	char said[512];

	CHECK(read_skip(in, sizeof(in) - 1, p, &sk) == 0);
	CHECK(p->diff && p->nr == 2 && sk.nr == 2);
	folded_skips__describe(&sk, true, said, sizeof(said));
	CHECK(strstr(said, "not \"stack before after\"") != NULL);
	profile__free(p);
}

TEST(skipping_keeps_count_bounds_as_errors)
{
	static const char in[] = "junk\na;b 1\na;c 99999999999999999999\n";
	struct profile *p = profile__new();
	struct folded_skips sk = { 0 };

	CHECK(read_skip(in, sizeof(in) - 1, p, &sk) == -EINVAL);
	CHECK(strstr(errbuf, "line 3 of in: a count over 10^18") != NULL);
	profile__free(p);
}

TEST(skipping_drops_an_overlong_line_and_reads_on)
{
	size_t n = FOLDED_LINE_MAX + 100;
	char *t = malloc(n + 16);
	struct profile *p = profile__new();
	struct folded_skips sk = { 0 };

	memset(t, 'x', n);
	memcpy(t, "a;", 2);
	memcpy(t + n - 2, " 1\na;b 2\n", 10);
	CHECK(read_skip(t, n + 7, p, &sk) == 0);
	CHECK(sk.nr == 1 && sk.line == 1 && p->nr == 1);
	CHECK_STR(text(p, 0), "a;b");
	free(t);
	profile__free(p);
}

/* Writes p as folded text and reads it back into a new profile. */
static struct profile *round_trip(const struct profile *p)
{
	struct profile *q = profile__new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	folded__write(f, p);
	fclose(f);
	if (read_text(buf, q)) {
		printf("  not read back: %s\n", errbuf);
		profile__free(q);
		q = NULL;
	}
	free(buf);
	return q;
}

TEST(what_the_writer_writes_the_reader_reads)
{
	struct profile *a = profile__new(), *b = profile__new(), *d, *q;

	CHECK(read_text("m;x 1000000000000000000\nm;x 1000000000000000000\nm;tiny 0.00001234\n"
			"m;big 123456789012345678\nm;half 0.5\n", a) == 0);
	CHECK(read_text("m;x 3\nm;y 0.000000001\n", b) == 0);
	q = round_trip(a);
	CHECK(q && q->nr == a->nr);
	for (size_t i = 0; q && i < q->nr; i++)
		CHECK(q->stacks[i].count == a->stacks[i].count);
	profile__free(q);
	/* a diff sums m;x past the bound, and -n scales the rest up */
	d = profile__diff(b, a, true);
	q = d ? round_trip(d) : NULL;
	CHECK(q && q->diff && q->nr == d->nr);
	CHECK(q && q->stacks[0].count == FOLDED_COUNT_MAX);
	profile__free(q);
	profile__free(d);
	profile__free(a);
	profile__free(b);
}

int main(void)
{
	RUN(reads_stacks_and_counts_in_order);
	RUN(names_keep_their_spaces);
	RUN(decimal_counts_tabs_and_crlf);
	RUN(line_without_count_names_its_line);
	RUN(nul_byte_is_rejected);
	RUN(empty_input_reads_nothing);
	RUN(two_counts_are_before_and_after);
	RUN(name_ending_in_number_after_single_counts);
	RUN(diff_pairs_stacks_and_normalizes);
	RUN(counts_over_the_bound_are_rejected);
	RUN(lines_are_capped);
	RUN(what_the_writer_writes_the_reader_reads);
	RUN(skipping_keeps_the_stacks_and_quotes_the_first_other_line);
	RUN(skipped_lines_are_quoted_printable_and_cut);
	RUN(skipping_a_diff_skips_one_count_lines);
	RUN(skipping_keeps_count_bounds_as_errors);
	RUN(skipping_drops_an_overlong_line_and_reads_on);
	UNIT_EXIT();
}
