// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JIT perf maps: the line format and its edge cases, lookups at entry
 * boundaries and under overlaps, and which files perfmap__load refuses
 * (wrong owner, symlink, FIFO, directory, too big, a path leading out of the
 * root) -- built in a scratch directory standing in for /proc/PID/root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "unit.h"
#include "symbols/perfmap.h"

static struct perfmap *parse(const char *text)
{
	return perfmap__parse(text, strlen(text));
}

/* The name covering addr, "" if none; *off in last_off. */
static uint64_t last_off;
static const char *at(const struct perfmap *pm, uint64_t addr)
{
	const char *name = perfmap__lookup(pm, addr, &last_off);

	return name ? name : "";
}

TEST(parse_basic)
{
	struct perfmap *pm = parse("7f0000001000 100 LazyCompile:*foo /app/x.js:1\n"
				   "0x7f0000002000 0x20 bar\n");

	CHECK(pm && perfmap__count(pm) == 2);
	CHECK_STR(at(pm, 0x7f0000001000), "LazyCompile:*foo /app/x.js:1");
	CHECK(last_off == 0);
	CHECK_STR(at(pm, 0x7f00000010ff), "LazyCompile:*foo /app/x.js:1");
	CHECK(last_off == 0xff);
	CHECK_STR(at(pm, 0x7f0000001100), "");
	CHECK_STR(at(pm, 0x7f0000000fff), "");
	CHECK_STR(at(pm, 0x7f0000002000), "bar");
	CHECK_STR(at(pm, 0x7f000000201f), "bar");
	CHECK(last_off == 0x1f);
	CHECK_STR(at(pm, 0x7f0000002020), "");
	CHECK_STR(at(pm, 0), "");
	CHECK_STR(at(pm, UINT64_MAX), "");
	CHECK(perfmap__lookup(pm, 0x7f0000002001, NULL) != NULL);
	perfmap__free(pm);
}

TEST(parse_edge_cases)
{
	struct perfmap *pm = parse(
		"\n"
		"1000 10 crlf name\r\n"
		"  \t2000\t10\t tabbed  \n"
		"3000 10 trailing blanks \t \n"
		"4000 0 zero size\n"
		"5000 10\n"
		"5100 10 \n"
		"zz00 10 not hex\n"
		"6000 -10 negative\n"
		"7000 1g0 bad size\n"
		"7100 10name glued\n"
		"11111111111111111 10 seventeen digits\n"
		"0000000000000000008000 10 leading zeros\n"
		"ffffffffffffff00 100 wraps\n"
		"ffffffffffffff00 100\n"
		"fffffffffffffff0 10 ends at 2^64\n"
		"ffffffffffffffe0 10 near the top\n"
		"0X9000 0XA upper\n"
		"0xA000 0x 0x-empty\n"
		"B000 10 last line without newline");

	CHECK(pm && perfmap__count(pm) == 7);
	CHECK_STR(at(pm, 0x1005), "crlf name");
	CHECK_STR(at(pm, 0x2000), "tabbed");
	CHECK_STR(at(pm, 0x3000), "trailing blanks");
	CHECK_STR(at(pm, 0x4000), "");
	CHECK_STR(at(pm, 0x5000), "");
	CHECK_STR(at(pm, 0x5100), "");
	CHECK_STR(at(pm, 0x6000), "");
	CHECK_STR(at(pm, 0x7100), "");
	CHECK_STR(at(pm, 0x8000), "leading zeros");
	CHECK_STR(at(pm, 0xffffffffffffff00), "");
	CHECK_STR(at(pm, 0xffffffffffffffef), "near the top");
	CHECK(last_off == 0xf);
	CHECK_STR(at(pm, 0xfffffffffffffff0), "");
	CHECK_STR(at(pm, UINT64_MAX), "");
	CHECK_STR(at(pm, 0x9009), "upper");
	CHECK_STR(at(pm, 0xA000), "");
	CHECK_STR(at(pm, 0xB00f), "last line without newline");
	perfmap__free(pm);
}

TEST(parse_nul_and_huge_lines)
{
	static const char with_nul[] = "1000 10 a\0b\n2000 10 ok\n";
	size_t big = PERFMAP_MAX_LINE + 10, n;
	char *text = malloc(big + 64);
	struct perfmap *pm;

	pm = perfmap__parse(with_nul, sizeof(with_nul) - 1);
	CHECK(pm && perfmap__count(pm) == 1);
	CHECK_STR(at(pm, 0x1000), "");
	CHECK_STR(at(pm, 0x2000), "ok");
	perfmap__free(pm);
	if (!text) {
		CHECK(0);
		return;
	}
	n = sprintf(text, "1000 10 ");
	memset(text + n, 'x', big - n);
	sprintf(text + big, "\n2000 10 after\n");
	pm = parse(text);
	CHECK(pm && perfmap__count(pm) == 1);
	CHECK_STR(at(pm, 0x1000), "");
	CHECK_STR(at(pm, 0x2000), "after");
	perfmap__free(pm);
	/* Just under the cap is a valid, long name. */
	n = sprintf(text, "1000 10 ");
	memset(text + n, 'y', PERFMAP_MAX_LINE - n);
	text[PERFMAP_MAX_LINE] = '\0';
	pm = parse(text);
	CHECK(pm && strlen(at(pm, 0x1000)) == PERFMAP_MAX_LINE - n);
	perfmap__free(pm);
	free(text);
}

