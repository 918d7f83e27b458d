// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sampler: runs on every cpu-clock perf event, classifies the sample
 * (idle loop, interrupt work, task), walks the kernel and user stacks, stores
 * each stack once by content, and counts the sample under its key.  Nothing
 * per sample crosses to user space; whatever cannot be stored is counted by
 * reason in the "counters" map.
 *
 * Stacks, counts and counters come in two banks (see SMOLDER_BANKS): a run
 * reads live_bank once and puts everything of its sample in that bank, so
 * the loader can drain the other one while sampling goes on.
 *
 * The sampler is two programs from one source (see the end): do_sample,
 * whose loops are bpf_loop calls (5.17) the verifier checks a body once,
 * and do_sample_unrolled for older kernels; the loader loads one.
 *
 * Three parts live in headers included here, so the object and its
 * skeleton stay one: the DWARF unwinder (unwind.bpf.h), the kernel-context
 * tracepoints behind sample_key.ctx and sample_key.work (kctx.bpf.h) and
 * the off-CPU programs (offcpu.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "smolder.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Configuration, set by the loader between open and load. */
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;
const volatile bool per_cpu = false;
const volatile bool filter_tgid = false;
const volatile bool filter_tid = false;
const volatile bool follow_forks = false;    /* children of tgids join tgids */
const volatile bool filter_cgroup = false;   /* --cgroup: cgroup_filter[0] and below */
const volatile bool filter_cgroupmap = false; /* --cgroupmap: cgroup ids in cgroupset */
const volatile bool filter_mntns = false;    /* --mntnsmap: mount namespaces in mntnsset */
const volatile __u32 idle_mode = IDLE_EXCLUDE;
/* --kernel-mode: only samples taken in kernel mode; --kernel-threads: only
 * kernel threads' (the idle task is one); the rest are counted, not kept */
const volatile bool kernel_mode_only = false;
const volatile bool kernel_threads_only = false;
const volatile __u32 pidns_inum = 0xeffffffcU; /* our PID namespace */
/* smolder's own process, in our PID namespace: left out of samples and
 * waits, or its reading of the maps would be a tower of every profile
 * (0: profiled, as when -p names it) */
const volatile __u32 self_tgid = 0;
const volatile __u64 thread_size = 16384; /* THREAD_SIZE of the running kernel */
/* False on kernels without a BPF ring buffer (before 5.8): "events" is not
 * created, and this keeps its use out of the verified program. */
const volatile bool image_events = true;
/* The DWARF unwinder's (unwind.bpf.h reads unwind_shard_bits and
 * image_events; it defines no configuration, so tests/replay can compile
 * it for user space with its own). */
const volatile bool dwarf_unwind = false;    /* --unwind dwarf */
const volatile __u32 unwind_shard_bits = 16; /* log2 of a shard's slots */
const volatile bool have_task_pt_regs = false; /* bpf_task_pt_regs (5.15) */
const volatile bool python_frames = false; /* CPython frames (python.bpf.h) */

/*
 * The bank samples go to; the loader flips it (capture__rotate) and then
 * waits until no run that read the old value is still going.
 */
__u32 live_bank = 0;

/*
 * Samples in scope that --kernel-mode or --kernel-threads left out: left
 * out on request, so not lost, and not in the "counters" map, whose layout
 * recordings (session/recording.c) keep.  The loader reads it at the end.
 */
__u64 kernel_filtered = 0;

/*
 * Outer maps with one count map and one stack map per bank.  The inner maps
 * are created and sized by the loader; these definitions are only their
 * shape, which the kernel checks every inner map against.  Going through an
 * array of maps costs one inlined array lookup per run, and keeps every
 * helper call on an inner map a direct one (all inner maps share one shape,
 * so the verifier still knows which functions to call).
 */
struct count_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	/* sizes, not types: clang leaves types this deep as forward declarations */
	__uint(key_size, sizeof(struct sample_key));
	__uint(value_size, sizeof(__u64));
	__uint(max_entries, 1);
};

struct stack_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct stack_chunk_key));
	__uint(value_size, sizeof(struct stack_chunk));
	__uint(max_entries, 1);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, SMOLDER_BANKS);
	__array(values, struct count_map);
} count_banks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, SMOLDER_BANKS);
	__array(values, struct stack_map);
} stack_banks SEC(".maps");

/* Per CPU: the kernel stack (SCRATCH_KERNEL) and the frame-pointer user
 * stack (SCRATCH_USER) of the sample, kept until it is counted; the
 * off-CPU programs' own (offcpu.bpf.h), as a wakeup may be interrupted by
 * a sample. */
enum { SCRATCH_KERNEL, SCRATCH_USER, SCRATCH_SWITCH_KERNEL, SCRATCH_SWITCH_USER, SCRATCH_WAKER,
       SCRATCH_WAITING, SCRATCH__MAX };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct stack_trace);
	__uint(max_entries, SCRATCH__MAX);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, SMOLDER_BANKS * CNT__MAX); /* bank * CNT__MAX + counter */
} counters SEC(".maps");

