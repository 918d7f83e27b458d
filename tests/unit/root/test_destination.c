// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Output paths (destination.c) in a real temporary directory, as root: device
 * nodes and FIFOs made there with mknod/mkfifo, symlinks "planted" by
 * another user with lchown, stale temporary files aged with utimensat.
 * Nothing outside the directory is touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "lib/log.h"
#include "output/destination.h"
#include "unit.h"

#define NOBODY 65534

static char dir[] = "/tmp/smolder-unit-outfile.XXXXXX";

static const char *at(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* Writes text to path through outfile; the result of the close. */
static int put(const char *path, const char *text)
{
	struct destination of;

	if (destination__open(&of, path))
		return -2;
	fputs(text, of.f);
	return destination__close(&of, 0);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static mode_t type_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_mode & S_IFMT;
}

TEST(new_file_respects_umask)
{
	struct stat st;
	mode_t old = umask(027);

	CHECK(put(at("new.folded"), "a 1\n") == 0);
	umask(old);
	CHECK(!stat(at("new.folded"), &st) && (st.st_mode & 0777) == 0640);
	CHECK_STR(slurp(at("new.folded")), "a 1\n");
}

TEST(existing_file_keeps_mode_and_owner)
{
	struct stat st;

	CHECK(put(at("kept.folded"), "old\n") == 0);
	CHECK(!chmod(at("kept.folded"), 0604) && !chown(at("kept.folded"), NOBODY, NOBODY));
	CHECK(put(at("kept.folded"), "new\n") == 0);
	CHECK(!stat(at("kept.folded"), &st) && (st.st_mode & 0777) == 0604 && st.st_uid == NOBODY);
	CHECK_STR(slurp(at("kept.folded")), "new\n");
}

TEST(symlink_to_regular_file_writes_the_target)
{
	CHECK(put(at("target.folded"), "old\n") == 0);
	CHECK(!symlink("target.folded", at("link.folded")));
	CHECK(put(at("link.folded"), "through\n") == 0);
	CHECK(type_of(at("link.folded")) == S_IFLNK);
	CHECK_STR(slurp(at("target.folded")), "through\n");
}

TEST(char_device_written_in_place)
{
	CHECK(!mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)));
	CHECK(put(at("null"), "gone\n") == 0);
	CHECK(type_of(at("null")) == S_IFCHR);
	CHECK(!mknod(at("full"), S_IFCHR | 0666, makedev(1, 7)));
	CHECK(put(at("full"), "no room\n") == -1); /* ENOSPC, said */
	CHECK(type_of(at("full")) == S_IFCHR);
}

TEST(fifo_needs_a_reader_and_stays_a_fifo)
{
	char buf[64] = { 0 };
	int rd;

	CHECK(!mkfifo(at("fifo"), 0600));
	CHECK(put(at("fifo"), "x\n") == -2); /* no reader: an error, not a hang */
	rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	CHECK(rd >= 0);
	CHECK(put(at("fifo"), "through the fifo\n") == 0);
	CHECK(read(rd, buf, sizeof(buf) - 1) == 17);
	CHECK_STR(buf, "through the fifo\n");
	close(rd);
	CHECK(type_of(at("fifo")) == S_IFIFO);
}

TEST(block_device_socket_and_directory_refused)
{
	CHECK(!mknod(at("blk"), S_IFBLK | 0600, makedev(7, 0)));
	CHECK(destination__check(at("blk")) == -1);
	CHECK(put(at("blk"), "x") == -2);
	CHECK(type_of(at("blk")) == S_IFBLK);
	CHECK(!mknod(at("sock"), S_IFSOCK | 0600, 0));
	CHECK(put(at("sock"), "x") == -2);
	CHECK(put(dir, "x") == -2);
	CHECK(put(at("no/such/dir"), "x") == -2);
}

