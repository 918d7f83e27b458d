/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel context for --irq-frames and --kworker, included by smolder.bpf.c
 * (one object, one skeleton): the irq, softirq and workqueue tracepoint
 * programs, the per-CPU interrupt state and the work item maps they keep,
 * and what the sampler asks of them: the context a sample interrupted
 * (sample_key.ctx) and the hash naming the work item a kworker runs
 * (sample_key.work).  The loader's side is src/capture/kctx.c, which loads these
 * programs only when an option needs them and the kernel has their
 * tracepoints.
 *
 * Needs from the includer: struct bank and count(), ns_tgid(), PF_KTHREAD
 * and EEXIST.
 */
#ifndef SMOLDER_KCTX_BPF_H
#define SMOLDER_KCTX_BPF_H

/* Set by the loader (kctx.c) between open and load. */
const volatile bool irq_frames = false;     /* sample_key.ctx */
const volatile bool kworker_frames = false; /* sample_key.work */

/*
 * Per CPU: the softirq running (its number + 1, or 0) and how many hardirq
 * handlers, kept by the irq tracepoints.  perf_event programs run on the
 * sampled CPU, so they read the state of the code they interrupted.
 */
struct irq_state {
	__u32 softirq;
	__u32 hardirq;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct irq_state);
	__uint(max_entries, 1);
} irq_states SEC(".maps");

/* A work item a kworker is executing, and the hash that names it. */
struct running_work {
	__u64 id;
	struct work_desc desc;
};

/*
 * Work queued but not started yet: work_struct address -> who queued it.
 * LRU, because work that is cancelled before it runs never comes back.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, struct work_desc);
	__uint(max_entries, 8192); /* 1 without --kworker (set by the loader) */
} queued_work SEC(".maps");

/* Kernel thread id of a kworker -> the work item it executes. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, struct running_work);
	__uint(max_entries, 4096);
} running_work SEC(".maps");

/*
 * Work item hash -> its description, for the loader to name samples'
 * sample_key.work.  The loader empties it at every interval; a sample puts
 * its item back if it is gone.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct work_desc);
	__uint(max_entries, 16384);
} work_names SEC(".maps");

/* ---- Interrupt context (irq_frames, and who queued a work item) ---- */

