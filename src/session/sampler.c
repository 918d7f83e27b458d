// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sampling session (see sampler.h). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "session/finish.h"
#include "lib/phase.h"
#include "session/sampler.h"
#include "unwind/unwind_table.h"

/*
 * A process image had its first sample, or its mappings changed: its maps
 * are to be read while it lives.  Only queued here: this runs inside the
 * ring buffer's poll, which must stay cheap whatever the event rate.
 */
static void on_image(uint32_t tgid, uint32_t gen, void *arg)
{
	struct sampler *s = arg;

	preload__add(s->pending, tgid, gen);
	s->last_image = clock__now();
}

/* A new Python stack: its code objects are read in the wait loop. */
static void on_pystack(uint32_t tgid, uint32_t gen, uint64_t id, void *arg)
{
	struct sampler *s = arg;

	if (!s->py_queue || s->py_queued == SAMPLER_PY_QUEUE) {
		s->py_unqueued++;
		return;
	}
	s->py_queue[s->py_queued++] = (struct py_pending){ .tgid = tgid, .gen = gen, .id = id };
}

/* Reads the code objects of the Python stacks announced since. */
static void read_pystacks(struct sampler *s)
{
	struct stack_trace st;

	size_t i;

	for (i = 0; i < s->py_queued && !budget__expired(&s->budget); i++) {
		const struct py_pending *q = &s->py_queue[i];

		if (!capture__live_stack(s->cap, q->id, &st))
			py_names__read_stack(s->py, q->tgid, q->gen, &st);
	}
	/* what the deadline left is read when named, if there is time then */
	s->py_unqueued += s->py_queued - i;
	s->py_queued = 0;
}

/* Looks for CPython in an image just read (before its unwind tables,
 * which take longer). */
static void find_python(struct sampler *s, pid_t pid, uint32_t gen, const struct proc_maps *pm)
{
	double t0 = clock__now();
	struct py_interp pi;
	int e = py_interp__find(pid, pm, &pi);

	if (!e)
		debug("process %d runs CPython %u.%u: found in %.1f ms", pid, pi.major, pi.minor,
		      (clock__now() - t0) * 1000);
	if (e == -ENOTSUP)
		debug("process %d runs CPython %u.%u: its frames cannot be read (3.8 to 3.13 can)",
		      pid, pi.major, pi.minor);
	if (e && e != -ENOTSUP)
		return;
	pi.bpf.gen = gen;
	if (!e && (e = capture__python_add(s->cap, pid, &pi.bpf)))
		debug("cannot follow the Python frames of process %d: %s", pid, log__errstr(-e));
	py_names__add_image(s->py, pid, gen, &pi);
}

/*
 * An image's maps were read: its unwind tables, and its interpreter if it
 * has one, go to the kernel.  A CPython we cannot read is remembered, to
 * be counted, and its samples keep their native frames.
 */
static void on_maps(pid_t pid, uint32_t gen, const struct proc_maps *pm, void *arg)
{
	struct sampler *s = arg;

	if (s->py && !py_names__interp(s->py, pid, gen))
		find_python(s, pid, gen, pm);
	capture__maps_read(pid, gen, pm, s->cap);
}

static int open_python(struct sampler *s, const struct sampler_opts *opts)
{
	if (!opts->capture.python_frames)
		return 0;
	s->py = py_names__new(NULL);
	py_names__set_budget(s->py, &s->budget);
	s->py_queue = calloc(SAMPLER_PY_QUEUE, sizeof(*s->py_queue));
	return s->py && s->py_queue ? 0 : -ENOMEM;
}

/*
 * The images announced before sampling starts (the -p or -t targets, with
 * --off-cpu the tasks in scope): their maps read now and their tables
 * loaded, so that their first stacks, and the stacks of the tasks already
 * waiting, are whole.  Their files are read once they are sampled (each is
 * announced again then).  Within SAMPLER_SETTLE_SECONDS: a machine's worth
 * of processes may take longer, and those left over get their tables at
 * their first sample.
 */