/* Per CPU: the chunk do_sample writes a stack's chunks through (store_trace
 * with bpf_loop), not on the BPF stack: its frame and those of the calls
 * below it (the Python walk's) share 512 bytes, and 6.1 counts 24 more for
 * each bpf_loop it inlines. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct stack_chunk);
	__uint(max_entries, 1);
} chunk_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1); /* sized by the loader */
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1); /* sized by the loader */
} tids SEC(".maps");

/* --cgroup PATH: the cgroup (v2) whose tasks, and its descendants', count. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} cgroup_filter SEC(".maps");

/*
 * bcc's --cgroupmap and --mntnsmap: pinned hashes (cgroup id -> any, mount
 * namespace inode -> any) that other tools fill; the loader reuses the
 * pinned map, whatever its size.  Unused, they keep one entry.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 1);
} cgroupset SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u32);
	__uint(max_entries, 1);
} mntnsset SEC(".maps");

/*
 * tgid -> its current image.  A plain hash, not an LRU one: entries leave
 * only at exit and exec, so a live image is never evicted and given a
 * second generation that would invalidate the maps read for the first.
 * When it is full anyway, new images go untracked (generation 0, named
 * from their maps at the end) and are counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct image_state);
	__uint(max_entries, 4096);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} events SEC(".maps");

__u32 next_gen = 0;

/*
 * Epochs of "procs" entries, by tgid modulo PROCS_EPOCHS: a slot moves on
 * whenever an entry of its tgids goes (exec, exit) or changes its
 * map_count, which makes every CPU's image_cache entry of those tgids
 * stale.  Slots, not one epoch, so that processes coming and going
 * elsewhere on the machine leave the cache of a sampled one alone.
 */
#define PROCS_EPOCHS 64
__u32 procs_epoch[PROCS_EPOCHS] = {};

static __always_inline void procs_changed(__u32 tgid)
{
	__sync_fetch_and_add(&procs_epoch[tgid & (PROCS_EPOCHS - 1)], 1);
}

/* Per CPU: the last image image_gen answered for (see there). */
struct image_cache {
	__u64 mm;
	__u32 tgid, map_count, gen, epoch;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct image_cache);
	__uint(max_entries, 1);
} image_cache SEC(".maps");

#include "unwind.bpf.h"

/*
 * Whether the task entered the kernel by the rt_sigreturn system call: its
 * saved pc is then past the signal trampoline's end (unwind.bpf.h).
 */
static __always_inline __u8 in_rt_sigreturn(struct pt_regs *regs)
{
#if UNWIND_ARM64
	int nr = -1;
	__u64 x8 = 0;

	bpf_core_read(&nr, sizeof(nr), &regs->syscallno);
	if (nr == 139) /* arm64's __NR_rt_sigreturn */
		return SIGRETURN_YES;
	/* el0_svc records the number only in el0_svc_common: before, it is
	 * NO_SYSCALL, as on any entry, and the number is x8's */
	bpf_core_read(&x8, sizeof(x8), &regs->regs[8]);
	return nr == -1 && x8 == 139 ? SIGRETURN_IF_CODE : 0;
#else
	unsigned long nr = -1;

	bpf_core_read(&nr, sizeof(nr), &regs->orig_ax);
	return nr == 15; /* x86_64's __NR_rt_sigreturn */
#endif
}

/*
 * Where a user stack walk starts: the user registers a task saved on
 * kernel entry, at the top of its kernel stack (what bpf_get_stack's user
 * walk uses too).  task is the current task here; a tracing program (issue
 * 15's sched_switch) passes its BTF task pointer.  False for a task with no
 * user context.  Here, not in unwind.bpf.h: kernel types.
 */
static __always_inline bool unwind_saved_regs(struct task_struct *task, struct unwind_scratch *s)
{
	struct pt_regs *regs;

	if (have_task_pt_regs) /* FRED (6.9) pads the stack top: ask the kernel */
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
	else /* x86_64 before FRED, and arm64: no padding above them */
		regs = (struct pt_regs *)((__u64)BPF_CORE_READ(task, stack) + thread_size) - 1;
	unwind_read_saved_regs(regs, s);
	s->in_sigreturn = in_rt_sigreturn(regs);
	return (__s64)s->pc > 0;
}

/* The sampled task's user stack into the sample slot's trace; NULL when
 * there is none.  The fallback reasons are in the state it returns. */
static __always_inline struct unwind_scratch *unwind_user(struct bpf_perf_event_data *ctx,
							  struct task_struct *task, bool in_kernel,
							  const struct sample_key *key, bool loop)
{
	struct unwind_scratch *s = unwind_begin(UNWIND_SLOT_SAMPLE, key->tgid, key->gen);

	if (!s)
		return NULL;
	if (!in_kernel) { /* the sample's own registers: user code ran */
		struct unwind_regs r;

		unwind_read_regs(&ctx->regs, &r);
		unwind_set_regs(s, &r);
	} else if (!unwind_saved_regs(have_task_pt_regs ? bpf_get_current_task_btf() : task, s)) {
		return NULL;
	}
	unwind_walk(UNWIND_SLOT_SAMPLE, loop);
	return s->trace.nr ? s : NULL;
}

