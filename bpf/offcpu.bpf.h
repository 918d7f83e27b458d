/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Off-CPU time (--off-cpu), included by smolder.bpf.c (one object, one
 * skeleton): the sched_switch programs, as a BTF tracepoint and as a raw
 * tracepoint twin for kernels without BTF tracepoints, and the
 * sched_waking ones behind --wakers.  The loader's side is src/capture/offcpu.c,
 * which loads these programs only with --off-cpu.
 *
 * A task in scope that leaves the CPU sleeping (S) or uninterruptible (D)
 * gets its kernel stack (the schedule path) and its user stack walked and
 * stored in the live bank, as a sample's, and a pending record {time it
 * left, key} under its thread id.  When it runs again, the time it was
 * away is added in the kernel to the count map under that key (flagged
 * SAMPLE_OFFCPU_S or _D: its count is nanoseconds) and the record goes.
 * Nothing per switch crosses to user space; every drop is counted.
 *
 * Continuous mode splits waits at interval boundaries: the loader sets
 * offcpu_epoch[bank] (the interval's start) before it makes a bank live,
 * and a run counts only the part of a wait after its bank's epoch.  The
 * loader counts the part before it for every record still pending after
 * the flip (src/capture/offcpu.c); a wait that ended in between, after the flip
 * but before the loader saw its record, leaves that part in the
 * "offcpu_late" map, which the loader reads once it has seen the records.
 *
 * Needs from the includer: struct bank, open_bank(), open_bank_maps(),
 * count(), task_ids(), in_cgroups(), image_gen(), walk_stack(),
 * store_trace(), hash_stack(), count_unwind(), the filters and PF_KTHREAD.
 */
#ifndef SMOLDER_OFFCPU_BPF_H
#define SMOLDER_OFFCPU_BPF_H

/* Set by the loader (offcpu.c) between open and load. */
const volatile __u64 offcpu_min_ns = 1000; /* shorter waits are left out */
const volatile __u64 offcpu_max_ns = 0;    /* longer waits too; 0: no limit */
const volatile __u32 offcpu_sample = 1;    /* record one switch in this many */

/* The start of the interval whose counts go to each bank (bpf_ktime_get_ns
 * time); set by the loader before the bank goes live. */
__u64 offcpu_epoch[SMOLDER_BANKS];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* kernel thread id */
	__type(value, struct offcpu_start);
	__uint(max_entries, 1); /* sized by the loader */
} offcpu_pending SEC(".maps");

/* The record offcpu_leave builds, per CPU, not on its stack (below). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct offcpu_start);
	__uint(max_entries, 1);
} offcpu_leaving SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct offcpu_late_key);
	__type(value, struct offcpu_late);
	__uint(max_entries, 1); /* sized by the loader */
} offcpu_late SEC(".maps");

/* Waker description hash -> description; sample_key.work of off-CPU keys. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct waker_desc);
	__uint(max_entries, 1); /* sized by the loader */
} offcpu_wakers_map SEC(".maps");

#define UNWIND_SLOT_SWITCH 1

#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2

/* Before 5.14 the state was "long state". */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* The user stack of a task leaving the CPU: its saved user registers. */
static __always_inline const struct stack_trace *
offcpu_unwound(const struct bank *b, struct task_struct *task, struct sample_key *key)
{
	struct unwind_scratch *s;

	if (!BPF_CORE_READ(task, mm))
		return NULL;
	if (key->tgid)
		key->gen = image_gen(b, task, key->tgid);
	s = unwind_begin(UNWIND_SLOT_SWITCH, key->tgid, key->gen);
	if (!s)
		return NULL;
	if (!unwind_saved_regs(have_task_pt_regs ? bpf_get_current_task_btf() : task, s))
		return NULL;
	unwind_walk(UNWIND_SLOT_SWITCH, false); /* 5.10 loads it too */
	if (!s->trace.nr)
		return NULL;
	count_unwind(b, s);
	return &s->trace;
}

/* Walks and stores prev's stacks; their ids and flags go into key.  A
 * kernel thread (--kernel-threads) has only its kernel stack. */
