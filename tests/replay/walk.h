/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF unwinder's walk (bpf/unwind.bpf.h, compiled for user space by
 * walk.c) over an unwind image: a whole walk of a recorded sample, and the
 * lookup of one address (its mapping and row), as the BPF program does
 * them.  Not thread-safe: the walk's per-CPU state is walk.c's.
 */
#ifndef SMOLDER_REPLAY_WALK_H
#define SMOLDER_REPLAY_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smolder.h"
#include "unwind.h"
#include "unwind_image.h"

struct replay_walk {
	struct stack_trace trace; /* leaf first; trace.exact as the BPF program sets it */
	uint32_t reasons;         /* the walk's fallback reasons (enum unwind_reason) */
	bool complete;            /* it reached an UNWIND_END row */
};

/* Walks sample s of img from its registers, for img's process image: with
 * loop as the BPF program does on kernels with bpf_loop (a frame a
 * callback), else as before 5.17 (a few frames a global call). */
void replay__walk(const struct unwind_image *img, const struct image_sample *s,
		  struct replay_walk *out, bool loop);
/* The walk's reasons in words ("no_table,depth"), "-" for none. */
const char *replay__reasons(uint32_t reasons, char *buf, size_t len);
/* True if reasons has only the depth limit among its bits. */
bool replay__only_depth(uint32_t reasons);

/* What the walk finds of an address: its mapping's kind (the walk's
 * enum unwind_map_kind, in these names) and, for a table, its row. */
enum replay_find {
	REPLAY_UNKNOWN,    /* no mapping of this image covers it */
	REPLAY_NO_TABLE,   /* anonymous code, or a file without CFI */
	REPLAY_NOT_LOADED, /* its file's table is not loaded */
	REPLAY_TABLE,      /* in a loaded table: *row is its row */
};
/*
 * Looks addr up for image (tgid, gen) as one frame of a walk does (the
 * mapping, then the row); *row is untouched when no row was found, and
 * [*map_start, *map_end) is the mapping found (0, 0 for none).
 */
enum replay_find replay__find(const struct unwind_image *img, uint32_t tgid, uint32_t gen,
			      uint64_t addr, struct unwind_row *row, uint64_t *map_start,
			      uint64_t *map_end);

/* The slots the walks read since the last call (global slot numbers, in
 * order, repeats included, at most the first 1 << 20), and forgets them. */
size_t replay__touched(const uint32_t **slots);

#endif
