// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Continuous mode.  Each interval ends with a rotation of the capture's two
 * map banks (capture__rotate: sampling goes on into the other bank, and the
 * drained one holds exactly the interval's samples), then the drained bank
 * is named, folded and written as DIR/smolder-<start>.<ext> through a
 * temporary file (profile_dir.h says how names other users planted are
 * met), released, and old profiles smolder wrote are pruned.  Symbol
 * caches are trimmed after each interval (usyms__end_interval), so memory
 * stays bounded for any uptime.
 *
 * Intervals meet at the rotation: one ends and the next begins at the
 * moment the sampler switches banks, so naming and writing one interval
 * (up to SAMPLER_NAMING_SECONDS and the file's writing) is time of the
 * next, not added to it, and each file's start, end and length are what
 * its samples cover.  Each file says so inside (capture_info: the folded
 * header, pprof's time and duration, speedscope's name).  A first
 * interval that begins late, or one longer than --interval (the one
 * before it took longer than an interval to write), is said with why.
 */
#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/clock.h"
#include "cmd/continuous.h"
#include "lib/log.h"
#include "cmd/profile_dir.h"
#include "session/sampler.h"

struct interval {
	struct timespec start; /* CLOCK_REALTIME, for the file name */
	double start_mono;
	double end_mono;       /* the rotation that ended it */
	struct timespec end;
	double work_s;         /* the last end_interval's work after its rotation */
	double naming_s;       /* of which naming, folding and writing the file */
	struct unwind_maps_stats at_open; /* unwind tables built before sampling */
	bool have_tables;
	unsigned nr;           /* intervals written */
	unsigned failed;       /* intervals that could not be written */
	uint64_t unwritten;    /* their samples, lost */
	uint64_t unnamed[USYMS_MISS__MAX]; /* of every interval, for the summary */
	uint64_t offcpu_ns;    /* of every interval written, for the summary */
	struct unsym_summary unsym;        /* likewise, and the samples named */
	uint64_t named;
	unsigned removed;      /* old profiles pruned */
};

static long rss_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* ", N waiting" when tables of mapped files are not loaded: their frames
 * fall back to frame pointers until room returns. */
static const char *waiting(const struct unwind_maps_stats *ut)
{
	static char buf[32];

	if (!ut->waiting)
		return "";
	snprintf(buf, sizeof(buf), " (%zu waiting)", ut->waiting);
	return buf;
}

/* What one interval wrote, for its status line. */
struct written {
	struct profile_target to;
	struct finish_result res;
	uint64_t c[CNT__MAX];
	uint64_t lost;     /* its samples, when it could not be written */
	bool failed;
	unsigned removed;  /* old profiles pruned after it */
};

/*
 * Why the interval is not what --interval says, in why[] ("" when it is):
 * the first began late (starting the capture took long: unwind tables of
 * the processes already running are built before sampling starts), or it
 * lasted longer than --interval (the one before took longer than an
 * interval to name and write).
 */
static void lateness(const struct continuous_opts *o, const struct interval *iv,
		     char *why, size_t len)
{
	double length = iv->end_mono - iv->start_mono, late = iv->start_mono - o->launched;
	double slack = o->interval * 0.1 > 0.5 ? o->interval * 0.1 : 0.5;
	struct unwind_maps_stats ut;
	size_t at = 0;

	why[0] = '\0';
	if (!iv->nr && !iv->failed && o->launched > 0 && late > 2) {
		ut = iv->at_open;
		at = snprintf(why, len, "; first interval began %.1f s after launch: starting the"
			      " capture (loading the BPF programs, reading the processes' maps) took"
			      " %.1f s", late, o->opened - o->launched);
		if (iv->have_tables && ut.build_ms > 100 && at < len)
			at += snprintf(why + at, len - at, ", of which building unwind tables for %zu"
				       " processes %.1f s", ut.processes, ut.build_ms / 1000);
	}
	if (!(iv->nr || iv->failed) || length <= o->interval + slack || at >= len)
		return;
	if (iv->work_s > o->interval)
		snprintf(why + at, len - at, "; interval %.1f s for %g s: the one before took %.1f s"
			 " to write (naming and writing the file %.1f s)", length, o->interval,
			 iv->work_s, iv->naming_s);
	else
		snprintf(why + at, len - at, "; interval %.1f s for %g s: the wait for its end"
			 " returned %.1f s late (a busy machine, or reading new processes' maps)", length, o->interval,
			 length - o->interval);
}

/* One line per interval, on a terminal (or with -vv anywhere); an interval
 * that could not be written counts its samples as lost.  Without the line,
 * why the interval is late is still said. */
static void print_status(const struct continuous_opts *o, struct sampler *s,
			 const struct interval *iv, const struct written *w, bool off_cpu)
{
	const uint64_t *c = w->c;
	struct unwind_maps_stats ut;
	char tables[96] = "", offcpu[96] = "", removed[48] = "", late[256];
	struct tm tm;

	lateness(o, iv, late, sizeof(late));
	if (log_verbosity < 1 || (log_verbosity < 2 && !isatty(STDERR_FILENO))) {
		if (*late && log_verbosity >= 1) /* -q: not a fault, so not said */
			warn("%s", late + 2);
		return;
	}
	gmtime_r(&iv->start.tv_sec, &tm);
	if (capture__unwind_stats(s->cap, &ut))
		snprintf(tables, sizeof(tables), ", tables %zu files %" PRIu64 " KiB%s",
			 ut.files_loaded, ut.table_bytes / 1024, waiting(&ut));
	if (off_cpu)
		snprintf(offcpu, sizeof(offcpu), ", %" PRIu64 " off-CPU waits, %" PRIu64 " lost",
			 c[CNT_OFFCPU_WAITS], finish__offcpu_lost(c));
	if (w->removed)
		snprintf(removed, sizeof(removed), ", removed %u old", w->removed);
	fprintf(stderr, "smolder: %02d:%02d:%02dZ +%.0fs: %" PRIu64 " samples, %" PRIu64
		" lost%s, %zu stacks, %zu processes%s, RSS %ld KiB %s %s%s%s\n", tm.tm_hour, tm.tm_min,
		tm.tm_sec, iv->end_mono - iv->start_mono, c[CNT_SAMPLES],
		c[CNT_STACK_MAP_FULL] + c[CNT_COUNT_MAP_FULL] + w->lost, offcpu, w->res.stacks,
		w->res.processes, tables, rss_kib(), w->failed ? "-> not written:" : "->",
		w->to.at.given[0] ? w->to.at.given : w->to.name, removed, late);
}

/* With -vv: what the symbol caches hold after trimming. */
static void debug_usyms(const struct usyms *us)
{
	struct usyms_stats st;

	if (log_verbosity < 3)
		return;
	usyms__stats(us, &st);
	debug("symbols: %zu images, %zu files (%zu in use), cache %zu KiB of %zu, %zu KiB in all; "
	      "%" PRIu64 " images dropped, %" PRIu64 " files evicted", st.images, st.files,
	      st.files_pinned, st.cache_bytes / 1024, st.cache_limit / 1024, st.bytes / 1024,
	      st.images_dropped, st.files_evicted);
}

/* Names, folds and writes the drained bank as a new file of the output
 * directory, and records it there; 0, or -1 after printing why, with the
 * interval's samples counted in iv->unwritten. */
static int write_interval(const struct continuous_opts *o, const struct finish_opts *fo,
			  struct sampler *s, const struct ksyms *ks, struct interval *iv,
			  struct written *w)
{
	struct sample_source src = finish__capture_source(s->cap);
	struct out_spec out = { .fmt = o->format, .path = w->to.path, .at = &w->to.at };
	struct finish_opts this = *fo;
	uint64_t *c = w->c;
	int rc;

	capture__counters(s->cap, c);
	/* what the file says of itself: when, and what was lost */
	this.info.interval = true;
	this.named_ahead = s->warm;
	this.info.start_ns = (uint64_t)iv->start.tv_sec * 1000000000ULL + iv->start.tv_nsec;
	this.info.duration_ns = (uint64_t)(iv->end.tv_sec - iv->start.tv_sec) * 1000000000ULL +
				iv->end.tv_nsec - iv->start.tv_nsec;
	this.info.lost = c[CNT_STACK_MAP_FULL] + c[CNT_COUNT_MAP_FULL];
	this.info.counted = true;
	profile_dir__target(o->dir, &iv->start, &w->to);
	rc = finish__write(&this, &src, ks, s->us, &out, 1, &w->res);
	for (int m = 0; w->res.named && m < USYMS_MISS__MAX; m++)
		iv->unnamed[m] += w->res.unnamed[m];
	iv->offcpu_ns += w->res.offcpu_ns;
	if (w->res.named) {
		unsym_summary__merge(&iv->unsym, &w->res.unsym);
		iv->named += w->res.samples;
	}
	if (!rc) {
		profile_dir__add(o->dir, &w->to);
		return 0;
	}
	/* what the file would have held: the samples counted */
	w->lost = w->res.named ? w->res.samples
			       : c[CNT_SAMPLES] - c[CNT_STACK_MAP_FULL] - c[CNT_COUNT_MAP_FULL];
	w->failed = true;
	iv->unwritten += w->lost;
	iv->failed++;
	return -1;
}

/* Old profiles beyond --keep and --max-size, of those smolder wrote. */
static unsigned prune(const struct continuous_opts *o, struct interval *iv)
{
	unsigned removed = profile_dir__prune(o->dir, o->keep, o->max_bytes);

	iv->removed += removed;
	return removed;
}

/* Ends the interval: rotate, write, release, trim caches, prune files.
 * -1 only when the maps cannot be switched or cleared: a profile that
 * cannot be written (a full disk) is reported and the run goes on. */
static int end_interval(const struct continuous_opts *o, const struct finish_opts *fo,
			struct sampler *s, const struct ksyms *ks, struct interval *iv)
{
	struct written w = { 0 };
	double named;
	int e, rc;

	sampler__start_naming(s);
	/* the boundary: what the drained bank holds ends here, the next
	 * interval begins here */
	iv->end_mono = clock__now();
	clock_gettime(CLOCK_REALTIME, &iv->end);
	e = capture__rotate(s->cap);
	if (e) {
		err("cannot switch the sample maps: %s (run with -v)", log__errstr(-e));
		return -1;
	}
	named = clock__now();
	rc = write_interval(o, fo, s, ks, iv, &w);
	named = clock__now() - named;
	if (rc)
		warn("this interval's samples are lost; sampling goes on");
	e = capture__release(s->cap);
	if (e) {
		err("cannot clear the sample maps: %s (run with -v)", log__errstr(-e));
		return -1;
	}
	usyms__end_interval(s->us);
	sampler__end_interval(s);
	/* Give what this interval freed back to the kernel: over weeks, RSS
	 * then follows what is live, not the busiest interval's peak. */
	malloc_trim(0);
	debug_usyms(s->us);
	w.removed = prune(o, iv);
	print_status(o, s, iv, &w, fo->fold.time_weighted);
	iv->nr += !rc;
	iv->naming_s = named;
	iv->work_s = clock__now() - iv->end_mono;
	return 0;
}

/* The next interval begins where the last one ended (its rotation). */
static void next_interval(struct interval *iv)
{
	iv->start = iv->end;
	iv->start_mono = iv->end_mono;
}

/* The first interval begins when sampling did (o->opened): what was
 * sampled while kernel symbols were read is its own. */
static void first_interval(const struct continuous_opts *o, struct sampler *s,
			   struct interval *iv)
{
	double now = clock__now(), since = o->opened > 0 && o->opened < now ? now - o->opened : 0;
	uint64_t real = clock__realtime_ns() - (uint64_t)(since * 1e9);

	iv->start.tv_sec = (time_t)(real / 1000000000);
	iv->start.tv_nsec = (long)(real % 1000000000);
	iv->start_mono = now - since;
	iv->have_tables = capture__unwind_stats(s->cap, &iv->at_open);
}

/* SIGINT, SIGTERM and SIGHUP end the run, writing the last interval. */
static bool ends_run(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
}

int continuous__run(const struct continuous_opts *o, const struct finish_opts *fo,
		   struct sampler *s, const sigset_t *sigs)
{
	double end = o->duration > 0 ? clock__now() + o->duration : 0;
	struct ksyms *ks = finish__load_ksyms(fo);
	struct interval iv = { 0 };
	uint64_t c[CNT__MAX];
	int sig = 0, rc = 0;

	info("writing a profile every %g s to %s", o->interval, o->output_dir);
	prune(o, &iv); /* beyond the limits, of earlier runs */
	first_interval(o, s, &iv);
	while (!rc && !ends_run(sig)) {
		double until = iv.start_mono + o->interval;

		if (end && end < until)
			until = end;
		sig = sampler__wait(s, sigs, until);
		if (!sig && end && clock__now() >= end)
			sig = SIGTERM; /* the duration is over: the last interval */
		if (ends_run(sig))
			capture__stop(s->cap);
		else /* the next interval's new processes */
			sampler__glance_new(s);
		rc = end_interval(o, fo, s, ks, &iv) ? 1 : 0;
		next_interval(&iv);
	}
	capture__counters_total(s->cap, c);
	finish__summary(fo, s->cap, c, iv.unwritten, iv.unnamed, s->us, iv.offcpu_ns);
	finish__unsymbolized_hint(&iv.unsym, iv.named);
	if (iv.failed)
		warn("%u of %u intervals could not be written: their %" PRIu64 " samples are lost",
		     iv.failed, iv.failed + iv.nr, iv.unwritten);
	info("%u profiles written to %s, %u old ones removed", iv.nr, o->output_dir, iv.removed);
	ksyms__free(ks);
	return rc || iv.failed ? 1 : 0;
}
