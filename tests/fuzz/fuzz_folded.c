// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the folded-stack reader (folded_read.c) and the
 * folded writer.  Besides not crashing: whatever the reader accepts, the
 * writer writes as text the reader reads back, to the same stacks and
 * counts, and writing that again gives the same text (a fixed point).  The
 * same holds for the diff of the input with itself (sums, -n scaling).
 * Skipping lines that are not stacks (folded_read__skip) reads whatever the
 * strict reader reads, the same but for comments ('#' first, no ';': the
 * strict reader's one-frame stacks), which it skips; what it reads of other
 * input round-trips too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/folded_read.h"
#include "lib/log.h"
#include "output/format.h"
#include "output/folded.h"

static char errbuf[512];

static struct profile *read_buf(const char *buf, size_t len)
{
	struct profile *p = profile__new();
	FILE *f = fmemopen((void *)buf, len, "r");

	if (!p || !f || folded_read__parse(f, "fuzz", p, errbuf, sizeof(errbuf))) {
		profile__free(p);
		p = NULL;
	}
	if (f)
		fclose(f);
	return p;
}

static char *write_buf(const struct profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f || folded__write(f, p))
		abort();
	fclose(f);
	return buf;
}

/* p written, read back and written again: the same profile, the same text. */
static void check_round_trip(const struct profile *p)
{
	size_t len1, len2;
	char *t1 = write_buf(p, &len1), *t2;
	struct profile *q = len1 ? read_buf(t1, len1) : profile__new();

	if (!q) {
		fprintf(stderr, "written text not read back: %s\n", errbuf);
		abort();
	}
	if (q->nr != p->nr || q->diff != p->diff)
		abort();
	for (size_t i = 0; i < p->nr; i++) {
		double c = p->stacks[i].count, b = p->stacks[i].before;

		/* the writer writes sums past the bound as the bound */
		if (q->stacks[i].count != (c > FOLDED_COUNT_MAX ? FOLDED_COUNT_MAX : c) ||
		    q->stacks[i].before != (b > FOLDED_COUNT_MAX ? FOLDED_COUNT_MAX : b))
			abort();
	}
	t2 = write_buf(q, &len2);
	if (len1 != len2 || memcmp(t1, t2, len1))
		abort();
	free(t1);
	free(t2);
	profile__free(q);
}

/* Stack i is what skipping reads as a comment: one frame, '#' first. */
static bool is_comment(const struct profile *p, size_t i)
{
	const struct pstack *st = i < p->nr ? &p->stacks[i] : NULL;
	uint32_t len;
	const char *name = st && st->depth == 1 ? profile__name(p, profile__ids(p, st)[0], &len) : NULL;

	return name && len && name[0] == '#';
}

/* The skipping reader on buf; strict: the strict reader's profile, or NULL. */
static void check_skipping(const char *buf, size_t len, const struct profile *strict)
{
	struct profile *q = profile__new();
	struct folded_skips sk = { 0 };
	FILE *f = fmemopen((void *)buf, len, "r");
	size_t j = 0, comments = 0;
	int e;

	if (!q || !f)
		abort();
	e = folded_read__skip(f, "fuzz", q, &sk, errbuf, sizeof(errbuf));
	fclose(f);
	/* the first stack decides one count or two: strict, that may be a
	 * comment, which skipping leaves out, deciding later or never (and a
	 * line read as two counts may then have a BEFORE over the bound) */
	if (!strict || (is_comment(strict, 0) && (e || !q->nr || q->diff != strict->diff))) {
		if (!e)
			check_round_trip(q);
		profile__free(q);
		return;
	}
	if (e || (q->nr && q->diff != strict->diff))
		abort();
	for (size_t i = 0; i < strict->nr; i++) {
		const struct pstack *st = &strict->stacks[i];

		if (is_comment(strict, i)) {
			comments++;
			continue;
		}
		if (j >= q->nr || q->stacks[j].count != st->count || q->stacks[j].before != st->before)
			abort();
		j++;
	}
	if (j != q->nr || sk.nr != comments)
		abort();
	profile__free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p, *d;

	log_verbosity = 0;
	p = read_buf((const char *)data, size);
	if (!p) {
		check_skipping((const char *)data, size, NULL);
		return 0;
	}
	check_skipping((const char *)data, size, p);
	check_round_trip(p);
	if (!p->diff && p->nr) {
		d = profile__diff(p, p, size & 1);
		if (!d)
			abort();
		check_round_trip(d);
		profile__free(d);
	}
	profile__free(p);
	return 0;
}
