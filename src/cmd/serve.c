// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --serve.  One capture runs all along, as continuous mode's, and its
 * banks flip every SERVE_TICK_SECONDS (and when a request arrives, so that
 * its window starts then).  Each flip's drained bank is copied into every
 * window open (window.h): a sample counts in each window that covers it,
 * and no request loads a second BPF program.  A window that has reached
 * its end is named and folded as continuous mode's intervals are
 * (finish__write), encoded as gzip'd pprof in memory and handed to the
 * HTTP thread (http.h) whole: the client gets all of it or an error
 * status.  Symbol caches are trimmed after a window at most once a minute
 * (SERVE_TRIM_SECONDS), so memory stays bounded for any uptime.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd/serve.h"
#include "files/safe_open.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "serve/http.h"
#include "serve/request.h"
#include "serve/window.h"
#include "session/sampler.h"

struct open_window {
	uint64_t id;         /* the job's */
	double start, end;   /* monotonic */
	struct window *w;
};

struct serve {
	struct http *http;
	struct sampler *s;
	const struct finish_opts *fo;
	struct ksyms *ks;
	struct open_window win[HTTP_MAX_JOBS];
	double last_tick;
	double last_trim;    /* caches trimmed (monotonic) */
	/* for /metrics */
	uint64_t window_lost, profiles, profile_errors, cancelled, unnamed;
	uint64_t cgroup_other; /* samples served with cgroup="other" */
	double naming_seconds;
};

int serve__check_addr(const char *addr)
{
	char host[256];
	unsigned port;

	return request__parse_addr(addr, host, sizeof(host), &port);
}

char *serve__read_token(const char *path)
{
	struct stat st;
	char *tok = NULL;
	ssize_t n = -1;
	int fd = safe_open__file(path, &st);

	if (fd < 0) {
		err("cannot read the token file %s: %s", path, log__errstr(errno));
		return NULL;
	}
	if (st.st_mode & (S_IROTH | S_IWOTH | S_IWGRP)) {
		err("the token file %s may be read or written by other users (chmod 600 it)", path);
	} else if (st.st_size > SERVE_TOKEN_MAX) {
		err("the token file %s is over %d bytes (it holds one token)", path, SERVE_TOKEN_MAX);
	} else if (!(tok = calloc(1, SERVE_TOKEN_MAX + 2))) {
		err("out of memory");
	} else if ((n = read(fd, tok, SERVE_TOKEN_MAX + 1)) < 0 || n > SERVE_TOKEN_MAX) {
		err("cannot read the token file %s: %s", path, n < 0 ? log__errstr(errno) : "too big");
		n = -1;
	}
	close(fd);
	if (n < 0) {
		free(tok);
		return NULL;
	}
	tok[strcspn(tok, "\r\n")] = 0;
	for (const char *c = tok; *c; c++)
		if (*c <= ' ' || *c > '~')
			n = -1;
	if (n < 0 || !*tok) {
		err("the token file %s must hold one token of printable characters, no spaces", path);
		explicit_bzero(tok, SERVE_TOKEN_MAX + 2);
		free(tok);
		return NULL;
	}
	return tok;
}

/* ---- windows ---- */

static int add_to_windows(const struct sample_key *key, uint64_t count, void *arg)
{
	struct serve *sv = arg;

	for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
		if (sv->win[i].w)
			window__add(sv->win[i].w, sv->s->cap, key, count);
	return 0;
}

static bool any_open(const struct serve *sv)
{
	for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
		if (sv->win[i].w)
			return true;
	return false;
}

/* Flips the banks and adds what the drained one holds to every window
 * open; -1 when the maps cannot be switched or cleared. */
static int tick(struct serve *sv)
{
	struct capture *cap = sv->s->cap;
	int e = capture__rotate(cap);

	if (e) {
		err("cannot switch the sample maps: %s (run with -v)", log__errstr(-e));
		return -1;
	}
	for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
		if (sv->win[i].w)
			window__new_tick(sv->win[i].w);
	if (any_open(sv) && (e = capture__for_each_sample(cap, add_to_windows, sv)))
		warn("cannot read samples: %s (this second's samples are lost)", log__errstr(-e));
	e = capture__release(cap);
	if (e) {
		err("cannot clear the sample maps: %s (run with -v)", log__errstr(-e));
		return -1;
	}
	sv->last_tick = clock__now();
	return 0;
}

