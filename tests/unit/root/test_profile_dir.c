// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Continuous mode's output directory (profile_dir.c) in a real temporary
 * directory, as root: names, the directories refused, profiles written
 * beside nodes "planted" by another user (made here, then lchown'd to
 * nobody), and pruning that counts and removes only what smolder recorded
 * writing, in this run or (through the index) an earlier one.  Nothing
 * outside the directory is touched.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/log.h"
#include "cmd/profile_dir.h"
#include "unit.h"

#define NOBODY 65534

static char dir[] = "/tmp/smolder-unit-pdir.XXXXXX";

static const char *at(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put(const char *path, size_t bytes)
{
	FILE *f = fopen(path, "w");

	for (size_t i = 0; f && i < bytes; i++)
		fputc('x', f);
	if (f)
		fclose(f);
}

static bool exists(const char *path)
{
	return !faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW);
}

static mode_t type_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_mode & S_IFMT;
}

/* A new directory sub of dir with mode m (chmod: umask aside); its path
 * stays valid for the whole test run. */
static const char *subdir(const char *sub, mode_t m)
{
	static char paths[16][512];
	static int n;
	char *p = paths[n++ % 16];

	snprintf(p, sizeof(paths[0]), "%s/%s", dir, sub);
	mkdir(p, 0700);
	chmod(p, m);
	return p;
}

/* The start of interval i: 2026-11-22 00:00:i UTC. */
static struct timespec start_of(int i)
{
	return (struct timespec){ .tv_sec = 1795305600 + i, .tv_nsec = 0 };
}

/* Writes bytes bytes as the profile of interval i, records it: 0, or -1;
 * the name it got into given. */
static int write_profile(struct profile_dir *pd, int i, size_t bytes, char *given)
{
	struct timespec t = start_of(i);
	struct profile_target to;
	struct destination of;

	profile_dir__target(pd, &t, &to);
	if (destination__open_at(&of, &to.at, to.path))
		return -1;
	for (size_t b = 0; b < bytes; b++)
		fputc('x', of.f);
	if (destination__close(&of, 0))
		return -1;
	profile_dir__add(pd, &to);
	if (given)
		strcpy(given, to.at.given);
	return 0;
}

/* The path in d of the profile of interval i, untagged. */
static const char *profile_path(const char *d, int i)
{
	static char buf[4][512];
	static int k;
	struct timespec t = start_of(i);
	char name[64];

	k = (k + 1) % 4;
	profile_dir__name(name, sizeof(name), &t, FMT_FOLDED);
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", d, name);
	return buf[k];
}

TEST(names_sort_by_start_time)
{
	struct timespec t = { .tv_sec = 1795305600 + 3723, .tv_nsec = 45000000 };
	char buf[256];

	CHECK(profile_dir__name(buf, sizeof(buf), &t, FMT_FOLDED) == 0);
	CHECK_STR(buf, "smolder-20261122T010203.045Z.folded");
	CHECK(profile_dir__name(buf, sizeof(buf), &t, FMT_PPROF) == 0);
	CHECK_STR(buf, "smolder-20261122T010203.045Z.pb.gz");
	CHECK(profile_dir__name(buf, 10, &t, FMT_SVG) < 0);
}

TEST(refuses_dirs_others_may_write_without_sticky_bit)
{
	struct profile_dir *pd;
	char link[512];

	CHECK(profile_dir__open(subdir("open", 0777), FMT_FOLDED) == NULL);
	CHECK(profile_dir__open(subdir("group", 0775), FMT_FOLDED) == NULL);
	pd = profile_dir__open(subdir("sticky", 01777), FMT_FOLDED);
	CHECK(pd != NULL);
	profile_dir__free(pd);
	pd = profile_dir__open(subdir("mine", 0755), FMT_FOLDED);
	CHECK(pd != NULL);
	profile_dir__free(pd);
	/* made when missing, 0755 */
	pd = profile_dir__open(at("mine/new"), FMT_FOLDED);
	CHECK(pd != NULL && type_of(at("mine/new")) == S_IFDIR);
	profile_dir__free(pd);
	/* a symlink another user planted in a sticky dir is not followed */
	snprintf(link, sizeof(link), "%s", at("sticky/planted"));
	CHECK(symlink(at("mine"), link) == 0 && lchown(link, NOBODY, NOBODY) == 0);
	CHECK(profile_dir__open(link, FMT_FOLDED) == NULL);
	CHECK(profile_dir__open(at("mine/new/x/y"), FMT_FOLDED) == NULL);
}

