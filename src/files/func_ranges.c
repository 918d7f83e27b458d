// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A file's function ranges and the lookup by file offset (see func_ranges.h). */
#include <stdlib.h>

#include "files/func_ranges.h"

#define MAX_SEGS 16

/* An executable PT_LOAD: file offsets [off, off + filesz) at vaddr. */
struct func_seg {
	uint64_t off, filesz, vaddr;
};

struct func_ranges {
	uint64_t base;
	struct func_range *ranges;
	size_t nr;
	struct func_seg segs[MAX_SEGS];
	size_t nr_segs;
	int stopped;
};

struct func_ranges *func_ranges__new(uint64_t base, struct func_range *ranges, size_t nr,
				     int stopped)
{
	struct func_ranges *fr = calloc(1, sizeof(*fr));

	if (!fr) {
		free(ranges);
		return NULL;
	}
	*fr = (struct func_ranges){ .base = base, .ranges = ranges, .nr = nr, .stopped = stopped };
	return fr;
}

void func_ranges__add_segment(struct func_ranges *fr, uint64_t off, uint64_t filesz,
			      uint64_t vaddr)
{
	if (fr->nr_segs < MAX_SEGS && filesz && off + filesz > off)
		fr->segs[fr->nr_segs++] = (struct func_seg){ off, filesz, vaddr };
}

bool func_ranges__start(const struct func_ranges *fr, uint64_t off, uint64_t *start)
{
	const struct func_seg *g = NULL;
	size_t i, lo = 0, hi, mid;
	uint64_t pc, vaddr;

	for (i = 0; fr && i < fr->nr_segs && !g; i++)
		if (off >= fr->segs[i].off && off - fr->segs[i].off < fr->segs[i].filesz)
			g = &fr->segs[i];
	if (!g || !fr->nr)
		return false;
	vaddr = off - g->off + g->vaddr;
	if (vaddr < fr->base || vaddr - fr->base > UINT32_MAX)
		return false;
	pc = vaddr - fr->base;
	/* the last function starting at or before pc */
	for (hi = fr->nr; hi - lo > 1;) {
		mid = lo + (hi - lo) / 2;
		if (fr->ranges[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (pc < fr->ranges[lo].pc || pc - fr->ranges[lo].pc >= fr->ranges[lo].len ||
	    fr->base + fr->ranges[lo].pc < g->vaddr)
		return false; /* in none, or one that starts in another segment */
	*start = fr->base + fr->ranges[lo].pc - g->vaddr + g->off;
	return true;
}

size_t func_ranges__count(const struct func_ranges *fr)
{
	return fr ? fr->nr : 0;
}

size_t func_ranges__bytes(const struct func_ranges *fr)
{
	return fr ? sizeof(*fr) + fr->nr * sizeof(*fr->ranges) : 0;
}

int func_ranges__stopped(const struct func_ranges *fr)
{
	return fr ? fr->stopped : 0;
}

void func_ranges__free(struct func_ranges *fr)
{
	if (!fr)
		return;
	free(fr->ranges);
	free(fr);
}
