// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading perf map files within a budget (perfmap_file.c), on memfds: the
 * same answers as parsing the text whole; the newest lines kept when the
 * budget's bytes run out; an update of a grown file reads only what was
 * appended (an old line rewritten in place is not seen); a replaced or
 * shrunk file is read anew; the line being written waits; lines too long
 * for the parser are skipped across chunk boundaries, both ways; an
 * expired budget stops the read and leaves the map as it was.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "unit.h"
#include "lib/budget.h"
#include "symbols/perfmap.h"

static int mfd(void)
{
	return memfd_create("perfmap", MFD_CLOEXEC);
}

static void put(int fd, const char *text)
{
	size_t n = strlen(text);

	CHECK(write(fd, text, n) == (ssize_t)n);
}

static const char *at(const struct perfmap *pm, uint64_t addr)
{
	const char *n = perfmap__lookup(pm, addr, NULL);

	return n ? n : "";
}

/* n lines "START 10 fI", START = (i + 1) * 0x100, into text (malloc'ed). */
static char *lines(size_t n, size_t *len)
{
	char *t = malloc(n * 32 + 1);
	size_t at = 0;

	for (size_t i = 0; t && i < n; i++)
		at += sprintf(t + at, "%zx 10 f%zu\n", (i + 1) * 0x100, i);
	*len = at;
	return t;
}

TEST(same_as_parse)
{
	size_t len;
	char *t = lines(50000, &len);
	int fd = mfd();
	struct perfmap *a, *b;

	CHECK(t && fd >= 0 && write(fd, t, len) == (ssize_t)len);
	a = perfmap__read_fd(fd, NULL);
	b = perfmap__parse(t, len);
	CHECK(a && b && perfmap__count(a) == 50000 && perfmap__count(b) == 50000);
	for (size_t i = 0; a && b && i < 50000; i += 997)
		CHECK_STR(at(a, (i + 1) * 0x100 + 4), at(b, (i + 1) * 0x100 + 4));
	CHECK(!perfmap__truncated(a));
	perfmap__free(a);
	perfmap__free(b);
	free(t);
	close(fd);
}

TEST(budget_keeps_newest)
{
	struct budget b = { .max_bytes = 64 << 10 };
	char oldest[32];
	size_t len, n;
	char *t = lines(100000, &len);
	int fd = mfd();
	struct perfmap *pm;

	CHECK(t && fd >= 0 && write(fd, t, len) == (ssize_t)len);
	pm = perfmap__read_fd(fd, &b);
	n = perfmap__count(pm);
	CHECK(pm && perfmap__truncated(pm) && n > 100 && n < 100000);
	CHECK(perfmap__bytes(pm) <= b.max_bytes);
	CHECK_STR(at(pm, 100000 * 0x100), "f99999");
	sprintf(oldest, "f%zu", 100000 - n);
	CHECK_STR(at(pm, (100000 - n + 1) * 0x100), oldest);
	CHECK_STR(at(pm, (100000 - n) * 0x100), "");
	CHECK_STR(at(pm, 0x100), "");
	printf("  %zu of 100000 lines kept in %zu bytes\n", n, perfmap__bytes(pm));
	perfmap__free(pm);
	free(t);
	close(fd);
}

TEST(update_reads_appended_only)
{
	int fd = mfd();
	struct perfmap *pm = NULL;

	put(fd, "1000 10 a\n2000 10 b\n3000 10 partial");
	CHECK(perfmap__update_fd(&pm, fd, NULL) == 0);
	CHECK_STR(at(pm, 0x1000), "a");
	CHECK_STR(at(pm, 0x3000), ""); /* still being written */
	CHECK(perfmap__update_fd(&pm, fd, NULL) == 0 && perfmap__count(pm) == 2);
	/* rewrite line 1 in place (a JIT never does): not read again */
	CHECK(pwrite(fd, "1000 10 A\n", 10, 0) == 10);
	put(fd, "_done\n2000 10 newer\n");
	CHECK(perfmap__update_fd(&pm, fd, NULL) == 0);
	CHECK_STR(at(pm, 0x1000), "a");
	CHECK_STR(at(pm, 0x3000), "partial_done");
	CHECK_STR(at(pm, 0x2000), "newer");
	CHECK(perfmap__count(pm) == 4);
	/* shrunk: read anew */
	CHECK(ftruncate(fd, 10) == 0);
	CHECK(perfmap__update_fd(&pm, fd, NULL) == 0);
	CHECK_STR(at(pm, 0x1000), "A");
	CHECK_STR(at(pm, 0x2000), "");
	perfmap__free(pm);
	close(fd);
}

