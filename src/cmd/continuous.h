/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Continuous mode: a profile per interval until SIGINT/SIGTERM. */
#ifndef SMOLDER_CONTINUOUS_H
#define SMOLDER_CONTINUOUS_H

#include <signal.h>
#include <stdint.h>
#include "session/finish.h"
#include "output/emit.h"

struct sampler;
struct profile_dir;

struct continuous_opts {
	double interval;        /* seconds between profiles (--interval) */
	double duration;        /* seconds in all, 0: until a signal */
	const char *output_dir; /* --output-dir, for messages */
	struct profile_dir *dir; /* it, open */
	enum out_format format; /* of every profile */
	uint64_t keep;          /* --keep: profiles kept */
	uint64_t max_bytes;     /* --max-size, 0: no limit */
	double launched;        /* monotonic times: when smolder started, */
	double opened;          /* and when sampling did (0: not known) */
};

/*
 * Runs the opened sampler s until SIGINT/SIGTERM (or o->duration), writing
 * each interval's samples to o->output_dir, named, folded and written as
 * fo says.  SIGUSR1 ends the current interval at once.  sigs holds the
 * three, blocked.  Returns the exit code; s stays open (its opener closes
 * it).
 */
int continuous__run(const struct continuous_opts *o, const struct finish_opts *fo,
		   struct sampler *s, const sigset_t *sigs);

#endif
