// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sampling session (see sampler.h). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <time.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "session/sampler.h"

/*
 * A process image had its first sample, or its mappings changed: its maps
 * are to be read while it lives.  Only queued here: this runs inside the
 * ring buffer's poll, which must stay cheap whatever the event rate.
 */
static void on_image(uint32_t tgid, uint32_t gen, void *arg)
{
	preload__add(arg, tgid, gen);
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
	s->done = NULL;
	s->us = usyms__new();
	s->pending = s->us ? preload__new(s->us) : NULL;
	if (!s->pending) {
		usyms__free(s->us);
		err("out of memory");
		return -1;
	}
	o.on_image = on_image;
	o.arg = s->pending;
	s->cap = capture__open(&o);
	if (!s->cap) {
		preload__free(s->pending);
		usyms__free(s->us);
		return -1;
	}
	s->events_ok = capture__has_events(s->cap); /* else sampler__wait just waits */
	usyms__set_validator(s->us, image_current, s->cap);
	/* unwind tables as soon as maps are read */
	usyms__set_maps_hook(s->us, capture__maps_read, s->cap);
	usyms__set_demangle(s->us, opts->demangle);
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

int sampler__wait(struct sampler *s, const sigset_t *sigs, double until)
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
		ms = wait_ms(until, due);
		if (s->events_ok && capture__poll(s->cap, ms) < 0) {
			warn("cannot read process events: %s (short-lived processes may stay unnamed)",
			     log__errstr(errno));
			s->events_ok = false;
		}
		if (!s->events_ok) {
			/* no events to wait on: wait for a signal instead */
			struct timespec w = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

			sig = sigtimedwait(sigs, NULL, &w);
			if (sig > 0)
				return sig;
		}
	}
}

void sampler__start_naming(struct sampler *s)
{
	capture__poll(s->cap, 0); /* images that started just before the end */
	preload__mark_waiting(s->pending);
	s->budget = (struct budget){
		.until = clock__now() + SAMPLER_NAMING_SECONDS,
		.sigs = &s->stop_sigs,
	};
	usyms__set_budget(s->us, &s->budget);
}

void sampler__close(struct sampler *s)
{
	capture__free(s->cap);
	preload__free(s->pending);
	usyms__free(s->us);
	s->cap = NULL;
	s->pending = NULL;
	s->us = NULL;
}
