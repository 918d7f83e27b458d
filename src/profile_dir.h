/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Continuous mode's output directory: the name of each interval's profile,
 * smolder-YYYYMMDDTHHMMSS.mmmZ.EXT after the interval's start in UTC (so
 * names sort by time), and pruning to the newest --keep files and at most
 * --max-size bytes.  Only files with exactly that name shape (and their
 * temporary files, that name plus .tmp.XXXXXX) are ever counted or
 * removed: anything else in the directory is left alone.
 */
#ifndef SMOLDER_PROFILE_DIR_H
#define SMOLDER_PROFILE_DIR_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "output.h"

/* ".folded", ".svg", ".speedscope.json", ".pb.gz", ".report". */
const char *profile_dir__ext(enum out_format fmt);
/* DIR/smolder-<start>.<ext> into buf; -ENAMETOOLONG if it does not fit. */
int profile_dir__name(char *buf, size_t len, const char *dir, const struct timespec *start,
		      enum out_format fmt);
/* Removes the oldest profiles of format fmt beyond keep files or max_bytes
 * bytes (0: no byte limit); the newest one always stays.  Temporary files
 * of such profiles (NAME.tmp.XXXXXX) that a killed run left are removed
 * when stale (see outfile__sweep); until then their bytes count toward
 * max_bytes.  Returns how many files were removed, or -errno when dir
 * cannot be read. */
int profile_dir__prune(const char *dir, enum out_format fmt, uint64_t keep, uint64_t max_bytes);

#endif
