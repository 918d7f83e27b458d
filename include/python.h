/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CPython frames, as the BPF walk (bpf/python.bpf.h) reads them and the
 * loader names them (src/interp/python/).  The walk knows nothing of
 * versions: user space finds the interpreter in a process and hands BPF the
 * addresses and field offsets of that process's CPython (struct py_proc, in
 * the "py_procs" map by tgid); BPF follows the running thread's frame chain
 * with them and stores what it found as a stack of its own (sample_key's
 * pystack), two slots a frame, innermost frame first:
 *
 *	ip[2i]     the code object's address in the process
 *	ip[2i + 1] py_code_identity() << 32 | PY_EVAL_END | instruction
 *
 * The instruction is where the frame was: f_lasti as CPython keeps it up to
 * 3.10 (bytes up to 3.9, code units in 3.10), from 3.11 the code units from
 * the start of the code object's bytecode to the instruction pointer;
 * PY_INSTR_MASK for a frame that has not started (f_lasti -1).
 * PY_EVAL_END marks the outermost frame of one run of the interpreter loop
 * (one native _PyEval_EvalFrameDefault frame): every frame up to 3.10, the
 * entry frame in 3.11, the frame below a C-stack shim from 3.12.
 */
#ifndef SMOLDER_PYTHON_H
#define SMOLDER_PYTHON_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define PY_MAX_FRAMES 128 /* frames a walk follows; deeper chains are cut */
#define PY_FRAME_SLOTS 2

#define PY_EVAL_END (1u << 31)
#define PY_INSTR_MASK (PY_EVAL_END - 1)
#define PY_NO_FIELD 0xffff /* a struct py_offsets field this version lacks */

/* How a version keeps its frames. */
enum py_frames {
	PY_FRAMES_OBJECTS = 1, /* 3.8-3.10: PyFrameObject, one per eval call */
	PY_FRAMES_311 = 2,     /* 3.11: _PyInterpreterFrame, is_entry ends a run */
	PY_FRAMES_312 = 3,     /* 3.12+: a C-stack-owned shim frame ends a run */
};

#define PY_OWNED_BY_CSTACK 3 /* _PyInterpreterFrame.owner of the shim (3.12+) */

/* Field offsets the walk reads, x86_64, per CPython version. */
struct py_offsets {
	__u16 tstate_frame; /* PyThreadState: frame (3.8-3.10), cframe (3.11,
			     * 3.12), current_frame (3.13) */
	__u16 cframe_frame; /* _PyCFrame.current_frame; PY_NO_FIELD when
			     * tstate_frame points at the frame itself */
	__u16 frame_code;   /* f_code (f_executable in 3.13) */
	__u16 frame_back;   /* f_back, previous */
	__u16 frame_instr;  /* f_lasti (an int), prev_instr or instr_ptr */
	__u16 frame_entry;  /* is_entry (3.11), else PY_NO_FIELD */
	__u16 frame_owner;  /* owner (3.12+), else PY_NO_FIELD */
	__u16 code_bytecode; /* co_code_adaptive (3.11+), else 0 */
	__u16 code_flags;   /* co_flags and co_firstlineno: the identity */
	__u16 code_firstlineno;
	__u8 frames;        /* enum py_frames */
	__u8 pad[3];
};

/* The "py_procs" map's value: a process's interpreter, by tgid. */
struct py_proc {
	__u64 tss_key;    /* address of _PyRuntime's autoTSSkey (a Py_tss_t:
			   * int initialized, then the pthread key) */
	__u32 gen;        /* the image generation it was found in */
	__s32 tsd_offset; /* from the thread pointer (x86_64's fs base,
			   * arm64's TPIDR_EL0) to specific_1stblock[0].data in
			   * glibc's struct pthread: below it on arm64 */
	struct py_offsets off;
};

/* A code object's identity, to tell it from one that later took its place. */
static inline __u32 py_code_identity(__u32 flags, __u32 firstlineno)
{
	return (firstlineno * 0x9e3779b1u) ^ flags;
}

#endif /* SMOLDER_PYTHON_H */
