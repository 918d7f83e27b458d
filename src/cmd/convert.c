// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * smolder flamegraph [FILE...] and smolder diff BEFORE AFTER: read folded
 * stacks from any profiler (folded_read) and write every requested output.
 * Lines that are not stacks are skipped, as flamegraph.pl skips them, and
 * counted in one warning that quotes the first; --strict makes the first
 * one exit code 2 with the file and line named.  An input without stacks is
 * exit code 2 either way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cmd/convert.h"
#include "profile/folded_read.h"
#include "lib/log.h"

/* Reads one file ("-": standard input) into p, counting the lines that are
 * not stacks in *skips (NULL: --strict).  0, or the exit code. */
static int read_input(const char *path, struct profile *p, struct folded_skips *skips)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *in = is_stdin ? stdin : fopen(path, "re");
	const char *name = is_stdin ? "stdin" : path;
	char msg[512];
	int e;

	if (!in) {
		err("cannot read %s: %s (check the file name)", path, log__errstr(errno));
		return 2;
	}
	e = folded_read__skip(in, name, p, skips, msg, sizeof(msg));
	if (!is_stdin)
		fclose(in);
	if (e) {
		err("%s", msg);
		return e == -EINVAL ? 2 : 1;
	}
	return 0;
}

/* All inputs into one profile; stdin when there are none.  Skipped lines
 * are one warning; when nothing else was read, they are part of the error. */
static int read_inputs(const struct convert_opts *o, char *const *paths, size_t nr,
		       struct profile *p)
{
	static char *const dash[] = { "-" };
	struct folded_skips skips = { 0 };
	char said[512];
	int rc = 0;

	if (!nr)
		paths = dash, nr = 1;
	for (size_t i = 0; i < nr && !rc; i++)
		rc = read_input(paths[i], p, o->strict ? NULL : &skips);
	folded_skips__describe(&skips, p->diff, said, sizeof(said));
	if (!rc && !p->nr) {
		err("no stacks in %s (expected lines of \"frame;frame;... COUNT\"%s%s)",
		    nr == 1 && strcmp(paths[0], "-") ? paths[0] : nr == 1 ? "standard input" : "the input files",
		    *said ? "; " : "", said);
		rc = 2;
	} else if (!rc && *said) {
		warn("%s", said);
	}
	return rc;
}

static int write_all(const struct convert_opts *o, const struct profile *p)
{
	struct out_data d = { .prof = p, .render = o->render };

	return emit__all(o->outputs, o->nr_outputs, &d) ? 1 : 0;
}

int convert__flamegraph(const struct convert_opts *o)
{
	struct profile *p = profile__new();
	int rc;

	if (!p) {
		err("out of memory");
		return 1;
	}
	rc = read_inputs(o, o->inputs, o->nr_inputs, p);
	if (!rc)
		rc = write_all(o, p);
	profile__free(p);
	return rc;
}

int convert__diff(const struct convert_opts *o)
{
	struct profile *before = profile__new(), *after = profile__new(), *d = NULL;
	int rc = 1;

	if (!before || !after)
		err("out of memory");
	else if (!(rc = read_inputs(o, &o->inputs[0], 1, before)) &&
		 !(rc = read_inputs(o, &o->inputs[1], 1, after))) {
		if (before->diff || after->diff) {
			err("%s already holds two counts per line (give two profiles of one count)",
			    before->diff ? o->inputs[0] : o->inputs[1]);
			rc = 2;
		} else if (!(d = profile__diff(before, after, o->normalize))) {
			err("out of memory");
			rc = 1;
		} else {
			rc = write_all(o, d);
		}
	}
	profile__free(d);
	profile__free(before);
	profile__free(after);
	return rc;
}
