// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for demangle__name(): symbol names from hostile ELF files go
 * through libiberty's demanglers.  Each input is one name (NUL-terminated
 * copy), demangled into buffers of several sizes; the answer must be the
 * name itself or a string that fits the buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"

static void check(const char *name, size_t len)
{
	char *buf = malloc(len);
	const char *got;

	if (!buf)
		return;
	got = demangle__name(name, buf, len);
	if (got != name && (got != buf || strnlen(buf, len) >= len))
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name;

	if (size > 2 * DEMANGLE_MAX_INPUT)
		return 0;
	name = malloc(size + 1);
	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	check(name, 1);
	check(name, 7);
	check(name, 64);
	check(name, 4096);
	free(name);
	return 0;
}