static void settle(struct sampler *s)
{
	double t0 = clock__now();
	struct budget b = { .until = t0 + SAMPLER_SETTLE_SECONDS, .sigs = &s->stop_sigs };
	size_t read;

	if (!s->events_ok)
		return;
	sigemptyset(&s->stop_sigs); /* sampler__wait sets them for good */
	sigaddset(&s->stop_sigs, SIGINT);
	sigaddset(&s->stop_sigs, SIGTERM);
	capture__poll(s->cap, 0);
	usyms__set_budget(s->us, &b);
	read = preload__glance_all(s->pending, &b);
	usyms__set_budget(s->us, NULL); /* b is ours */
	if (!read)
		return;
	if (capture__settle(s->cap, b.until) || budget__expired(&b))
		info("the tables of %zu processes were not all loaded within %.1f s: their first "
		     "stacks may be cut", read, SAMPLER_SETTLE_SECONDS);
	debug("%zu process images' maps read and tables loaded before sampling, in %.0f ms",
	      read, (clock__now() - t0) * 1000);
}

static bool image_current(pid_t pid, uint32_t gen, void *arg)
{
	return capture__image_current(arg, pid, gen);
}

int sampler__open(struct sampler *s, const struct sampler_opts *opts)
{
	struct capture_opts o = opts->capture;

	s->events_ok = true;
	s->cap = NULL;
	s->last_image = clock__now();
	s->targeted = o.scope.nr_tgids || o.scope.nr_tids;
	s->done = NULL;
	s->done_fd = -1;
	s->py = NULL;
	s->py_queue = NULL;
	s->py_queued = s->py_unqueued = 0;
	s->us = usyms__new();
	s->pending = s->us ? preload__new(s->us) : NULL;
	s->warm = opts->inline_frames ? warm__new() : NULL;
	s->next_warm = 0;
	if (!s->pending || (opts->inline_frames && !s->warm) || open_python(s, opts)) {
		sampler__close(s);
		err("out of memory");
		return -1;
	}
	o.on_image = on_image;
	o.on_pystack = on_pystack;
	o.arg = s;
	s->cap = capture__load(&o);
	if (!s->cap) {
		sampler__close(s);
		return -1;
	}
	s->events_ok = capture__has_events(s->cap); /* else sampler__wait just waits */
	usyms__set_validator(s->us, image_current, s->cap);
	/* unwind tables as soon as maps are read */
	usyms__set_maps_hook(s->us, on_maps, s);
	usyms__set_demangle(s->us, opts->demangle);
	usyms__set_inline(s->us, opts->inline_frames, opts->source_lines);
	usyms__set_func_reader(s->us, unwind_funcs__reader);
	settle(s);
	phase__mark("images read before sampling");
	if (capture__start(s->cap)) {
		sampler__close(s);
		return -1;
	}
	info("sampling %zu cpus at %" PRIu64 " %s", o.nr_cpus,
	     o.freq ? o.freq : o.period, o.freq ? "Hz" : "ns period");
	return 0;
}

/* How long to wait for events: until the deadline, the next image due, at most 100 ms. */
static int wait_ms(double until, double due)
{
	double now = clock__now(), t = now + 0.1;

	if (until > 0 && until < t)
		t = until;
	if (due > 0 && due < t)
		t = due;
	return t > now ? (int)((t - now) * 1000) + 1 : 0;
}

/*
 * Quiet time's work: the stacks sampled so far named ahead (warm.h), so
 * that naming at the end looks their inline chains up, and only the files
 * sampled have their DWARF made ready.  What cannot stop halfway (libdw
 * inflating a compressed debug file whole, 0.1-0.4 s for libc6-dbg's) runs
 * in a targeted capture, whose few processes were quiet for
 * SAMPLER_QUIET_SECONDS; a capture of the machine works in slices and
 * leaves it to the naming, so that the processes that start meanwhile have
 * their maps and Python frames read as they come.  true when the pass
 * ended on its slice's time (more to do at once).
 */
static bool prepare_slice(struct sampler *s)
{
	struct budget slice = s->budget;
	double now = clock__now(), end = now + SAMPLER_PREPARE_SLICE;
	struct sample_source src;

	if (!s->warm || now < s->next_warm)
		return false;
	if (!s->targeted && (!slice.until || slice.until > end))
		slice.until = end;
	src = finish__capture_source(s->cap);
	if (warm__pass(s->warm, &src, s->us, &slice))
		return true;
	s->next_warm = now + SAMPLER_WARM_EVERY;
	return false;
}

/*
 * With a done_fd: one epoll over it and the process events, so that the
 * end of the command ends the wait at once (a short command's capture
 * waited up to 100 ms for the next look); else -1.
 */
static int open_wake(struct sampler *s)
{
	int ep, events = capture__events_fd(s->cap);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = events };
	struct epoll_event done = { .events = EPOLLIN, .data.fd = s->done_fd };

	if (s->done_fd < 0 || events < 0 || (ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return -1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, events, &ev) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, s->done_fd, &done)) {
		close(ep);
		return -1;
	}
	return ep;
}

