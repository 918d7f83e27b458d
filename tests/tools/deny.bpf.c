// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF LSM program for the tests (see deny.c): makes the kernel refuse, to
 * one process only, the BPF features a kernel older than 5.8 lacks (ring
 * buffer maps) or one without BTF cannot offer (tracing programs), with the
 * error such a kernel gives: EINVAL.  smolder's probes then find them
 * missing and its degraded programs load and run on a real kernel.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid = 0;
const volatile bool deny_ringbuf = false;
const volatile bool deny_tracing = false;

#define EINVAL 22

SEC("lsm/bpf")
int BPF_PROG(deny, int cmd, union bpf_attr *attr, unsigned int size)
{
	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	if (deny_ringbuf && cmd == BPF_MAP_CREATE &&
	    BPF_CORE_READ(attr, map_type) == BPF_MAP_TYPE_RINGBUF)
		return -EINVAL;
	if (deny_tracing && cmd == BPF_PROG_LOAD &&
	    BPF_CORE_READ(attr, prog_type) == BPF_PROG_TYPE_TRACING)
		return -EINVAL;
	return 0;
}
