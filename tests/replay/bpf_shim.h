/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What bpf/unwind.bpf.h takes from the BPF side, for user space (walk.c
 * includes this, then that file itself): the map definition macros of
 * libbpf's bpf_helpers.h, which still declare a struct per map (their
 * addresses tell walk.c which map a lookup means), and the helpers the
 * walk calls, under other names so that they do not clash with libbpf's
 * user-space bpf_map_lookup_elem.  walk.c implements them over an
 * unwind_image.
 */
#ifndef SMOLDER_REPLAY_BPF_SHIM_H
#define SMOLDER_REPLAY_BPF_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include "smolder.h"

#define SEC(name)
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define __array(name, val) typeof(val) *name[]
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define __noinline __attribute__((noinline))

#define bpf_map_lookup_elem replay_map_lookup
#define bpf_probe_read_user replay_probe_read_user
#define bpf_loop replay_loop

/* A map's value for key, or NULL: what the kernel's lookup returns. */
void *replay_map_lookup(void *map, const void *key);
/* 0, or -EFAULT with dst zeroed when [src, src + size) was not recorded
 * (an unreadable page, for the walk). */
long replay_probe_read_user(void *dst, __u32 size, const void *src);
/* bpf_loop's contract: fn(i, ctx) for i from 0 until it returns 1, at most
 * nr times; the number of calls. */
long replay_loop(__u32 nr, long (*fn)(__u64 i, void *ctx), void *ctx, __u64 flags);

#endif
