// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Opening files on another process's behalf (see safe_open.h): owns the
 * O_PATH, check, reopen sequence every such open goes through, and the
 * one way a process's mapped file is opened (for its symbols and for its
 * unwind table alike).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "files/proc_maps.h"
#include "files/safe_open.h"

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

/*
 * Opened O_PATH first either way: a process may map a device, and the path
 * under /proc/PID/root is its to change (to a FIFO, a device, another
 * file): there the file must also be the inode mapped.
 */
int safe_open__mapped(pid_t pid, const struct proc_map *m, struct stat *st)
{
	char path[64];
	int fd, rfd, pfd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, m->start, m->end);
	fd = safe_open__file(path, st);
	if (fd >= 0 || !m->path || m->path[0] != '/' || m->deleted)
		return fd;
	/* map_files needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE; root works with less. */
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	rfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	pfd = safe_open__in_root(rfd, m->path, true);
	close(rfd);
	if (pfd < 0)
		return -1;
	fd = safe_open__reopen(pfd, st);
	close(pfd);
	if (fd >= 0 && (uint64_t)st->st_ino != m->ino) { /* replaced since mapped */
		close(fd);
		return -1;
	}
	return fd;
}
