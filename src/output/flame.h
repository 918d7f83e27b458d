/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Flame graph layout: merges a profile's stacks into frames, each with a
 * depth, a position and a width in samples, and leaves out the frames too
 * narrow to see.  The SVG writer (svg__write.c) only draws what this
 * hands it, so its output grows with the visible frames, never with the
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
#include "output/format.h"
#include "profile/profile.h"

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
	FLAME_PYTHON = 16, /* name ends in "_[py]" */
	FLAME_WAITING = 32, /* an off-CPU wait: "[off-cpu:...]" and, not with
			       reverse, the frames above it (the waker's) */
	FLAME_INLINE = 64, /* name ends in "_[i]": an inlined function */
};

struct flame_frame {
	const char *name; /* len bytes, not NUL-terminated; points into the
			     profile's names */
	uint32_t len;
	uint32_t depth;   /* 0: the root "all" */
	uint32_t flags;   /* enum flame_flags */
	double x;         /* samples left of the frame */
	double count;     /* samples in the frame and above (a diff: AFTER's) */
	double before;    /* a diff's BEFORE samples in the frame and above */
};

struct flame_ent;

/*
 * A profile ready to draw: its stacks in merging order, and what a picture
 * needs before its first frame.  Frames are not kept: flame__walk() lays
 * them out again and hands each over as it is complete, so memory grows
 * with the depth of the stacks, not with the frames drawn.
 */
struct flame {
	double total;        /* all samples (the root's count) */
	double total_before; /* a diff's BEFORE total */
	double max_delta;    /* largest |count - before| of a visible frame */
	uint32_t max_depth;  /* deepest visible frame */
	size_t nr;           /* visible frames, the root included */
	/* flame.c's own: */
	const struct profile *p;
	struct flame_ent *v;       /* the profile's stacks in merging order */
	size_t nv;
	uint32_t *rank;            /* name id -> place in name order */
	double min;                /* smallest visible count */
	bool reverse;
};

/* Called with each visible frame; a nonzero return stops the walk. */
typedef int (*flame_visit)(void *ctx, const struct flame_frame *fr);

/* Sorts p's stacks (unless a flame chart) and measures the graph drawn as
 * o says (width, minwidth, reverse, flamechart; NULL for the defaults).
 * p must outlive the result.  NULL on -ENOMEM. */
struct flame *flame__new(const struct profile *p, const struct render_opts *o);
/* Visits every visible frame once, each after the frames above it
 * (post-order), siblings left to right, the root "all" last.  Returns 0,
 * -ENOMEM, or the first nonzero value visit returned. */
int flame__walk(const struct flame *f, flame_visit visit, void *ctx);
void flame__free(struct flame *f);

/* Plot width in pixels for render options (NULL: defaults). */
double flame__plot_width(const struct render_opts *o);
/* The smallest count a visible frame may have. */
double flame__min_count(const struct render_opts *o, double total);

#endif