/*
 * Waits up to ms for process events (or, with wake >= 0, the end of the
 * command), and delivers those pending.  The command's end wakes the wait
 * once: it stays readable, and done() is what ends the capture.
 */
static int wait_events(struct sampler *s, int wake, int ms)
{
	struct epoll_event ev[2];
	int n;

	if (wake < 0)
		return capture__poll(s->cap, ms);
	n = epoll_wait(wake, ev, 2, ms);
	if (n < 0 && errno != EINTR)
		return -1;
	for (int i = 0; i < n; i++)
		if (ev[i].data.fd == s->done_fd)
			epoll_ctl(wake, EPOLL_CTL_DEL, s->done_fd, NULL);
	return capture__poll(s->cap, 0);
}

static int wait_loop(struct sampler *s, const sigset_t *sigs, double until, int wake)
{
	struct timespec ts = { 0 };
	double due = 0;
	int ms, sig;

	s->budget = (struct budget){ .until = until, .sigs = sigs };
	s->stop_sigs = *sigs;
	sigdelset(&s->stop_sigs, SIGUSR1);
	usyms__set_budget(s->us, &s->budget);
	for (;;) {
		if (until > 0 && clock__now() >= until)
			return 0;
		if (s->done && s->done(s->done_arg))
			return 0;
		sig = sigtimedwait(sigs, NULL, &ts);
		if (sig > 0)
			return sig;
		due = preload__run(s->pending, &s->budget);
		if ((!due || due > clock__now() + SAMPLER_PREPARE_SLICE) &&
		    clock__now() - s->last_image >= SAMPLER_QUIET_SECONDS && prepare_slice(s))
			due = clock__now();
		ms = wait_ms(until, due);
		if (s->events_ok && wait_events(s, wake, s->py_queued ? 0 : ms) < 0) {
			warn("cannot read process events: %s (short-lived processes may stay unnamed)",
			     log__errstr(errno));
			s->events_ok = false;
		}
		if (s->py_queued)
			read_pystacks(s);
		if (!s->events_ok) {
			/* no events to wait on: wait for a signal instead */
			struct timespec w = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

			sig = sigtimedwait(sigs, NULL, &w);
			if (sig > 0)
				return sig;
		}
	}
}

int sampler__wait(struct sampler *s, const sigset_t *sigs, double until)
{
	int wake = s->events_ok ? open_wake(s) : -1;
	int sig = wait_loop(s, sigs, until, wake);

	if (wake >= 0)
		close(wake);
	return sig;
}

/*
 * Naming an interval takes up to SAMPLER_NAMING_SECONDS, more when a
 * compressed debug file must be inflated whole, and the wait loop reads
 * no maps meanwhile: a process that began near the interval's end had
 * its stacks cut until then, well into the next interval (a second, on a
 * busy machine).
 */
void sampler__glance_new(struct sampler *s)
{
	capture__poll(s->cap, 0);
	s->budget = (struct budget){
		.until = clock__now() + SAMPLER_PREPARE_SLICE,
		.sigs = &s->stop_sigs,
	};
	preload__glance_new(s->pending, &s->budget);
}

void sampler__start_naming(struct sampler *s)
{
	capture__poll(s->cap, 0); /* images that started just before the end */
	if (s->py_queued)
		read_pystacks(s);
	if (s->py_unqueued)
		debug("%" PRIu64 " new Python stacks were not read as they came (the queue was "
		      "full, or the deadline came): their code objects are read when named",
		      s->py_unqueued);
	preload__mark_waiting(s->pending);
	s->budget = (struct budget){
		.until = clock__now() + SAMPLER_NAMING_SECONDS,
		.sigs = &s->stop_sigs,
	};
	usyms__set_budget(s->us, &s->budget);
}

void sampler__end_interval(struct sampler *s)
{
	py_names__forget_gone(s->py, image_current, s->cap);
}

void sampler__close(struct sampler *s)
{
	capture__free(s->cap);
	preload__free(s->pending);
	warm__free(s->warm);
	usyms__free(s->us);
	py_names__free(s->py);
	free(s->py_queue);
	s->py = NULL;
	s->py_queue = NULL;
	s->cap = NULL;
	s->pending = NULL;
	s->warm = NULL;
	s->us = NULL;
}

void sampler__end(struct sampler *s)
{
	capture__free(s->cap);
	s->cap = NULL;
}
