// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Opening files on another process's behalf (see safe_open.h): owns the
 * O_PATH, check, reopen sequence every such open goes through.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "safe_open.h"

int safe_open__in_root(int root_fd, const char *rel, bool follow)
{
	int flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
	struct open_how how = {
		.flags = flags,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	fd = syscall(SYS_openat2, root_fd, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(root_fd, rel[0] == '/' ? rel + 1 : rel, flags);
	return fd;
}

int safe_open__reopen(int pfd, struct stat *st)
{
	char path[64];
	struct stat st2;
	int fd;

	if (fstat(pfd, st))
		return -1;
	if (!S_ISREG(st->st_mode)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	/* the link is ours, but check that it led where the stat said */
	if (fstat(fd, &st2) || st2.st_dev != st->st_dev || st2.st_ino != st->st_ino ||
	    !S_ISREG(st2.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

int safe_open__file(const char *path, struct stat *st)
{
	int pfd = open(path, O_PATH | O_CLOEXEC), fd, e;

	if (pfd < 0)
		return -1;
	fd = safe_open__reopen(pfd, st);
	e = errno;
	close(pfd);
	errno = e;
	return fd;
}
