/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Folding: turns counted samples (key + kernel and user stacks) into named
 * stacks, proc, user_root ... user_leaf, "-", kernel_root ... kernel_leaf,
 * and merges the ones that name the same frames.  Frames are interned into
 * a profile (profile.h) as they are named, and stacks merge by their frame
 * ids: no text is built.  Every output format reads the profile.
 */
#ifndef SMOLDER_FOLD_H
#define SMOLDER_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "interp/python/py_names.h"
#include "profile/profile.h"
#include "smolder.h"
#include "symbols/usyms.h"

struct ksyms;

/* Describes the work item a sample_key.work names; -ENOENT if unknown. */
typedef int (*work_desc_fn)(void *arg, uint64_t id, struct work_desc *out);
/* Describes the waker an off-CPU sample_key.work names; -ENOENT if unknown. */
typedef int (*waker_desc_fn)(void *arg, uint64_t id, struct waker_desc *out);

enum proc_frame {
	PROC_COMM,   /* "comm" */
	PROC_PID,    /* "comm-PID" (--per-pid) */
	PROC_THREAD, /* "comm-PID/TID" (--per-thread) */
};

struct fold_opts {
	bool user, kernel;    /* which stacks to name */
	bool delimiter;       /* "-" between user and kernel frames (-d) */
	bool annotate;        /* "_[k]" after kernel frames, "_[j]" after JIT ones,
			       * "_[py]" after Python ones, "_[i]" after inlined
			       * ones (-a) */
	/* CPython frames in place of the interpreter loop (NULL: none), with
	 * the line in their names (--python-lines) */
	struct py_names *py;
	bool python_lines;
	/* the leaf user frame names its source line, from DWARF (--lines) */
	bool source_lines;
	bool module_names;    /* "func [module]" for module frames */
	bool per_cpu;         /* "cpu_N" first */
	enum proc_frame proc; /* the process frame */
	bool by_process;      /* never merge stacks of different processes */
	/* each process's cgroup v2 path and container id on its stacks'
	 * origins (with by_process; cgroup_labels.h) */
	bool cgroup_labels;
	/* Kernel context, right above the process frame (see ctxframes.h): */
	bool group_threads;   /* kworker/u16:3 -> kworker (--group-threads) */
	bool irq_frames;      /* [irq], [softirq:NET_RX] (--irq-frames) */
	bool kworker_frames;  /* wq:NAME;FUNC;queued-by:COMM-PID (--kworker) */
	bool idle_paths;      /* [idle:halt] ..., counted per CPU (--idle-only) */
	work_desc_fn work_desc; /* names sample_key.work (with kworker_frames) */
	void *work_arg;
	/*
	 * --off-cpu: counts are microseconds, CPU samples sample_ns each,
	 * off-CPU keys their nanoseconds; those stacks end in [off-cpu:S] or
	 * [off-cpu:D], and with wakers woken-by:COMM (woken-by-irq,
	 * woken-by-softirq, woken-by-unknown for what is no task) and the
	 * waker's kernel stack (named by waker_desc, with work_arg).
	 */
	bool time_weighted;
	double sample_ns;
	bool wakers;
	waker_desc_fn waker_desc;
};

struct fold;

struct fold *fold__new(const struct fold_opts *opts, const struct ksyms *ksyms,
		       struct usyms *usyms);
/* Adds count samples (off-CPU keys: nanoseconds); kst/ust are NULL where
 * the sample has no such stack. */
int fold__add(struct fold *f, const struct sample_key *key, uint64_t count,
	      const struct stack_trace *kst, const struct stack_trace *ust);
/* The stacks of a sample, NULL where it has none: kernel, user, its
 * Python frames (include/python.h), an off-CPU key's waker's kernel stack. */
struct fold_stacks {
	const struct stack_trace *kernel, *user, *python, *waker;
};
/* The same, with every stack. */
int fold__add_stacks(struct fold *f, const struct sample_key *key, uint64_t count,
		     const struct fold_stacks *st);
/* The same, with wst: an off-CPU key's waker's kernel stack, or NULL. */
int fold__add_woken(struct fold *f, const struct sample_key *key, uint64_t count,
		    const struct stack_trace *kst, const struct stack_trace *ust,
		    const struct stack_trace *wst);
/*
 * The merged stacks, most samples first (ties by their folded text), each
 * with its origin (profile.h: process, thread, CPU, sections); owned by f,
 * which may add to it again after.  Time-weighted counts are rounded to
 * whole microseconds here, each stack's sum.  NULL on -ENOMEM.
 */
struct profile *fold__profile(struct fold *f);
/* Samples added (off-CPU keys are not samples). */
uint64_t fold__total(const struct fold *f);
/* With idle_paths: samples by CPU and idle path, [cpu * IDLE_PATH__MAX +
 * path] for cpu < MAX_CPUS; NULL when no idle sample was added. */
const uint64_t *fold__idle_paths(const struct fold *f);
/* CPU samples added with an "[unknown]" user frame, by the reason of the
 * leaf-most one: USYMS_MISS__MAX counts (USYMS_NAMED stays 0). */
/* Samples whose cgroup label is "other": over CGROUP_LABELS_MAX values. */
uint64_t fold__cgroup_other(const struct fold *f);
const uint64_t *fold__unnamed(const struct fold *f);
/* CPU samples with a user frame no symbol names, in all and by file. */
struct unsym_summary;
void fold__unsymbolized(const struct fold *f, struct unsym_summary *out);
/* CPU samples of processes with CPython: with Python frames, without
 * (a thread outside Python, or frames not found), of a version whose frames
 * cannot be read, and with an unnamed Python frame by the reason of the
 * innermost one (py_miss[PY_MISS__MAX]). */
struct fold_py_stats {
	uint64_t with, without, unsupported;
	uint64_t miss[PY_MISS__MAX];
};
void fold__py_stats(const struct fold *f, struct fold_py_stats *out);
void fold__free(struct fold *f);

#endif
