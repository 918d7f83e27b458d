/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Naming ahead: the user stacks of a sample source are named frame by
 * frame (usyms__warm_frame), in address order, each (process image,
 * stack) once, so that the naming that folds them finds their symbols and
 * inline chains in the files' caches.
 *  - In a capture's quiet time (the sampler), over the samples so far (the
 *    count map walked as it stands: nothing is taken from it), so that the
 *    DWARF of a file is made ready (libdw inflating a compressed debug
 *    file: 10 MB for libc6-dbg's libc) only when its code was sampled, not
 *    for every file a process maps, and the naming at the end mostly looks
 *    chains up.
 *  - Before folding (finish.c), over everything left: in address order,
 *    a file's compilation units are read one after another, so that
 *    letting libdw's line rows go (dwarf_names.c, shed_lines) reads each
 *    again at most once a pass.
 */
#ifndef SMOLDER_WARM_H
#define SMOLDER_WARM_H

#include <stdbool.h>
#include "lib/budget.h"
#include "session/sample_source.h"
#include "symbols/usyms.h"

/* Stacks remembered as named at most: past it, none is named ahead. */
#define WARM_MAX_STACKS (1u << 20)
/* Frames a pass sorts at most (16 bytes each): the rest wait for the next
 * pass, or are named as they are folded. */
#define WARM_MAX_FRAMES (1u << 18)

struct warm;

struct warm *warm__new(void);
/*
 * One pass over src's samples: the frames of the stacks not named ahead
 * yet are, within b (NULL: usyms' own budget).  true when b expired before
 * the pass ended (more to do).
 */
bool warm__pass(struct warm *w, const struct sample_source *src, struct usyms *us,
		const struct budget *b);
void warm__free(struct warm *w);

#endif
