/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which files' code ran without symbols: the samples whose leaf user frame
 * is named "[file+0x...]" (no symbol covers it), in all and by file, so that
 * the end of a capture can say how to get names for the few files that
 * matter (finish.c).  A fold tallies its samples here as it names them.
 *
 * Bounds: at most UNSYM_MAX_FILES files are told apart (the rest count
 * in the whole only), each with a copy of its path and build id.
 */
#ifndef SMOLDER_UNSYM_H
#define SMOLDER_UNSYM_H

#include <stdint.h>
#include "symbols/usyms.h"

#define UNSYM_MAX_FILES 4096
/* Files a summary names: the ones with the most samples. */
#define UNSYM_TOP 3

struct unsym_file {
	char path[512];     /* as the process mapped it */
	char build_id[81];  /* hex, "" when none */
	uint64_t samples;
};

struct unsym_summary {
	uint64_t samples;   /* with a frame without symbols, in any file */
	size_t nr;          /* of top */
	struct unsym_file top[UNSYM_TOP]; /* most samples first */
};

struct unsym_tally;

struct unsym_tally *unsym_tally__new(void);
void unsym_tally__free(struct unsym_tally *t);
/* A frame of the sample being named; only unsymbolized file frames count. */
void unsym_tally__frame(struct unsym_tally *t, const struct usyms_frame *fr);
/* The sample is named: count samples for each file it had a frame of
 * (once a file), and for the whole when any (0: not a CPU sample). */
void unsym_tally__end_sample(struct unsym_tally *t, uint64_t count);
void unsym_tally__summary(const struct unsym_tally *t, struct unsym_summary *out);
/* Adds from to into (continuous mode's intervals): by path, keeping the
 * top files of either (a file below both tops is counted in the whole). */
void unsym_summary__merge(struct unsym_summary *into, const struct unsym_summary *from);

#endif
