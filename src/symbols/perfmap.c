// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JIT perf maps: owns parsing their lines, flattening overlapping entries
 * and answering address lookups (reading and trusting the files is
 * perfmap_file.c's).  Lines come from a process that may be hostile: the
 * parser works on length-bounded text with every size capped.
 *
 * Overlapping entries are flattened into disjoint segments, each naming
 * the latest line that covers it (see perfmap.h), so that a lookup is one
 * binary search.  Lines read later (a JIT appends) are sorted on their own
 * and merged in, then flattened again: no full sort per update.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/addr_search.h"
#include "lib/grow.h"
#include "symbols/perfmap_int.h"

static bool hex_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp, *digits;
	uint64_t v = 0;
	int d;

	if (end - p > 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
		p += 2;
	for (digits = p; p < end; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (*p | 0x20) - 'a' + 10;
		else
			break;
		if (v >> 60)
			return false;
		v = v << 4 | d;
	}
	*pp = p;
	*out = v;
	return p > digits;
}

/* At least one blank, then skips all of them. */
static bool blanks(const char **pp, const char *end)
{
	const char *p = *pp;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == *pp)
		return false;
	*pp = p;
	return true;
}

struct perfmap *pm_new(void)
{
	return calloc(1, sizeof(struct perfmap));
}

static int push_entry(struct perfmap *pm, uint64_t start, uint64_t end, const char *name,
		      size_t len, uint32_t seq)
{
	if (GROW(pm->entries, pm->cap, pm->nr + 1, 256) ||
	    GROW(pm->names, pm->names_cap, pm->names_used + len + 1, 4096))
		return -ENOMEM;
	memcpy(pm->names + pm->names_used, name, len);
	pm->names[pm->names_used + len] = '\0';
	pm->entries[pm->nr++] = (struct pm_entry){ start, end, pm->names_used, seq };
	pm->names_used += len + 1;
	return 0;
}

int pm_add_line(struct perfmap *pm, const char *p, const char *end, uint32_t seq)
{
	uint64_t start, size;

	if (end - p > PERFMAP_MAX_LINE)
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!hex_u64(&p, end, &start) || !blanks(&p, end) ||
	    !hex_u64(&p, end, &size) || !blanks(&p, end))
		return 0;
	/* CRLF files and trailing blanks: not part of any JIT's names. */
	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end || !size || start + size < start || memchr(p, '\0', end - p))
		return 0;
	return push_entry(pm, start, start + size, p, end - p, seq) ? -ENOMEM : 1;
}

size_t pm_cost(const struct perfmap *pm)
{
	return sizeof(*pm) + pm->nr * PM_ENTRY_COST + pm->names_used;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A max-heap of entry indices by seq: the latest covering line on top. */
struct pm_heap {
	uint32_t *h;
	size_t n;
	const struct pm_entry *e;
};

static void heap_push(struct pm_heap *hp, uint32_t idx)
{
	size_t i = hp->n++, parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (hp->e[hp->h[parent]].seq >= hp->e[idx].seq)
			break;
		hp->h[i] = hp->h[parent];
		i = parent;
	}
	hp->h[i] = idx;
}

static void heap_pop(struct pm_heap *hp)
{
	uint32_t last = hp->h[--hp->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < hp->n) {
		if (c + 1 < hp->n && hp->e[hp->h[c + 1]].seq > hp->e[hp->h[c]].seq)
			c++;
		if (hp->e[hp->h[c]].seq <= hp->e[last].seq)
			break;
		hp->h[i] = hp->h[c];
		i = c;
	}
	if (hp->n)
		hp->h[i] = last;
}

static void add_seg(struct pm_seg *segs, size_t *n, uint64_t start, uint64_t end, uint32_t idx)
{
	struct pm_seg *last = *n ? &segs[*n - 1] : NULL;

	if (last && last->entry == idx && last->end == start) {
		last->end = end;
		return;
	}
	segs[(*n)++] = (struct pm_seg){ start, end, idx };
}

/*
 * Sweeps the sorted entries keeping the ones covering the current position
 * in a heap (h: room for nr); the winner can only change where an entry
 * starts or where the current winner ends.  Entries that ended under the
 * top are dropped lazily when they surface.  At most 2 * nr segments come
 * out, into segs.
 */
static size_t flatten(const struct pm_entry *e, size_t nr, uint32_t *h, struct pm_seg *segs)
{
	struct pm_heap hp = { .h = h, .e = e };
	size_t i = 0, n = 0;
	uint64_t pos = 0, next;

	while (i < nr || hp.n) {
		if (!hp.n)
			pos = e[i].start;
		while (i < nr && e[i].start == pos)
			heap_push(&hp, i++);
		while (hp.n && e[hp.h[0]].end <= pos)
			heap_pop(&hp);
		if (!hp.n)
			continue;
		next = e[hp.h[0]].end;
		if (i < nr && e[i].start < next)
			next = e[i].start;
		add_seg(segs, &n, pos, next, hp.h[0]);
		pos = next;
	}
	return n;
}