TEST(overlaps_later_wins)
{
	struct perfmap *pm = parse("1000 1000 old\n"       /* [1000, 2000) */
				   "1800 100 new\n"        /* [1800, 1900) */
				   "3000 100 small\n"      /* [3000, 3100) */
				   "2f00 400 big\n"        /* [2f00, 3300) hides small */
				   "5000 10 first\n"
				   "5000 10 second\n"      /* same range: second */
				   "6000 100 long\n"
				   "6000 10 short\n");     /* same start, shorter */

	CHECK(pm && perfmap__count(pm) == 8);
	CHECK_STR(at(pm, 0x17ff), "old");
	CHECK(last_off == 0x7ff);
	CHECK_STR(at(pm, 0x1800), "new");
	CHECK(last_off == 0);
	CHECK_STR(at(pm, 0x18ff), "new");
	CHECK_STR(at(pm, 0x1900), "old");
	CHECK(last_off == 0x900);
	CHECK_STR(at(pm, 0x1fff), "old");
	CHECK_STR(at(pm, 0x2000), "");
	CHECK_STR(at(pm, 0x3000), "big");
	CHECK(last_off == 0x100);
	CHECK_STR(at(pm, 0x32ff), "big");
	CHECK_STR(at(pm, 0x5005), "second");
	CHECK_STR(at(pm, 0x6005), "short");
	CHECK_STR(at(pm, 0x6010), "long");
	CHECK(last_off == 0x10);
	perfmap__free(pm);
}

TEST(out_of_order_and_empty)
{
	struct perfmap *pm = parse("9000 10 c\n1000 10 a\n5000 10 b\n");

	CHECK_STR(at(pm, 0x1000), "a");
	CHECK_STR(at(pm, 0x5000), "b");
	CHECK_STR(at(pm, 0x9000), "c");
	perfmap__free(pm);
	pm = perfmap__parse(NULL, 0);
	CHECK(pm && perfmap__count(pm) == 0);
	CHECK_STR(at(pm, 0x1000), "");
	perfmap__free(pm);
	CHECK(perfmap__lookup(NULL, 1, NULL) == NULL);
	perfmap__free(NULL);
}

TEST(garbage)
{
	char text[4096];
	struct perfmap *pm;
	unsigned int seed = 1;
	size_t i;
	int round;

	for (round = 0; round < 200; round++) {
		for (i = 0; i < sizeof(text); i++) {
			seed = seed * 1103515245 + 12345;
			/* Mostly hex digits, blanks and newlines, to get near-lines. */
			text[i] = "0123456789abcdefx \t\n\r\0\xff"[(seed >> 16) % 24];
		}
		pm = perfmap__parse(text, sizeof(text));
		CHECK(pm != NULL);
		(void)at(pm, seed);
		perfmap__free(pm);
	}
}

/* Only the last PERFMAP_MAX_ENTRIES lines are read. */
TEST(entry_cap)
{
	size_t lines = PERFMAP_MAX_ENTRIES + 10, i, n = 0;
	char *text = malloc(lines * 24);
	struct perfmap *pm;

	if (!text) {
		CHECK(0);
		return;
	}
	for (i = 0; i < lines; i++)
		n += sprintf(text + n, "%zx 10 f%zu\n", (i + 1) * 0x10, i);
	pm = perfmap__parse(text, n);
	CHECK(pm && perfmap__count(pm) == PERFMAP_MAX_ENTRIES);
	CHECK_STR(at(pm, 0x10 * 10), "");
	CHECK_STR(at(pm, 0x10 * 11), "f10");
	CHECK_STR(at(pm, 0x10 * lines), "f2097161");
	perfmap__free(pm);
	free(text);
}

/* A scratch "/proc/PID/root": DIR/tmp/perf-PID.map. */
static char root[64];
static char mapfile[128];
#define PID 4242

