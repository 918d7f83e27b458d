/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Capture: loads the BPF sampler, attaches it to one cpu-clock perf event per
 * selected CPU, and hands out the aggregated samples, the stacks they
 * reference and the drop counters: after stopping (one-shot), or one
 * interval at a time while sampling goes on (continuous mode).
 *
 * Continuous mode:
 *
 *	c = capture__open(&opts);              opts.rotate = true
 *	loop: sleep; capture__rotate(c);       sampling goes on into the other bank
 *	      capture__for_each_sample / capture__stack / capture__counters
 *	                                       read exactly the interval just ended
 *	      capture__release(c);             clears it for the next rotate
 *	end:  capture__stop(c); capture__rotate(c); read; capture__release(c);
 *	      capture__counters_total(c, ...)  for the whole run
 */
#ifndef SMOLDER_CAPTURE_H
#define SMOLDER_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "capture/filters.h"
#include "capture/offcpu.h"
#include "unwind/unwind_maps.h"
#include "python.h"
#include "smolder.h"

/* Called (from capture__poll) when a process image gets its first sample,
 * and again when its mappings changed since. */
typedef void (*image_fn)(uint32_t tgid, uint32_t gen, void *arg);
/* Called (from capture__poll) when a Python stack is stored for the first
 * time (python_frames): capture__live_stack reads it. */
typedef void (*pystack_fn)(uint32_t tgid, uint32_t gen, uint64_t id, void *arg);

struct capture_opts {
	uint64_t freq;   /* samples per second per CPU, or 0 */
	uint64_t period; /* else: a sample every period ns of CPU time */
	bool kernel_stacks, user_stacks, per_cpu;
	bool irq_frames;     /* sample_key.ctx: interrupt context (--irq-frames) */
	bool kworker_frames; /* sample_key.work: work items (--kworker) */
	enum idle_mode idle_mode;
	bool kernel_mode;    /* --kernel-mode: samples taken in kernel mode only */
	bool kernel_threads; /* --kernel-threads: kernel threads' samples only */
	struct scope_opts scope; /* which tasks (filters.h) */
	const int *cpus; /* CPUs to sample */
	size_t nr_cpus;
	/* Sizes of one bank; continuous mode has two banks, so twice the kernel
	 * memory, but needs room only for the samples of one interval. */
	uint32_t stack_chunks;  /* 16-frame chunks the stack table holds */
	uint32_t count_entries; /* distinct sample keys the count map holds */
	bool rotate;            /* create the second bank now (else at the first rotate) */
	const char *btf_path;   /* --btf: BTF to relocate against, NULL for the kernel's */
	bool dwarf_unwind;      /* --unwind dwarf: user stacks by unwind tables */
	uint64_t unwind_budget; /* --unwind-memory: bytes the tables may take;
				 * 0: UNWIND_DEFAULT_BUDGET */
	bool python_frames;     /* CPython frames of the processes told of
				 * (capture__python_add) */
	struct offcpu_opts offcpu; /* --off-cpu and its options */
	image_fn on_image;      /* may be NULL */
	pystack_fn on_pystack;  /* may be NULL */
	void *arg;
	/* Called once the programs are loaded, when libbpf has freed its copy
	 * of the kernel's BTF (the peak of RSS before sampling): what the
	 * caller starts then does not add to it.  May be NULL. */
	void (*on_loaded)(void *arg);
	void *loaded_arg;
};

/* Processes a COMMAND and its children may count at once (-- COMMAND). */
#define SMOLDER_MAX_FOLLOWED 32768

struct capture;

typedef int (*sample_fn)(const struct sample_key *key, uint64_t count, void *arg);

/* Loads and attaches; sampling runs from here on.  NULL after printing why.
 * capture__load then capture__start. */
struct capture *capture__open(const struct capture_opts *opts);
/* Loads, tracks processes and (--off-cpu) announces the images of the
 * tasks in scope as image events, but samples nothing yet: their tables
 * may load first (capture__poll, then the maps, then capture__settle).
 * NULL after printing why. */
struct capture *capture__load(const struct capture_opts *opts);
/* Waits until the unwind tables queued so far are built and loaded, or
 * until (clock__now() seconds); -ETIMEDOUT then. */
