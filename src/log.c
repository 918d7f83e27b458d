// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Diagnostics on stderr, gated by verbosity (see log.h). */
#include <stdio.h>
#include "log.h"

int log_verbosity = 1;

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_verbosity && level != 0)
		return;
	fputs("smolder: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
