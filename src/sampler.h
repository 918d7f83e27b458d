/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sampling session: a capture configured from the command line, wired
 * to user-space symbolization (each new process image's mappings are read
 * while it lives), and the wait for the end of a capture or an interval.
 */
#ifndef SMOLDER_SAMPLER_H
#define SMOLDER_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include "capture.h"
#include "cli.h"
#include "usyms.h"

struct sampler {
	struct capture *cap;
	struct usyms *us;
	bool events_ok; /* image events still readable */
};

/* Loads and attaches; sampling runs from here on.  0, or -1 after printing why. */
int sampler__open(struct sampler *s, const struct env *env);
/* Waits until the monotonic time `until` (0: forever) or until a signal in
 * sigs (blocked by the caller) arrives, meanwhile delivering image events.
 * Returns the signal, or 0 at the deadline. */
int sampler__wait(struct sampler *s, const sigset_t *sigs, double until);
void sampler__close(struct sampler *s);
/* CLOCK_MONOTONIC in seconds. */
double sampler__now(void);

#endif
