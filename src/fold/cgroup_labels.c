// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One profile's cgroup and container labels (see cgroup_labels.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "files/proc_cgroup.h"
#include "fold/cgroup_labels.h"
#include "lib/hash.h"

struct proc_label {
	uint32_t tgid;          /* 0: an empty slot */
	uint32_t cgroup, container;
	bool other;
};

struct cgroup_labels {
	struct proc_label *procs; /* by tgid, open addressing */
	size_t nr, cap;           /* cap: a power of two */
	uint32_t values[CGROUP_LABELS_MAX]; /* the distinct cgroup ids + 1 */
	size_t nr_values;
	uint32_t other;           /* "other"'s id + 1, once made */
};

struct cgroup_labels *cgroup_labels__new(void)
{
	return calloc(1, sizeof(struct cgroup_labels));
}

static struct proc_label *slot(const struct cgroup_labels *c, uint32_t tgid)
{
	size_t j = hash__mix64(tgid) & (c->cap - 1);

	while (c->procs[j].tgid && c->procs[j].tgid != tgid)
		j = (j + 1) & (c->cap - 1);
	return &c->procs[j];
}

static int grow(struct cgroup_labels *c)
{
	struct cgroup_labels bigger = { .cap = c->cap ? c->cap * 2 : 64 };

	if (c->nr * 2 < c->cap)
		return 0;
	if (!(bigger.procs = calloc(bigger.cap, sizeof(*bigger.procs))))
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->procs[i].tgid)
			*slot(&bigger, c->procs[i].tgid) = c->procs[i];
	free(c->procs);
	c->procs = bigger.procs;
	c->cap = bigger.cap;
	return 0;
}

/* The label value s as a name id + 1 of p; 0 on -ENOMEM. */
static uint32_t intern(struct profile *p, const char *s)
{
	long id = profile__intern(p, s, strlen(s));

	return id < 0 ? 0 : (uint32_t)id + 1;
}

/* Reads tgid's cgroup into l, within the bound of distinct values. */
static int read_label(struct cgroup_labels *c, struct profile *p, struct proc_label *l)
{
	char path[PROC_CGROUP_MAX], id[PROC_CGROUP_ID_LEN + 1];
	size_t i;

	if (proc_cgroup__path(l->tgid, path, sizeof(path)))
		return 0; /* gone: no label */
	if (!(l->cgroup = intern(p, path)))
		return -ENOMEM;
	for (i = 0; i < c->nr_values && c->values[i] != l->cgroup; i++)
		;
	if (i == c->nr_values && c->nr_values == CGROUP_LABELS_MAX) {
		if (!c->other && !(c->other = intern(p, CGROUP_LABEL_OTHER)))
			return -ENOMEM;
		l->cgroup = c->other;
		l->other = true;
		return 0;
	}
	if (i == c->nr_values)
		c->values[c->nr_values++] = l->cgroup;
	if (proc_cgroup__container(path, id) && !(l->container = intern(p, id)))
		return -ENOMEM;
	return 0;
}

int cgroup_labels__name(struct cgroup_labels *c, struct profile *p, uint32_t tgid,
			struct stack_origin *o)
{
	struct proc_label *l;
	int e;

	if (!tgid)
		return 0; /* the idle task */
	if ((e = grow(c)))
		return e;
	l = slot(c, tgid);
	if (!l->tgid) {
		l->tgid = tgid;
		c->nr++;
		if ((e = read_label(c, p, l)))
			return e;
	}
	o->cgroup = l->cgroup;
	o->container = l->container;
	return l->other;
}

void cgroup_labels__free(struct cgroup_labels *c)
{
	if (!c)
		return;
	free(c->procs);
	free(c);
}
