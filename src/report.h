/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Report: what a capture counted (all of it, or one drained interval) turned
 * into named, folded stacks and written to the outputs; and the summary of
 * samples and losses on stderr.  Used by one-shot and continuous captures.
 */
#ifndef SMOLDER_REPORT_H
#define SMOLDER_REPORT_H

#include "capture.h"
#include "cli.h"
#include "fold.h"
#include "ksyms.h"
#include "usyms.h"

struct fold_stats {
	uint64_t samples;   /* counted samples read */
	size_t processes;   /* distinct tgids among them */
	/* of them, with an "[unknown]" user frame, by why (usyms.h) */
	uint64_t unnamed[USYMS_MISS__MAX];
};

struct recording;

/* Names and folds every sample the capture's readers see now (or rec's,
 * when not NULL: recording.h).  NULL after printing why.  stats may be NULL. */
struct fold *report__fold(const struct env *env, struct capture *cap, struct recording *rec,
			  const struct ksyms *ks, struct usyms *us, struct fold_stats *stats);
/* Writes f to each of outs; pictures get a profile of the folded stacks.
 * 0, or -1 after printing why. */
int report__write(const struct env *env, struct fold *f, const struct out_spec *outs,
		  size_t nr_outs);
/* Kernel symbols for the run (NULL when not wanted or unreadable, warned). */
struct ksyms *report__load_ksyms(const struct env *env);
/* With --idle-only, a table on stderr of idle time per CPU and idle path
 * (unless -q). */
void report__idle_table(const struct env *env, const struct fold *f);
/*
 * "smolder: N samples, M lost (...)", what to do about losses, "U unnamed
 * samples (...)" by reason (when some are, or with -v) and, with -v, the
 * details, from the counters c[CNT__MAX] and unnamed[USYMS_MISS__MAX] (the
 * sum of the folds' stats; NULL: none), and what symbolization gave up (us).
 * unwritten: samples of continuous mode's intervals that could not be
 * written (lost too, "not written N" when any).
 */
void report__summary(const struct env *env, struct capture *cap, const uint64_t *c,
		     uint64_t unwritten, const uint64_t *unnamed, const struct usyms *us);

#endif
