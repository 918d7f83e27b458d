/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names of the frames that say in what kernel context a sample ran, put
 * right above the process frame (--irq-frames, --kworker, --idle-only), and
 * the grouping of per-CPU kernel thread names (--group-threads).  Pure
 * functions of their inputs: folding decides where the names go.
 */
#ifndef SMOLDER_CTXFRAMES_H
#define SMOLDER_CTXFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "smolder.h"

/*
 * The name a kernel thread's comm groups under, written to buf: "BASE/N..."
 * becomes BASE when what follows the slash is a CPU or pool number (starts
 * with a digit, or with "u" and a digit) or a rescuer's "R-" name:
 * kworker/u16:3, kworker/2:1H, kworker/R-kblockd -> kworker; ksoftirqd/0,
 * migration/3, idle_inject/1, cpuhp/1, swapper/0 -> their base.  Threaded
 * interrupt handlers keep their device: irq/24-nvme0q1 -> irq/nvme0q1.
 * False (buf untouched) for every other name.
 */
bool ctxframes__group_thread(const char *comm, char *buf, size_t len);

/*
 * "[irq]" or "[softirq:NET_RX]" for a sample_key.ctx; false for CTX_TASK.
 * CTX_IRQ_STACK is "[softirq]" when in_softirq_loop (the kernel stack runs
 * the softirq loop, outside any one handler), else "[irq]".
 */
bool ctxframes__irq(uint32_t ctx, bool in_softirq_loop, char *buf, size_t len);
/* True for the kernel's softirq loop: handle_softirqs, __do_softirq. */
bool ctxframes__is_softirq_loop(const char *func);
/* True for a timer's expiry waking a sleeper: hrtimer_wakeup (nanosleep,
 * timed futex and poll waits), process_timeout (schedule_timeout). */
bool ctxframes__is_timer_wakeup(const char *func);

/* "queued-by:dd-1234", "queued-by:[softirq:TIMER]", "queued-by:[unknown]";
 * with group, a kernel thread queuer is its group name without a PID. */
void ctxframes__queuer(const struct work_desc *d, bool group, char *buf, size_t len);

/* How an idle CPU waited (--idle-only), from the leaf-most known frame. */
enum idle_path {
	IDLE_PATH_HALT,    /* hlt / wfi: default_idle, *_safe_halt, cpu_do_idle */
	IDLE_PATH_MWAIT,   /* a C-state entered by mwait (intel_idle, ACPI FFH) */
	IDLE_PATH_POLL,    /* spinning: cpu_idle_poll, cpuidle's poll state */
	IDLE_PATH_CPUIDLE, /* another cpuidle driver state (ACPI I/O, PSCI) */
	IDLE_PATH_INJECT,  /* forced idle: idle_inject (thermal, powercap) */
	IDLE_PATH_OTHER,   /* the idle loop outside a waiting instruction */
	IDLE_PATH__MAX,
};

/* The path a kernel function name marks, or IDLE_PATH__MAX for none.
 * cpuidle_enter_state marks IDLE_PATH_CPUIDLE: a weaker hint that a
 * leaf-ward frame overrides. */
enum idle_path ctxframes__idle_path_of(const char *func);
/* "halt", "mwait", ...: the frame is "[idle:" name "]". */
const char *ctxframes__idle_path_name(enum idle_path p);

#endif
