/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CPython frame walk (include/python.h says what it stores): for a
 * process user space found an interpreter in ("py_procs"), the running
 * thread's state comes from glibc's per-thread key array, as
 * pthread_getspecific(autoTSSkey) finds it in the process, and its frame
 * chain is followed innermost first for at most PY_MAX_FRAMES frames.
 * Every read is of the process's memory as it is at the sample; a read that
 * fails ends the walk with what it had, counted by reason.
 *
 * Included by smolder.bpf.c after count() and struct bank.
 */
#include "python.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* tgid, in our PID namespace */
	__type(value, struct py_proc);
	__uint(max_entries, 4096);
} py_procs SEC(".maps");

#define PY_FRAME_READ 112 /* bytes of a frame's head the walk reads: f_lasti is
			   * at 104 in 3.8 and 3.9 */
#define PY_CODE_READ 32  /* bytes from co_flags: co_firstlineno is in them */

/* Per CPU, per program kind (a sample may interrupt the off-CPU program). */
struct py_scratch {
	struct stack_trace trace;
	struct stack_chunk chunk; /* being stored: not on the BPF stack, which
				   * do_sample's frame and this function's share */
	struct py_proc proc; /* the process's, for the steps */
	__u8 frame[PY_FRAME_READ];
	__u8 code[PY_CODE_READ];
};

enum { PY_SLOT_SAMPLE, PY_SLOT_SWITCH, PY_SLOT__MAX };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct py_scratch);
	__uint(max_entries, PY_SLOT__MAX);
} py_scratch SEC(".maps");

/* The thread's PyThreadState, or 0 when it has none (a thread that never
 * ran Python) or it could not be read. */
static __always_inline __u64 py_thread_state(const struct bank *b, __u64 tp,
					      const struct py_proc *pp)
{
	struct {
		__s32 initialized;
		__u32 key;
	} tss;
	__u64 tstate = 0;

	if (bpf_probe_read_user(&tss, sizeof(tss), (void *)pp->tss_key) || !tss.initialized ||
	    tss.key >= 32 /* PTHREAD_KEY_2NDLEVEL_SIZE: the first block */) {
		count(b, CNT_PY_NO_THREAD);
		return 0;
	}
	if (bpf_probe_read_user(&tstate, sizeof(tstate),
				(void *)(tp + (__s64)pp->tsd_offset + tss.key * 16)))
		count(b, CNT_PY_NO_THREAD);
	return tstate;
}

/* The innermost frame of tstate, or 0. */
static __always_inline __u64 py_first_frame(const struct py_proc *pp, __u64 tstate)
{
	__u64 frame = 0;

	if (bpf_probe_read_user(&frame, sizeof(frame), (void *)(tstate + pp->off.tstate_frame)))
		return 0;
	if (frame && pp->off.cframe_frame != PY_NO_FIELD &&
	    bpf_probe_read_user(&frame, sizeof(frame), (void *)(frame + pp->off.cframe_frame)))
		return 0;
	return frame;
}

/* A 64-bit field of the frame head read into s->frame, 0 if out of it. */
static __always_inline __u64 py_field64(const struct py_scratch *s, __u32 off)
{
	if (off > PY_FRAME_READ - 8)
		return 0;
	return *(const __u64 *)&s->frame[off];
}

static __always_inline __u32 py_field8(const struct py_scratch *s, __u32 off)
{
	if (off > PY_FRAME_READ - 1)
		return 0;
	return s->frame[off];
}

/* Where in its code the frame is, as include/python.h says. */
static __always_inline __u32 py_instr(const struct py_proc *pp, const struct py_scratch *s,
				      __u64 code)
{
	__u64 start = code + pp->off.code_bytecode, at;
	__s32 lasti;

	if (pp->off.frames == PY_FRAMES_OBJECTS) {
		if (pp->off.frame_instr > PY_FRAME_READ - 4)
			return 0;
		lasti = *(const __s32 *)&s->frame[pp->off.frame_instr];
		return lasti < 0 ? PY_INSTR_MASK : (__u32)lasti;
	}
	/* BPF has no signed division; before the first instruction is a
	 * frame that has not started, as f_lasti -1 is */
	at = py_field64(s, pp->off.frame_instr);
	if (at < start)
		return PY_INSTR_MASK;
	at = (at - start) / 2;
	return at > PY_INSTR_MASK ? PY_INSTR_MASK : (__u32)at;
}

/* The identity of the code object at code, read into s->code; false if
 * unreadable. */
