/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Off-CPU time (--off-cpu), the loader's side of bpf/offcpu.bpf.h: loads
 * the sched_switch (and with --wakers sched_waking) programs only when
 * asked, sizes their maps, and counts what the kernel cannot: waits still
 * in progress when a capture or an interval ends, up to that moment.  Those
 * parts are "carried" counts, handed out with the bank's own.
 *
 *	offcpu__configure(skel, &opts);   between open and load
 *	o = offcpu__new(skel, &opts);     after load: announces the images of the
 *	                                  tasks in scope (their tables load now)
 *	offcpu__attach(o, stacks);        when the capture starts: also counts
 *	                                  the tasks already waiting, from now
 *	stop:       offcpu__stop(o, bank, ...)     (one-shot: counts waits in progress)
 *	continuous: t = offcpu__epoch(o, next); flip banks (with a grace period);
 *	            offcpu__boundary(o, &b); read the old bank and the carry;
 *	            offcpu__release(o)
 */
#ifndef SMOLDER_OFFCPU_H
#define SMOLDER_OFFCPU_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "smolder.h"

struct smolder_bpf;
struct offcpu;

struct offcpu_opts {
	bool enabled;             /* --off-cpu */
	bool cgroup_filtered;     /* --cgroup, --cgroupmap: the iterator cannot tell */
	bool wakers;              /* --wakers */
	bool rotate;              /* continuous mode: waits are split at boundaries */
	uint64_t min_ns, max_ns;  /* block time bounds; max 0: none */
	uint32_t sample;          /* --off-cpu-sample: one switch in this many */
	uint32_t pending_entries; /* waits that can be pending at once */
};

/* What a boundary needs of the capture's banks. */
struct offcpu_boundary {
	unsigned int old, next;     /* the bank drained and the one now live */
	uint64_t at;                /* the boundary, from offcpu__epoch */
	int old_stacks, new_stacks; /* their stack maps */
	int grace_outer, grace_inner; /* a map-in-map slot (grace_idx) whose */
	uint32_t grace_idx;           /* update waits for a grace period */
};

typedef int (*offcpu_key_fn)(const struct sample_key *key, uint64_t count, void *arg);

/* Loads the programs only when enabled, picks BTF or raw tracepoints. */
int offcpu__configure(struct smolder_bpf *skel, const struct offcpu_opts *o);
/* After load: the images of the tasks in scope announced (the image events'
 * ring buffer), so that their tables may load before offcpu__attach; NULL
 * after printing why.  Without --off-cpu an empty object. */
struct offcpu *offcpu__new(struct smolder_bpf *skel, const struct offcpu_opts *o);
/* Attaches, then gives each task in scope already waiting a pending wait
 * from now, its stacks stored in the live bank's stack map (live_stacks);
 * -1 after printing why. */
int offcpu__attach(struct offcpu *o, int live_stacks);
/* No switch is traced after this.  One-shot: waits in progress count up
 * to now into the carry (bank: the one read; its slot in grace_outer is
 * rewritten to wait for runs still going); -errno.  Continuous mode counts
 * them at the next offcpu__boundary. */
int offcpu__stop(struct offcpu *o, unsigned int bank, int grace_outer, int grace_inner);
/* Before a bank goes live: the start of its interval, set in the kernel. */
uint64_t offcpu__epoch(struct offcpu *o, unsigned int next);
/* After the flip: waits pending at the boundary count up to it (carry),
 * their stacks copied to the live bank; -errno. */
int offcpu__boundary(struct offcpu *o, const struct offcpu_boundary *b);
/* Calls fn for each carried count (nanoseconds of an off-CPU key). */
int offcpu__for_each_carry(struct offcpu *o, offcpu_key_fn fn, void *arg);
/* Adds the loader's own drops of the carried interval (or of the whole
 * run with total) to c[CNT__MAX], and to the waits the waits it counted
 * at the end of a one-shot capture. */
void offcpu__counters(const struct offcpu *o, uint64_t *c, bool total);
/* The loaded sched_switch program's descriptor, or -1. */
int offcpu__prog_fd(const struct offcpu *o);
/* The waker that sample_key.work names; -ENOENT if unknown. */
int offcpu__waker_desc(struct offcpu *o, uint64_t id, struct waker_desc *out);
/* The interval was read: the carry goes, waker names move to a snapshot. */
int offcpu__release(struct offcpu *o);
void offcpu__free(struct offcpu *o);

#endif
