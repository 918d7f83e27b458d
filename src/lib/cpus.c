// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CPU list parsing, the online CPU set and /proc/stat's idle time (see
 * cpus.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/cpus.h"

static int read_cpu_number(const char **p)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v < 0 || v >= MAX_CPUS)
		return -1;
	*p = end;
	return (int)v;
}

int cpus__parse_list(const char *s, int *cpus, size_t max)
{
	static unsigned char seen[MAX_CPUS];
	size_t n = 0;
	int lo, hi;

	memset(seen, 0, sizeof(seen));
	while (*s && *s != '\n') {
		lo = read_cpu_number(&s);
		if (lo < 0)
			return -1;
		hi = lo;
		if (*s == '-') {
			s++;
			hi = read_cpu_number(&s);
			if (hi < lo)
				return -1;
		}
		for (int c = lo; c <= hi; c++)
			seen[c] = 1;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	for (int c = 0; c < MAX_CPUS; c++)
		if (seen[c] && n < max)
			cpus[n++] = c;
	return n ? (int)n : -1;
}

int cpus__online(int *cpus, size_t max)
{
	char buf[4096];
	size_t len;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	return cpus__parse_list(buf, cpus, max);
}

int cpus__idle_ms(double *ms, size_t max)
{
	FILE *f = fopen("/proc/stat", "re");
	long tick = sysconf(_SC_CLK_TCK);
	unsigned long long user, nice, sys, idle, iowait;
	char line[512];
	unsigned cpu;

	if (!f)
		return -1;
	if (tick <= 0)
		tick = 100;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu", &cpu, &user, &nice, &sys, &idle,
			   &iowait) == 6 && cpu < max)
			ms[cpu] = (double)(idle + iowait) * 1000 / tick;
	fclose(f);
	return 0;
}