#define PF_IDLE 0x00000002
#define PF_WQ_WORKER 0x00000020
#define PF_KTHREAD 0x00200000
#define EEXIST 17

/* The maps one run writes to: those of the bank it found live. */
struct bank {
	__u32 idx;
	__u32 counter0; /* index of the bank's first counter */
	void *counts;   /* set by open_bank_maps */
	void *stacks;
};

/*
 * Reads live_bank once: every map of the run must be of the same bank, or a
 * sample's count and its stacks or counters could land on either side of a
 * rotation.
 */
static __always_inline void open_bank(struct bank *b)
{
	b->idx = *(volatile __u32 *)&live_bank & (SMOLDER_BANKS - 1);
	b->counter0 = b->idx * CNT__MAX;
}

/* Only for samples that are kept: idle and filtered runs skip these lookups. */
static __always_inline bool open_bank_maps(struct bank *b)
{
	b->counts = bpf_map_lookup_elem(&count_banks, &b->idx);
	b->stacks = bpf_map_lookup_elem(&stack_banks, &b->idx);
	return b->counts && b->stacks;
}

static __always_inline void count(const struct bank *b, enum counter c)
{
	__u32 idx = b->counter0 + c;
	__u64 *v = bpf_map_lookup_elem(&counters, &idx);

	if (v)
		*v += 1;
}

/*
 * True when the timer interrupted interrupt work rather than the task's own
 * code.  The idle loop runs on the idle task's stack; softirqs and interrupt
 * handlers that run on an idle CPU (x86_64 and arm64 alike) run on the
 * per-CPU IRQ stack, so the interrupted stack pointer tells them apart with
 * no symbol names and no per-CPU variables (which need CONFIG_KALLSYMS_ALL).
 */
static __always_inline bool interrupted_irq_work(struct bpf_perf_event_data *ctx,
						 struct task_struct *task)
{
	__u64 base = (__u64)BPF_CORE_READ(task, stack);
	__u64 sp = PT_REGS_SP(&ctx->regs);

	return sp - base >= thread_size;
}

#define PROC_PID_INIT_INO 0xeffffffcU /* inode of the initial PID namespace */
#define MAX_PIDNS_LEVELS 16

/*
 * The number of pid p in our PID namespace, or -1 if it is not visible.  Our
 * namespace's level is not known from inside it (its /proc shows no parent),
 * so look for it by inode among the levels p has.
 */
static __always_inline long pid_in_our_ns(struct pid *p)
{
	unsigned int level;
	struct upid up;

	if (!p)
		return -1;
	level = BPF_CORE_READ(p, level);
	for (int i = 0; i < MAX_PIDNS_LEVELS; i++) {
		if (i > level)
			break;
		if (bpf_core_read(&up, sizeof(up), &p->numbers[i]))
			return -1;
		if (BPF_CORE_READ(up.ns, ns.inum) == pidns_inum)
			return up.nr;
	}
	return -1;
}

