// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * smolder flamegraph [FILE...] and smolder diff BEFORE AFTER: read folded
 * stacks from any profiler (folded_read) and write every requested output.
 * Lines that are not stacks are skipped, as flamegraph.pl skips them, and
 * counted in one warning that quotes the first; --strict makes the first
 * one exit code 2 with the file and line named.  An input without stacks is
 * exit code 2 either way.
 *
 * A directory given to smolder flamegraph is continuous mode's output
 * directory: the intervals in --from and --to (intervals.h; all without
 * them) are merged, and the outputs say which span they cover.  Folded
 * files read otherwise are named in the outputs with their sample count.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd/convert.h"
#include "cmd/intervals.h"
#include "profile/folded_read.h"
#include "lib/log.h"

/* Reads one file ("-": standard input; or in, opened) into p, counting the
 * lines that are not stacks in *skips (NULL: --strict).  0, or the exit
 * code. */
static int read_input(const char *path, FILE *opened, struct profile *p,
		      struct folded_skips *skips)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *in = opened ? opened : is_stdin ? stdin : fopen(path, "re");
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
		rc = read_input(paths[i], NULL, p, o->strict ? NULL : &skips);
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

/* "x.folded", "3 files", "standard input": what the outputs say was read. */
static const char *inputs_name(char *const *paths, size_t nr, char *buf, size_t len)
{
	if (nr > 1)
		snprintf(buf, len, "%zu files", nr);
	else
		snprintf(buf, len, "%s", !nr || !strcmp(paths[0], "-") ? "standard input" : paths[0]);
	return buf;
}

/* The intervals of directory dir in the range, merged into p, which is
 * said to be source (it must outlive p). */
static int read_intervals(const struct convert_opts *o, const char *dir, struct profile *p,
			  char *source, size_t len)
{
	struct folded_skips skips = { 0 };
	struct intervals iv;
	char said[512], name[4200];
	int rc = intervals__pick(&iv, dir, o->from_ns, o->to_ns ? o->to_ns : UINT64_MAX);

	for (size_t i = 0; !rc && i < iv.nr; i++) {
		FILE *in = intervals__open(&iv, i);

		snprintf(name, sizeof(name), "%s/%s", dir, iv.files[i].name);
		rc = in ? read_input(name, in, p, o->strict ? NULL : &skips) : 1;
	}
	if (!rc) {
		snprintf(source, len, "%zu interval%s of %s", iv.nr, iv.nr == 1 ? "" : "s", dir);
		intervals__describe(&iv, source, &p->info);
		info("%zu of %zu intervals of %s picked", iv.nr, iv.seen, dir);
		folded_skips__describe(&skips, p->diff, said, sizeof(said));
		if (*said)
			warn("%s", said);
	}
	intervals__free(&iv);
	return rc;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode);
}

int convert__flamegraph(const struct convert_opts *o)
{
	struct profile *p = profile__new();
	bool dir = o->nr_inputs == 1 && is_dir(o->inputs[0]);
	char source[4200]; /* what p says it shows: lives as long as p */
	int rc;

	if (!p) {
		err("out of memory");
		return 1;
	}
	if ((o->from_ns || o->to_ns) && !dir) {
		err("a time range picks the intervals of one directory (give continuous mode's "
		    "--output-dir, not files)");
		rc = 2;
	} else if (dir) {
		rc = read_intervals(o, o->inputs[0], p, source, sizeof(source));
	} else {
		rc = read_inputs(o, o->inputs, o->nr_inputs, p);
		p->info.source = inputs_name(o->inputs, o->nr_inputs, source, sizeof(source));
	}
	if (!rc && !p->nr) {
		err("no stacks in the intervals picked from %s", o->inputs[0]);
		rc = 2;
	}
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
