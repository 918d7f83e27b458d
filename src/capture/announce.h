/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The images of the -p and -t targets, announced before sampling starts so
 * that their unwind tables load first (bpf/smolder.bpf.c's
 * announce_targets; the sampler's settle reads their maps).
 */
#ifndef SMOLDER_ANNOUNCE_H
#define SMOLDER_ANNOUNCE_H

#include <stdbool.h>

struct smolder_bpf;

/* Whether to load the iterator, between open and load: a capture of
 * targets whose user stacks the unwind tables walk. */
bool announce__wanted(struct smolder_bpf *skel, bool targets, bool dwarf_user_stacks);
/* Runs it once, if loaded. */
void announce__run(struct smolder_bpf *skel);

#endif