TEST(planted_symlink_in_sticky_dir_refused)
{
	CHECK(!mkdir(at("sticky"), 0777) && !chmod(at("sticky"), 01777));
	CHECK(put(at("victim"), "precious\n") == 0);
	CHECK(!symlink(at("victim"), at("sticky/out.folded")));
	CHECK(!lchown(at("sticky/out.folded"), NOBODY, NOBODY));
	CHECK(destination__check(at("sticky/out.folded")) == -1);
	CHECK(put(at("sticky/out.folded"), "hijacked\n") == -2);
	CHECK_STR(slurp(at("victim")), "precious\n");
	CHECK(type_of(at("sticky/out.folded")) == S_IFLNK);
	/* a planted symlink to a directory, on the way */
	CHECK(!mkdir(at("real"), 0755) && !symlink(at("real"), at("sticky/d")));
	CHECK(!lchown(at("sticky/d"), NOBODY, NOBODY));
	CHECK(put(at("sticky/d/x.folded"), "x\n") == -2);
	CHECK(access(at("real/x.folded"), F_OK));
	/* our own symlink there is followed */
	CHECK(!symlink(at("mine"), at("sticky/mine.folded")));
	CHECK(put(at("sticky/mine.folded"), "ok\n") == 0);
	CHECK_STR(slurp(at("mine")), "ok\n");
}

TEST(directory_owners_symlink_is_followed)
{
	CHECK(!mkdir(at("owned"), 0777) && !chmod(at("owned"), 01777));
	CHECK(!chown(at("owned"), NOBODY, NOBODY));
	CHECK(!symlink(at("owners"), at("owned/o.folded")));
	CHECK(!lchown(at("owned/o.folded"), NOBODY, NOBODY));
	CHECK(put(at("owned/o.folded"), "ok\n") == 0);
	CHECK_STR(slurp(at("owners")), "ok\n");
}

TEST(failed_write_keeps_the_old_file)
{
	struct destination of;

	CHECK(put(at("keep.folded"), "old\n") == 0);
	CHECK(destination__open(&of, at("keep.folded")) == 0);
	fputs("half", of.f);
	CHECK(destination__close(&of, ENOSPC) == -1);
	CHECK_STR(slurp(at("keep.folded")), "old\n");
	CHECK(destination__open(&of, at("keep.folded")) == 0);
	destination__abort(&of);
	CHECK_STR(slurp(at("keep.folded")), "old\n");
}

TEST(temp_names)
{
	CHECK(destination__temp_base("x.svg.tmp.aZ09bc") == 5);
	CHECK(destination__temp_base("x.svg.tmp.aZ09b") == 0);
	CHECK(destination__temp_base("x.svg.tmp.aZ0-bc") == 0);
	CHECK(destination__temp_base(".tmp.abcdef") == 0);
	CHECK(destination__temp_base("x.svg") == 0);
}

static void make_temp(const char *name, long age)
{
	struct timespec ts[2];
	FILE *f = fopen(at(name), "we");

	if (f) {
		fputs("12345", f);
		fclose(f);
	}
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= age;
	ts[1] = ts[0];
	utimensat(AT_FDCWD, at(name), ts, 0);
}

static bool is_s(const char *base, size_t len, void *arg)
{
	return len == strlen(arg) && !memcmp(base, arg, len);
}

TEST(sweep_removes_only_stale_temps_of_the_target)
{
	uint64_t live = 0;
	int dfd, lk;

	CHECK(!mkdir(at("sw"), 0755));
	make_temp("sw/s.svg.tmp.AAAAAA", 3600);  /* stale */
	make_temp("sw/s.svg.tmp.BBBBBB", 0);     /* fresh: a writer may be at it */
	make_temp("sw/s.svg.tmp.CCCCCC", 3600);  /* old, but locked by a writer */
	make_temp("sw/s.svg.tmp.DDDDDD", 3600);  /* another user's */
	make_temp("sw/t.svg.tmp.EEEEEE", 3600);  /* another target's */
	make_temp("sw/s.svg.tmp.FFFF", 3600);    /* not our naming */
	make_temp("sw/s.svg.tmp.HHHHHH", 3600);  /* linked from elsewhere */
	CHECK(!link(at("sw/s.svg.tmp.HHHHHH"), at("sw-link")));
	CHECK(!chown(at("sw/s.svg.tmp.DDDDDD"), NOBODY, NOBODY));
	lk = open(at("sw/s.svg.tmp.CCCCCC"), O_RDONLY);
	CHECK(lk >= 0 && !flock(lk, LOCK_EX));
	dfd = open(at("sw"), O_RDONLY | O_DIRECTORY);
	CHECK(destination__sweep(dfd, is_s, "s.svg", &live) == 1);
	CHECK(live == 10); /* BBBBBB and CCCCCC stay, and count; HHHHHH stays */
	CHECK(access(at("sw/s.svg.tmp.AAAAAA"), F_OK));
	CHECK(!access(at("sw/s.svg.tmp.BBBBBB"), F_OK) && !access(at("sw/s.svg.tmp.CCCCCC"), F_OK));
	CHECK(!access(at("sw/s.svg.tmp.DDDDDD"), F_OK) && !access(at("sw/t.svg.tmp.EEEEEE"), F_OK));
	CHECK(!access(at("sw/s.svg.tmp.FFFF"), F_OK) && !access(at("sw/s.svg.tmp.HHHHHH"), F_OK));
	close(lk);
	CHECK(destination__sweep(dfd, is_s, "s.svg", NULL) == 1); /* the lock is gone */
	close(dfd);
	/* destination__check sweeps beside its target */
	make_temp("sw/t.svg.tmp.GGGGGG", 3600);
	CHECK(destination__check(at("sw/t.svg")) == 0);
	CHECK(access(at("sw/t.svg.tmp.GGGGGG"), F_OK) && access(at("sw/t.svg.tmp.EEEEEE"), F_OK));
}