TEST(writes_beside_planted_nodes)
{
	const char *d = subdir("planted", 01777);
	struct profile_dir *pd = profile_dir__open(d, FMT_FOLDED);
	char given[256], secret[512];
	int rfd;

	CHECK(pd != NULL);
	if (!pd)
		return;
	snprintf(secret, sizeof(secret), "%s", at("secret"));
	put(secret, 5);
	/* a FIFO held open for reading, a symlink to a file, a directory */
	CHECK(mkfifo(profile_path(d, 1), 0666) == 0 && chown(profile_path(d, 1), NOBODY, NOBODY) == 0);
	rfd = open(profile_path(d, 1), O_RDONLY | O_NONBLOCK);
	CHECK(symlink(secret, profile_path(d, 2)) == 0 && lchown(profile_path(d, 2), NOBODY, NOBODY) == 0);
	CHECK(mkdir(profile_path(d, 3), 0777) == 0 && chown(profile_path(d, 3), NOBODY, NOBODY) == 0);
	for (int i = 1; i <= 3; i++) {
		CHECK(write_profile(pd, i, 100, given) == 0);
		/* smolder-...Z-XXXXXX.folded, a regular file of 100 bytes */
		CHECK(strlen(given) == strlen(strrchr(profile_path(d, i), '/') + 1) + OUTFILE_TAG_LEN);
		CHECK(!strncmp(given, strrchr(profile_path(d, i), '/') + 1, 28) && given[28] == '-');
	}
	CHECK(type_of(profile_path(d, 1)) == S_IFIFO);
	CHECK(type_of(profile_path(d, 2)) == S_IFLNK);
	CHECK(type_of(profile_path(d, 3)) == S_IFDIR);
	/* nothing went into the FIFO, nor through the link */
	CHECK(rfd >= 0 && read(rfd, given, sizeof(given)) == 0);
	CHECK(type_of(secret) == S_IFREG);
	{
		struct stat st;

		CHECK(!stat(secret, &st) && st.st_size == 5);
	}
	/* a free name is taken as it is */
	CHECK(write_profile(pd, 4, 100, given) == 0);
	CHECK_STR(given, strrchr(profile_path(d, 4), '/') + 1);
	if (rfd >= 0)
		close(rfd);
	profile_dir__free(pd);
}

TEST(prunes_only_what_it_wrote)
{
	const char *d = subdir("keep", 01777);
	struct profile_dir *pd = profile_dir__open(d, FMT_FOLDED);
	uint64_t bytes;
	char planted[512];

	CHECK(pd != NULL);
	if (!pd)
		return;
	for (int i = 0; i < 6; i++)
		CHECK(write_profile(pd, i, 100, NULL) == 0);
	/* future names, another user's and root's own, a link to a profile */
	for (int i = 0; i < 3; i++) {
		snprintf(planted, sizeof(planted), "%s/smolder-2999123%dT235959.000Z.folded", d, i);
		put(planted, 10);
		if (i)
			CHECK(chown(planted, NOBODY, NOBODY) == 0);
	}
	snprintf(planted, sizeof(planted), "%s/smolder-29990101T000000.000Z.folded", d);
	CHECK(link(profile_path(d, 5), planted) == 0);
	put(at("keep/other.folded"), 10);
	CHECK(profile_dir__count(pd, &bytes) == 6 && bytes == 600);
	CHECK(profile_dir__prune(pd, 4, 0) == 2);
	CHECK(!exists(profile_path(d, 0)) && !exists(profile_path(d, 1)));
	CHECK(exists(profile_path(d, 2)) && exists(profile_path(d, 5)));
	CHECK(exists(at("keep/smolder-29991230T235959.000Z.folded")));
	CHECK(exists(at("keep/smolder-29991232T235959.000Z.folded")));
	CHECK(exists(planted) && exists(at("keep/other.folded")));
	/* --max-size: oldest first, never the newest */
	CHECK(profile_dir__prune(pd, 100, 250) == 2);
	CHECK(!exists(profile_path(d, 3)) && exists(profile_path(d, 4)));
	CHECK(profile_dir__prune(pd, 100, 1) == 1);
	CHECK(exists(profile_path(d, 5)) && profile_dir__count(pd, &bytes) == 1 && bytes == 100);
	profile_dir__free(pd);
}

