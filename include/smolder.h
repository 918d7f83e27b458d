/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Structures shared by the BPF sampler (bpf/smolder.bpf.c) and the loader.
 * Everything that crosses the kernel/user boundary is defined here, once.
 */
#ifndef SMOLDER_H
#define SMOLDER_H

#ifndef __VMLINUX_H__
#include <linux/types.h> /* BPF side: vmlinux.h has the types */
#endif

#define SMOLDER_MAX_DEPTH 127 /* PERF_MAX_STACK_DEPTH */
#define SMOLDER_COMM_LEN 16   /* TASK_COMM_LEN */

/*
 * Stacks are stored by content: the id of a stack is a 64-bit hash of its
 * frames, so two samples of the same stack share one entry and a full table
 * only refuses *new* stacks, which are counted (no silent bucket collisions
 * as with BPF_MAP_TYPE_STACK_TRACE).  Id 0 means "no stack".
 *
 * A stack is kept as 16-frame chunks keyed by (id, chunk index), so that a
 * typical 10-30 frame stack takes 1-2 small entries instead of one entry
 * sized for 127 frames.  Chunk 0 is written last: once it is there, the
 * whole stack is.
 */
#define STACK_CHUNK_FRAMES 16
#define STACK_CHUNKS 16 /* 16 * 16: a Python stack's PY_MAX_FRAMES * 2 slots
			  * (include/python.h); native ones stop at
			  * SMOLDER_MAX_DEPTH */

struct stack_chunk_key {
	__u64 id;
	__u32 idx;
	__u32 pad;
};

struct stack_chunk {
	__u32 nr; /* frames in the whole stack */
	__u32 exact; /* the whole stack's stack_trace.exact */
	__u64 ip[STACK_CHUNK_FRAMES];
};

/* A whole stack, leaf first, as the loader hands it out. */
struct stack_trace {
	__u32 nr;
	/* Bit i (0 < i < 32): frame i is a pc a signal interrupted, named at
	 * its own address, not a return address named at address - 1.  (The
	 * leaf, frame 0, always is.)  Only the DWARF unwinder sets it. */
	__u32 exact;
	__u64 ip[STACK_CHUNKS * STACK_CHUNK_FRAMES];
};

#ifndef __bpf__
/* The address that names frame i of st: the leaf's own, a caller's return
 * address - 1 (the call), the pc a signal interrupted as it is. */
static inline __u64 stack_trace__frame_addr(const struct stack_trace *st, int i)
{
	int exact = !i || (i < 32 && (st->exact & (1u << i)));

	return exact ? st->ip[i] : st->ip[i] - 1;
}
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* A stack's id: the hash of its frames (never 0).  Here, for both sides:
 * the loader stores stacks the kernel could not walk (a task that was
 * already waiting when the capture began) under the id the kernel would
 * give them.  In three steps, so that a BPF program can hash a frame a
 * bpf_loop callback. */
static __always_inline __u64 smolder_hash_begin(__u32 nr)
{
	return 0x9e3779b97f4a7c15ULL ^ nr;
}