/* Gives back the room growth left, so that perfmap__bytes is what pm_cost
 * promised (appends grow the arrays again, by mremap for big ones). */
static void shrink(struct perfmap *pm)
{
	struct pm_entry *e;
	char *n;

	if (pm->cap > pm->nr && (e = realloc(pm->entries, (pm->nr ? pm->nr : 1) * sizeof(*e)))) {
		pm->entries = e;
		pm->cap = pm->nr ? pm->nr : 1;
	}
	if (pm->names_cap > pm->names_used && (n = realloc(pm->names, pm->names_used ? pm->names_used : 1))) {
		pm->names = n;
		pm->names_cap = pm->names_used ? pm->names_used : 1;
	}
}

/* Merges the sorted added entries (a copy in add) into the sorted ones, from the back. */
static void merge(struct perfmap *pm, const struct pm_entry *add, size_t nadd)
{
	struct pm_entry *e = pm->entries;
	long i = (long)pm->sorted - 1, j = (long)nadd - 1, w = (long)pm->nr - 1;

	while (j >= 0) {
		if (i >= 0 && entry_cmp(&e[i], &add[j]) > 0)
			e[w--] = e[i--];
		else
			e[w--] = add[j--];
	}
}

int pm_commit(struct perfmap *pm)
{
	size_t nadd = pm->nr - pm->sorted, n = pm->nr ? pm->nr : 1;
	struct pm_entry *add = malloc((nadd ? nadd : 1) * sizeof(*add));
	struct pm_seg *segs = malloc(2 * n * sizeof(*segs)), *shrunk;
	uint32_t *h = malloc(n * sizeof(*h));

	if (!add || !segs || !h) {
		free(add);
		free(segs);
		free(h);
		pm_rollback(pm);
		return -ENOMEM;
	}
	if (nadd)
		memcpy(add, pm->entries + pm->sorted, nadd * sizeof(*add));
	if (nadd > 1)
		qsort(add, nadd, sizeof(*add), entry_cmp);
	merge(pm, add, nadd);
	free(add);
	pm->sorted = pm->nr;
	pm->names_committed = pm->names_used;
	pm->nr_segs = flatten(pm->entries, pm->nr, h, segs);
	free(h);
	shrunk = realloc(segs, (pm->nr_segs ? pm->nr_segs : 1) * sizeof(*segs));
	free(pm->segs);
	pm->segs = shrunk ? shrunk : segs;
	shrink(pm);
	return 0;
}

void pm_rollback(struct perfmap *pm)
{
	pm->nr = pm->sorted;
	pm->names_used = pm->names_committed;
}

void pm_clear(struct perfmap *pm)
{
	free(pm->entries);
	free(pm->segs);
	free(pm->names);
	pm->entries = NULL;
	pm->segs = NULL;
	pm->names = NULL;
	pm->nr = pm->cap = pm->sorted = pm->nr_segs = 0;
	pm->names_used = pm->names_cap = pm->names_committed = 0;
}

/* Where the last PERFMAP_MAX_ENTRIES lines begin. */
static const char *last_lines(const char *text, size_t len)
{
	const char *p = text + len;
	size_t n = 0;

	if (len && p[-1] == '\n')
		p--;
	while (p > text) {
		const char *nl = memrchr(text, '\n', p - text);

		if (!nl)
			break;
		if (++n == PERFMAP_MAX_ENTRIES)
			return nl + 1;
		p = nl;
	}
	return text;
}

struct perfmap *perfmap__parse(const char *text, size_t len)
{
	struct perfmap *pm;
	const char *p, *end, *nl;
	uint32_t seq = 0;

	if (!text)
		len = 0, text = "";
	if (len > PERFMAP_MAX_FILE) {
		errno = EFBIG;
		return NULL;
	}
	pm = pm_new();
	if (!pm)
		return NULL;
	end = text + len;
	for (p = last_lines(text, len); p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (pm_add_line(pm, p, nl, seq++) < 0)
			goto nomem;
	}
	if (!pm_commit(pm))
		return pm;
nomem:
	perfmap__free(pm);
	errno = ENOMEM;
	return NULL;
}

const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off)
{
	const struct pm_entry *e;
	long lo = pm ? ADDR_SEARCH(pm->segs, pm->nr_segs, start, addr) : -1;

	if (lo < 0 || addr >= pm->segs[lo].end)
		return NULL;
	e = &pm->entries[pm->segs[lo].entry];
	if (off)
		*off = addr - e->start;
	return pm->names + e->name;
}

size_t perfmap__count(const struct perfmap *pm)
{
	return pm ? pm->sorted : 0;
}

size_t perfmap__bytes(const struct perfmap *pm)
{
	if (!pm)
		return 0;
	return sizeof(*pm) + pm->cap * sizeof(*pm->entries) + pm->nr_segs * sizeof(*pm->segs) +
	       pm->names_cap;
}

bool perfmap__truncated(const struct perfmap *pm)
{
	return pm && pm->truncated;
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	pm_clear(pm);
	free(pm);
}
