/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sampling session: a capture configured by its own options (main.c
 * builds them from the command line), wired to user-space symbolization
 * (each new process image's mappings are read while it lives), and the
 * wait for the end of a capture or an interval.
 *
 * Whatever other processes do, the clock wins: image announcements only
 * queue work (preload.h), the work runs in the wait loop within the
 * deadline and stops when a signal is pending, and naming after the wait
 * gets SAMPLER_NAMING_SECONDS (sampler__start_naming): what does not fit
 * is named by file offset or counted as unnamed, never waited for.
 */
#ifndef SMOLDER_SAMPLER_H
#define SMOLDER_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include "lib/budget.h"
#include "capture/capture.h"
#include "interp/python/py_names.h"
#include "session/preload.h"
#include "session/warm.h"
#include "symbols/usyms.h"

/* The time naming may take once a capture or an interval has ended. */
#define SAMPLER_NAMING_SECONDS 0.5
/* How long no image may have been announced before the wait loop names
 * the stacks sampled so far ahead, for their inline frames (sampler__wait,
 * warm.h). */
#define SAMPLER_QUIET_SECONDS 0.5
/* The most one such turn of the loop may take in a capture of the machine (s). */
#define SAMPLER_PREPARE_SLICE 0.05
/* A pass over the samples starts at most this often (s): each walks the
 * whole count map. */
#define SAMPLER_WARM_EVERY 1.0
/* The most the images announced before sampling (with --off-cpu, the
 * tasks in scope) may delay its start while their tables load. */
#define SAMPLER_SETTLE_SECONDS 1.0

struct sampler_opts {
	/* What to sample and how; the sampler sets on_image and arg. */
	struct capture_opts capture;
	bool demangle; /* C++ and Rust names as written in the source */
	bool inline_frames; /* inlined functions as frames, from DWARF */
	bool source_lines;  /* with their files and lines (an output shows them) */
	/* capture.python_frames: CPython frames, named by the sampler's py */
};

/* Python stacks announced and not read yet, at most. */
#define SAMPLER_PY_QUEUE 4096

struct py_pending {
	uint32_t tgid, gen;
	uint64_t id;
};

struct sampler {
	struct capture *cap;
	struct usyms *us;
	struct preload *pending; /* images whose maps are to be read */
	struct warm *warm;       /* stacks named ahead; NULL without inline frames */
	double next_warm;        /* when the next pass over the samples may start */
	struct py_names *py;     /* interpreters and code objects; NULL
				  * without Python frames */
	struct py_pending *py_queue; /* new Python stacks, to read now */
	size_t py_queued;
	uint64_t py_unqueued;    /* announced when the queue was full: read
				  * at the end, if their process lives */
	bool events_ok; /* image events still readable */
	struct budget budget;    /* the symbolization budget usyms works in */
	double last_image;       /* when the last image was announced (clock__now) */
	bool targeted;           /* -p, --tid or a COMMAND: few images to read */
	sigset_t stop_sigs;      /* the signals that end a capture */
	/* Checked at least every 100 ms while waiting: true ends the wait
	 * (the profiled processes are gone).  NULL: never. */
	bool (*done)(void *arg);
	void *done_arg;
	/* Readable when done() may have turned true (the command's pidfd), so
	 * that the wait ends then rather than at its next look; -1: none. */
	int done_fd;
};

/* Loads and attaches; sampling runs from here on.  0, or -1 after printing
 * why.  Whoever opens s closes it, on every path. */
int sampler__open(struct sampler *s, const struct sampler_opts *opts);
/* Waits until the monotonic time `until` (0: forever), until a signal in
 * sigs (blocked by the caller) arrives, or until done() says so, meanwhile
 * delivering image events.  Returns the signal, or 0. */
int sampler__wait(struct sampler *s, const sigset_t *sigs, double until);
/*
 * Sampling goes on after this (an interval's end): the maps of the images
 * announced since the loop's last turn are read now, within
 * SAMPLER_PREPARE_SLICE, so that their unwind tables go in as the next
 * interval begins, not once naming is over.
 */
void sampler__glance_new(struct sampler *s);
/*
 * Starts naming what was captured: SAMPLER_NAMING_SECONDS from now, cut
 * short by SIGINT or SIGTERM (sigs of the last wait but SIGUSR1), and the
 * images still waiting to be read are marked late.
 */
void sampler__start_naming(struct sampler *s);
/* Continuous mode, after an interval is written: forgets the Python code
 * objects of processes gone since. */
void sampler__end_interval(struct sampler *s);
void sampler__close(struct sampler *s);
/*
 * The end of a one-shot run, in place of sampler__close: the BPF side is
 * closed (links, programs, maps), and the rest, memory and the files it
 * maps, is left for the exit, which drops the address space whole
 * (freeing it table by table took 5-10 ms).  The process must exit
 * without using s again.
 */
void sampler__end(struct sampler *s);

#endif
