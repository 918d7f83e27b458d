/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The monotonic clock every deadline, interval and age is measured on:
 * seconds for deadlines and durations, nanoseconds for ages compared with
 * integer limits.  And the wall clock, for the times profiles say they
 * were taken.
 */
#ifndef SMOLDER_CLOCK_H
#define SMOLDER_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in seconds. */
double clock__now(void);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t clock__now_ns(void);
/* CLOCK_REALTIME in nanoseconds since the epoch. */
uint64_t clock__realtime_ns(void);

#endif
