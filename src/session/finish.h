/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The end of a capture (all of it, or one drained interval in continuous
 * mode): what it counted named and folded into a profile and written to
 * every output, in one step; the idle table and the summary of samples and
 * losses on stderr.  Takes its own options (struct finish_opts), built from
 * the command line by main.c.
 */
#ifndef SMOLDER_FINISH_H
#define SMOLDER_FINISH_H

#include <stdbool.h>
#include "session/sample_source.h"
#include <stddef.h>
#include <stdint.h>
#include "capture/capture.h"
#include "fold/fold.h"
#include "fold/unsym.h"
#include "symbols/ksyms.h"
#include "symbols/ksyms_reader.h"
#include "output/emit.h"
#include "profile/profile.h"
#include "symbols/usyms.h"

struct warm;

struct finish_opts {
	struct fold_opts fold;       /* naming and merging; work_desc is the source's */
	const struct out_spec *outputs; /* a one-shot capture's (continuous mode */
	size_t nr_outputs;              /* names its own files) */
	const struct render_opts *render;
	bool hottest_last;           /* the report: as bcc prints it */
	double sample_ns;            /* the time one sample stands for: 1e9 / -F, or -c */
	struct capture_info info;    /* for the exports: duration, main binary, kernel */
	bool kernel_symbols;         /* read kallsyms (kernel stacks are sampled) */
	bool idle_table;             /* --idle-only: the idle table after writing */
	const int *cpus;             /* the CPUs sampled, for the idle table */
	size_t nr_cpus;
	const double *idle_ms;       /* the idle table: each CPU's idle ms during
				      * the capture by the kernel's count
				      * (cpus__idle_ms; MAX_CPUS), or NULL */
	/* For the summary's advice on losses: */
	uint32_t stack_entries;      /* --stack-storage-size */
	uint32_t count_entries;      /* sample keys the count map holds */
	uint32_t offcpu_entries;     /* --off-cpu: waits the pending map holds */
	bool continuous;             /* the count map holds one interval */
	bool kernel_mode, kernel_threads; /* the filters, said with what they left out */
	struct warm *named_ahead;    /* the stacks the sampler named ahead
				      * (warm.h), not named ahead again; NULL */
};

struct sample_source finish__capture_source(struct capture *cap);

/* What one finish step named and wrote. */
struct finish_result {
	bool named;          /* the samples were read and named (writing may still fail) */
	uint64_t samples;    /* counted samples read (not off-CPU time) */
	uint64_t offcpu_ns;  /* off-CPU time read (--off-cpu), as the profile holds it */
	size_t processes;    /* distinct tgids among them (at most 4096 counted) */
	size_t stacks;       /* distinct stacks written */
	uint64_t unnamed[USYMS_MISS__MAX]; /* with an "[unknown]" user frame, by why */
	struct unsym_summary unsym; /* with a frame no symbol names, by file */
	struct fold_py_stats py; /* samples of processes with CPython */
	uint64_t cgroup_other; /* samples whose cgroup label is "other" (cgroup_labels.h) */
};

/*
 * Names and folds every sample src holds into a profile and writes it to
 * each of outs (every output that can be written is, whatever failed
 * before); then, with o->idle_table, the idle table.  0, or -1 after
 * printing why.  res is filled either way.
 */
int finish__write(const struct finish_opts *o, const struct sample_source *src,
		  const struct ksyms *ks, struct usyms *us, const struct out_spec *outs,
		  size_t nr_outs, struct finish_result *res);
/* Kernel symbols for the run (NULL when not wanted or unreadable, warned). */
struct ksyms *finish__load_ksyms(const struct finish_opts *o);
/* The same, from a read begun during the capture (ksyms_reader.h), which it
 * ends; r NULL: read now. */
struct ksyms *finish__ksyms_of(const struct finish_opts *o, struct ksyms_reader *r);
/*
 * "smolder: N samples, M lost (...)", what to do about losses, "U unnamed
 * samples (...)" by reason (when some are, or with -v) and, with -v, the
 * details, from the counters c[CNT__MAX] and unnamed[USYMS_MISS__MAX] (the
 * sum of the steps' results; NULL: none), and what symbolization gave up (us).
 * unwritten: samples of continuous mode's intervals that could not be
 * written (lost too, "not written N" when any).  offcpu_ns: the off-CPU
 * time the profiles hold, said with the waits' count.
 */
/* finish__summary()'s off-CPU time when no one profile holds it (--serve). */
#define FINISH_TIME_UNKNOWN UINT64_MAX

void finish__summary(const struct finish_opts *o, struct capture *cap, const uint64_t *c,
		     uint64_t unwritten, const uint64_t *unnamed, const struct usyms *us,
		     uint64_t offcpu_ns);

/*
 * When at least FINISH_UNSYM_PERCENT of samples (of samples in all) have a
 * frame no symbol names, one note for each of the few files most of them
 * ran in: how to get its symbols (the distribution's debug package, the
 * build-id path a debug file is looked up at).  Not with --quiet.
 */
#define FINISH_UNSYM_PERCENT 10
void finish__unsymbolized_hint(const struct unsym_summary *u, uint64_t samples);

/*
 * With -v, and whenever a process ran a CPython whose frames could not be
 * read: "python: N samples with Python frames, M without (...)", from the
 * counters c[CNT__MAX], the fold's counts and the names' (py: NULL
 * without Python frames: nothing).
 */
void finish__python_summary(const uint64_t *c, const struct fold_py_stats *f,
			    const struct py_names *py);

/* Off-CPU waits lost, by every reason, from the counters c[CNT__MAX]. */
static inline uint64_t finish__offcpu_lost(const uint64_t *c)
{
	return c[CNT_OFFCPU_PENDING_FULL] + c[CNT_OFFCPU_COUNT_FULL] + c[CNT_OFFCPU_STACK_FULL];
}

#endif
