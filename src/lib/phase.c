// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Phase marks (see phase.h). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/phase.h"

static double origin;
static bool on;

void phase__start(void)
{
	const char *e = getenv("SMOLDER_PHASES");

	origin = clock__now();
	on = e && *e && strcmp(e, "0");
}

/* The value of "Field:" in /proc/self/status (KiB), or -1. */
static long status_kib(const char *buf, const char *field)
{
	const char *p = strstr(buf, field);

	return p ? strtol(p + strlen(field), NULL, 10) : -1;
}

void phase__mark(const char *name)
{
	double now = clock__now();
	char buf[2048];
	ssize_t n = -1;
	int fd;

	if (!on && log_verbosity < 3)
		return;
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	log__msg(on ? 0 : 3, "phase %s: +%.1f ms (monotonic %.6f s), VmRSS %ld KiB, VmHWM %ld KiB",
		 name, (now - origin) * 1000, now, status_kib(buf, "VmRSS:"),
		 status_kib(buf, "VmHWM:"));
}