static void close_window(struct serve *sv, struct open_window *ow)
{
	sv->window_lost += window__lost(ow->w);
	window__free(ow->w);
	*ow = (struct open_window){ 0 };
}

static void answer_error(struct serve *sv, uint64_t id, int status, const char *why)
{
	http__answer(sv->http, id, status, (void *)why, strlen(why));
}

/* Names, folds and encodes a window that has ended, and answers its job. */
static void complete(struct serve *sv, struct open_window *ow)
{
	struct finish_opts fo = *sv->fo;
	struct sample_source src = window__source(ow->w);
	struct finish_result res;
	struct out_spec out = { .fmt = FMT_PPROF, .path = "the profile" };
	double t0 = clock__now();
	char *buf = NULL;
	size_t len = 0;
	int rc;

	fo.info.duration_ns = (uint64_t)((sv->last_tick - ow->start) * 1e9);
	out.stream = open_memstream(&buf, &len);
	if (!out.stream) {
		answer_error(sv, ow->id, 500, "smolder: out of memory");
		close_window(sv, ow);
		return;
	}
	sampler__glance_new(sv->s); /* sampling goes on: new processes' tables first */
	sampler__start_naming(sv->s);
	rc = finish__write(&fo, &src, sv->ks, sv->s->us, &out, 1, &res);
	if (fclose(out.stream))
		rc = -1;
	sv->naming_seconds += clock__now() - t0;
	for (int m = USYMS_NAMED + 1; res.named && m < USYMS_MISS__MAX; m++)
		sv->unnamed += res.unnamed[m];
	if (res.named)
		sv->cgroup_other += res.cgroup_other;
	if (rc || !len) {
		free(buf);
		sv->profile_errors++;
		answer_error(sv, ow->id, 500, "smolder: cannot write the profile (see its log)");
	} else {
		sv->profiles++;
		http__answer(sv->http, ow->id, 200, buf, len);
	}
	debug("window %" PRIu64 ": %" PRIu64 " samples (%" PRIu64 " of cgroup \"other\"), %zu stacks, "
	      "%zu bytes, named in %.0f ms",
	      ow->id, res.samples, res.cgroup_other, res.stacks, len, (clock__now() - t0) * 1000);
	close_window(sv, ow);
}

/* Windows that reached their end: answered; then, at most every
 * SERVE_TRIM_SECONDS, caches trimmed as after a continuous interval (after
 * every window, a scrape every 2 s would read again every 2 s the symbols
 * a busy machine's trim had just dropped). */
static void complete_due(struct serve *sv)
{
	bool any = false;

	for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
		if (sv->win[i].w && sv->win[i].end <= sv->last_tick + 0.001) {
			complete(sv, &sv->win[i]);
			any = true;
		}
	if (!any || sv->last_tick - sv->last_trim < SERVE_TRIM_SECONDS)
		return;
	sv->last_trim = sv->last_tick;
	usyms__end_interval(sv->s->us);
	sampler__end_interval(sv->s);
	malloc_trim(0);
}

/* New jobs open their windows from this tick; cancelled ones close. */
static void take_news(struct serve *sv)
{
	struct http_job jobs[HTTP_MAX_JOBS];
	uint64_t ids[HTTP_MAX_JOBS];
	size_t n = http__take_cancels(sv->http, ids, HTTP_MAX_JOBS);

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
			if (sv->win[i].w && sv->win[i].id == ids[k]) {
				close_window(sv, &sv->win[i]);
				sv->cancelled++;
			}
	n = http__take_jobs(sv->http, jobs, HTTP_MAX_JOBS);
	for (size_t k = 0; k < n; k++) {
		struct open_window *ow = NULL;

		for (size_t i = 0; i < HTTP_MAX_JOBS && !ow; i++)
			if (!sv->win[i].w)
				ow = &sv->win[i];
		/* the HTTP side takes at most HTTP_MAX_JOBS: a slot is free */
		if (!ow || !(ow->w = window__new(jobs[k].pids, jobs[k].nr_pids, jobs[k].cgroup))) {
			answer_error(sv, jobs[k].id, 503, "smolder: out of memory");
			continue;
		}
		ow->id = jobs[k].id;
		ow->start = sv->last_tick;
		ow->end = sv->last_tick + jobs[k].seconds;
	}
}

