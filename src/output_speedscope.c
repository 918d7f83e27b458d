// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * speedscope output: a profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), one "sampled"
 * profile whose samples are arrays of indexes into shared.frames, root
 * first, and whose weights are the stacks' sample counts (unit "none"), so
 * its totals are the folded output's.
 *
 * It streams: each stack's frames are looked up (or added) in a hash table
 * as its sample is written, so shared.frames, known only at the end, comes
 * after the profiles; JSON readers do not care about key order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "utf8.h"

/* Writes s[0..len) as a JSON string that is always valid: quotes and
 * backslashes escaped, control bytes as \u00XX, ill-formed UTF-8 as U+FFFD,
 * and "</" as "<\/" so that the file can sit inside an HTML <script>. */
static void json_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0;
	int k;

	putc_unlocked('"', f);
	while (i < len) {
		unsigned c = u[i];

		if (c >= 0x80 && (k = utf8__seq(u + i, len - i)) > 0) {
			i += k; /* valid UTF-8 goes as it is */
			continue;
		}
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    !(c == '/' && i > 0 && u[i - 1] == '<')) {
			i++;
			continue;
		}
		fwrite_unlocked(u + start, 1, i - start, f);
		if (c >= 0x80) {
			fputs_unlocked("\\ufffd", f);
			i += -utf8__seq(u + i, len - i);
		} else {
			if (c == '"' || c == '\\' || c == '/')
				fprintf(f, "\\%c", c);
			else
				fprintf(f, "\\u%04x", c);
			i++;
		}
		start = i;
	}
	fwrite_unlocked(u + start, 1, i - start, f);
	putc_unlocked('"', f);
}

static void json_uint(FILE *f, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(p, 1, buf + sizeof(buf) - p, f);
}

/* Whole counts as integers; decimals (from folded files) with every digit,
 * as the folded output prints them. */
static void json_number(FILE *f, double v)
{
	if (v >= 0 && v < 9007199254740992.0 && v == (double)(uint64_t)v)
		json_uint(f, (uint64_t)v);
	else
		fprintf(f, "%.17g", v);
}

/* Stacks with no samples (a diff's stack that AFTER no longer has) are
 * left out: a zero weight would add nothing but a frame to the chart.  So
 * are counts JSON cannot write (infinity, not a number). */
static bool kept(const struct pstack *s)
{
	return s->count > 0 && isfinite(s->count);
}

/* One sample: its frames' indexes in shared.frames, root first. */
static void write_sample(FILE *f, const struct profile *p, const struct pstack *s,
			 const struct used_names *u)
{
	const uint32_t *ids = profile__ids(p, s);

	putc_unlocked('[', f);
	for (uint32_t i = 0; i < s->depth; i++) {
		if (i)
			putc_unlocked(',', f);
		json_uint(f, u->number[ids[i]] - 1);
	}
	putc_unlocked(']', f);
}

static void write_samples(FILE *f, const struct profile *p, const struct used_names *u)
{
	const char *sep = "\n";
	size_t i;

	fputs("\"samples\":[", f);
	for (i = 0; i < p->nr; i++) {
		if (!kept(&p->stacks[i]))
			continue;
		fputs(sep, f);
		write_sample(f, p, &p->stacks[i], u);
		sep = ",\n";
	}
	fputs("],\n\"weights\":[", f);
	sep = "";
	for (i = 0; i < p->nr; i++) {
		if (!kept(&p->stacks[i]))
			continue;
		fputs(sep, f);
		json_number(f, p->stacks[i].count);
		sep = ",";
	}
	fputs("]}],\n", f);
}

/* The names the kept stacks use, numbered as write_sample numbers them. */
static void write_frames(FILE *f, const struct profile *p, const struct used_names *u)
{
	fputs("\"shared\":{\"frames\":[", f);
	for (size_t i = 0; i < u->nr; i++) {
		const struct strtab_ent *e = &p->names.ent[u->order[i]];

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_string(f, e->s, e->len);
		putc_unlocked('}', f);
	}
	fputs("]}}\n", f);
}

int output_speedscope(FILE *out, const struct profile *p, const struct render_opts *o)
{
	const char *name = profile_name(o);
	struct used_names u;
	double total = 0;
	int err = 0;

	if (profile__used_names(p, kept, &u))
		return -ENOMEM;
	errno = 0;
	for (size_t i = 0; i < p->nr; i++)
		if (kept(&p->stacks[i]))
			total += p->stacks[i].count;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"smolder " SMOLDER_VERSION "\",\n\"name\":", out);
	json_string(out, name, strlen(name));
	fputs(",\n\"activeProfileIndex\":0,\n\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
	json_string(out, name, strlen(name));
	fputs(",\"unit\":\"none\",\"startValue\":0,\"endValue\":", out);
	json_number(out, total);
	fputs(",\n", out);
	write_samples(out, p, &u);
	write_frames(out, p, &u);
	used_names__free(&u);
	if (ferror(out)) {
		if (!errno)
			errno = EIO;
		err = -1;
	}
	return err;
}
