/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Continuous mode: a profile per interval until SIGINT/SIGTERM. */
#ifndef SMOLDER_CONTINUOUS_H
#define SMOLDER_CONTINUOUS_H

#include <signal.h>
#include "cli.h"
#include "sampler.h"

/*
 * Runs the opened sampler s until SIGINT/SIGTERM (or env->duration), writing
 * each interval's samples to env->output_dir.  SIGUSR1 ends the current
 * interval at once.  sigs holds the three, blocked.  Returns the exit
 * code; s stays open (its opener closes it).
 */
int run_continuous(const struct env *env, struct sampler *s, const sigset_t *sigs);

#endif
