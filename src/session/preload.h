/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Images waiting for their maps to be read.  The BPF side announces a
 * process image at its first sample and whenever its number of mappings
 * changed since, which a process mapping and unmapping a page in a loop
 * makes happen at every sample.  So an announcement only records (tgid,
 * gen) here, cheaply, once however often it comes; the capture's wait loop
 * reads the maps later (preload__run), within its time budget, oldest
 * first, an image read before only when usyms__preload_due allows (a burst
 * of re-reads, then one per USYMS_REREAD_INTERVAL).
 * When the queue is full the announcement is dropped, counted, and the
 * image marked late in usyms, so that its samples, if its process is gone
 * by the time they are named, are counted as such.
 */
#ifndef SMOLDER_PRELOAD_H
#define SMOLDER_PRELOAD_H

#include <stdint.h>
#include "lib/budget.h"
#include "symbols/usyms.h"

#define PRELOAD_MAX 8192 /* images waiting at once */

struct preload;

struct preload *preload__new(struct usyms *us);
/* Image (tgid, gen) was announced: its maps are to be read (again). */
void preload__add(struct preload *q, uint32_t tgid, uint32_t gen);
/*
 * Reads the maps of the images that are due, oldest first, until none is
 * or b expires.  Returns when the next image is due (CLOCK_MONOTONIC s;
 * 0 when none waits; now or earlier when b stopped the work).
 */
double preload__run(struct preload *q, const struct budget *b);
/*
 * The images announced before sampling starts (bpf/smolder.bpf.c's
 * announce_early): their maps only, whose hook loads their unwind tables,
 * within b; then none waits.  Each is announced again at its first
 * sample, and its files read then.  Returns how many maps were read.
 */
size_t preload__glance_all(struct preload *q, const struct budget *b);
/*
 * The maps of the new images waiting, those whose user's turn it is,
 * within b and one slice of the loop (their files are read in the
 * passes); as preload__run does first.
 */
void preload__glance_new(struct preload *q, const struct budget *b);
/* Marks every waiting image late in usyms (before its samples are named). */
void preload__mark_waiting(struct preload *q);

struct preload_stats {
	uint64_t done;    /* preloads made */
	uint64_t dropped; /* announcements dropped: the queue was full */
	size_t waiting;
};
void preload__stats(const struct preload *q, struct preload_stats *out);
void preload__free(struct preload *q);

#endif
