/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Naming ahead: in a capture's quiet time, the user stacks sampled so far
 * are named frame by frame (usyms__warm_stack), each (process image,
 * stack) once, so that the naming at the end finds their symbols and
 * inline chains in the files' caches.  The DWARF of a file is then made
 * ready (libdw inflating a compressed debug file: 10 MB for libc6-dbg's
 * libc) only when its code was sampled, not for every file a process maps.
 * The samples are read, not taken: the count map is walked as it stands.
 */
#ifndef SMOLDER_WARM_H
#define SMOLDER_WARM_H

#include <stdbool.h>
#include "capture/capture.h"
#include "lib/budget.h"
#include "symbols/usyms.h"

/* Stacks remembered as named at most: past it, none is named ahead. */
#define WARM_MAX_STACKS (1u << 20)

struct warm;

struct warm *warm__new(void);
/*
 * One pass over c's samples so far: the stacks not named ahead yet are,
 * within b.  true when b expired before the pass ended (more to do).
 */
bool warm__pass(struct warm *w, struct capture *c, struct usyms *us, const struct budget *b);
void warm__free(struct warm *w);

#endif
