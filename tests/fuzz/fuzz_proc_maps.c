// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the /proc/PID/maps parser: parse arbitrary text, then
 * check what the table promises (sorted, non-empty ranges, file mappings
 * have a path) and that every lookup answers with a mapping that contains
 * the address, probing at and around each mapping's edges.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lib/log.h"
#include "files/proc_maps.h"

static void find_check(const struct proc_maps *pm, uint64_t addr)
{
	const struct proc_map *m = proc_maps__find(pm, addr);

	if (m && (addr < m->start || addr >= m->end))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_maps *pm;
	size_t i;

	log_verbosity = 0;
	pm = proc_maps__parse((const char *)data, size);
	if (!pm)
		return 0;
	for (i = 0; i < pm->nr; i++) {
		const struct proc_map *m = &pm->maps[i];

		if (m->start >= m->end || (i && m->start < pm->maps[i - 1].start) ||
		    (m->kind == PROC_MAP_FILE && !m->path))
			abort();
		find_check(pm, m->start);
		find_check(pm, m->start - 1);
		find_check(pm, m->end - 1);
		find_check(pm, m->end);
	}
	find_check(pm, 0);
	find_check(pm, UINT64_MAX);
	proc_maps__free(pm);
	return 0;
}
