/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The commands that draw folded files: smolder flamegraph and smolder diff. */
#ifndef SMOLDER_CONVERT_H
#define SMOLDER_CONVERT_H

#include "cli.h"

/* Each returns the exit code: 0, 2 for unusable input, 1 for other errors. */
int cmd_flamegraph(struct env *env);
int cmd_diff(struct env *env);

#endif