/* ---- metrics ---- */

static long rss_bytes(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * sysconf(_SC_PAGESIZE);
}

#define METRIC(f, type, name, help) fprintf(f, "# HELP " name " " help "\n# TYPE " name " " type "\n")

static void counters_metrics(FILE *f, const uint64_t *c, uint64_t window_lost)
{
	METRIC(f, "counter", "smolder_samples_total", "CPU samples taken.");
	fprintf(f, "smolder_samples_total %" PRIu64 "\n", c[CNT_SAMPLES]);
	METRIC(f, "counter", "smolder_lost_samples_total", "Samples lost, by reason.");
	fprintf(f, "smolder_lost_samples_total{reason=\"stack_map_full\"} %" PRIu64 "\n"
		   "smolder_lost_samples_total{reason=\"count_map_full\"} %" PRIu64 "\n"
		   "smolder_lost_samples_total{reason=\"window_full\"} %" PRIu64 "\n",
		c[CNT_STACK_MAP_FULL], c[CNT_COUNT_MAP_FULL], window_lost);
	METRIC(f, "counter", "smolder_offcpu_waits_lost_total", "Off-CPU waits lost, by reason.");
	fprintf(f, "smolder_offcpu_waits_lost_total{reason=\"pending_full\"} %" PRIu64 "\n"
		   "smolder_offcpu_waits_lost_total{reason=\"count_map_full\"} %" PRIu64 "\n"
		   "smolder_offcpu_waits_lost_total{reason=\"stack_map_full\"} %" PRIu64 "\n",
		c[CNT_OFFCPU_PENDING_FULL], c[CNT_OFFCPU_COUNT_FULL], c[CNT_OFFCPU_STACK_FULL]);
	METRIC(f, "counter", "smolder_unwind_fallbacks_total",
	       "User stacks walked by frame pointers, or cut, instead of by unwind tables, by reason.");
	fprintf(f, "smolder_unwind_fallbacks_total{reason=\"no_table\"} %" PRIu64 "\n"
		   "smolder_unwind_fallbacks_total{reason=\"not_loaded\"} %" PRIu64 "\n"
		   "smolder_unwind_fallbacks_total{reason=\"unsupported_rule\"} %" PRIu64 "\n"
		   "smolder_unwind_fallbacks_total{reason=\"unreadable\"} %" PRIu64 "\n"
		   "smolder_unwind_fallbacks_total{reason=\"bad_frame\"} %" PRIu64 "\n"
		   "smolder_unwind_fallbacks_total{reason=\"depth\"} %" PRIu64 "\n",
		c[CNT_UNWIND_NO_TABLE], c[CNT_UNWIND_NOT_LOADED], c[CNT_UNWIND_UNSUPPORTED],
		c[CNT_UNWIND_UNREADABLE], c[CNT_UNWIND_BAD_FRAME], c[CNT_UNWIND_DEPTH]);
	METRIC(f, "counter", "smolder_process_events_lost_total", "Process image events lost.");
	fprintf(f, "smolder_process_events_lost_total %" PRIu64 "\n", c[CNT_EVENTS_LOST]);
}

static void memory_metrics(FILE *f, const struct serve *sv)
{
	struct unwind_maps_stats ut = { 0 };
	size_t window_bytes = 0;

	for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
		if (sv->win[i].w)
			window_bytes += window__bytes(sv->win[i].w);
	capture__unwind_stats(sv->s->cap, &ut);
	METRIC(f, "gauge", "smolder_memory_bytes", "Memory smolder holds, by what holds it.");
	fprintf(f, "smolder_memory_bytes{what=\"resident\"} %ld\n"
		   "smolder_memory_bytes{what=\"bpf_maps\"} %" PRIu64 "\n"
		   "smolder_memory_bytes{what=\"unwind_tables\"} %" PRIu64 "\n"
		   "smolder_memory_bytes{what=\"unwind_tables_kernel\"} %" PRIu64 "\n"
		   "smolder_memory_bytes{what=\"windows\"} %zu\n",
		rss_bytes(), capture__map_bytes(sv->s->cap), ut.table_bytes, ut.kernel_bytes,
		window_bytes);
}