/* Fills tgid and pid as seen from the profiler's PID namespace. */
static __always_inline bool task_ids(struct task_struct *task, struct sample_key *key)
{
	long tgid, pid;

	if (pidns_inum == PROC_PID_INIT_INO) {
		__u64 id = bpf_get_current_pid_tgid();

		key->tgid = id >> 32;
		key->pid = (__u32)id;
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

/* A hash of a stack under way: bpf_loop's context. */
struct hash_walk {
	const struct stack_trace *st;
	__u64 h;
};

static long hash_frame(__u64 i, void *ctx)
{
	struct hash_walk *hw = ctx;

	if (i >= hw->st->nr)
		return 1;
	hw->h = smolder_hash_frame(hw->h, hw->st->ip[i & (STACK_CHUNKS * STACK_CHUNK_FRAMES - 1)]);
	return 0;
}

/* The stack's id; with loop a frame a bpf_loop callback, else a loop the
 * verifier walks once per frame the stack may have. */
static __always_inline __u64 hash_stack_by(const struct stack_trace *st, bool loop)
{
	struct hash_walk hw = { .st = st };

	if (!loop)
		return smolder_hash_stack(st);
	hw.h = smolder_hash_begin(st->nr);
	bpf_loop(STACK_CHUNKS * STACK_CHUNK_FRAMES, hash_frame, &hw, 0);
	return smolder_hash_end(hw.h);
}

static __always_inline __u64 hash_stack(const struct stack_trace *st)
{
	return hash_stack_by(st, false);
}

/*
 * Writes the chunks of a new stack, the last first so that chunk 0 marks a
 * complete stack.  On a full table the chunks already written are removed.
 */
static __always_inline bool write_chunks(void *stacks, const struct stack_trace *st, __u64 id)
{
	struct stack_chunk_key key = { .id = id };
	struct stack_chunk chunk = { .nr = st->nr, .exact = st->exact };
	int last = (st->nr - 1) / STACK_CHUNK_FRAMES;
	long err;

	for (int i = STACK_CHUNKS - 1; i >= 0; i--) {
		if (i > last)
			continue;
		__builtin_memcpy(chunk.ip, &st->ip[i * STACK_CHUNK_FRAMES], sizeof(chunk.ip));
		key.idx = i;
		err = bpf_map_update_elem(stacks, &key, &chunk, BPF_NOEXIST);
		if (err && err != -EEXIST) {
			for (int j = i + 1; j < STACK_CHUNKS; j++) {
				if (j > last)
					break;
				key.idx = j;
				bpf_map_delete_elem(stacks, &key);
			}
			return false;
		}
	}
	return true;
}

/* A stack being written a chunk a bpf_loop callback: its context. */
struct chunk_walk {
	void *stacks;
	const struct stack_trace *st;
	struct stack_chunk *chunk; /* room for the chunk being written */
	struct stack_chunk_key key;
	int last;  /* the last chunk, written first */
	bool full; /* no room: the chunks written are removed */
};

/* Chunk last - i, as write_chunks writes it. */
static long write_chunk(__u64 i, void *ctx)
{
	struct chunk_walk *cw = ctx;
	int idx = cw->last - (int)i;
	long err;

	if (idx < 0 || idx >= STACK_CHUNKS)
		return 1;
	__builtin_memcpy(cw->chunk->ip, &cw->st->ip[idx * STACK_CHUNK_FRAMES],
			 sizeof(cw->chunk->ip));
	cw->key.idx = idx;
	err = bpf_map_update_elem(cw->stacks, &cw->key, cw->chunk, BPF_NOEXIST);
	if (!err || err == -EEXIST) /* another CPU stores it too */
		return 0;
	cw->full = true;
	for (int j = idx + 1; j < STACK_CHUNKS; j++) {
		if (j > cw->last)
			break;
		cw->key.idx = j;
		bpf_map_delete_elem(cw->stacks, &cw->key);
	}
	return 1;
}

/* write_chunks with bpf_loop, a chunk a callback, in *chunk. */
static __always_inline bool write_chunks_loop(void *stacks, const struct stack_trace *st, __u64 id,
					      struct stack_chunk *chunk)
{
	int last = (st->nr - 1) / STACK_CHUNK_FRAMES;
	struct chunk_walk cw = {
		.stacks = stacks,
		.st = st,
		.chunk = chunk,
		.key = { .id = id },
		.last = last < STACK_CHUNKS ? last : STACK_CHUNKS - 1, /* as many as there are */
	};

	chunk->nr = st->nr;
	chunk->exact = st->exact;
	bpf_loop(STACK_CHUNKS, write_chunk, &cw, 0);
	return !cw.full;
}

/*
 * Stores a walked stack under its id unless it is there: false when it
 * found no room.  loop: with bpf_loop.
 */
static __always_inline bool store_trace(void *stacks, const struct stack_trace *st, __u64 id,
					bool loop)
{
	struct stack_chunk_key key = { .id = id };
	struct stack_chunk *chunk;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(stacks, &key))
		return true;
	if (!loop)
		return write_chunks(stacks, st, id);
	chunk = bpf_map_lookup_elem(&chunk_scratch, &zero);
	return chunk && write_chunks_loop(stacks, st, id, chunk); /* never NULL */
}

/*
 * Walks one stack into a per-CPU scratch buffer.  Returns it, or NULL for
 * an empty stack and for one that could not be walked, which sets err_flag
 * in *flags.
 */
static __always_inline struct stack_trace *walk_stack(void *ctx, __u32 slot, __u64 walk_flags,
						      __u32 *flags, __u32 err_flag)
{
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);
	long len;

	if (!st)
		return NULL;
	len = bpf_get_stack(ctx, st->ip, SMOLDER_MAX_DEPTH * sizeof(__u64), walk_flags);
	if (len <= 0) {
		if (len < 0)
			*flags |= err_flag;
		return NULL;
	}
	st->nr = len / sizeof(__u64);
	st->exact = 0; /* frame pointers name no signal frames */
	return st;
}

/* The walked stacks of a sample, until it is counted. */
struct walked {
	const struct stack_trace *kernel, *user;
};

/*
 * The task's user thread pointer, as the kernel saved it: glibc sets it
 * once per thread (clone's CLONE_SETTLS), so the value saved at the last
 * switch is the one the thread runs with.
 */
static __always_inline __u64 thread_pointer(struct task_struct *task)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(task, thread.fsbase);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ(task, thread.uw.tp_value);
#else
#error "the thread pointer of this architecture is not known"
#endif
}

#include "python.bpf.h"

