// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * source_profile: builds a profile with source-location frames (CPython's,
 * profile_addr.h) through the API the folder uses (profile__intern,
 * profile__add_ids, paddrs__source, paddrs__add_sample) and writes it with
 * smolder's own pprof or speedscope writer, for tests that read the file
 * back with the formats' tools (tests/check/pprof_source.sh).
 *   source_profile pprof|speedscope OUT < SAMPLES
 * Each line of SAMPLES is one sample: its count, then its frames root
 * first, tab-separated.  A frame is a name (a frame with no address), or
 * "NAME|FUNC|FILE|LINE|START_LINE": a source location displayed as NAME.
 * Samples merge by their names, as the folder merges them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/pprof.h"
#include "output/speedscope.h"
#include "profile/profile.h"

#define MAX_DEPTH 128

/* Frame text s (NUL-terminated, modified) into its name id and frame. */
static int parse_frame(struct profile *p, char *s, uint32_t *id, struct paddr_frame *at)
{
	char *field[5] = { s };
	int n = 1;
	long name;

	for (char *c = s; *c && n < 5; c++)
		if (*c == '|') {
			*c = '\0';
			field[n++] = c + 1;
		}
	if (n != 1 && n != 5)
		return -EINVAL;
	if ((name = profile__intern(p, field[0], strlen(field[0]))) < 0)
		return -ENOMEM;
	*id = (uint32_t)name;
	*at = (struct paddr_frame){ 0 };
	if (n == 1)
		return 0;
	return paddrs__source(p->addrs, &(struct paddr_source){
		.func = field[1], .file = field[2],
		.line = (uint32_t)strtoul(field[3], NULL, 10),
		.start_line = (uint32_t)strtoul(field[4], NULL, 10) }, at);
}

/* The index of the stack of names ids[0..depth), added if new (a test's
 * few stacks: a linear search). */
static long stack_of(struct profile *p, const uint32_t *ids, uint32_t depth)
{
	for (size_t i = 0; i < p->nr; i++)
		if (p->stacks[i].depth == depth &&
		    !memcmp(profile__ids(p, &p->stacks[i]), ids, depth * sizeof(*ids)))
			return (long)i;
	if (profile__add_ids(p, ids, depth, 0, NULL))
		return -ENOMEM;
	return (long)p->nr - 1;
}

static int add_line(struct profile *p, char *line)
{
	uint32_t ids[MAX_DEPTH], depth = 0;
	struct paddr_frame at[MAX_DEPTH];
	char *save, *tok = strtok_r(line, "\t\n", &save);
	double count;
	long stack;
	int err;

	if (!tok)
		return 0;
	count = strtod(tok, NULL);
	for (; (tok = strtok_r(NULL, "\t\n", &save)) && depth < MAX_DEPTH; depth++)
		if ((err = parse_frame(p, tok, &ids[depth], &at[depth])))
			return err;
	if ((stack = stack_of(p, ids, depth)) < 0)
		return (int)stack;
	p->stacks[stack].count += count;
	return paddrs__add_sample(p->addrs, (uint32_t)stack, ids, at, depth, count);
}

int main(int argc, char **argv)
{
	struct profile *p = profile__new();
	char line[8192];
	FILE *out;
	int err = 0;

	if (argc != 3 || (strcmp(argv[1], "pprof") && strcmp(argv[1], "speedscope"))) {
		fprintf(stderr, "usage: source_profile pprof|speedscope OUT < SAMPLES\n");
		return 2;
	}
	if (!p || !(p->addrs = paddrs__new()))
		return 1;
	while (!err && fgets(line, sizeof(line), stdin))
		err = add_line(p, line);
	if (err) {
		fprintf(stderr, "source_profile: bad sample line: %s\n", strerror(-err));
		return 1;
	}
	if (!(out = fopen(argv[2], "w"))) {
		perror(argv[2]);
		return 1;
	}
	err = !strcmp(argv[1], "pprof") ? pprof__write(out, p, NULL) :
	      speedscope__write(out, p, NULL);
	if (fclose(out) || err) {
		fprintf(stderr, "source_profile: cannot write %s\n", argv[2]);
		return 1;
	}
	profile__free(p);
	return 0;
}
