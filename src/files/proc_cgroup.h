/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A process's cgroup v2 path, from the "0::" line of /proc/PID/cgroup,
 * and what fleets group by in it: the container id a runtime put in the
 * path (docker-ID.scope, cri-containerd-ID.scope, crio-ID.scope,
 * libpod-ID.scope, /docker/ID).  The names and the filter --serve gives
 * its profiles (pprof labels cgroup and container, cgroup=).
 */
#ifndef SMOLDER_PROC_CGROUP_H
#define SMOLDER_PROC_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROC_CGROUP_MAX 512 /* a longer path is cut here (and ends in "...") */
#define PROC_CGROUP_ID_LEN 64

/* pid's cgroup v2 path into buf (len at least PROC_CGROUP_MAX), bytes
 * outside printable ASCII as '?'; 0, or -errno (the process is gone, no
 * v2 line: -ENOENT). */
int proc_cgroup__path(uint32_t pid, char *buf, size_t len);
/* The container id in path (64 hex digits) into id[PROC_CGROUP_ID_LEN + 1];
 * the last one when several; false when none. */
bool proc_cgroup__container(const char *path, char *id);
/* Where cgroup v2 is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified
 * on a hybrid system), into buf; false when it is not. */
bool proc_cgroup__mount(char *buf, size_t len);
/* path is prefix or below it ("/" holds every path). */
bool proc_cgroup__under(const char *path, const char *prefix);

#endif
