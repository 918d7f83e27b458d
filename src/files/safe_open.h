/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Opening files on another process's behalf.  smolder runs as root and
 * reads files whose paths another user controls (perf maps, debug links,
 * build-id files, a mapping's path under /proc/PID/root): such a path may
 * lead to a FIFO (an open would block) or a device (an open runs its
 * driver: a watchdog, a tape, a terminal).  So a file is first opened
 * O_PATH, which has no such effect, checked to be a regular file, and only
 * then opened for reading through /proc/self/fd, checked again to be the
 * same inode.  A process's mapped files are opened so too, through its
 * own /proc entries.
 */
#ifndef SMOLDER_SAFE_OPEN_H
#define SMOLDER_SAFE_OPEN_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

struct proc_map;

/*
 * An O_PATH descriptor of rel resolved with root_fd as "/" (openat2's
 * RESOLVE_IN_ROOT: ".." and absolute symlinks stay inside a container's
 * root; magic links refused).  follow: whether a symlink as the last
 * component is followed (else the descriptor is of the link itself).
 * Kernels before 5.6 lack openat2: openat then guards only what follow
 * says of the last component.  -1 with errno set.
 */
int safe_open__in_root(int root_fd, const char *rel, bool follow);
/*
 * Opens for reading the file an O_PATH descriptor stands for, if it is a
 * regular file (EINVAL otherwise), non-blocking and close-on-exec; *st gets
 * its stat.  pfd stays the caller's.  -1 with errno set.
 */
int safe_open__reopen(int pfd, struct stat *st);
/* Both steps for a path (symlinks followed, as open(2) would): the
 * regular file at path opened for reading, or -1 with errno set. */
int safe_open__file(const char *path, struct stat *st);
/*
 * Opens what process pid maps at m (a line of its /proc/PID/maps), as that
 * process sees it, if it is a regular file; *st gets its stat.  Through
 * /proc/PID/map_files first (the very inode mapped, even deleted or in
 * another mount namespace), else m's path under /proc/PID/root, which
 * must still be the inode mapped.  -1 if it cannot.
 */
int safe_open__mapped(pid_t pid, const struct proc_map *m, struct stat *st);

#endif
