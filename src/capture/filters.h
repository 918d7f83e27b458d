/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The capture's scope filters (filters.c): set before the load, filled after. */
#ifndef SMOLDER_CAPTURE_FILTERS_H
#define SMOLDER_CAPTURE_FILTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct smolder_bpf;

/* Which tasks the capture keeps: the union of what is set. */
struct scope_opts {
	const uint32_t *tgids; /* -p, in our PID namespace */
	size_t nr_tgids;
	const uint32_t *tids; /* -L */
	size_t nr_tids;
	bool follow_forks;    /* processes the tgids start join them (-- COMMAND) */
	bool cgroup;          /* --cgroup: only tasks in cgroup_fd and below */
	int cgroup_fd;        /* an open cgroup v2 directory */
	const char *cgroupmap, *mntnsmap; /* bcc's pinned filter maps, or NULL */
};

/* Before the load: the filters' settings, and pinned maps reused. */
int filters__configure(struct smolder_bpf *skel, const struct scope_opts *o);
/* After the load: the PID, TID and cgroup filters' contents. */
int filters__fill(struct smolder_bpf *skel, const struct scope_opts *o);

#endif
