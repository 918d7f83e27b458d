// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for JIT perf maps.  Besides not crashing, the flattening
 * of overlaps is checked against a slow oracle: each line parsed on its own,
 * the answer at an address must be the latest line that covers it.  Probes
 * are the numbers the lines start with, and their neighbours.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "symbols/perfmap.h"

#define ORACLE_MAX_LINES 64

struct line {
	struct perfmap *pm;
	uint64_t start, size;
};

static size_t split(const char *text, size_t len, struct line *l)
{
	const char *p = text, *end = text + len, *nl;
	char *e;
	size_t n = 0;

	for (; p < end && n < ORACLE_MAX_LINES; p = nl + 1, n++) {
		char tmp[64] = { 0 };

		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		l[n].pm = perfmap__parse(p, nl - p);
		memcpy(tmp, p, nl - p < 63 ? nl - p : 63);
		l[n].start = strtoull(tmp, &e, 16);
		l[n].size = strtoull(e, NULL, 16);
	}
	if (p >= end)
		return n;
	/* Too many lines for the oracle: no comparison. */
	while (n)
		perfmap__free(l[--n].pm);
	return 0;
}

static void compare(const struct perfmap *pm, struct line *l, size_t n, uint64_t addr)
{
	uint64_t off = 0, want_off = 0;
	const char *got = perfmap__lookup(pm, addr, &off), *want = NULL;
	size_t i;

	for (i = n; i-- > 0 && !want;)
		want = perfmap__lookup(l[i].pm, addr, &want_off);
	if (!got != !want || (got && (strcmp(got, want) || off != want_off)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct line l[ORACLE_MAX_LINES];
	struct perfmap *pm;
	size_t n, i;

	log_verbosity = 0;
	pm = perfmap__parse((const char *)data, size);
	if (!pm)
		return 0;
	n = split((const char *)data, size, l);
	for (i = 0; i < n; i++) {
		uint64_t s = l[i].start, e = s + l[i].size;

		compare(pm, l, n, s);
		compare(pm, l, n, s - 1);
		compare(pm, l, n, s + 1);
		compare(pm, l, n, e - 1);
		compare(pm, l, n, e);
	}
	for (i = 0; i < n; i++)
		perfmap__free(l[i].pm);
	perfmap__lookup(pm, 0, NULL);
	perfmap__lookup(pm, UINT64_MAX, NULL);
	perfmap__free(pm);
	return 0;
}
