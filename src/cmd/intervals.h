/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Continuous mode's profiles read back by time: `smolder flamegraph
 * --from TIME --to TIME DIR` merges the intervals of a range.
 *
 * TIME is "now", a time of day ("10:02", "10:02:30", "10:02:30.250": the
 * latest such moment not after now; a --to of the day's time before its
 * --from is the next day's), a date and time ("2026-11-28T10:02[:SS]",
 * or with a space for the T), each in local time or UTC with a trailing
 * "Z", or an age ("-10m", "-90s", "-2h", "-1d": before now).
 *
 * An interval is in the range when its middle is: from <= middle < to.
 * So "--from 10:02 --to 10:07" picks the five 60 s intervals that began
 * at 10:02, 10:03, ... 10:06, though each begins and ends a moment after
 * the minute, and never one that only grazes the range.  Where an
 * interval begins and ends is read from its folded file's header
 * (folded_read.h), else from its name (smolder-YYYYMMDDTHHMMSS.mmmZ...,
 * its start; the middle is then the start).
 *
 * The directory may be shared: only regular files named smolder-*.folded
 * or .txt are read, never through a symlink, never a FIFO or a device,
 * and files of users other than the directory's owner (or smolder's) are
 * left out and said (as are names that are not regular files): anyone
 * could have planted them.  At most
 * INTERVALS_MAX files are considered.
 */
#ifndef SMOLDER_INTERVALS_H
#define SMOLDER_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "profile/profile.h"

#define INTERVALS_MAX 262144

/* Parses TIME into ns since the epoch; after (ns, or 0) makes a time of
 * day without a date the first such moment after it (for --to).  0, or -1
 * with nothing printed. */
int intervals__parse_time(const char *s, uint64_t now_ns, uint64_t after, uint64_t *out);

/* One interval file picked. */
struct interval_file {
	char name[72];
	uint64_t start_ns, end_ns; /* end: start when only the name said */
	bool header;               /* the file said it (folded header) */
	uint64_t samples, lost;
	double rate_hz;
	char host[65];
};

struct intervals {
	int dfd;
	char path[4096];
	struct interval_file *files; /* picked, by start */
	size_t nr, cap;
	size_t seen;                 /* interval files in the directory */
	uint64_t first_ns, last_ns;  /* the span of all seen (for the error) */
};

/*
 * Lists dir and picks the intervals in [from, to) (0, UINT64_MAX: all).
 * 0, or the exit code after printing why (2: no interval in the range, 1:
 * the directory cannot be read).
 */
int intervals__pick(struct intervals *iv, const char *dir, uint64_t from, uint64_t to);
/* Opens picked file i for reading (a regular file, not followed): NULL
 * after printing why. */
FILE *intervals__open(const struct intervals *iv, size_t i);
/* What the picked intervals show, for the outputs (profile.h): the span,
 * host and rate they share, their samples and losses.  source is kept. */
void intervals__describe(const struct intervals *iv, const char *source,
			 struct capture_info *out);
void intervals__free(struct intervals *iv);

#endif
