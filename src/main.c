// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * smolder: parse the command line and run its command.  The default one
 * captures until the duration ends or a signal arrives, then reads the
 * counted samples, names their frames, folds them and writes the chosen
 * outputs.  Data flows one way:
 * capture -> stacks -> symbols -> folded stacks -> outputs.
 * `smolder flamegraph` and `smolder diff` (convert.c) draw folded files.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "capture.h"
#include "cli.h"
#include "convert.h"
#include "fold.h"
#include "ksyms.h"
#include "log.h"
#include "outputs.h"
#include "profile.h"
#include "usyms.h"

struct fold_ctx {
	struct capture *cap;
	struct fold *fold;
	struct stack_trace kst, ust;
};

static int fold_sample(const struct sample_key *key, uint64_t count, void *arg)
{
	struct fold_ctx *c = arg;
	bool have_k = key->kstack && !capture__stack(c->cap, key->kstack, &c->kst);
	bool have_u = key->ustack && !capture__stack(c->cap, key->ustack, &c->ust);

	return fold__add(c->fold, key, count, have_k ? &c->kst : NULL, have_u ? &c->ust : NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Runs until the duration has passed or SIGINT/SIGTERM arrives (both are
 * blocked and stay pending), meanwhile reading the mappings of every
 * process image that gets its first sample (capture's image events).
 */
static void run_capture(struct capture *cap, const sigset_t *sigs, double duration)
{
	double end = now_s() + duration;
	bool events_ok = true;
	struct timespec ts;
	int wait_ms;

	for (;;) {
		wait_ms = 100;
		if (duration > 0) {
			double left = end - now_s();

			if (left <= 0)
				break;
			if (left * 1000 < wait_ms)
				wait_ms = (int)(left * 1000) + 1;
		}
		if (events_ok && capture__poll(cap, wait_ms) < 0) {
			warn("cannot read process events: %s (short-lived processes may stay unnamed)",
			     errstr(errno));
			events_ok = false;
		}
		/* after a poll, only look; without one, wait here instead */
		ts.tv_sec = 0;
		ts.tv_nsec = events_ok ? 0 : wait_ms * 1000000L;
		if (sigtimedwait(sigs, NULL, &ts) >= 0)
			break;
	}
}

/* A process image had its first sample: read its mappings while it lives. */
static void on_image(uint32_t tgid, uint32_t gen, void *arg)
{
	struct usyms *us = arg;

	if (usyms__preload(us, tgid, gen))
		debug("pid %u (image %u) was gone before its mappings were read", tgid, gen);
}

static bool image_current(pid_t pid, uint32_t gen, void *arg)
{
	return capture__image_current(arg, pid, gen);
}

static struct fold *fold_capture(const struct env *env, struct capture *cap,
				 const struct ksyms *ks, struct usyms *us)
{
	struct fold_opts fo = {
		.user = !env->kernel_only,
		.kernel = !env->user_only,
		.delimiter = env->delimited,
		.annotate = env->annotate,
		.module_names = !env->folded,
		.per_cpu = env->per_cpu,
		.proc = env->per_thread ? PROC_THREAD : env->per_pid ? PROC_PID : PROC_COMM,
		.by_process = !env->folded,
	};
	struct fold_ctx *ctx = calloc(1, sizeof(*ctx));
	struct fold *f = fold__new(&fo, ks, us);
	int e = -ENOMEM;

	if (ctx && f) {
		ctx->cap = cap;
		ctx->fold = f;
		e = capture__for_each_sample(cap, fold_sample, ctx);
	}
	free(ctx);
	if (e) {
		err("cannot read samples: %s (run with -v)", errstr(-e));
		fold__free(f);
		return NULL;
	}
	return f;
}

/* Every -o of the capture; pictures get a profile of the folded stacks. */
static int write_outputs(const struct env *env, struct fold *f)
{
	struct out_data d = { .capture = true, .render = &env->render };
	struct profile *prof = NULL;
	int rc = 0;

	d.stacks = fold__sorted(f, &d.nr);
	for (size_t i = 0; i < env->nr_outputs && !rc; i++) {
		if (env->outputs[i].fmt > FMT_FOLDED && !prof) {
			prof = profile__from_folded(d.stacks, d.nr, env->freq ? 1000000000 / env->freq
									  : env->period);
			if (!prof) {
				err("out of memory");
				return -1;
			}
			d.prof = prof;
		}
		rc = outputs__write(&env->outputs[i], &d);
	}
	profile__free(prof);
	return rc;
}

static void print_summary(const struct env *env, struct capture *cap)
{
	uint64_t c[CNT__MAX];
	uint64_t lost, run_ns, runs;

	capture__counters(cap, c);
	lost = c[CNT_STACK_MAP_FULL] + c[CNT_COUNT_MAP_FULL];
	if (env->verbosity < 1)
		return;
	fprintf(stderr, "smolder: %" PRIu64 " samples, %" PRIu64 " lost (stack map full %" PRIu64
		", count map full %" PRIu64 ")\n", c[CNT_SAMPLES], lost,
		c[CNT_STACK_MAP_FULL], c[CNT_COUNT_MAP_FULL]);
	if (lost)
		warn("samples were lost: raise --stack-storage-size (now %u)", env->stack_entries);
	info("%" PRIu64 " idle-loop samples left out, %" PRIu64 " kernel and %" PRIu64
	     " user stacks unreadable, %" PRIu64 " samples of tasks outside our pid namespace",
	     c[CNT_IDLE_SKIPPED], c[CNT_KSTACK_ERR], c[CNT_USTACK_ERR], c[CNT_PIDNS_MISS]);
	if (c[CNT_EVENTS_LOST] || c[CNT_IMAGES_UNTRACKED])
		warn("%" PRIu64 " process events lost, %" PRIu64 " samples of untracked processes:"
		     " processes that exited early may stay unnamed", c[CNT_EVENTS_LOST],
		     c[CNT_IMAGES_UNTRACKED]);
	info("BPF maps use %" PRIu64 " KiB of kernel memory", capture__map_bytes(cap) / 1024);
	capture__prog_stats(cap, &run_ns, &runs);
	if (runs)
		info("BPF program: %" PRIu64 " runs, %" PRIu64 " ns per run", runs, run_ns / runs);
}

static struct capture *start_capture(const struct env *env, struct usyms *us)
{
	struct capture_opts o = {
		.freq = env->freq,
		.period = env->period,
		.kernel_stacks = !env->user_only,
		.user_stacks = !env->kernel_only,
		.per_cpu = env->per_cpu,
		.idle_mode = env->idle,
		.tgids = env->tgids,
		.nr_tgids = env->nr_tgids,
		.tids = env->tids,
		.nr_tids = env->nr_tids,
		.cpus = env->cpus,
		.nr_cpus = env->nr_cpus,
		/* room for stack_entries stacks of up to 32 frames */
		.stack_chunks = env->stack_entries * 2,
		.count_entries = env->stack_entries / 8 * 3 > 1024 ? env->stack_entries / 8 * 3 : 1024,
		.on_image = on_image,
		.arg = us,
	};

	return capture__open(&o);
}

/* Names, folds and writes what the capture counted. */
static int report(const struct env *env, struct capture *cap, struct usyms *us)
{
	double start = now_s();
	struct ksyms *ks = NULL;
	struct rusage ru;
	struct fold *f;
	size_t nr = 0;
	int rc = 1;

	if (!env->user_only) {
		ks = ksyms__load();
		if (!ks)
			warn("cannot read /proc/kallsyms: %s (kernel frames stay unnamed)",
			     errstr(errno));
		else if (ksyms__addresses_hidden(ks))
			warn("kernel addresses are hidden (set sysctl kernel.kptr_restrict=0)");
	}
	f = fold_capture(env, cap, ks, us);
	if (f && !write_outputs(env, f))
		rc = 0;
	if (f)
		fold__sorted(f, &nr);
	getrusage(RUSAGE_SELF, &ru);
	info("%zu stacks named and written in %.0f ms; peak RSS %ld KiB", nr,
	     (now_s() - start) * 1000, ru.ru_maxrss);
	fold__free(f);
	ksyms__free(ks);
	return rc;
}

/* smolder [options] [duration]: sample, then name, fold and write. */
static int cmd_capture(struct env *env)
{
	struct capture *cap;
	struct usyms *us;
	sigset_t sigs;
	int rc;

	/* Blocked before the capture starts: a signal just after start still
	 * ends it cleanly instead of killing us with the maps unread. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	us = usyms__new();
	cap = us ? start_capture(env, us) : NULL;
	if (!cap) {
		if (!us)
			err("out of memory");
		usyms__free(us);
		return 1;
	}
	usyms__set_validator(us, image_current, cap);
	usyms__set_demangle(us, !env->no_demangle);
	info("sampling %zu cpus at %" PRIu64 " %s", env->nr_cpus,
	     env->freq ? env->freq : env->period, env->freq ? "Hz" : "ns period");
	run_capture(cap, &sigs, env->duration);
	capture__stop(cap);
	capture__poll(cap, 0); /* images that started just before the stop */

	rc = report(env, cap, us);
	print_summary(env, cap);
	capture__free(cap);
	usyms__free(us);
	return rc;
}

static int (*const commands[])(struct env *) = {
	[CMD_CAPTURE] = cmd_capture,
	[CMD_FLAMEGRAPH] = cmd_flamegraph,
	[CMD_DIFF] = cmd_diff,
};

int main(int argc, char **argv)
{
	struct env env;
	int rc;

	rc = cli__parse(argc, argv, &env);
	if (rc < 0)
		rc = commands[env.cmd](&env);
	cli__free(&env);
	return rc;
}
