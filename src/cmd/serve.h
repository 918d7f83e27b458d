/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --serve: the daemon that answers pprof scrapes from one running capture. */
#ifndef SMOLDER_SERVE_H
#define SMOLDER_SERVE_H

#include <signal.h>
#include "session/finish.h"

struct sampler;

/* How often the capture's banks flip: windows start and end on a flip
 * (a new request flips at once), and no sample waits longer than this
 * to reach the windows open. */
#define SERVE_TICK_SECONDS 1.0
/* The bank's maps hold the samples of this long: a tick, and the naming
 * of windows (at least SAMPLER_NAMING_SECONDS, then folding and
 * encoding) that may delay the next flip on a loaded machine. */
#define SERVE_SIZED_SECONDS 4.0
/* Symbol caches are trimmed after a window at most this often: as often
 * as continuous mode's default interval. */
#define SERVE_TRIM_SECONDS 60.0
#define SERVE_TOKEN_MAX 4096 /* bytes of --serve-token-file */

struct serve_opts {
	const char *addr;       /* --serve */
	const char *token_file; /* --serve-token-file, or NULL */
};

/*
 * Serves scrapes from the opened sampler s (opened for rotation, as
 * continuous mode's) until SIGINT/SIGTERM/SIGHUP in sigs (blocked),
 * naming each window as fo says.  Returns the exit code; s stays open.
 */
int serve__run(const struct serve_opts *o, const struct finish_opts *fo, struct sampler *s,
	       const sigset_t *sigs);
/* --serve's address can be listened on (request.h's forms).  0, or -1
 * after printing why. */
int serve__check_addr(const char *addr);
/* Reads and checks a token file (a regular file, not readable by other
 * users, one line of at most SERVE_TOKEN_MAX bytes); the malloc'd token,
 * or NULL after printing why. */
char *serve__read_token(const char *path);

#endif
