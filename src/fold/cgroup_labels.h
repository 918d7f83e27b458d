/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The cgroup and container labels of one profile's samples, named as the
 * profile is folded (outputs do not read /proc): each process's cgroup v2
 * path is read once (proc_cgroup.h) and interned in the profile's names.
 * A fleet's backend makes a series of each distinct value, so a profile
 * has at most CGROUP_LABELS_MAX of them: the processes of any further
 * cgroup are labelled "other" (and counted).
 */
#ifndef SMOLDER_CGROUP_LABELS_H
#define SMOLDER_CGROUP_LABELS_H

#include <stdint.h>
#include "profile/profile.h"

#define CGROUP_LABELS_MAX 256
#define CGROUP_LABEL_OTHER "other"

struct cgroup_labels;

struct cgroup_labels *cgroup_labels__new(void);
/*
 * Sets o's cgroup and container (name ids + 1 in p; 0 when the process is
 * gone or has no v2 cgroup).  1 when its cgroup was over the bound and is
 * "other", else 0; -ENOMEM.
 */
int cgroup_labels__name(struct cgroup_labels *c, struct profile *p, uint32_t tgid,
			struct stack_origin *o);
void cgroup_labels__free(struct cgroup_labels *c);

#endif