TEST(replaced_file_read_anew)
{
	int a = mfd(), b = mfd();
	struct perfmap *pm = NULL;

	put(a, "1000 10 old\n");
	put(b, "1000 10 new\n2000 10 more\n");
	CHECK(perfmap__update_fd(&pm, a, NULL) == 0);
	CHECK(perfmap__update_fd(&pm, b, NULL) == 0);
	CHECK_STR(at(pm, 0x1000), "new");
	CHECK_STR(at(pm, 0x2000), "more");
	perfmap__free(pm);
	close(a);
	close(b);
}

/* Lines over PERFMAP_MAX_LINE at chunk boundaries (64 KiB) are skipped. */
TEST(long_lines_skipped_both_ways)
{
	size_t big = PERFMAP_MAX_LINE * 5, n = 0;
	char *t = malloc(big * 3 + 256);
	int fd = mfd();
	struct perfmap *fwd = NULL, *back;

	CHECK(t && fd >= 0);
	if (!t)
		return;
	n += sprintf(t + n, "1000 10 first\n");
	n += sprintf(t + n, "1100 10 ");
	memset(t + n, 'x', big);
	n += big;
	n += sprintf(t + n, "\n2000 10 middle\n3000 10 ");
	memset(t + n, 'y', 70000);
	n += 70000;
	n += sprintf(t + n, "\n4000 10 last\n");
	CHECK(write(fd, t, n) == (ssize_t)n);
	back = perfmap__read_fd(fd, NULL);
	CHECK(perfmap__count(back) == 3);
	CHECK_STR(at(back, 0x1000), "first");
	CHECK_STR(at(back, 0x2000), "middle");
	CHECK_STR(at(back, 0x4000), "last");
	CHECK_STR(at(back, 0x1100), "");
	/* forwards: the same file appended to an empty read */
	CHECK(ftruncate(fd, 0) == 0 && perfmap__update_fd(&fwd, fd, NULL) == 0);
	CHECK(pwrite(fd, t, n, 0) == (ssize_t)n);
	CHECK(perfmap__update_fd(&fwd, fd, NULL) == 0);
	CHECK(perfmap__count(fwd) == 3);
	CHECK_STR(at(fwd, 0x2000), "middle");
	CHECK_STR(at(fwd, 0x3000), "");
	CHECK_STR(at(fwd, 0x4000), "last");
	perfmap__free(back);
	perfmap__free(fwd);
	free(t);
	close(fd);
}

TEST(expired_budget_changes_nothing)
{
	struct budget late = { .until = 1 };
	int fd = mfd();
	struct perfmap *pm = NULL;

	put(fd, "1000 10 a\n");
	CHECK(perfmap__update_fd(&pm, fd, NULL) == 0);
	put(fd, "2000 10 b\n");
	errno = 0;
	CHECK(perfmap__update_fd(&pm, fd, &late) == -1 && errno == ETIMEDOUT);
	CHECK_STR(at(pm, 0x1000), "a");
	CHECK_STR(at(pm, 0x2000), "");
	CHECK(perfmap__read_fd(fd, &late) == NULL && errno == ETIMEDOUT);
	CHECK(perfmap__update_fd(&pm, fd, NULL) == 0);
	CHECK_STR(at(pm, 0x2000), "b");
	perfmap__free(pm);
	close(fd);
}

/* Appending past the budget reads the newest lines anew, within it. */
TEST(appends_stay_within_budget)
{
	struct budget b = { .max_bytes = 256 << 10 };
	struct perfmap *pm = NULL;
	char line[64];
	int fd = mfd();

	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 1000; i++) {
			int k = round * 1000 + i;

			sprintf(line, "%x 10 g%d\n", (k + 1) * 0x100, k);
			put(fd, line);
		}
		CHECK(perfmap__update_fd(&pm, fd, &b) == 0);
		CHECK(perfmap__bytes(pm) <= b.max_bytes);
		sprintf(line, "g%d", round * 1000 + 999);
		CHECK_STR(at(pm, (round * 1000 + 1000) * 0x100), line);
	}
	CHECK(perfmap__truncated(pm));
	perfmap__free(pm);
	close(fd);
}

int main(void)
{
	RUN(same_as_parse);
	RUN(budget_keeps_newest);
	RUN(update_reads_appended_only);
	RUN(replaced_file_read_anew);
	RUN(long_lines_skipped_both_ways);
	RUN(expired_budget_changes_nothing);
	RUN(appends_stay_within_budget);
	UNIT_EXIT();
}