static __always_inline bool py_identity(const struct py_proc *pp, struct py_scratch *s, __u64 code,
					__u32 *id)
{
	__u32 delta = pp->off.code_firstlineno - pp->off.code_flags;

	if (bpf_probe_read_user(s->code, sizeof(s->code), (void *)(code + pp->off.code_flags)))
		return false;
	if (delta > PY_CODE_READ - 4)
		return false;
	*id = py_code_identity(*(__u32 *)&s->code[0], *(__u32 *)&s->code[delta]);
	return true;
}

/* The slot index n, bounded for the verifier. */
#define PY_SLOT(n) ((n) & (STACK_CHUNKS * STACK_CHUNK_FRAMES - 1))

/*
 * One frame of the walk in py_scratch[slot]: stored unless it is a 3.12+
 * shim, which ends the run below it.  Returns the next (outer) frame, 0 at
 * the end or on a read that failed.  A global function, checked once by
 * the verifier whatever the number of frames; the walk's state is in the
 * scratch, not in registers.
 */
__noinline __u64 py_step_frame(__u64 frame, __u32 slot, __u32 counter0)
{
	struct py_scratch *s = bpf_map_lookup_elem(&py_scratch, &slot);
	struct bank bk = { .counter0 = counter0 }, *b = &bk;
	const struct py_proc *pp;
	struct stack_trace *st;
	__u64 code, back;
	__u32 id, where, n;

	if (!s)
		return 0;
	pp = &s->proc;
	st = &s->trace;

	if (bpf_probe_read_user(s->frame, sizeof(s->frame), (void *)frame)) {
		count(b, CNT_PY_UNREADABLE);
		return 0;
	}
	code = py_field64(s, pp->off.frame_code);
	back = py_field64(s, pp->off.frame_back);
	n = st->nr;
	if (n > PY_MAX_FRAMES * PY_FRAME_SLOTS - PY_FRAME_SLOTS)
		return 0;
	if (pp->off.frames == PY_FRAMES_312 &&
	    py_field8(s, pp->off.frame_owner) == PY_OWNED_BY_CSTACK) {
		if (n >= 2)
			st->ip[PY_SLOT(n - 1)] |= PY_EVAL_END;
		return back;
	}
	if (!code || !py_identity(pp, s, code, &id)) {
		count(b, CNT_PY_UNREADABLE);
		return 0;
	}
	where = py_instr(pp, s, code);
	if (pp->off.frames == PY_FRAMES_OBJECTS ||
	    (pp->off.frames == PY_FRAMES_311 && py_field8(s, pp->off.frame_entry)))
		where |= PY_EVAL_END;
	st->ip[PY_SLOT(n)] = code;
	st->ip[PY_SLOT(n + 1)] = ((__u64)id << 32) | where;
	st->nr = n + 2;
	return back;
}

/* write_chunks' way, the chunk in the scratch: the last first, so that
 * chunk 0 marks a whole stack; on a full table none is left.  False then. */
static __always_inline bool py_write_chunks(void *stacks, struct py_scratch *s, __u64 id)
{
	struct stack_chunk_key k = { .id = id };
	long err;
	int last;

	s->chunk.nr = s->trace.nr;
	s->chunk.exact = 0;
	last = (s->trace.nr - 1) / STACK_CHUNK_FRAMES;
	for (int i = STACK_CHUNKS - 1; i >= 0; i--) {
		if (i > last)
			continue;
		__builtin_memcpy(s->chunk.ip, &s->trace.ip[i * STACK_CHUNK_FRAMES],
				 sizeof(s->chunk.ip));
		k.idx = i;
		err = bpf_map_update_elem(stacks, &k, &s->chunk, BPF_NOEXIST);
		if (!err || err == -EEXIST) /* another CPU stores it too */
			continue;
		for (int j = i + 1; j < STACK_CHUNKS && j <= last; j++) {
			k.idx = j;
			bpf_map_delete_elem(stacks, &k);
		}
		return false;
	}
	return true;
}

/* A walk under way, a frame a bpf_loop callback: its context. */
struct py_frame_walk {
	__u64 frame; /* the next frame to step, 0: done */
	__u32 slot, counter0;
};

