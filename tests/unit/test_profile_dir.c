// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Continuous mode's file names and pruning, in a real temporary directory. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "profile_dir.h"
#include "unit.h"

static char dir[] = "/tmp/smolder-unit-pdir.XXXXXX";

static void put(const char *name, size_t bytes)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	for (size_t i = 0; f && i < bytes; i++)
		fputc('x', f);
	if (f)
		fclose(f);
}

static bool exists(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK) || !faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW);
}

TEST(names_sort_by_start_time)
{
	struct timespec t = { .tv_sec = 1795305600 + 3723, .tv_nsec = 45000000 };
	char buf[256];

	CHECK(profile_dir__name(buf, sizeof(buf), "/d", &t, FMT_FOLDED) == 0);
	CHECK_STR(buf, "/d/smolder-20261122T010203.045Z.folded");
	CHECK(profile_dir__name(buf, sizeof(buf), "/d", &t, FMT_PPROF) == 0);
	CHECK_STR(buf, "/d/smolder-20261122T010203.045Z.pb.gz");
	CHECK(profile_dir__name(buf, 10, "/d", &t, FMT_SVG) < 0);
}

TEST(keeps_newest_and_leaves_other_files)
{
	char name[128];

	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "smolder-20261122T0000%02d.000Z.folded", i);
		put(name, 100);
	}
	put("smolder-20261122T000010.000Z.svg", 100); /* another format */
	put("smolder-notes.folded", 10);
	put("other.folded", 10);
	snprintf(name, sizeof(name), "%s/smolder-20261122T000000.500Z.folded", dir);
	CHECK(symlink("/etc/hostname", name) == 0);

	CHECK(profile_dir__prune(dir, FMT_FOLDED, 4, 0) == 2);
	CHECK(!exists("smolder-20261122T000000.000Z.folded"));
	CHECK(!exists("smolder-20261122T000001.000Z.folded"));
	CHECK(exists("smolder-20261122T000002.000Z.folded"));
	CHECK(exists("smolder-20261122T000005.000Z.folded"));
	CHECK(exists("smolder-20261122T000010.000Z.svg"));
	CHECK(exists("smolder-notes.folded") && exists("other.folded"));
	CHECK(exists("smolder-20261122T000000.500Z.folded"));
	CHECK(access("/etc/hostname", F_OK) == 0);
}

TEST(max_bytes_removes_oldest_but_never_the_newest)
{
	CHECK(profile_dir__prune(dir, FMT_FOLDED, 100, 250) == 2);
	CHECK(!exists("smolder-20261122T000003.000Z.folded"));
	CHECK(exists("smolder-20261122T000005.000Z.folded"));
	CHECK(profile_dir__prune(dir, FMT_FOLDED, 100, 1) == 1);
	CHECK(exists("smolder-20261122T000005.000Z.folded"));
	CHECK(profile_dir__prune("/nonexistent-dir", FMT_FOLDED, 1, 0) < 0);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 2;
	RUN(names_sort_by_start_time);
	RUN(keeps_newest_and_leaves_other_files);
	RUN(max_bytes_removes_oldest_but_never_the_newest);
	if (system("rm -rf /tmp/smolder-unit-pdir.*"))
		printf("  could not remove %s\n", dir);
	UNIT_EXIT();
}
