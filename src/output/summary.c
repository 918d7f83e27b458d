// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The summary (see summary.h): a capture's samples by the frames above
 * their stacks, as perf report --sort comm prints them.  A stack's head
 * frames (its origin's n_head: cpu_N, the process, the kernel-context
 * frames) are interned name ids, so equal heads are equal id runs: the
 * stacks are sorted by head, equal heads merged, and the merged rows
 * sorted hottest first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "output/summary.h"

struct row {
	const uint32_t *ids; /* the head's name ids */
	uint16_t n;
	double count;
	const struct profile *p; /* for the tie-break by name */
};

static int cmp_ids(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint16_t n = x->n < y->n ? x->n : y->n;

	for (uint16_t i = 0; i < n; i++)
		if (x->ids[i] != y->ids[i])
			return x->ids[i] < y->ids[i] ? -1 : 1;
	return (int)x->n - (int)y->n;
}

/* Hottest first; equal counts by their frames' names, as strcmp orders
 * the joined text, so the table does not depend on interning order. */
static int cmp_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint16_t n = x->n < y->n ? x->n : y->n;
	uint32_t lx, ly;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	for (uint16_t i = 0; i < n; i++) {
		const char *sx = profile__name(x->p, x->ids[i], &lx);
		const char *sy = profile__name(y->p, y->ids[i], &ly);
		int c = memcmp(sx, sy, lx < ly ? lx : ly);

		if (c || lx != ly)
			return c ? c : lx < ly ? -1 : 1;
	}
	return (int)x->n - (int)y->n;
}

/* The stacks' heads, equal ones merged; *nr rows.  NULL on -ENOMEM. */
static struct row *merged_heads(const struct profile *p, size_t *nr)
{
	struct row *rows = calloc(p->nr ? p->nr : 1, sizeof(*rows));
	size_t n = 0;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < p->nr; i++) {
		const struct pstack *s = &p->stacks[i];
		uint16_t head = p->origins[i].n_head;

		rows[i] = (struct row){ profile__ids(p, s), head <= s->depth ? head : s->depth,
					format__count(p, s), p };
	}
	qsort(rows, p->nr, sizeof(*rows), cmp_ids);
	for (size_t i = 0; i < p->nr; i++) {
		if (n && !cmp_ids(&rows[n - 1], &rows[i]))
			rows[n - 1].count += rows[i].count;
		else
			rows[n++] = rows[i];
	}
	qsort(rows, n, sizeof(*rows), cmp_count);
	*nr = n;
	return rows;
}

int summary__write(FILE *out, const struct profile *p)
{
	const char *unit = p->time_weighted ? FORMAT_TIME_UNIT : "samples";
	double total = 0;
	struct row *rows;
	size_t nr;
	uint32_t len;

	if (!p->origins && p->nr) {
		errno = EINVAL;
		return -1;
	}
	rows = merged_heads(p, &nr);
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		total += rows[i].count;
	fprintf(out, "%12s %7s  %s\n", unit, "%", "process;context");
	for (size_t i = 0; i < nr; i++) {
		fprintf(out, "%12" PRIu64 " %6.2f%%  ", (uint64_t)rows[i].count,
			total > 0 ? 100 * rows[i].count / total : 0.0);
		for (uint16_t k = 0; k < rows[i].n; k++) {
			const char *name = profile__name(p, rows[i].ids[k], &len);

			if (k)
				putc(';', out);
			fwrite(name, 1, len, out);
		}
		putc('\n', out);
	}
	free(rows);
	return ferror(out) ? -1 : 0;
}
