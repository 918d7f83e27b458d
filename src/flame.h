/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Flame graph layout: merges a profile's stacks into frames, each with a
 * depth, a position and a width in samples, and leaves out the frames too
 * narrow to see.  The SVG writer (output_svg.c) only draws what this
 * returns, so its output grows with the visible frames, never with the
 * input's lines.
 *
 * Stacks merge the way flamegraph.pl merges them: sorted by frame names
 * (frame by frame, so "a;b" and "a b;c" compare as frames "a" < "a b"),
 * or, for a flame chart, in input order where only adjacent stacks with
 * equal prefixes merge.  The root frame "all" (depth 0) holds everything.
 */
#ifndef SMOLDER_FLAME_H
#define SMOLDER_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "output.h"
#include "profile.h"

/* Pixels on each side of the frames (the plot is width - 2 * FLAME_XPAD). */
#define FLAME_XPAD 10
#define FLAME_DEFAULT_WIDTH 1200
#define FLAME_DEFAULT_MINWIDTH 0.1

enum flame_flags {
	FLAME_KERNEL = 1,  /* name ends in "_[k]", or the frame is above a "-" */
	FLAME_JIT = 2,     /* name ends in "_[j]" */
	FLAME_DELIM = 4,   /* the "-" frame between user and kernel frames */
	FLAME_ABOVE_DELIM = 8, /* above a "-" (so FLAME_KERNEL too); not
				  with reverse, where "above" is unknown */
};

struct flame_frame {
	const char *name; /* len bytes, not NUL-terminated; points into the
			     profile (or the flame's reversed copy) */
	uint32_t len;
	uint32_t depth;   /* 0: the root "all" */
	uint32_t flags;   /* enum flame_flags */
	double x;         /* samples left of the frame */
	double count;     /* samples in the frame and above (a diff: AFTER's) */
	double before;    /* a diff's BEFORE samples in the frame and above */
};

struct flame {
	/* Visible frames in pre-order: every frame comes before the frames
	 * above it, and those follow it contiguously (its subtree is the run
	 * of following frames that are deeper than it). */
	struct flame_frame *frames;
	size_t nr, cap;
	double total;        /* all samples (the root's count) */
	double total_before; /* a diff's BEFORE total */
	double max_delta;    /* largest |count - before| of a visible frame */
	uint32_t max_depth;  /* deepest visible frame */
	char *rev;           /* reversed stacks' text, with o->reverse */
};

/* The layout of p drawn as o says (width, minwidth, reverse, flamechart);
 * o may be NULL for the defaults.  NULL on -ENOMEM. */
struct flame *flame__build(const struct profile *p, const struct render_opts *o);
void flame__free(struct flame *f);

/* Plot width in pixels for render options (NULL: defaults). */
double flame__plot_width(const struct render_opts *o);
/* The smallest count a visible frame may have. */
double flame__min_count(const struct render_opts *o, double total);

#endif
