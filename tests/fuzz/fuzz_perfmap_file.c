// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for reading perf map files (perfmap_file.c): the input
 * is written to a memfd in two parts, read, then updated after the second
 * part is appended (the incremental path a JIT's growing map takes), the
 * first two bytes choosing where it is cut and the budget's bytes.  Without
 * a budget the result must answer as perfmap__parse does on the text up to
 * its last newline; with one, it must stay within it.  A third part then
 * replaces the file's start (a shrunk file is read anew).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/budget.h"
#include "lib/log.h"
#include "symbols/perfmap.h"

#define MAX_PROBES 64

static void compare(const struct perfmap *a, const struct perfmap *b, uint64_t addr)
{
	uint64_t oa = 0, ob = 0;
	const char *x = perfmap__lookup(a, addr, &oa), *y = perfmap__lookup(b, addr, &ob);

	if (!x != !y || (x && (strcmp(x, y) || oa != ob)))
		abort();
}

/* Lookups at the numbers lines start with, and their neighbours. */
static void oracle(const struct perfmap *pm, const char *text, size_t len)
{
	const char *nl = len ? memrchr(text, '\n', len) : NULL;
	size_t whole = nl ? (size_t)(nl - text + 1) : 0, probes = 0;
	struct perfmap *want = perfmap__parse(text, whole);
	const char *p = text;

	if (!want)
		return;
	while (p < text + whole && probes++ < MAX_PROBES) {
		char tmp[24] = { 0 };
		uint64_t s;

		memcpy(tmp, p, text + whole - p < 23 ? (size_t)(text + whole - p) : 23);
		s = strtoull(tmp, NULL, 16);
		compare(pm, want, s);
		compare(pm, want, s - 1);
		compare(pm, want, s + 1);
		p = memchr(p, '\n', text + whole - p);
		p = p ? p + 1 : text + whole;
	}
	perfmap__free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct budget b = { 0 };
	struct perfmap *pm = NULL;
	const char *text = (const char *)data + 2;
	size_t len, cut;

	log_verbosity = 0;
	if (size < 2)
		return 0;
	len = size - 2;
	cut = len * data[0] / 255;
	b.max_bytes = data[1] ? (size_t)data[1] * 64 + 512 : 0;
	if (fd < 0)
		fd = memfd_create("fuzz_perfmap_file", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, text, cut, 0) != (ssize_t)cut)
		return 0;
	if (perfmap__update_fd(&pm, fd, &b))
		return 0;
	if (pwrite(fd, text + cut, len - cut, cut) != (ssize_t)(len - cut) ||
	    perfmap__update_fd(&pm, fd, &b))
		goto out;
	if (!b.max_bytes)
		oracle(pm, text, len);
	else if (perfmap__bytes(pm) > b.max_bytes)
		abort();
	/* the start rewritten and the file cut: read anew */
	if (!ftruncate(fd, cut / 2) && !perfmap__update_fd(&pm, fd, &b) && !b.max_bytes)
		oracle(pm, text, cut / 2);
out:
	perfmap__lookup(pm, 0, NULL);
	perfmap__lookup(pm, UINT64_MAX, NULL);
	perfmap__free(pm);
	return 0;
}