static __always_inline void offcpu_stacks(void *ctx, const struct bank *b,
					  struct task_struct *prev, bool kthread,
					  struct sample_key *key)
{
	const struct stack_trace *k = NULL, *u = NULL;
	bool user = user_stacks && !kthread;
	bool lost = false;

	if (kernel_stacks)
		k = walk_stack(ctx, SCRATCH_SWITCH_KERNEL, 0, &key->flags, SAMPLE_KSTACK_ERR);
	if (kthread)
		key->flags |= SAMPLE_KTHREAD;
	if (user && dwarf_unwind)
		u = offcpu_unwound(b, prev, key);
	else if (user)
		u = walk_stack(ctx, SCRATCH_SWITCH_USER, BPF_F_USER_STACK, &key->flags,
			       SAMPLE_USTACK_ERR);
	if (!dwarf_unwind && u && key->tgid)
		key->gen = image_gen(b, prev, key->tgid);
	if (user)
		key->pystack = walk_python(b, prev, key, PY_SLOT_SWITCH, false);
	if (k) {
		key->kstack = hash_stack(k);
		if (!store_trace(b->stacks, k, key->kstack, false)) {
			key->kstack = 0;
			key->flags |= SAMPLE_KSTACK_LOST;
			lost = true;
		}
	}
	if (u) {
		key->ustack = hash_stack(u);
		if (!store_trace(b->stacks, u, key->ustack, false)) {
			key->ustack = 0;
			key->flags |= SAMPLE_USTACK_LOST;
			lost = true;
		}
	}
	if (key->pystack &&
	    py_store_frames(b->idx, PY_SLOT_SWITCH, key->tgid, key->gen, key->pystack)) {
		key->pystack = 0;
		key->flags |= SAMPLE_PYSTACK_LOST;
		lost = true;
	}
	if (lost)
		count(b, CNT_OFFCPU_STACK_FULL);
	if (key->flags & SAMPLE_KSTACK_ERR)
		count(b, CNT_KSTACK_ERR);
	if (key->flags & SAMPLE_USTACK_ERR)
		count(b, CNT_USTACK_ERR);
}

/* prev leaves the CPU: a pending record if it waits and is in scope. */
static __noinline void offcpu_leave(void *ctx, bool preempt, struct task_struct *prev)
{
	struct offcpu_start *rec;
	struct sample_key *key;
	__u32 state, tid, zero = 0;
	bool kthread;
	struct bank b;

	/* preempted: still runnable, whatever state it was setting */
	if (preempt)
		return;
	state = task_state(prev);
	if (!(state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)))
		return;
	/* user tasks' waits, or with --kernel-threads kernel threads' only */
	kthread = BPF_CORE_READ(prev, flags) & PF_KTHREAD;
	if (kthread != kernel_threads_only)
		return;
	if (offcpu_sample > 1 && bpf_get_prandom_u32() % offcpu_sample)
		return;
	if (!(rec = bpf_map_lookup_elem(&offcpu_leaving, &zero)))
		return;
	__builtin_memset(rec, 0, sizeof(*rec));
	key = &rec->key;
	open_bank(&b);
	/* sched_switch runs in prev's context: "current" is prev */
	if (!task_ids(prev, key)) {
		count(&b, CNT_PIDNS_MISS);
		key->flags |= SAMPLE_FOREIGN_PID;
	}
	if (self_tgid && key->tgid == self_tgid)
		return;
	if (filter_tgid && !bpf_map_lookup_elem(&tgids, &key->tgid))
		return;
	if (filter_tid && !bpf_map_lookup_elem(&tids, &key->pid))
		return;
	if (!in_cgroups(prev) || !open_bank_maps(&b))
		return;
	key->flags |= state & TASK_UNINTERRUPTIBLE ? SAMPLE_OFFCPU_D : SAMPLE_OFFCPU_S;
	if (per_cpu)
		key->cpu = bpf_get_smp_processor_id(); /* the CPU it left */
	bpf_get_current_comm(&key->comm, sizeof(key->comm));
	offcpu_stacks(ctx, &b, prev, kthread, key);
	tid = BPF_CORE_READ(prev, pid);
	rec->start = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&offcpu_pending, &tid, rec, BPF_ANY))
		count(&b, CNT_OFFCPU_PENDING_FULL);
}

