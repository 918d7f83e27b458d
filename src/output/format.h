/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output formats: what a format is called and which file names ask for
 * it, how pictures are drawn, and what every writer shares.  Each format
 * is written from a profile (profile.h), a capture's or folded files', by
 * its own writer (folded.h, report.h, svg.h, speedscope.h, pprof.h): to an
 * open stream, returning 0, or -1 when the stream failed (errno set) or
 * -ENOMEM.
 */
#ifndef SMOLDER_OUTPUT_FORMAT_H
#define SMOLDER_OUTPUT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "profile/profile.h"

enum out_format {
	FMT_AUTO,       /* from the file name, else folded (-f) or report */
	FMT_REPORT,     /* bcc profile's readable report, .report */
	FMT_FOLDED,     /* .folded, .txt */
	FMT_SVG,        /* .svg */
	FMT_SPEEDSCOPE, /* .speedscope.json */
	FMT_PPROF,      /* .pb.gz */
	FMT_SUMMARY,    /* .summary: samples by process and kernel context */
};

/* How pictures are drawn; zero values mean the defaults shown. */
struct render_opts {
	const char *title;     /* "Flame Graph" ("Icicle Graph", "Flame Chart",
				  "Differential Flame Graph") */
	const char *subtitle;  /* none */
	const char *countname; /* "samples" */
	const char *colors;    /* palette: "hot" (default), "mem", "io", "kernel"
				  (user/kernel/JIT split by _[k]/_[j] and "-"),
				  "red", "green", "blue", "aqua", "yellow",
				  "purple", "orange" */
	unsigned width;        /* SVG width in pixels, 1200 */
	double minwidth;       /* frames narrower than this many pixels are
				  left out (0.1); negative: -N means N% of
				  the total */
	bool inverted;         /* icicle graph: root at the top */
	bool reverse;          /* stacks reversed (leaf first) before merging */
	bool flamechart;       /* input order kept, only adjacent stacks merge;
				  x is time */
	const char *name;      /* profile name for speedscope/pprof (--title,
				  else "smolder") */
	bool without_pids;     /* pprof: no pid and thread labels (--serve
				  without --serve-pid-labels) */
};

/* The name speedscope and pprof give the profile: o->name, else the
 * title, else "smolder".  Writers escape it like any other text. */
static inline const char *format__profile_name(const struct render_opts *o)
{
	return o && o->name ? o->name : o && o->title && *o->title ? o->title : "smolder";
}

/*
 * A stack's count as the writers write it.  In a time-weighted profile
 * (--off-cpu: profile.h) counts are microseconds, and every format gets
 * whole ones, rounded to the nearest, as offcputime prints them: a CPU
 * sample's period may end in a fraction of one, and the formats' totals
 * then agree to the microsecond.  Other counts are as they are.
 */
static inline double format__count(const struct profile *p, const struct pstack *s)
{
	if (p->time_weighted && s->count >= 0 && s->count < 9e18)
		return (double)(uint64_t)(s->count + 0.5);
	return s->count;
}

/* The unit of a time-weighted profile's counts, for the formats that name it. */
#define FORMAT_TIME_UNIT "us"

/*
 * What the profile shows, in one line, from p->info (profile.h): "-- make
 * -j8, 2026-11-28 10:02:00Z, 3.00 s at 49 Hz on web1 (Linux 6.1.0):
 * 147 samples, 0 lost"; an interval's "... 10:02:00.123Z to
 * 10:03:00.125Z (60.0 s) ..."; a folded file's "x.folded: 1234 samples".
 * "" when nothing is known.  The SVG's subtitle, speedscope's name and
 * pprof's comment.
 */
void format__describe(const struct profile *p, char *buf, size_t len);
/* --subtitle when given, else format__describe: the one line every output
 * shows under its title. */
void format__subtitle(const struct profile *p, const struct render_opts *o, char *buf,
		      size_t len);
/* ns since the epoch as "2026-11-28 10:02:00.123Z" (with_date false:
 * "10:02:00.123Z"; ms false: no ".123"). */
void format__utc(uint64_t ns, bool with_date, bool ms, char *buf, size_t len);

/* What a name asks for: .folded/.txt, .svg, .speedscope.json, .pb.gz,
 * .report, .summary; FMT_AUTO when the name says nothing. */
enum out_format format__of_path(const char *path);
/* Whether the file name has a suffix (out.png: yes; out, /dev/null,
 * .profile: no), which format__of_path must then know. */
bool format__has_suffix(const char *path);
/* The suffixes format__of_path knows, for messages. */
#define FORMAT_SUFFIXES ".folded, .txt, .svg, .speedscope.json, .pb.gz, .report or .summary"
/* "folded", "report", "svg", "speedscope", "pprof", "summary": 0, or -1
 * if unknown. */
int format__parse(const char *name, enum out_format *out);
const char *format__name(enum out_format fmt);


#endif
