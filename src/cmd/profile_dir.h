/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Continuous mode's output directory, which other users may share: the
 * name of each interval's profile, smolder-YYYYMMDDTHHMMSS.mmmZ.EXT after
 * the interval's start in UTC (so names sort by time), and pruning to the
 * newest --keep profiles and at most --max-size bytes of them.
 *
 * Names are predictable, so another user may plant a FIFO, a symlink, a
 * directory or a future-dated file at them.  So:
 * - the directory is opened once (destination__open_dir), and a directory
 *   others may write in without the sticky bit is refused: there they
 *   could rename, replace or remove any file;
 * - each profile is written to a new temporary file and linked at its
 *   name only where nothing stands (destination_dir); a taken name gets a tag,
 *   smolder-...Z-XXXXXX.EXT;
 * - pruning counts and removes only the profiles smolder wrote, by its
 *   record of each one's name, inode, size and mtime, checked again (a
 *   regular file of ours) before it is removed.  The record of earlier
 *   runs is the index DIR/.smolder-FORMAT.index, a file of ours appended
 *   a line per profile and rewritten (through a temporary file) when
 *   mostly stale; without it, or for files not in it, nothing is removed.
 *   The directory is never listed while running; at start, the first
 *   OUTFILE_SWEEP_ENTRIES entries are, for stale temporary files.
 */
#ifndef SMOLDER_PROFILE_DIR_H
#define SMOLDER_PROFILE_DIR_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "output/destination.h"
#include "output/format.h"

struct profile_dir;

/* Where one interval's profile goes: at for out_spec.at, path for
 * messages (at->given is the name it got, once written). */
struct profile_target {
	struct destination_dir at;
	char name[64];
	char path[PATH_MAX + 64];
};

/* ".folded", ".svg", ".speedscope.json", ".pb.gz", ".report". */
const char *profile_dir__ext(enum out_format fmt);
/* smolder-<start>.<ext> into buf; -ENAMETOOLONG if it does not fit. */
int profile_dir__name(char *buf, size_t len, const struct timespec *start, enum out_format fmt);

/* Opens path (created if missing) for profiles of format fmt: refuses it
 * as above, reads its index and removes stale temporary files.  NULL
 * after printing why. */
struct profile_dir *profile_dir__open(const char *path, enum out_format fmt);
void profile_dir__free(struct profile_dir *pd);
/* Where the profile of the interval that started at start goes. */
void profile_dir__target(const struct profile_dir *pd, const struct timespec *start,
			 struct profile_target *t);
/* Records the profile just written to t (its destination__close succeeded). */
void profile_dir__add(struct profile_dir *pd, const struct profile_target *t);
/* Removes the oldest profiles of the record beyond keep profiles or
 * max_bytes bytes (0: no byte limit); the newest always stays.  Each is
 * named with -v.  Returns how many were removed. */
unsigned profile_dir__prune(struct profile_dir *pd, uint64_t keep, uint64_t max_bytes);
/* How many profiles the record holds, and their bytes. */
size_t profile_dir__count(const struct profile_dir *pd, uint64_t *bytes);

#endif