/* Adds ns to key's count in bank b. */
static __always_inline void offcpu_add(const struct bank *b, struct sample_key *key, __u64 ns)
{
	__u64 *v = bpf_map_lookup_elem(b->counts, key);
	long err;

	if (v) {
		__sync_fetch_and_add(v, ns);
		return;
	}
	err = bpf_map_update_elem(b->counts, key, &ns, BPF_NOEXIST);
	if (err == -EEXIST) {
		v = bpf_map_lookup_elem(b->counts, key);
		if (v)
			__sync_fetch_and_add(v, ns);
	} else if (err) {
		count(b, CNT_OFFCPU_COUNT_FULL);
	}
}

/*
 * A wait that began before this bank's epoch ended after the flip: the part
 * before the epoch belongs to the interval that ended there.  The loader
 * counts it unless it already did from the pending record (same tid and
 * start).
 */
static __always_inline void offcpu_spill(const struct bank *b, __u32 tid,
					 const struct offcpu_start *rec, __u64 epoch)
{
	__u64 prev_epoch = offcpu_epoch[(b->idx + 1) & (SMOLDER_BANKS - 1)];
	__u64 from = rec->start > prev_epoch ? rec->start : prev_epoch;
	struct offcpu_late_key lk = { .tid = tid, .bank = b->idx };
	struct offcpu_late late = { .start = rec->start, .key = rec->key };

	if (from >= epoch)
		return;
	late.ns = (epoch - from) * offcpu_sample;
	if (bpf_map_update_elem(&offcpu_late, &lk, &late, BPF_ANY))
		count(b, CNT_OFFCPU_COUNT_FULL);
}

/* next runs again: the time it was away goes to its key. */
static __noinline void offcpu_return(struct task_struct *next)
{
	__u32 tid = BPF_CORE_READ(next, pid);
	struct offcpu_start *p = bpf_map_lookup_elem(&offcpu_pending, &tid), rec;
	__u64 now, epoch, wait;
	struct bank b;

	if (!p)
		return;
	rec = *p;
	/* a record counts once, for the run that deletes it */
	if (bpf_map_delete_elem(&offcpu_pending, &tid))
		return;
	now = bpf_ktime_get_ns();
	open_bank(&b);
	wait = now - rec.start;
	if (wait < offcpu_min_ns) {
		count(&b, CNT_OFFCPU_SHORT);
		return;
	}
	if (offcpu_max_ns && wait > offcpu_max_ns) {
		count(&b, CNT_OFFCPU_LONG);
		return;
	}
	if (!open_bank_maps(&b))
		return;
	epoch = offcpu_epoch[b.idx & (SMOLDER_BANKS - 1)];
	if (rec.start < epoch) {
		offcpu_spill(&b, tid, &rec, epoch);
		rec.start = epoch;
	}
	count(&b, CNT_OFFCPU_WAITS);
	offcpu_add(&b, &rec.key, (now - rec.start) * offcpu_sample);
}

static __always_inline void offcpu_switch(void *ctx, bool preempt, struct task_struct *prev,
					  struct task_struct *next)
{
	offcpu_leave(ctx, preempt, prev);
	offcpu_return(next);
}