static __always_inline struct irq_state *this_cpu_irq_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irq_states, &zero);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(on_softirq_entry, unsigned int vec)
{
	struct irq_state *st = this_cpu_irq_state();

	if (st)
		st->softirq = vec + 1;
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(on_softirq_exit, unsigned int vec)
{
	struct irq_state *st = this_cpu_irq_state();

	if (st)
		st->softirq = 0;
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(on_irq_entry, int irq)
{
	struct irq_state *st = this_cpu_irq_state();

	if (st)
		st->hardirq++;
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(on_irq_exit, int irq)
{
	struct irq_state *st = this_cpu_irq_state();

	if (st && st->hardirq) /* 0 when the capture began inside a handler */
		st->hardirq--;
	return 0;
}

/*
 * enum exec_ctx of the code running on this CPU, as the tracepoints saw it.
 * in_sampler: asked by the sampler, which on arm64 runs inside an interrupt
 * handler the tracepoints counted too (the arch timer's, or the PMU's:
 * per-CPU interrupts with an irqaction), not in what it interrupted; on
 * x86_64 its interrupt (the local APIC timer, the PMU's NMI) has none.
 */
static __always_inline __u32 irq_context(bool in_sampler)
{
	struct irq_state *st = this_cpu_irq_state();
	__u32 own = 0;

#if defined(__TARGET_ARCH_arm64)
	own = in_sampler;
#endif
	if (!st)
		return CTX_TASK;
	if (st->hardirq > own)
		return CTX_HARDIRQ;
	if (st->softirq)
		return CTX_SOFTIRQ + ((st->softirq - 1) & 15);
	return CTX_TASK;
}

/* ---- Work items (kworker_frames) ---- */

/* Who is queueing work now: an interrupt, or the current task. */
static __always_inline void describe_queuer(struct work_desc *d)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	d->queued_from = irq_context(false);
	if (d->queued_from != CTX_TASK)
		return;
	d->queued_from = BPF_CORE_READ(task, flags) & PF_KTHREAD ? QUEUED_BY_KTHREAD
								 : QUEUED_BY_TASK;
	d->queuer_tgid = ns_tgid(task);
	bpf_get_current_comm(d->queuer_comm, sizeof(d->queuer_comm));
}

/*
 * The workqueue and function of the item a kworker executes, from its
 * struct worker (the kthread's data: task->worker_private since 5.17,
 * task->set_child_tid before).  For items that began before the capture.
 */
static __always_inline bool worker_current(struct task_struct *task, struct work_desc *d)
{
	struct kthread *kt;
	struct worker *w;

	if (bpf_core_field_exists(task->worker_private))
		kt = BPF_CORE_READ(task, worker_private);
	else
		kt = (struct kthread *)BPF_CORE_READ(task, set_child_tid);
	w = BPF_CORE_READ(kt, data);
	d->func = (__u64)BPF_CORE_READ(w, current_func);
	if (!d->func)
		return false; /* between work items */
	BPF_CORE_READ_STR_INTO(&d->wq, w, current_pwq, wq, name);
	return true;
}

static __always_inline __u64 hash_work(const struct work_desc *d)
{
	const __u64 *w = (const __u64 *)d;
	__u64 h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < sizeof(*d) / sizeof(__u64); i++) {
		h ^= w[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

/*
 * The tracepoint's arguments, not its recorded fields, so the same program
 * reads kernels where the workqueue name is a string field (5.19+) or a
 * pointer; the name itself is read by CO-RE from any WQ_NAME_LEN.
 */
SEC("tp_btf/workqueue_queue_work")
int BPF_PROG(on_queue_work, int req_cpu, struct pool_workqueue *pwq, struct work_struct *work)
{
	struct work_desc d = {};
	__u64 key = (__u64)work;

	BPF_CORE_READ_STR_INTO(&d.wq, pwq, wq, name);
	describe_queuer(&d);
	bpf_map_update_elem(&queued_work, &key, &d, BPF_ANY);
	return 0;
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(on_execute_start, struct work_struct *work)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct running_work rw = {};
	__u64 key = (__u64)work;
	struct work_desc *q = bpf_map_lookup_elem(&queued_work, &key);

	if (q) {
		rw.desc = *q;
		bpf_map_delete_elem(&queued_work, &key);
	} else {
		worker_current(task, &rw.desc); /* queued before we began */
	}
	rw.desc.func = (__u64)BPF_CORE_READ(work, func);
	rw.id = hash_work(&rw.desc);
	bpf_map_update_elem(&running_work, &tid, &rw, BPF_ANY);
	return 0;
}

/*
 * Only the first argument: the function argument came in 5.8.  The entry
 * stays, marked done, so that samples between items are not named by the
 * fallback after the item that just ended.
 */
SEC("tp_btf/workqueue_execute_end")
int BPF_PROG(on_execute_end, struct work_struct *work)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct running_work *rw = bpf_map_lookup_elem(&running_work, &tid);

	if (rw)
		rw->id = 0;
	return 0;
}

/*
 * The hash naming the work item this kworker runs, or 0 between items.  An
 * item that began before the capture is named from the worker itself, with
 * its queuer unknown.
 */
static __always_inline __u64 running_work_id(const struct bank *b, struct task_struct *task)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct running_work *rw = bpf_map_lookup_elem(&running_work, &tid);
	struct running_work fresh = {};
	long err;

	if (!rw) {
		if (!worker_current(task, &fresh.desc))
			return 0;
		fresh.id = hash_work(&fresh.desc);
		rw = &fresh;
	}
	if (!rw->id)
		return 0;
	if (bpf_map_lookup_elem(&work_names, &rw->id))
		return rw->id;
	err = bpf_map_update_elem(&work_names, &rw->id, &rw->desc, BPF_NOEXIST);
	if (err && err != -EEXIST)
		count(b, CNT_WORK_UNNAMED);
	return rw->id;
}

/*
 * With irq_frames: what the timer interrupted.  The tracepoints know the
 * softirqs and interrupt handlers; other work on the IRQ stack (timer and
 * IPI interrupts) is told by the stack pointer, as for the idle task.
 */
static __always_inline __u32 sample_context(bool irq_stack)
{
	__u32 ctx = irq_context(true);

	return ctx == CTX_TASK && irq_stack ? CTX_IRQ_STACK : ctx;
}

#endif