/* The id of the CPython frames of a task of a process with an interpreter,
 * walked into py_scratch[slot]; 0 when it has none. */
static __always_inline __u64 walk_python(const struct bank *b, struct task_struct *task,
					 const struct sample_key *key, __u32 slot, bool loop)
{
	if (!python_frames || !key->tgid)
		return 0;
	return (loop ? py_walk_frames_loop : py_walk_frames)(key->tgid, key->gen,
							     thread_pointer(task), slot, b->counter0);
}

/*
 * Counts the sample.  A key already in the bank names stacks that are in
 * it too (they were stored before the key, and a bank is emptied only
 * while no run uses it), so the usual sample costs one lookup: only a new
 * key stores its stacks, and a stack that finds no room is counted as
 * lost under a key without it.
 */
static __always_inline void count_sample(const struct bank *b, struct sample_key *key,
					 const struct walked *w, bool loop)
{
	__u64 one = 1, *v;
	long err;

	v = bpf_map_lookup_elem(b->counts, key);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	if (key->kstack && w->kernel && !store_trace(b->stacks, w->kernel, key->kstack, loop)) {
		key->kstack = 0;
		key->flags |= SAMPLE_KSTACK_LOST;
	}
	if (key->ustack && w->user && !store_trace(b->stacks, w->user, key->ustack, loop)) {
		key->ustack = 0;
		key->flags |= SAMPLE_USTACK_LOST;
	}
	if (key->pystack && (loop ? py_store_frames_loop : py_store_frames)(b->idx, PY_SLOT_SAMPLE,
									    key->tgid, key->gen,
									    key->pystack)) {
		key->pystack = 0;
		key->flags |= SAMPLE_PYSTACK_LOST;
	}
	if (key->flags & (SAMPLE_KSTACK_LOST | SAMPLE_USTACK_LOST | SAMPLE_PYSTACK_LOST)) {
		count(b, CNT_STACK_MAP_FULL);
		v = bpf_map_lookup_elem(b->counts, key); /* the key changed */
		if (v) {
			__sync_fetch_and_add(v, 1);
			return;
		}
	}
	err = bpf_map_update_elem(b->counts, key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		v = bpf_map_lookup_elem(b->counts, key);
		if (v)
			__sync_fetch_and_add(v, 1);
	} else if (err) {
		count(b, CNT_COUNT_MAP_FULL);
	}
}

/*
 * Idle loop, or not; returns false when the idle mode leaves it out.  Forced
 * idle (idle injection: a PF_IDLE task that is not the idle task) is idle
 * for --idle-only but stays in the default view, where it is the time a
 * throttled machine took from the work.
 */
static __always_inline bool classify(const struct bank *b, struct sample_key *key,
				     bool idle_task, bool forced_idle, bool irq_stack)
{
	if (idle_task || forced_idle)
		key->flags |= irq_stack ? SAMPLE_IRQ : idle_task ? SAMPLE_IDLE : SAMPLE_IDLE_INJECT;

	if (key->flags & SAMPLE_IDLE) {
		if (idle_mode == IDLE_EXCLUDE) {
			count(b, CNT_IDLE_SKIPPED);
			return false;
		}
	} else if (idle_mode == IDLE_ONLY && !(key->flags & SAMPLE_IDLE_INJECT)) {
		return false;
	}
	return true;
}

/*
 * The generation of tgid's image, from "procs".  User space is told when an
 * image gets its first sample and whenever its number of mappings changed
 * since (ld.so loading libraries, dlopen, JIT code), so it reads the maps
 * while the process still lives.
 */