/* 6.18 passes prev_state too; 5.10 does not: the state is read from prev. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	offcpu_switch(ctx, preempt, prev, next);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	offcpu_switch(ctx, preempt, prev, next);
	return 0;
}

/* --wakers: who wakes a task that has a pending record, and from where. */
static __always_inline void offcpu_waking(void *ctx, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct offcpu_start *rec = bpf_map_lookup_elem(&offcpu_pending, &tid);
	struct waker_desc d = {};
	const struct stack_trace *k;
	__u32 flags = 0;
	struct bank b;
	__u64 id;

	if (!rec)
		return;
	open_bank(&b);
	if (!open_bank_maps(&b))
		return;
	bpf_get_current_comm(&d.comm, sizeof(d.comm));
	/* even with -U: only its stack tells an interrupt from the task it
	 * landed on, whose comm this is */
	if ((k = walk_stack(ctx, SCRATCH_WAKER, 0, &flags, 1))) {
		d.kstack = hash_stack(k);
		if (!store_trace(b.stacks, k, d.kstack, false)) {
			d.kstack = 0;
			count(&b, CNT_OFFCPU_STACK_FULL);
		}
	}
	id = d.kstack ^ (*(__u64 *)d.comm * 0x9e3779b97f4a7c15ULL) ^
	     (*(__u64 *)&d.comm[8] * 0xff51afd7ed558ccdULL);
	id = id ? id : 1;
	if (bpf_map_update_elem(&offcpu_wakers_map, &id, &d, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&offcpu_wakers_map, &id)) {
		count(&b, CNT_OFFCPU_WAKERS_UNNAMED);
		id = 0;
	}
	rec->key.work = id;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	offcpu_waking(ctx, p);
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(on_waking_raw, struct task_struct *p)
{
	offcpu_waking(ctx, p);
	return 0;
}

/*
 * ---- Tasks already waiting when the capture begins ("offcpu_waiting", a
 * task iterator the loader runs once, right after the sched_switch program
 * is attached; 5.8+, bpf_get_task_stack 5.9+).  A task that waits for the
 * whole capture never leaves the CPU during it: without this it would not
 * be seen at all.  Each task in scope that sleeps (S or D) off the CPU gets
 * a pending record from now, as if it had left the CPU at the capture's
 * start, unless a real switch wrote one first (BPF_NOEXIST), and its
 * kernel stack.  Its user stack cannot be walked here: this program runs in
 * the loader's context, and bpf_probe_read_user reads the loader's memory.
 * Its saved user registers go to the iterator's output instead, and the
 * loader walks that stack and patches the record (src/capture/offcpu.c).
 * The cgroup filters test the current task: the loader does not run this
 * program with them.
 */

/* 5.16 moved the task's CPU into its thread_info. */
struct task_struct___pre516 {
	int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 waiting_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___pre516 *)t, cpu);
}

/* task_ids for a task that is not the current one. */
static __always_inline bool waiting_ids(struct task_struct *task, struct sample_key *key)
{
	long tgid, pid;

	if (pidns_inum == PROC_PID_INIT_INO) {
		key->tgid = BPF_CORE_READ(task, tgid);
		key->pid = BPF_CORE_READ(task, pid);
		return true;
	}
	pid = pid_in_our_ns(BPF_CORE_READ(task, thread_pid));
	tgid = pid_in_our_ns(BPF_CORE_READ(task, group_leader, thread_pid));
	if (pid < 0 || tgid < 0)
		return false;
	key->tgid = tgid;
	key->pid = pid;
	return true;
}

/* Its kernel stack, stored in bank b; the id and flags go into key. */
static __always_inline void waiting_kstack(const struct bank *b, struct task_struct *task,
					   struct sample_key *key)
{
	__u32 slot = SCRATCH_WAITING;
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);
	long len;

	if (!st)
		return;
	len = bpf_get_task_stack(task, st->ip, SMOLDER_MAX_DEPTH * sizeof(__u64), 0);
	if (len <= 0) {
		if (len < 0) {
			key->flags |= SAMPLE_KSTACK_ERR;
			count(b, CNT_KSTACK_ERR);
		}
		return;
	}
	st->nr = len / sizeof(__u64);
	st->exact = 0;
	key->kstack = hash_stack(st);
	if (!store_trace(b->stacks, st, key->kstack, false)) {
		key->kstack = 0;
		key->flags |= SAMPLE_KSTACK_LOST;
		count(b, CNT_OFFCPU_STACK_FULL);
	}
}

/* The user registers task saved on its way into the kernel. */
static __always_inline void waiting_regs(struct task_struct *task, struct offcpu_waiting *out)
{
	struct unwind_regs r;
	struct pt_regs *regs;

	if (have_task_pt_regs)
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
	else
		regs = (struct pt_regs *)((__u64)BPF_CORE_READ(task, stack) + thread_size) - 1;
	unwind_read_regs_core(regs, &r);
	out->ip = r.pc;
	out->sp = r.sp;
	out->bp = r.fp;
	out->lr = r.lr;
	if ((__s64)out->ip <= 0)
		out->ip = 0;
}

