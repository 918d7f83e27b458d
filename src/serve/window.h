/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One scrape's window (--serve): the samples of the capture's ticks that
 * fall in it, copied out of the drained bank before it is cleared, so that
 * any number of overlapping windows share the one capture and each holds
 * exactly its own ticks.  Sample keys are merged by content; the stacks,
 * work items and wakers they name are kept once per window by their id
 * (the capture's ids are content hashes, the same in every bank).  A
 * window's memory is bounded (WINDOW_MAX_BYTES): samples beyond it are
 * counted as lost, not kept.  Read back as a finish.h sample_source.
 */
#ifndef SMOLDER_SERVE_WINDOW_H
#define SMOLDER_SERVE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture/capture.h"
#include "session/finish.h"

#define WINDOW_MAX_BYTES (8u << 20)
#define WINDOW_MAX_PIDS 16 /* pid= values a request may narrow to */

struct window;

/* A window of the samples of the processes pids (nr_pids 0: all) in the
 * cgroup v2 path cgroup or below it (NULL or "": any), told by their
 * /proc/PID/cgroup when their samples arrive. */
struct window *window__new(const uint32_t *pids, size_t nr_pids, const char *cgroup);
/* Adds the drained bank's sample key and count, reading what it names from
 * cap.  0 (a sample over the bound is counted as lost), or -errno. */
int window__add(struct window *w, struct capture *cap, const struct sample_key *key,
		uint64_t count);
/* A new tick's samples follow: processes are told by their cgroup anew (a
 * process may have moved since: a child forked then put in a cgroup). */
void window__new_tick(struct window *w);
/* The samples kept and those over the bound. */
uint64_t window__samples(const struct window *w);
uint64_t window__lost(const struct window *w);
size_t window__bytes(const struct window *w);
/* The window's samples, as finish__write reads them; w must outlive it. */
struct sample_source window__source(struct window *w);
void window__free(struct window *w);

#endif