int capture__settle(struct capture *c, double until);
/* Attaches: sampling and off-CPU tracing run from here on, tasks already
 * waiting counted from now; -1 after printing why (then capture__free). */
int capture__start(struct capture *c);
/* False when this kernel gives no image events (no BPF ring buffer). */
bool capture__has_events(struct capture *c);
/* Delivers pending image events for up to timeout_ms; -errno on failure.
 * Returns at once without events. */
int capture__poll(struct capture *c, int timeout_ms);
/* An epoll descriptor readable when image events are pending, to wait on
 * beside others (then capture__poll(c, 0)); -1 without events. */
int capture__events_fd(struct capture *c);
/* The ids of the programs it loaded (at most max); their number. */
size_t capture__prog_ids(struct capture *c, uint32_t *ids, size_t max);
/* True when tgid's current image still has generation gen. */
bool capture__image_current(struct capture *c, uint32_t tgid, uint32_t gen);
/* Detaches every perf event: no sample is taken after this returns.  Exec
 * and exit tracking stays until capture__free. */
void capture__stop(struct capture *c);
/*
 * The readers below see the drained bank between capture__rotate and
 * capture__release, else the live one: the samples since the last rotate,
 * or with none, all of them (after capture__stop, the one-shot result).
 */
/* Calls fn for every sample key and its count (off-CPU keys: nanoseconds;
 * with the waits in progress at the end, or at the rotation, carried). */
int capture__for_each_sample(struct capture *c, sample_fn fn, void *arg);
/* Copies the stack with this id; -ENOENT if the table has no such stack. */
int capture__stack(struct capture *c, uint64_t id, struct stack_trace *out);
/* The same from the bank samples go to now (for stacks just announced). */
int capture__live_stack(struct capture *c, uint64_t id, struct stack_trace *out);
/* The work item that sample_key.work names; -ENOENT if unknown. */
int capture__work_desc(struct capture *c, uint64_t id, struct work_desc *out);
/* The waker that an off-CPU sample_key.work names; -ENOENT if unknown. */
int capture__waker_desc(struct capture *c, uint64_t id, struct waker_desc *out);
/* Samples in scope that --kernel-mode or --kernel-threads left out, in
 * the whole run so far. */
uint64_t capture__kernel_filtered(struct capture *c);
/* Sums the per-CPU drop and sample counters into out[CNT__MAX]. */
void capture__counters(struct capture *c, uint64_t *out);
/*
 * Ends an interval: samples go to the other bank from here on, and once
 * this returns no sample is still being written to the old one, which the
 * readers now see, complete.  Works before and after capture__stop.
 * -EBUSY if the last drained bank was not released; on other errors
 * nothing changed.
 */
int capture__rotate(struct capture *c);
/* Empties the drained bank (samples, stacks, counters; their counters go
 * into the totals) for the next rotate.  No-op without a drained bank.
 * On error the bank stays drained and capture__rotate refuses. */
int capture__release(struct capture *c);
/* Counters since the open: released intervals, the drained and the live bank. */
void capture__counters_total(struct capture *c, uint64_t *out);
/* Kernel memory charged for the BPF maps (both banks when there are two),
 * in bytes (from fdinfo memlock). */
uint64_t capture__map_bytes(struct capture *c);
/* Run time and runs of the sampler's BPF program, or with offcpu of the
 * sched_switch one (non-zero with kernel.bpf_stats_enabled=1). */
void capture__prog_stats(struct capture *c, bool offcpu, uint64_t *run_ns, uint64_t *runs);
/* Hands the unwinder (dwarf_unwind) pid's image gen's maps, just read:
 * usyms' maps hook, with arg the capture.  Without the unwinder, nothing. */
void capture__maps_read(pid_t pid, uint32_t gen, const struct proc_maps *pm, void *arg);
/* Tells the sampler where tgid's interpreter is, for the samples of its
 * image generation pp->gen; -errno (-ENOSPC: the map is full). */
int capture__python_add(struct capture *c, uint32_t tgid, const struct py_proc *pp);
/* What the unwind tables hold (unwind_maps.h); false without dwarf_unwind. */
bool capture__unwind_stats(struct capture *c, struct unwind_maps_stats *out);
void capture__free(struct capture *c);

#endif
