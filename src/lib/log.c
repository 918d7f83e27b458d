// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Diagnostics on stderr, gated by verbosity (see log.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "lib/log.h"

int log_verbosity = 1;

void log__msg(int level, const char *fmt, ...)
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

const char *log__errstr(int e)
{
	static __thread char buf[128];

	snprintf(buf, sizeof(buf), "%s", strerror(e));
	buf[0] = tolower((unsigned char)buf[0]);
	return buf;
}
