/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* CPU lists: the kernel's "0-3,6" format, for -C and the online CPU set;
 * and the kernel's own count of each CPU's idle time. */
#ifndef SMOLDER_CPUS_H
#define SMOLDER_CPUS_H

#include <stddef.h>

#define MAX_CPUS 4096

/*
 * Parses "0-3,6" into cpus[] (sorted, unique); returns the count, or -1 on a
 * malformed list or a CPU number >= MAX_CPUS.
 */
int cpus__parse_list(const char *s, int *cpus, size_t max);
/* The online CPUs from /sys/devices/system/cpu/online; -1 on error. */
int cpus__online(int *cpus, size_t max);
/*
 * The idle time the kernel counted per CPU since boot, in ms (/proc/stat's
 * idle and iowait: time in the idle task), into ms[cpu] for cpu < max,
 * others untouched.  -1 when /proc/stat cannot be read.  Sampling's view
 * of idle can miss a CPU whose sampling timer does not fire while it
 * idles; this count does not.
 */
int cpus__idle_ms(double *ms, size_t max);

#endif