/* Lines of path (the index's: its header and one a profile). */
static int lines_of(const char *path)
{
	FILE *f = fopen(path, "re");
	int n = 0, c;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

TEST(index_carries_the_record_across_runs)
{
	const char *d = subdir("index", 0755);
	struct profile_dir *pd = profile_dir__open(d, FMT_FOLDED);
	char index[512];

	CHECK(pd != NULL);
	if (!pd)
		return;
	CHECK(profile_dir__prune(pd, 10, 0) == 0); /* the index is written */
	for (int i = 0; i < 5; i++)
		CHECK(write_profile(pd, i, 100, NULL) == 0);
	profile_dir__free(pd);
	snprintf(index, sizeof(index), "%s/.smolder-folded.index", d);
	CHECK(lines_of(index) == 6);
	/* changed since: a user appended to one, another was replaced */
	put(profile_path(d, 1), 101);
	CHECK(unlink(profile_path(d, 2)) == 0);
	put(profile_path(d, 2), 100);
	pd = profile_dir__open(d, FMT_FOLDED);
	CHECK(pd != NULL);
	if (!pd)
		return;
	CHECK(profile_dir__count(pd, NULL) == 3);
	CHECK(profile_dir__prune(pd, 1, 0) == 2);
	CHECK(!exists(profile_path(d, 0)) && !exists(profile_path(d, 3)));
	CHECK(exists(profile_path(d, 1)) && exists(profile_path(d, 2)) && exists(profile_path(d, 4)));
	/* rewritten when mostly stale, so it stays small */
	for (int i = 10; i < 200; i++) {
		CHECK(write_profile(pd, i, 10, NULL) == 0);
		profile_dir__prune(pd, 2, 0);
	}
	CHECK(lines_of(index) <= 1 + 2 * 2 + 64 + 1);
	profile_dir__free(pd);
	pd = profile_dir__open(d, FMT_FOLDED);
	CHECK(pd != NULL && profile_dir__count(pd, NULL) == 2);
	profile_dir__free(pd);
}

TEST(index_of_another_user_is_not_read)
{
	const char *d = subdir("foreign", 01777);
	struct profile_dir *pd = profile_dir__open(d, FMT_FOLDED);
	char index[512];

	CHECK(pd != NULL);
	if (!pd)
		return;
	for (int i = 0; i < 3; i++)
		CHECK(write_profile(pd, i, 100, NULL) == 0);
	profile_dir__prune(pd, 10, 0);
	profile_dir__free(pd);
	snprintf(index, sizeof(index), "%s/.smolder-folded.index", d);
	/* the same lines in another user's file: not believed, not replaced */
	CHECK(chown(index, NOBODY, NOBODY) == 0);
	pd = profile_dir__open(d, FMT_FOLDED);
	CHECK(pd != NULL && profile_dir__count(pd, NULL) == 0);
	if (pd) {
		CHECK(profile_dir__prune(pd, 1, 0) == 0);
		profile_dir__free(pd);
	}
	CHECK(exists(profile_path(d, 0)));
	{
		struct stat st;

		CHECK(!stat(index, &st) && st.st_uid == NOBODY);
	}
	/* a FIFO there is never opened to write, nor waited on */
	CHECK(unlink(index) == 0 && mkfifo(index, 0666) == 0 && chown(index, NOBODY, NOBODY) == 0);
	pd = profile_dir__open(d, FMT_FOLDED);
	CHECK(pd != NULL);
	if (pd) {
		CHECK(write_profile(pd, 9, 100, NULL) == 0);
		CHECK(profile_dir__prune(pd, 1, 0) == 0);
		profile_dir__free(pd);
	}
	CHECK(type_of(index) == S_IFIFO);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 2;
	chmod(dir, 0755);
	log_verbosity = 0;
	RUN(names_sort_by_start_time);
	RUN(refuses_dirs_others_may_write_without_sticky_bit);
	RUN(writes_beside_planted_nodes);
	RUN(prunes_only_what_it_wrote);
	RUN(index_carries_the_record_across_runs);
	RUN(index_of_another_user_is_not_read);
	if (system("rm -rf /tmp/smolder-unit-pdir.*"))
		printf("  could not remove %s\n", dir);
	UNIT_EXIT();
}