static __always_inline __u32 image_lookup(const struct bank *b, __u32 tgid, __u64 mm,
					  __u32 map_count)
{
	struct image_event ev = { .tgid = tgid };
	struct image_state *img = bpf_map_lookup_elem(&procs, &tgid);
	struct image_state fresh = { .mm = mm, .map_count = map_count };

	/*
	 * A new mm is a new image even before sched_process_exec has fired:
	 * exec swaps the mm first, and a sample in between must not lend the
	 * new mappings to the old generation.
	 */
	if (img && img->mm == fresh.mm) {
		if (img->map_count == fresh.map_count)
			return img->gen;
		img->map_count = fresh.map_count;
		procs_changed(tgid); /* other CPUs' caches */
		ev.gen = img->gen;
	} else {
		/*
		 * An add whose result is unused, then a read: a fetching
		 * atomic (BPF_FETCH) is rejected by kernels before 5.12 even
		 * in dead code.  Two images may read the same number, but an
		 * image's number is above every earlier image's of that tgid
		 * (its add comes after their reads), and a gen only tells a
		 * tgid's images apart.
		 */
		__sync_fetch_and_add(&next_gen, 1);
		fresh.gen = *(volatile __u32 *)&next_gen;
		if (bpf_map_update_elem(&procs, &tgid, &fresh, img ? BPF_EXIST : BPF_NOEXIST)) {
			img = bpf_map_lookup_elem(&procs, &tgid); /* another CPU won */
			if (!img)
				count(b, CNT_IMAGES_UNTRACKED);
			return img ? img->gen : 0;
		}
		ev.gen = fresh.gen;
	}
	if (image_events && bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		count(b, CNT_EVENTS_LOST);
	return ev.gen;
}

#define EPOCH_NONE 0xffffffffu /* an image_cache entry being written */

/*
 * The generation of tgid's image: the CPU's last answer while the task's
 * mm, its number of mappings and procs_epoch are those it was given for,
 * which spares the usual sample (a process sampled again and again on the
 * same CPU) the "procs" lookup, a hash lookup and most of the image
 * tracking's cost; else image_lookup.  The tgid's epoch is read before
 * the lookup: a change of "procs" after it is seen by the next sample.
 *
 * A program may interrupt another on the same CPU (a sample, a tracing
 * program), so the entry is written with its epoch EPOCH_NONE until it
 * is whole, and read gen first, epoch last: a read that an interrupting
 * write tore has the writer's mm, which matches only for the same image.
 */
static __always_inline __u32 image_gen(const struct bank *b, struct task_struct *task,
					__u32 tgid)
{
	__u32 zero = 0, map_count, gen;
	__u32 epoch = *(volatile __u32 *)&procs_epoch[tgid & (PROCS_EPOCHS - 1)];
	struct image_cache *c = bpf_map_lookup_elem(&image_cache, &zero);
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	volatile struct image_cache *vc = c;

	map_count = BPF_CORE_READ(mm, map_count);
	if (vc) {
		gen = vc->gen;
		if (vc->mm == (__u64)mm && vc->tgid == tgid && vc->map_count == map_count &&
		    vc->epoch == epoch)
			return gen;
	}
	gen = image_lookup(b, tgid, (__u64)mm, map_count);
	if (vc && gen && epoch != EPOCH_NONE) {
		vc->epoch = EPOCH_NONE;
		vc->tgid = tgid;
		vc->mm = (__u64)mm;
		vc->map_count = map_count;
		vc->gen = gen;
		vc->epoch = epoch;
	}
	return gen;
}

/*
 * A task's image announced before sampling starts (the loader's iterators:
 * announce_targets, offcpu_waiting's first run), so that its unwind tables
 * load first.  Its number of mappings is recorded as one no mm has: its
 * first sample finds it changed and announces the image again, which is
 * when user space reads its files (a target never sampled costs only its
 * maps and tables).
 */
#define MAPS_UNREAD 0xffffffffu
static __always_inline void announce_early(const struct bank *b, struct task_struct *task,
					   __u32 tgid)
{
	image_lookup(b, tgid, (__u64)BPF_CORE_READ(task, mm), MAPS_UNREAD);
}

/* Our-namespace tgid of a task, or 0 when it is not visible to us. */
static __always_inline __u32 ns_tgid(struct task_struct *task)
{
	long tgid;

	if (pidns_inum == PROC_PID_INIT_INO)
		return BPF_CORE_READ(task, tgid);
	tgid = pid_in_our_ns(BPF_CORE_READ(task, group_leader, thread_pid));
	return tgid > 0 ? tgid : 0;
}

#include "kctx.bpf.h"

static __always_inline bool in_cgroups(struct task_struct *task);

/* Whether a task that just exec'd may have samples kept: do_sample's
 * filters that do not depend on the sample. */
static __always_inline bool exec_profiled(struct task_struct *task, __u32 tgid)
{
	if (!tgid || idle_mode == IDLE_ONLY || kernel_threads_only)
		return false;
	if (filter_tgid && !bpf_map_lookup_elem(&tgids, &tgid))
		return false;
	if (filter_tid && !bpf_map_lookup_elem(&tids, &tgid)) /* exec left one thread: tgid's */
		return false;
	return in_cgroups(task);
}

/*
 * A new image: its samples must not share the old image's symbols.  With
 * --unwind dwarf it is announced now rather than at its first sample, so
 * that user space puts its mappings (the program, the dynamic loader, the
 * vDSO, whose tables are often loaded already) in the kernel before that
 * sample: a process that lives a few milliseconds still gets whole stacks.
 * The libraries the loader maps next come with the first sample that sees
 * the new mappings (image_gen).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *task)
{
	__u32 tgid = ns_tgid(task);
	struct bank b;

	bpf_map_delete_elem(&procs, &tgid);
	bpf_map_delete_elem(&py_procs, &tgid);
	procs_changed(tgid);
	if (dwarf_unwind && user_stacks && exec_profiled(task, tgid)) {
		struct mm_struct *mm = BPF_CORE_READ(task, mm);

		open_bank(&b);
		image_lookup(&b, tgid, (__u64)mm, BPF_CORE_READ(mm, map_count));
	}
	return 0;
}

/* With follow_forks (smolder -- COMMAND): a new process of a profiled one is profiled too. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = ns_tgid(parent), ctgid = ns_tgid(child);
	__u8 one = 1;

	if (follow_forks && ctgid && ptgid != ctgid && bpf_map_lookup_elem(&tgids, &ptgid))
		bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* The process is gone: its PID may come back as another process. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	__u32 tgid = ns_tgid(task);

	if (BPF_CORE_READ(task, pid) == BPF_CORE_READ(task, tgid)) {
		bpf_map_delete_elem(&procs, &tgid);
		bpf_map_delete_elem(&py_procs, &tgid);
		procs_changed(tgid);
	}
	return 0;
}

/* Counts a DWARF walk's fallbacks, each once. */
static __always_inline void count_unwind(const struct bank *b, const struct unwind_scratch *s)
{
	__u32 r = s->reasons;

	count(b, CNT_UNWIND_STACKS);
	if (s->complete)
		count(b, CNT_UNWIND_COMPLETE);
	if (!r)
		return;
	if (r & R_NO_TABLE)
		count(b, CNT_UNWIND_NO_TABLE);
	if (r & R_NOT_LOADED)
		count(b, CNT_UNWIND_NOT_LOADED);
	if (r & R_UNREADABLE)
		count(b, CNT_UNWIND_UNREADABLE);
	if (r & R_UNSUPPORTED)
		count(b, CNT_UNWIND_UNSUPPORTED);
	if (r & R_BAD_FRAME)
		count(b, CNT_UNWIND_BAD_FRAME);
	if (r & R_DEPTH)
		count(b, CNT_UNWIND_DEPTH);
}

#define PF_FORKNOEXEC 0x00000040

/*
 * Inside execve past its point of no return (the address space is the new
 * program's, PF_FORKNOEXEC cleared), before the new program ran: the user
 * registers saved on kernel entry are still the old program's, whose pc is
 * no frame of the new image.  A process that execs without a fork between
 * has no PF_FORKNOEXEC to clear, and loses its execve's user stack from the
 * start of the call.
 */
static __always_inline bool in_exec(struct task_struct *task)
{
	return BPF_CORE_READ_BITFIELD_PROBED(task, in_execve) &&
	       !(BPF_CORE_READ(task, flags) & PF_FORKNOEXEC);
}

/*
 * --unwind dwarf: the user stack walked with unwind tables.  The image's
 * generation comes first: the walk only trusts mappings read for it.
 */
static __always_inline const struct stack_trace *
walk_unwound(struct bpf_perf_event_data *ctx, const struct bank *b, struct task_struct *task,
	     bool in_kernel, struct sample_key *key, bool loop)
{
	struct unwind_scratch *s;

	if (!BPF_CORE_READ(task, mm))
		return NULL; /* exiting: no user stack any more */
	if (in_kernel && in_exec(task))
		return NULL;
	if (key->tgid)
		key->gen = image_gen(b, task, key->tgid);
	s = unwind_user(ctx, task, in_kernel, key, loop);
	if (!s)
		return NULL;
	count_unwind(b, s);
	return &s->trace;
}

/*
 * Walks the sample's stacks into *w; their ids (content hashes, stored by
 * count_sample) and flags go into key.  loop: the program may call bpf_loop.
 */
static __always_inline void walk_stacks(struct bpf_perf_event_data *ctx, const struct bank *b,
					struct task_struct *task, __u32 task_flags, bool in_kernel,
					struct sample_key *key, struct walked *w, bool loop)
{
	if (kernel_stacks && in_kernel)
		w->kernel = walk_stack(ctx, SCRATCH_KERNEL, 0, &key->flags, SAMPLE_KSTACK_ERR);
	if (task_flags & PF_KTHREAD)
		key->flags |= SAMPLE_KTHREAD;
	else if (user_stacks && dwarf_unwind)
		w->user = walk_unwound(ctx, b, task, in_kernel, key, loop);
	else if (user_stacks)
		w->user = walk_stack(ctx, SCRATCH_USER, BPF_F_USER_STACK, &key->flags,
				     SAMPLE_USTACK_ERR);
	if (w->kernel)
		key->kstack = hash_stack_by(w->kernel, loop);
	if (w->user)
		key->ustack = hash_stack_by(w->user, loop);
	if (!dwarf_unwind && key->ustack && key->tgid)
		key->gen = image_gen(b, task, key->tgid);
	if (user_stacks && !(task_flags & PF_KTHREAD))
		key->pystack = walk_python(b, task, key, PY_SLOT_SAMPLE, loop);

	if (key->flags & SAMPLE_KSTACK_ERR)
		count(b, CNT_KSTACK_ERR);
	if (key->flags & SAMPLE_USTACK_ERR)
		count(b, CNT_USTACK_ERR);
}

/* The cgroup and mount namespace filters: true when the task counts. */
static __always_inline bool in_cgroups(struct task_struct *task)
{
	__u64 id;

	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup_filter, 0) != 1)
		return false;
	if (filter_cgroupmap) {
		id = bpf_get_current_cgroup_id();
		if (!bpf_map_lookup_elem(&cgroupset, &id))
			return false;
	}
	if (filter_mntns) {
		id = BPF_CORE_READ(task, nsproxy, mnt_ns, ns.inum);
		if (!bpf_map_lookup_elem(&mntnsset, &id))
			return false;
	}
	return true;
}

