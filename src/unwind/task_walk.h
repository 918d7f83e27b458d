/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The user stack of a task that is not ours to run a BPF walk in: a task
 * found waiting when an off-CPU capture began (the kernel walks another
 * task's kernel stack, never its user stack, and a BPF walk reads only the
 * current task's memory).  Walked from its saved user registers by the same
 * code and tables as the BPF unwinder's (bpf/unwind.bpf.h over the kernel's
 * unwind maps), its memory read with process_vm_readv (root).  Frames whose
 * table is missing fall back to frame pointers, as in the kernel.
 */
#ifndef SMOLDER_TASK_WALK_H
#define SMOLDER_TASK_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "smolder.h"

/* The unwinder's maps in the kernel, and its configuration. */
struct task_walk_maps {
	int shards_fd, files_fd, mappings_fd;
	uint32_t shard_bits, max_shards;
	bool image_events;
};

/* Where the walk starts: the process image and its saved registers. */
struct task_walk_regs {
	pid_t tgid;   /* in our PID namespace: whose memory is read */
	uint32_t gen; /* the image generation its mappings were read for */
	uint64_t ip, sp, bp;
	uint64_t lr; /* arm64's link register (x30): a leaf's caller */
};

/* Set in task_walk__stack's result with a walk that reached the outermost
 * frame; the other bits are bpf/unwind.bpf.h's enum unwind_reason. */
#define TASK_WALK_COMPLETE (1u << 31)

/* Walks r's stack into out (leaf first; nr 0 when nothing could be read).
 * The shards it opened stay open for the next walk over the same m. */
uint32_t task_walk__stack(const struct task_walk_maps *m, const struct task_walk_regs *r,
			  struct stack_trace *out);
/* Closes the shards the walks opened. */
void task_walk__end(void);

#endif