static void write_map(const char *text)
{
	int fd = open(mapfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

static void reset(void)
{
	char dir[128];

	unlink(mapfile);
	rmdir(mapfile);
	snprintf(dir, sizeof(dir), "%s/tmp", root);
	rmdir(dir);
	unlink(dir);
	mkdir(dir, 01777);
}

/* NULL and errno/why expected, or a map whose 0x1000 is "jit". */
static void expect_load(uid_t owner, int want_errno, const char *want_why)
{
	const char *why = "unset";
	struct perfmap *pm;

	errno = 0;
	pm = perfmap__load(PID, root, owner, &why);
	if (!want_errno) {
		CHECK_STR(at(pm, 0x1000), "jit");
		CHECK_STR(why, "unset");
	} else {
		CHECK(pm == NULL);
		CHECK(errno == want_errno);
		CHECK_STR(why, want_why);
	}
	perfmap__free(pm);
}

TEST(load_ownership)
{
	write_map("1000 10 jit\n");
	expect_load(geteuid(), 0, NULL);
	if (geteuid() != 0) {
		printf("  (not root: chown cases skipped)\n");
		return;
	}
	/* Root-owned: trusted whatever the process's uid. */
	expect_load(1000, 0, NULL);
	CHECK(chown(mapfile, 65534, 65534) == 0);
	expect_load(65534, 0, NULL);
	expect_load(0, EPERM, "owned by another user");
	expect_load(1000, EPERM, "owned by another user");
}

/*
 * The files below are the test's own, and said to be: the refusal checked
 * is the file's kind or size, never its owner, whoever runs the test.
 */
TEST(load_refuses_non_files)
{
	char target[160];

	reset();
	expect_load(geteuid(), ENOENT, "no such file or directory");
	snprintf(target, sizeof(target), "%s/real.map", root);
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "1000 10 jit\n", 12) == 12);
	close(fd);
	CHECK(symlink(target, mapfile) == 0);
	expect_load(geteuid(), ELOOP, "a symbolic link");
	unlink(mapfile);
	CHECK(mkfifo(mapfile, 0644) == 0);
	alarm(10); /* a FIFO must not block the load; if it does, die */
	expect_load(geteuid(), EINVAL, "not a regular file");
	alarm(0);
	unlink(mapfile);
	CHECK(mkdir(mapfile, 0755) == 0);
	expect_load(geteuid(), EINVAL, "not a regular file");
	rmdir(mapfile);
	unlink(target);
}

TEST(load_refuses_big_files)
{
	int fd;

	reset();
	fd = open(mapfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && ftruncate(fd, PERFMAP_MAX_FILE + 1) == 0);
	close(fd);
	expect_load(geteuid(), EFBIG, "larger than 256 MiB");
	unlink(mapfile);
}

/* ROOT/tmp -> /tmp must not reach the host's /tmp (RESOLVE_IN_ROOT). */
TEST(load_stays_in_root)
{
	struct open_how how = { .flags = O_PATH, .resolve = RESOLVE_IN_ROOT };
	char dir[128], host[64];
	int fd;

	fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	if (fd < 0) {
		printf("  (no openat2: skipped)\n");
		return;
	}
	close(fd);
	snprintf(host, sizeof(host), "/tmp/perf-%d.map", PID);
	fd = open(host, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		printf("  (%s exists: skipped)\n", host);
		return;
	}
	CHECK(write(fd, "1000 10 host\n", 13) == 13);
	close(fd);
	reset();
	snprintf(dir, sizeof(dir), "%s/tmp", root);
	rmdir(dir);
	CHECK(symlink("/tmp", dir) == 0);
	CHECK(perfmap__load(PID, root, 0, NULL) == NULL);
	unlink(dir);
	unlink(host);
}

TEST(owner_of_self)
{
	uid_t uid = (uid_t)-2;

	CHECK(perfmap__owner(getpid(), &uid) == 0);
	CHECK(uid == geteuid());
	CHECK(perfmap__owner(-5, &uid) == -1);
}

int main(void)
{
	char dir[128];

	RUN(parse_basic);
	RUN(parse_edge_cases);
	RUN(parse_nul_and_huge_lines);
	RUN(overlaps_later_wins);
	RUN(out_of_order_and_empty);
	RUN(garbage);
	RUN(entry_cap);
	snprintf(root, sizeof(root), "/tmp/smolder-perfmap-XXXXXX");
	if (!mkdtemp(root)) {
		printf("FAIL perfmap load tests: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(mapfile, sizeof(mapfile), "%s/tmp/perf-%d.map", root, PID);
	reset();
	RUN(load_ownership);
	RUN(load_refuses_non_files);
	RUN(load_refuses_big_files);
	RUN(load_stays_in_root);
	RUN(owner_of_self);
	reset();
	snprintf(dir, sizeof(dir), "%s/tmp", root);
	rmdir(dir);
	rmdir(root);
	UNIT_EXIT();
}