#include "offcpu.bpf.h"

/*
 * --kernel-mode and --kernel-threads: whether the sample is kept.  Checked
 * before any stack is walked, so a sample left out costs a counter.  The
 * idle task is a kernel thread whatever its flags say (they did not always
 * carry PF_KTHREAD).
 */
static __always_inline bool kernel_filter_keeps(bool in_kernel, bool idle_task, __u32 task_flags)
{
	if (kernel_mode_only && !in_kernel)
		return false;
	if (kernel_threads_only && !idle_task && !(task_flags & PF_KTHREAD))
		return false;
	return true;
}

/* The sampler, in one of two programs (below): loop says whether it may
 * call bpf_loop. */
static __always_inline int sample(struct bpf_perf_event_data *ctx, bool loop)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct sample_key key = {};
	struct walked w = {};
	bool idle_task = (__u32)bpf_get_current_pid_tgid() == 0;
	__u32 task_flags = BPF_CORE_READ(task, flags);
	bool forced_idle = !idle_task && (task_flags & PF_IDLE);
	/* Kernel addresses have the top bit set on every 64-bit arch we build for. */
	bool in_kernel = (long)PT_REGS_IP(&ctx->regs) < 0;
	bool irq_stack = false;
	__u32 exec_ctx = CTX_TASK;
	struct bank b;

	/* only what needs it pays for the stack pointer's check */
	if (in_kernel && (idle_task || forced_idle || irq_frames || kworker_frames))
		irq_stack = interrupted_irq_work(ctx, task);
	open_bank(&b);
	if (!task_ids(task, &key)) {
		count(&b, CNT_PIDNS_MISS);
		key.flags |= SAMPLE_FOREIGN_PID;
	}
	if (self_tgid && key.tgid == self_tgid)
		return 0;
	if (filter_tgid && !bpf_map_lookup_elem(&tgids, &key.tgid))
		return 0;
	if (filter_tid && !bpf_map_lookup_elem(&tids, &key.pid))
		return 0;
	if (!in_cgroups(task))
		return 0;
	if (!kernel_filter_keeps(in_kernel, idle_task, task_flags)) {
		__sync_fetch_and_add(&kernel_filtered, 1);
		return 0;
	}
	if (!classify(&b, &key, idle_task, forced_idle, irq_stack))
		return 0;

	count(&b, CNT_SAMPLES);
	if (!open_bank_maps(&b)) {
		/* never: the loader fills a bank's slots before it goes live */
		count(&b, CNT_COUNT_MAP_FULL);
		return 0;
	}
	if (per_cpu)
		key.cpu = bpf_get_smp_processor_id();
	if (irq_frames || kworker_frames)
		exec_ctx = sample_context(irq_stack);
	if (irq_frames)
		key.ctx = exec_ctx;
	/* the item's own code only: not an interrupt that came in on top */
	if (kworker_frames && (task_flags & PF_WQ_WORKER) && exec_ctx == CTX_TASK)
		key.work = running_work_id(&b, task);
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	walk_stacks(ctx, &b, task, task_flags, in_kernel, &key, &w, loop);
	count_sample(&b, &key, &w, loop);
	return 0;
}

