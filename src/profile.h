/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A profile: named stacks with sample counts, from a capture (fold's output)
 * or from folded files (folded_read), in the one shape every picture format
 * reads: the SVG flame graph, speedscope and pprof.  A differential profile
 * (smolder diff) also carries each stack's BEFORE count.
 */
#ifndef SMOLDER_PROFILE_H
#define SMOLDER_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct folded;

struct pstack {
	char *frames;  /* "root;...;leaf": ';'-separated, NUL-terminated */
	double count;  /* samples (in a diff: AFTER's) */
	double before; /* a diff's BEFORE samples; 0 when not a diff */
};

struct profile {
	struct pstack *stacks; /* in input order (a flame chart keeps it) */
	size_t nr, cap;
	bool diff;             /* before counts are meaningful */
	bool fractional;       /* some count is not a whole number */
	uint64_t period_ns;    /* time one sample stands for; 0 when unknown */
};

struct profile *profile__new(void);
/* Appends a copy of frames[0..len) (no NUL needed).  -ENOMEM on failure. */
int profile__add(struct profile *p, const char *frames, size_t len,
		 double count, double before);
/* A capture's folded stacks, as a profile. */
struct profile *profile__from_folded(const struct folded *st, size_t nr,
				     uint64_t period_ns);
double profile__total(const struct profile *p);
double profile__total_before(const struct profile *p);
void profile__free(struct profile *p);

#endif