static __always_inline __u64 smolder_hash_frame(__u64 h, __u64 ip)
{
	h ^= ip;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

static __always_inline __u64 smolder_hash_end(__u64 h)
{
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	return h ? h : 1;
}

static __always_inline __u64 smolder_hash_stack(const struct stack_trace *st)
{
	__u64 h = smolder_hash_begin(st->nr);

	for (int i = 0; i < STACK_CHUNKS * STACK_CHUNK_FRAMES; i++) {
		if ((__u32)i >= st->nr)
			break;
		h = smolder_hash_frame(h, st->ip[i]);
	}
	return smolder_hash_end(h);
}

/* struct sample_key.flags */
enum sample_flags {
	SAMPLE_IDLE = 1u << 0,        /* CPU was in the idle loop */
	SAMPLE_IRQ = 1u << 1,         /* interrupt work that ran on the idle task */
	SAMPLE_KSTACK_LOST = 1u << 2, /* kernel stack dropped: stack table full */
	SAMPLE_USTACK_LOST = 1u << 3, /* user stack dropped: stack table full */
	SAMPLE_KSTACK_ERR = 1u << 4,  /* kernel stack could not be walked */
	SAMPLE_USTACK_ERR = 1u << 5,  /* user stack could not be walked */
	SAMPLE_KTHREAD = 1u << 6,     /* task has no user address space */
	SAMPLE_FOREIGN_PID = 1u << 7, /* task invisible in our PID namespace */
	SAMPLE_IDLE_INJECT = 1u << 8, /* idle loop of forced idle (idle_inject) */
	/* --off-cpu: time the task waited sleeping (S) or uninterruptible (D);
	 * the count of such a key is nanoseconds, not samples */
	SAMPLE_OFFCPU_S = 1u << 9,
	SAMPLE_OFFCPU_D = 1u << 10,
	SAMPLE_PYSTACK_LOST = 1u << 11, /* Python frames dropped: stack table full */
};
#define SAMPLE_OFFCPU (SAMPLE_OFFCPU_S | SAMPLE_OFFCPU_D)

/*
 * struct sample_key.ctx (with irq_frames) and struct work_desc.queued_from:
 * what the CPU was running, read from the irq and softirq tracepoints.
 */
enum exec_ctx {
	CTX_TASK = 0,      /* the task's own code */
	CTX_HARDIRQ = 1,   /* an interrupt handler the irq tracepoints saw */
	CTX_IRQ_STACK = 4, /* other work on the IRQ stack: timer and IPI
			    * interrupts, the softirq loop between handlers */
	CTX_SOFTIRQ = 16,  /* + the softirq's number (NET_RX_SOFTIRQ, ...) */
	CTX_SOFTIRQ_END = CTX_SOFTIRQ + 16,
};

/* struct work_desc.queued_from, besides the interrupt contexts above */
#define QUEUED_UNKNOWN 0  /* queued before the capture began */
#define QUEUED_BY_TASK 2  /* by queuer_comm-queuer_tgid */
#define QUEUED_BY_KTHREAD 3

#define SMOLDER_WQ_NAME_LEN 32 /* WQ_NAME_LEN: 24 until 6.10, then 32 */

/*
 * A work item as --kworker names it: its workqueue, its function and who
 * queued it.  Samples carry a 64-bit hash of it (sample_key.work); the
 * descriptions are kept once each in the "work_names" map.
 */
struct work_desc {
	__u64 func;        /* kernel address of the work function */
	__u32 queuer_tgid; /* in our PID namespace */
	__u32 queued_from; /* QUEUED_* or enum exec_ctx */
	char wq[SMOLDER_WQ_NAME_LEN];
	char queuer_comm[SMOLDER_COMM_LEN];
};

/*
 * Key of the count map.  Fields a view does not need are zeroed in BPF
 * (cpu without --per-cpu) so that they do not multiply the keys.
 */
struct sample_key {
	__u32 tgid;   /* process id, in the profiler's PID namespace */
	__u32 pid;    /* thread id, likewise */
	__u32 cpu;    /* only with per_cpu */
	__u32 flags;  /* enum sample_flags */
	__u32 gen;    /* image generation of tgid (see struct image_event), 0 = untracked */
	__u32 ctx;    /* enum exec_ctx, only with irq_frames */
	__u64 kstack; /* stack id (content hash) of the kernel stack, 0 = none */
	__u64 ustack; /* stack id of the user stack, 0 = none */
	__u64 pystack; /* stack id of the CPython frames (include/python.h), 0 = none */
	__u64 work;   /* hash of the running work item's work_desc (kworker_frames), 0 = none;
		       * off-CPU keys (never a kworker's): hash of the waker_desc
		       * of who woke the task (--wakers) */
	char comm[SMOLDER_COMM_LEN];
};

/*
 * Double buffering for continuous mode: the count map, the stack map and
 * the counters exist once per bank.  The sampler puts each sample wholly in
 * the bank that is live when it starts; the loader makes the other bank
 * live, waits for the runs still using the old one, and drains it.
 */
#define SMOLDER_BANKS 2

/* Index into the per-CPU "counters" array, after bank * CNT__MAX. */
enum counter {
	CNT_SAMPLES,         /* every sample that passed the filters */
	CNT_IDLE_SKIPPED,    /* idle-loop samples left out by the idle mode */
	CNT_STACK_MAP_FULL,  /* stacks (kernel or user) that found no room */
	CNT_COUNT_MAP_FULL,  /* samples dropped: count map full */
	CNT_KSTACK_ERR,      /* kernel stack walk failed */
	CNT_USTACK_ERR,      /* user stack walk failed */
	CNT_PIDNS_MISS,      /* task not visible in our PID namespace */
	CNT_EVENTS_LOST,     /* new-process events the ring buffer refused */
	CNT_IMAGES_UNTRACKED, /* samples of images the procs map had no room for */
	CNT_WORK_UNNAMED,    /* work items the work_names map had no room for */
	/* --unwind dwarf: user stacks walked with unwind tables, and those of
	 * them that needed a fallback, once per stack and reason */
	CNT_UNWIND_STACKS,      /* user stacks walked */
	CNT_UNWIND_COMPLETE,    /* reached the outermost frame (_start, clone) */
	CNT_UNWIND_NO_TABLE,    /* frame pointers: code without a table (JIT,
				 * perf-map code, files without CFI, gaps) */
	CNT_UNWIND_NOT_LOADED,  /* frame pointers: table not loaded yet */
	CNT_UNWIND_UNREADABLE,  /* stack memory unreadable: the stack ends */
	CNT_UNWIND_UNSUPPORTED, /* frame pointers: a rule the rows cannot hold */
	CNT_UNWIND_BAD_FRAME,   /* a caller's frame below its callee's: ends */
	CNT_UNWIND_DEPTH,       /* deeper than SMOLDER_MAX_DEPTH frames */
	/* --off-cpu */
	CNT_OFFCPU_WAITS,        /* waits counted */
	CNT_OFFCPU_SHORT,        /* waits under the minimum, left out */
	CNT_OFFCPU_LONG,         /* waits over the maximum, left out */
	CNT_OFFCPU_PENDING_FULL, /* waits lost: the pending-wait map was full */
	CNT_OFFCPU_COUNT_FULL,   /* waits lost: count map full */
	CNT_OFFCPU_STACK_FULL,   /* stacks of waits (or wakers) that found no room */
	CNT_OFFCPU_WAKERS_UNNAMED, /* wakers the waker map had no room for */
	/* CPython frames (bpf/python.bpf.h), in processes with an interpreter */
	CNT_PY_WALKS,      /* samples whose thread's frames were looked for */
	CNT_PY_NO_THREAD,  /* thread state not found (key unset, unreadable) */
	CNT_PY_UNREADABLE, /* a frame or code object unreadable: the chain ends */
	CNT_PY_DEPTH,      /* chains cut at PY_MAX_FRAMES */
	CNT__MAX
};

/*
 * A process image (a tgid between exec or exit and the next) gets a new
 * generation number at its first sample, and the loader is told at once, so
 * that it reads the process's mappings while they still exist: short-lived
 * processes are named, and samples taken before an exec or PID reuse keep
 * the symbols of the image they were taken in.
 */
struct image_event {
	__u32 tgid; /* in the profiler's PID namespace */
	__u32 gen;
};

/*
 * A Python stack (sample_key.pystack) stored for the first time: user space
 * reads the code objects it names while the process lives.  Told apart
 * from struct image_event by its size.
 */
struct pystack_event {
	__u32 tgid;
	__u32 gen;
	__u64 pystack;
};

/* What BPF knows of a tgid's current image (the "procs" map's values). */
struct image_state {
	__u64 mm;        /* the address space: exec replaces it */
	__u32 gen;
	__u32 map_count; /* mm->map_count when user space was last told */
};

/*
 * --off-cpu: a task that left the CPU to wait, until it runs again (the
 * "offcpu_pending" map, by kernel thread id).  start is bpf_ktime_get_ns()
 * (CLOCK_MONOTONIC).
 */
struct offcpu_start {
	__u64 start;
	struct sample_key key; /* SAMPLE_OFFCPU_S or _D, stacks stored */
};

/*
 * A task in scope found waiting when the capture began (the "offcpu_waiting"
 * task iterator's output, one per task): its pending record was written
 * with start, its kernel stack stored; its user stack, which the kernel
 * cannot walk for another task, is the loader's to walk from these saved
 * user registers (ip 0: none).
 */
struct offcpu_waiting {
	__u32 tid, tgid, gen, pad;
	__u64 start;
	__u64 ip, sp, bp;
	__u64 lr; /* arm64's link register (x30), else 0 */
};

/* A wait's part before an interval boundary, left by a wait that ended just
 * after the flip (see bpf/offcpu.bpf.h); by thread and the bank it was
 * written in. */
struct offcpu_late_key {
	__u32 tid;
	__u32 bank;
};

struct offcpu_late {
	__u64 start; /* the wait's, to tell it from one the loader counted */
	__u64 ns;    /* its part before the boundary, scaled as counted */
	struct sample_key key;
};

/* --wakers: the task that woke a waiting one, and its kernel stack. */
struct waker_desc {
	__u64 kstack; /* stack id, 0 = none */
	char comm[SMOLDER_COMM_LEN];
};

/* idle_mode in the BPF read-only data */
enum idle_mode {
	IDLE_EXCLUDE = 0, /* default: idle-loop samples left out */
	IDLE_INCLUDE = 1, /* -I */
	IDLE_ONLY = 2,    /* --idle-only */
};

#endif /* SMOLDER_H */