/*
 * The loader loads one of these (capture.c): do_sample where the kernel
 * has bpf_loop (5.17), which its loops use, so that the verifier checks
 * each loop's body once; do_sample_unrolled before, with loops a kernel
 * as old as 5.10 verifies.  Two programs, not a flag: 5.10 rejects a
 * bpf_loop callback's address even in code a flag leaves dead.
 */
SEC("perf_event")
int do_sample(struct bpf_perf_event_data *ctx)
{
	return sample(ctx, true);
}

SEC("perf_event")
int do_sample_unrolled(struct bpf_perf_event_data *ctx)
{
	return sample(ctx, false);
}

/*
 * The images of the tasks -p or -t named, announced before sampling starts:
 * the loader runs this once (capture.c, announce_targets) when their user
 * stacks are walked with unwind tables, so that the tables load in the
 * settle before the first sample rather than after it (a process that ran
 * before the capture was otherwise announced by its first sample, and its
 * first stacks, walked without tables, were cut at the leaf).  --off-cpu's
 * offcpu_waiting does the same in its first run.
 */
SEC("iter/task")
int announce_targets(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct sample_key key = {};
	struct bank b;

	if (!task || (BPF_CORE_READ(task, flags) & PF_KTHREAD) || !BPF_CORE_READ(task, mm))
		return 0;
	open_bank(&b);
	if (waiting_in_scope(task, &key))
		announce_early(&b, task, key.tgid);
	return 0;
}
