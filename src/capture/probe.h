/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Probe: what the running kernel and our privileges allow, checked before
 * the BPF object loads, and what to say when something still fails.
 *
 *	probe__kernel(&opts)        BTF, privileges, lockdown, RLIMIT_MEMLOCK,
 *	                            kernel features, perf_event_max_stack
 *	skel = ..._open_opts(...)   with probe__open_opts() (--btf)
 *	probe__adjust(skel)         leaves out what this kernel lacks
 *	..._load(skel)              on failure: probe__load_failed(err)
 *
 * Features live in one table (probe.c): each has a probe, the first kernel
 * that has it, and either nothing (smolder cannot run without it: an error
 * naming that kernel) or what is lost and how to leave it out (a one-line
 * note, and the capture goes on without it).
 */
#ifndef SMOLDER_PROBE_H
#define SMOLDER_PROBE_H

#include <bpf/libbpf.h>

struct smolder_bpf;

struct probe_opts {
	const char *btf_path; /* --btf FILE, or NULL for the kernel's own */
};

/* Runs the start-up checks and probes; 0, or -1 after printing why. */
int probe__kernel(const struct probe_opts *o);
/* Open options for the skeleton: the BTF to relocate against. */
void probe__open_opts(struct bpf_object_open_opts *opts);
/* Leaves out of the object (before load) the features this kernel lacks. */
void probe__adjust(struct smolder_bpf *skel);
/* Prints why loading the object failed (err negative): the verifier's
 * reason (the end of its log with -v), or the error and its fix. */
void probe__load_failed(int err);
/* True when probe__kernel found BTF tracepoints (tp_btf programs) usable. */
bool probe__tp_btf(void);
/* The fix to suggest for a bpf(2) failure with this errno. */
const char *probe__fix(int error);
/* The fix to suggest when perf_event_open(2) fails with this errno. */
const char *probe__perf_fix(int error);

/* THREAD_SIZE of the running kernel, which BTF does not record. */
uint64_t probe__thread_size(void);

#endif
