// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * flamegraph --from/--to's TIME (intervals.h) and smolder's folded header
 * (folded_read.h), against times worked out by hand: the forms a user
 * types, in UTC and in a zone with a DST change, the day a time of day
 * lands on, and what is not a time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/intervals.h"
#include "profile/folded_read.h"
#include "unit.h"

#define S 1000000000ULL
/* 2026-11-28T10:05:30Z */
#define NOW (1795860330ULL * S)

static uint64_t t(const char *s, uint64_t after)
{
	uint64_t out = 0;

	return intervals__parse_time(s, NOW, after, &out) ? 1 : out;
}

TEST(time_forms_utc)
{
	setenv("TZ", "UTC", 1);
	tzset();
	CHECK(t("now", 0) == NOW);
	CHECK(t("10:02", 0) == NOW - 210 * S);
	CHECK(t("10:02:30", 0) == NOW - 180 * S);
	CHECK(t("10:02:30.250", 0) == NOW - 180 * S + 250000000);
	CHECK(t("10:02Z", 0) == NOW - 210 * S);
	/* a time of day later than now: yesterday's */
	CHECK(t("10:07", 0) == NOW + 90 * S - 86400 * S);
	/* --to: the first such moment after --from */
	CHECK(t("10:07", NOW - 210 * S) == NOW + 90 * S);
	CHECK(t("00:10", NOW - 210 * S) == 1795911000ULL * S); /* the next day */
	CHECK(t("2026-11-28T10:02", 0) == NOW - 210 * S);
	CHECK(t("2026-11-28 10:02:30Z", 0) == NOW - 180 * S);
	CHECK(t("2026-11-28T10:02:30.5Z", 0) == NOW - 180 * S + 500000000);
	CHECK(t("-10m", 0) == NOW - 600 * S);
	CHECK(t("-90s", 0) == NOW - 90 * S);
	CHECK(t("-2h", 0) == NOW - 7200 * S);
	CHECK(t("-1d", 0) == NOW - 86400 * S);
	CHECK(t("-1.5m", 0) == NOW - 90 * S);
}

TEST(time_local_zone)
{
	/* Berlin: UTC+1 in November, UTC+2 in summer */
	setenv("TZ", "Europe/Berlin", 1);
	tzset();
	CHECK(t("11:02", 0) == NOW - 210 * S);
	CHECK(t("10:02Z", 0) == NOW - 210 * S);
	CHECK(t("2026-07-01T12:00", 0) == 1782900000ULL * S);
	setenv("TZ", "UTC", 1);
	tzset();
}

TEST(time_rejects)
{
	static const char *const bad[] = {
		"", "25:00", "10:60", "10:02:61", "10", "10:2", "1002", "10:02:", "10:02:30.",
		"10:02 ", "x10:02", "2026-13-01T10:00", "2026-11-28", "2026-11-28T", "-10",
		"-m", "-10x", "- 10m", "-1e9d", "yesterday", "10:02ZZ", "2026-11-28T10:02:30.1.2",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t out;

		if (!intervals__parse_time(bad[i], NOW, 0, &out)) {
			printf("  took \"%s\"\n", bad[i]);
			unit_failed_checks++;
		}
	}
}

TEST(header_round_trip)
{
	struct folded_header h = { .start_ns = NOW + 123000000, .end_ns = NOW + 60 * S + 125000000,
				   .samples = 1140, .lost = 3, .rate_hz = 19 }, back;
	static const char *const not_headers[] = {
		"# smolder",
		"# smolder-interval start=2026-11-28T10:05:30.123Z end=2026-11-28T10:05:29.000Z host=x",
		"# smolder-interval start=2026-02-31Tab end=x",
		"# smolder-interval end=2026-11-28T10:05:30.123Z",
		"#smolder-interval start=2026-11-28T10:05:30.123Z end=2026-11-28T10:06:30.123Z",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	snprintf(h.host, sizeof(h.host), "web1");
	folded_read__put_header(f, &h);
	fclose(f);
	CHECK_STR(buf, "# smolder-interval start=2026-11-28T10:05:30.123Z end=2026-11-28T10:06:30.125Z"
		       " host=web1 samples=1140 lost=3 rate=19Hz\n");
	CHECK(folded_read__header(buf, len - 1, &back));
	CHECK(back.start_ns == h.start_ns && back.end_ns == h.end_ns && back.samples == 1140 &&
	      back.lost == 3 && back.rate_hz == 19);
	CHECK_STR(back.host, "web1");
	free(buf);
	/* not headers: a comment, an end before the start, a bad date */
	for (size_t i = 0; i < sizeof(not_headers) / sizeof(not_headers[0]); i++)
		CHECK(!folded_read__header(not_headers[i], strlen(not_headers[i]), &back));
}

/* The header is skipped as a first line only; a line that ends in a count
 * or holds a ';' is a stack whatever it starts with (the fuzzer's round
 * trip: a stack named "# smolder-interval ;" came back as a header). */
static size_t stacks_of(const char *text)
{
	char err[256];
	struct profile *p = profile__new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	size_t n = f && p && !folded_read__parse(f, "t", p, err, sizeof(err)) ? p->nr : 999;

	if (f)
		fclose(f);
	profile__free(p);
	return n;
}

TEST(header_only_when_not_a_stack)
{
	const char *h = "# smolder-interval start=2026-11-28T10:05:30.123Z "
			"end=2026-11-28T10:06:30.125Z host=web1 samples=3 lost=0 rate=19Hz\n";
	char buf[512];

	snprintf(buf, sizeof(buf), "%sa;b 3\n", h);
	CHECK(stacks_of(buf) == 1);
	CHECK(stacks_of("# smolder-interval ; 0 0\n") == 1);
	CHECK(stacks_of("# smolder-interval start=2026-11-28T10:05:30.123Z "
			"end=2026-11-28T10:06:30.125Z 5\n") == 1);
	/* a second header is not skipped silently: strict reading refuses it */
	snprintf(buf, sizeof(buf), "a;b 3\n%s", h);
	CHECK(stacks_of(buf) == 999);
}

int main(void)
{
	RUN(time_forms_utc);
	RUN(time_local_zone);
	RUN(time_rejects);
	RUN(header_round_trip);
	RUN(header_only_when_not_a_stack);
	UNIT_EXIT();
}
