/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Phase marks: where a capture's start-up and tear-down time and memory
 * go.  With -vv, or SMOLDER_PHASES=1 at any verbosity (a bench's view
 * without libbpf's messages), each mark prints one line: the milliseconds
 * since main() began, the absolute CLOCK_MONOTONIC time (to compare with
 * a launcher's clock: bench-oneshot), and VmRSS and VmHWM.  Otherwise a
 * mark costs one branch.
 */
#ifndef SMOLDER_PHASE_H
#define SMOLDER_PHASE_H

/* Called first thing in main(): the origin of the marks. */
void phase__start(void);
/* "smolder: phase NAME: +T ms (monotonic S s), VmRSS R KiB, VmHWM H KiB". */
void phase__mark(const char *name);

#endif
