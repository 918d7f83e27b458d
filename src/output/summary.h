/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The summary: one output format's writer (output/format.h says what all share). */
#ifndef SMOLDER_OUTPUT_SUMMARY_H
#define SMOLDER_OUTPUT_SUMMARY_H

#include <stdio.h>
#include "output/format.h"

/*
 * A capture's samples (or with --off-cpu its microseconds) by the frames
 * above the stacks: cpu_N, the process, and the kernel-context frames
 * ([softirq:NET_RX], wq:...;work function;queued-by:...), one row each,
 * hottest first, with its share:
 *
 *       samples       %  process;context
 *            48  37.80%  kworker;wq:kblockd;blk_mq_run_work_fn;queued-by:bash-19936
 *
 * -1 with EINVAL for a profile without origins (folded files).
 */
int summary__write(FILE *out, const struct profile *p);

#endif
