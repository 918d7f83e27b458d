/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel context tracking for --irq-frames and --kworker: the irq, softirq
 * and workqueue tracepoint programs of the BPF object (bpf/kctx.bpf.h), the
 * probe that they exist on this kernel, and the names of work items that
 * samples carry as hashes (sample_key.work).
 *
 *	kctx__configure(skel, &opts);    between open and load (may turn options off)
 *	k = kctx__attach(skel, &opts);   after load, before sampling
 *	kctx__work_desc(k, id, &desc);   while folding an interval
 *	kctx__end_interval(k);           when the interval is released
 */
#ifndef SMOLDER_KCTX_H
#define SMOLDER_KCTX_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "smolder.h"

struct smolder_bpf;
struct kctx;

struct kctx_opts {
	bool irq_frames;     /* sample_key.ctx */
	bool kworker_frames; /* sample_key.work */
};

/*
 * Sets the sampler's flags and loads only the programs the options need and
 * the kernel has; a missing tracepoint turns its option off with a note.
 * The options actually in effect are written back to *o.
 */
int kctx__configure(struct smolder_bpf *skel, struct kctx_opts *o);
/* Attaches the loaded programs.  NULL (after printing why) on failure. */
struct kctx *kctx__attach(struct smolder_bpf *skel, const struct kctx_opts *o);
/* The description of work item id: -ENOENT if it was never recorded. */
int kctx__work_desc(struct kctx *k, uint64_t id, struct work_desc *out);
/* Moves the recorded descriptions out of the kernel map (continuous mode):
 * those still in use are recorded again by the next sample that needs them. */
int kctx__end_interval(struct kctx *k);
void kctx__free(struct kctx *k);

#endif