static long py_loop_frame(__u64 i __attribute__((unused)), void *ctx)
{
	struct py_frame_walk *w = ctx;
	struct py_scratch *s = bpf_map_lookup_elem(&py_scratch, &w->slot);

	if (!s || !w->frame || *(volatile __u32 *)&s->trace.nr >= PY_MAX_FRAMES * PY_FRAME_SLOTS)
		return 1;
	w->frame = py_step_frame(w->frame, w->slot, w->counter0);
	return 0;
}

/*
 * The walk: frames of the thread whose thread pointer is tp in process
 * tgid's image gen, into py_scratch[slot]; returns the stack's id (0: no
 * frames).  loop: its loops are bpf_loop calls (py_walk_frames_loop).
 */
static __always_inline __u64 py_walk(__u32 tgid, __u32 gen, __u64 tp, __u32 slot, __u32 counter0,
				     bool loop)
{
	struct bank b = { .counter0 = counter0 };
	struct py_proc *pp = bpf_map_lookup_elem(&py_procs, &tgid);
	struct py_frame_walk w = { .slot = slot, .counter0 = counter0 };
	struct py_scratch *s;

	if (!pp || (pp->gen && gen && pp->gen != gen))
		return 0;
	s = bpf_map_lookup_elem(&py_scratch, &slot);
	if (!s)
		return 0;
	count(&b, CNT_PY_WALKS);
	s->trace.nr = 0;
	s->trace.exact = 0;
	s->proc = *pp;
	w.frame = py_thread_state(&b, tp, pp);
	if (w.frame)
		w.frame = py_first_frame(pp, w.frame);
	/* room for PY_MAX_FRAMES frames, and the shims between them */
	if (loop) {
		bpf_loop(PY_MAX_FRAMES * 3 / 2, py_loop_frame, &w, 0);
	} else {
		for (int i = 0; i < PY_MAX_FRAMES * 3 / 2; i++) {
			if (!w.frame ||
			    *(volatile __u32 *)&s->trace.nr >= PY_MAX_FRAMES * PY_FRAME_SLOTS)
				break;
			w.frame = py_step_frame(w.frame, slot, counter0);
		}
	}
	if (w.frame)
		count(&b, CNT_PY_DEPTH);
	return s->trace.nr ? hash_stack_by(&s->trace, loop) : 0;
}

/*
 * The walk, a global function: the verifier checks it once, on its own,
 * rather than once for every state the sampler reaches it in; _loop for
 * the programs that may call bpf_loop (do_sample).
 */
__noinline __u64 py_walk_frames(__u32 tgid, __u32 gen, __u64 tp, __u32 slot, __u32 counter0)
{
	return py_walk(tgid, gen, tp, slot, counter0, false);
}

__noinline __u64 py_walk_frames_loop(__u32 tgid, __u32 gen, __u64 tp, __u32 slot, __u32 counter0)
{
	return py_walk(tgid, gen, tp, slot, counter0, true);
}

/*
 * Stores the stack py_walk left in py_scratch[slot] under id in bank
 * bank_idx's stack map unless it is there; a new one is announced, so that
 * user space reads its code objects while the process lives.  0, or -1
 * when it found no room.  loop: with bpf_loop.
 */
static __always_inline int py_store(__u32 bank_idx, __u32 slot, __u32 tgid, __u32 gen, __u64 id,
				    bool loop)
{
	struct pystack_event ev = { .tgid = tgid, .gen = gen, .pystack = id };
	struct stack_chunk_key k = { .id = id };
	struct py_scratch *s = bpf_map_lookup_elem(&py_scratch, &slot);
	void *stacks = bpf_map_lookup_elem(&stack_banks, &bank_idx);
	struct bank b = { .counter0 = bank_idx * CNT__MAX };

	if (!s || !stacks)
		return -1;
	if (bpf_map_lookup_elem(stacks, &k))
		return 0;
	/* the chunk in the scratch: not on the BPF stack, which the sampler's
	 * frame and this function's share */
	if (!(loop ? write_chunks_loop(stacks, &s->trace, id, &s->chunk)
		   : py_write_chunks(stacks, s, id)))
		return -1;
	if (image_events && bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		count(&b, CNT_EVENTS_LOST);
	return 0;
}

/* py_store, global functions too. */
__noinline int py_store_frames(__u32 bank_idx, __u32 slot, __u32 tgid, __u32 gen, __u64 id)
{
	return py_store(bank_idx, slot, tgid, gen, id, false);
}

__noinline int py_store_frames_loop(__u32 bank_idx, __u32 slot, __u32 tgid, __u32 gen, __u64 id)
{
	return py_store(bank_idx, slot, tgid, gen, id, true);
}