/* Writes text through destination_dir into the directory dfd: 0, or -1. */
static int put_at(struct destination_dir *oa, const char *text)
{
	struct destination of;

	if (destination__open_at(&of, oa, "test"))
		return -1;
	fputs(text, of.f);
	return destination__close(&of, 0);
}

TEST(open_at_takes_only_free_names)
{
	struct destination_dir oa;
	struct stat st;
	int dfd;

	CHECK(!mkdir(at("oa"), 0700) && !chmod(at("oa"), 01777));
	dfd = destination__open_dir(at("oa"));
	CHECK(dfd >= 0);
	/* a free name, then the same name again: tagged, nothing replaced */
	oa = (struct destination_dir){ .dirfd = dfd, .name = "p.folded", .tag_at = 1 };
	CHECK(put_at(&oa, "a 1\n") == 0);
	CHECK_STR(oa.given, "p.folded");
	CHECK(!stat(at("oa/p.folded"), &st) && oa.st.st_ino == st.st_ino && st.st_size == 4);
	CHECK(put_at(&oa, "b 2\n") == 0);
	CHECK(strlen(oa.given) == 15 && oa.given[1] == '-' && !strcmp(oa.given + 8, ".folded"));
	CHECK_STR(slurp(at("oa/p.folded")), "a 1\n");
	/* replace: over our own file, never over another user's */
	oa = (struct destination_dir){ .dirfd = dfd, .name = "p.folded", .replace = true };
	CHECK(put_at(&oa, "c 3\n") == 0);
	CHECK_STR(slurp(at("oa/p.folded")), "c 3\n");
	CHECK(!chown(at("oa/p.folded"), NOBODY, NOBODY));
	CHECK(put_at(&oa, "d 4\n") == -1);
	CHECK_STR(slurp(at("oa/p.folded")), "c 3\n");
	/* no temporary file is left behind */
	CHECK(system("ls -a /tmp/smolder-unit-outfile.*/oa | grep -q tmp") != 0);
	close(dfd);
	/* the directory: made when missing, refused through a planted link */
	dfd = destination__open_dir(at("oa/new"));
	CHECK(dfd >= 0 && type_of(at("oa/new")) == S_IFDIR);
	if (dfd >= 0)
		close(dfd);
	CHECK(!symlink(at("oa/new"), at("oa/link")) && !lchown(at("oa/link"), NOBODY, NOBODY));
	CHECK(destination__open_dir(at("oa/link")) == -1);
	CHECK(destination__open_dir(at("oa/p.folded")) == -1);
}

int main(void)
{
	char cmd[600];

	if (geteuid() != 0) {
		printf("SKIP outfile: needs root for mknod and lchown\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return 2;
	log_verbosity = 0;
	RUN(new_file_respects_umask);
	RUN(existing_file_keeps_mode_and_owner);
	RUN(symlink_to_regular_file_writes_the_target);
	RUN(char_device_written_in_place);
	RUN(fifo_needs_a_reader_and_stays_a_fifo);
	RUN(block_device_socket_and_directory_refused);
	RUN(planted_symlink_in_sticky_dir_refused);
	RUN(directory_owners_symlink_is_followed);
	RUN(failed_write_keeps_the_old_file);
	RUN(temp_names);
	RUN(sweep_removes_only_stale_temps_of_the_target);
	RUN(open_at_takes_only_free_names);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 2;
	UNIT_EXIT();
}