/* The sampler's part of /metrics, every tick. */
static void publish_metrics(struct serve *sv)
{
	uint64_t c[CNT__MAX];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	capture__counters_total(sv->s->cap, c);
	counters_metrics(f, c, sv->window_lost);
	memory_metrics(f, sv);
	METRIC(f, "counter", "smolder_naming_seconds_total", "Time spent naming and encoding profiles.");
	fprintf(f, "smolder_naming_seconds_total %.3f\n", sv->naming_seconds);
	METRIC(f, "counter", "smolder_unnamed_samples_total", "Samples served with an unnamed user frame.");
	fprintf(f, "smolder_unnamed_samples_total %" PRIu64 "\n", sv->unnamed);
	METRIC(f, "counter", "smolder_cgroup_other_samples_total",
	       "Samples served with cgroup=\"other\": their profile had over 256 cgroups.");
	fprintf(f, "smolder_cgroup_other_samples_total %" PRIu64 "\n", sv->cgroup_other);
	METRIC(f, "counter", "smolder_profiles_total", "Profiles served, by outcome.");
	fprintf(f, "smolder_profiles_total{outcome=\"served\"} %" PRIu64 "\n"
		   "smolder_profiles_total{outcome=\"error\"} %" PRIu64 "\n"
		   "smolder_profiles_total{outcome=\"cancelled\"} %" PRIu64 "\n",
		sv->profiles, sv->profile_errors, sv->cancelled);
	if (fclose(f)) {
		free(text);
		return;
	}
	http__set_metrics(sv->http, text);
}

/* ---- the loop ---- */

static bool has_news(void *arg)
{
	return http__news(arg);
}

static double next_wake(const struct serve *sv)
{
	double until = sv->last_tick + SERVE_TICK_SECONDS;

	for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
		if (sv->win[i].w && sv->win[i].end < until)
			until = sv->win[i].end;
	return until;
}

static bool ends_run(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
}

/* The windows still open when the run ends: an error, never a part. */
static void end_windows(struct serve *sv)
{
	for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
		if (sv->win[i].w) {
			answer_error(sv, sv->win[i].id, 503, "smolder: stopping");
			close_window(sv, &sv->win[i]);
		}
}

int serve__run(const struct serve_opts *o, const struct finish_opts *fo, struct sampler *s,
	       const sigset_t *sigs)
{
	struct serve sv = { .s = s, .fo = fo };
	char cgroup_root[PATH_MAX];
	struct http_opts ho = { .addr = o->addr };
	char *token = o->token_file ? serve__read_token(o->token_file) : NULL;
	uint64_t c[CNT__MAX];
	int sig = 0, rc = 0;

	if (o->token_file && !token)
		return 1;
	request__set_cgroup_root(proc_cgroup__mount(cgroup_root, sizeof(cgroup_root)) ? cgroup_root
										    : NULL);
	ho.token = token;
	sv.http = http__start(&ho);
	if (token)
		explicit_bzero(token, strlen(token));
	free(token);
	if (!sv.http)
		return 1;
	sv.ks = finish__load_ksyms(fo);
	info("serving CPU profiles on http://%s/debug/pprof/profile%s", o->addr,
	     o->token_file ? " (bearer token needed)" : "");
	s->done = has_news;
	s->done_arg = sv.http;
	sv.last_tick = sv.last_trim = clock__now();
	publish_metrics(&sv);
	while (!rc && !ends_run(sig)) {
		sig = sampler__wait(s, sigs, next_wake(&sv));
		if (ends_run(sig))
			break;
		rc = tick(&sv) ? 1 : 0;
		complete_due(&sv);
		take_news(&sv);
		publish_metrics(&sv);
	}
	capture__stop(s->cap);
	end_windows(&sv);
	http__stop(sv.http);
	s->done = NULL;
	capture__counters_total(s->cap, c);
	finish__summary(fo, s->cap, c, 0, NULL, s->us, FINISH_TIME_UNKNOWN);
	info("%" PRIu64 " profiles served, %" PRIu64 " failed, %" PRIu64 " cancelled", sv.profiles,
	     sv.profile_errors, sv.cancelled);
	ksyms__free(sv.ks);
	return rc;
}
