// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for CPython's line tables (interp/python/py_code.c), the
 * bytes a hostile process controls: the first byte picks the version (3.8
 * to 3.13: lnotab, the 3.10 table, the location table), the next four the
 * first line, the rest is the table.  Every instruction of a code object
 * the size of the table is looked up, and the one before the first; a
 * line is never negative, and the lookups stay bounded (libFuzzer's
 * -timeout catches a walk that does not end).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interp/python/py_code.h"
#include "interp/python/py_layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct py_layout *l;
	struct py_code c = { 0 };
	uint32_t first;

	if (size < 5)
		return 0;
	l = py_layout__find(3, 8 + data[0] % 6);
	if (!l)
		abort();
	memcpy(&first, data + 1, 4);
	c.firstlineno = first;
	c.lines = malloc(size - 5 ? size - 5 : 1); /* its own block: ASan sees overruns */
	if (!c.lines)
		return 0;
	memcpy(c.lines, data + 5, size - 5);
	c.nr_lines = size - 5;
	c.nr_instr = (uint32_t)(size * 4);
	for (uint32_t i = 0; i < c.nr_instr; i++)
		if (py_code__line(l, &c, i) < 0)
			abort();
	if (py_code__line(l, &c, PY_INSTR_MASK) < 0)
		abort();
	free(c.lines);
	return 0;
}
