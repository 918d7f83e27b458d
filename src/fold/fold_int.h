/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Folding's state, shared by fold.c and the files that name parts of a
 * sample for it (fold_inline.c: inline chains): the sample being named,
 * its frames' ids and where they were, and what is counted on the way.
 */
#ifndef SMOLDER_FOLD_INT_H
#define SMOLDER_FOLD_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "files/dwarf_names.h"
#include "fold/fold.h"
#include "fold/pyframes.h"
#include "fold/unsym.h"

#define NAME_MAX_LEN 1024
/* Inlined frames one sample may add (deeper chains keep their outer frames). */
#define FOLD_MAX_INLINED (2 * SMOLDER_MAX_DEPTH)
/* The most frames a sample names: cpu_N, the process, [idle:...], [irq],
 * three work item frames; user frames with their inlined ones, "-", kernel
 * frames; [off-cpu:S], woken-by:COMM (or woken-by-irq...) and the waker's
 * kernel frames, or woken-by-timer alone. */
#define FOLD_MAX_FRAMES (7 + PYFRAMES_MAX + 1 + SMOLDER_MAX_DEPTH + FOLD_MAX_INLINED + 2 + \
			 SMOLDER_MAX_DEPTH)

struct fold {
	struct fold_opts o;
	const struct ksyms *ksyms;
	struct usyms *usyms;
	struct profile *p;  /* the merged stacks, each with its origin */
	uint32_t *slots;    /* index + 1 into p's stacks, 0 = empty */
	size_t nslots;
	uint64_t total;
	bool sorted;        /* p is sorted: the slots point at other stacks */
	uint32_t ids[FOLD_MAX_FRAMES]; /* the sample being named */
	struct paddr_frame at[FOLD_MAX_FRAMES]; /* where its frames were */
	uint32_t nr_ids;
	uint32_t nr_inlined; /* inlined frames the sample has added */
	uint64_t *idle; /* [cpu * IDLE_PATH__MAX + path], allocated when needed */
	uint64_t unnamed[USYMS_MISS__MAX];
	struct unsym_tally *unsym; /* files whose code ran without symbols */
	struct cgroup_labels *cgroups; /* with cgroup_labels */
	uint64_t cgroup_other; /* samples labelled cgroup "other" */
	struct fold_py_stats py;
	/* the sample being named: its Python frames, and its merged stack */
	enum { PY_NONE, PY_WITH, PY_WITHOUT, PY_UNSUPPORTED } py_kind;
	enum py_miss py_miss;
	struct merged_frame merged[PYFRAMES_MAX];
};

/* Appends the frame name + suffix to the sample being named; -E2BIG when
 * it is full, -ENOMEM. */
int fold_push_frame(struct fold *f, const char *name, const char *suffix);
/*
 * fold_inline.c: after the frame of native function `outer` (just pushed),
 * its inline chain c: each inlined function a frame at the same address
 * ("_[i]" with -a), and with --lines, when leaf, the innermost's line in
 * the last name.  -ENOMEM.
 */
int fold_inline_frames(struct fold *f, const char *outer, const struct dwarf_chain *c, bool leaf);

#endif