/* Set by the loader: the first run only announces the images of the tasks
 * in scope (their tables load before the capture starts); the second
 * writes the records. */
__u32 offcpu_waiting_record = 0;

/* The iterator's scope: offcpu_leave's filters, but those of the cgroups. */
static __always_inline bool waiting_in_scope(struct task_struct *task, struct sample_key *key)
{
	__u64 ns;

	if (!waiting_ids(task, key))
		return false; /* not in our PID namespace: never in -p's scope either */
	if (self_tgid && key->tgid == self_tgid)
		return false; /* smolder's own threads, as offcpu_leave leaves them */
	if (filter_tgid && !bpf_map_lookup_elem(&tgids, &key->tgid))
		return false;
	if (filter_tid && !bpf_map_lookup_elem(&tids, &key->pid))
		return false;
	if (filter_mntns) {
		ns = BPF_CORE_READ(task, nsproxy, mnt_ns, ns.inum);
		if (!bpf_map_lookup_elem(&mntnsset, &ns))
			return false;
	}
	return true;
}

/* The loader's own child that waits to exec -- COMMAND (it runs once the
 * capture started): its wait is the loader's, not the command's. */
static __always_inline bool held_command(struct task_struct *task)
{
	return (BPF_CORE_READ(task, flags) & PF_FORKNOEXEC) &&
	       BPF_CORE_READ(task, real_parent, tgid) ==
		       BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), tgid);
}

SEC("iter/task")
int offcpu_waiting(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct offcpu_waiting out = {};
	struct offcpu_start rec = {};
	struct sample_key *key = &rec.key;
	bool waiting, user;
	__u32 state, tid;
	struct bank b;
	long e;

	/* user tasks, or with --kernel-threads kernel threads only, as
	 * offcpu_leave chooses */
	if (!task || !!(BPF_CORE_READ(task, flags) & PF_KTHREAD) != kernel_threads_only ||
	    held_command(task))
		return 0;
	state = task_state(task);
	waiting = !BPF_CORE_READ(task, on_cpu) &&
		  (state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE));
	open_bank(&b);
	if (!waiting_in_scope(task, key))
		return 0;
	user = user_stacks && key->tgid && BPF_CORE_READ(task, mm);
	if (!offcpu_waiting_record) {
		/* the targets -p or a COMMAND named: a whole machine's images
		 * would hold the start up for seconds */
		if (user && (filter_tgid || filter_tid))
			announce_early(&b, task, key->tgid);
		return 0;
	}
	if (!waiting || (offcpu_sample > 1 && bpf_get_prandom_u32() % offcpu_sample) ||
	    !open_bank_maps(&b))
		return 0;
	key->flags |= state & TASK_UNINTERRUPTIBLE ? SAMPLE_OFFCPU_D : SAMPLE_OFFCPU_S;
	if (per_cpu)
		key->cpu = waiting_cpu(task);
	BPF_CORE_READ_STR_INTO(&key->comm, task, comm);
	if (kernel_stacks)
		waiting_kstack(&b, task, key);
	if (user) {
		key->gen = image_gen(&b, task, key->tgid);
		waiting_regs(task, &out);
	}
	tid = BPF_CORE_READ(task, pid);
	rec.start = bpf_ktime_get_ns();
	e = bpf_map_update_elem(&offcpu_pending, &tid, &rec, BPF_NOEXIST);
	if (e) {
		if (e != -EEXIST) /* else: it switched since, and its record is whole */
			count(&b, CNT_OFFCPU_PENDING_FULL);
		return 0;
	}
	out.tid = tid;
	out.tgid = key->tgid;
	out.gen = key->gen;
	out.start = rec.start;
	bpf_seq_write(ctx->meta->seq, &out, sizeof(out));
	return 0;
}

#endif /* SMOLDER_OFFCPU_BPF_H */
