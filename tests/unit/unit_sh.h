/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shell commands for the unit tests that build fixtures: each runs in the
 * test's scratch directory, sh_dir, which the test sets (after mkdtemp)
 * before the first.
 */
#ifndef SMOLDER_UNIT_SH_H
#define SMOLDER_UNIT_SH_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *sh_dir;

/* Runs a shell command in sh_dir; 0 when it succeeded. */
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n, r;

	n = snprintf(cmd, sizeof(cmd), "cd '%s' && (", sh_dir);
	va_start(ap, fmt);
	n += vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - n, ") >/dev/null 2>&1");
	r = system(cmd);
	if (r)
		printf("  command failed (%d): %s\n", r, cmd);
	return r;
}

#endif
