// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * smolder: parse the command line and run its command.  The default one
 * captures until the duration ends or a signal arrives, then reads the
 * counted samples, names their frames, folds them and writes the chosen
 * outputs.  Data flows one way:
 * capture -> stacks -> symbols -> folded stacks -> outputs.
 * --continuous writes a profile per interval instead (continuous.c);
 * `smolder flamegraph` and `smolder diff` (convert.c) draw folded files.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include "cli.h"
#include "continuous.h"
#include "convert.h"
#include "log.h"
#include "report.h"
#include "sampler.h"

/* Names, folds and writes what the capture counted. */
static int report(const struct env *env, struct sampler *s, struct fold_stats *st)
{
	double start = sampler__now();
	struct ksyms *ks = report__load_ksyms(env);
	struct rusage ru;
	struct fold *f;
	size_t nr = 0;
	int rc = 1;

	/* the naming budget starts now, kernel symbols read */
	sampler__start_naming(s);
	f = report__fold(env, s->cap, ks, s->us, st);
	if (f && !report__write(env, f, env->outputs, env->nr_outputs))
		rc = 0;
	if (f) {
		fold__sorted(f, &nr);
		report__idle_table(env, f);
	}
	getrusage(RUSAGE_SELF, &ru);
	info("%zu stacks named and written in %.0f ms; peak RSS %ld KiB", nr,
	     (sampler__now() - start) * 1000, ru.ru_maxrss);
	fold__free(f);
	ksyms__free(ks);
	return rc;
}

/* A signal that ends the run arrived while we were starting: say so and
 * stop before waiting for samples (what the first moments counted is not
 * written). */
static bool stopped_during_start(const sigset_t *sigs)
{
	static const struct { int sig; const char *name; } ends[] = {
		{ SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" },
	};
	sigset_t pending;

	if (sigpending(&pending))
		return false;
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (sigismember(sigs, ends[i].sig) && sigismember(&pending, ends[i].sig)) {
			err("stopped by %s during start-up: nothing written",
			    ends[i].name);
			return true;
		}
	return false;
}

/* smolder [options] [duration]: sample, then name, fold and write. */
static int cmd_capture(struct env *env)
{
	struct sigaction hup;
	struct fold_stats st = { 0 };
	uint64_t c[CNT__MAX];
	struct sampler s;
	sigset_t sigs;
	int rc;

	/* Blocked before the capture starts: a signal just after start still
	 * ends it cleanly instead of killing us with the maps unread.  SIGHUP
	 * (a closed terminal) ends it like SIGTERM, unless it was ignored when
	 * we started (nohup). */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigaction(SIGHUP, NULL, &hup) || hup.sa_handler != SIG_IGN)
		sigaddset(&sigs, SIGHUP);
	if (env->continuous)
		sigaddset(&sigs, SIGUSR1);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	if (sampler__open(&s, env))
		return 1;
	if (stopped_during_start(&sigs)) {
		sampler__close(&s);
		return 1;
	}
	if (env->continuous)
		return run_continuous(env, &s, &sigs);
	sampler__wait(&s, &sigs, env->duration > 0 ? sampler__now() + env->duration : 0);
	capture__stop(s.cap);

	rc = report(env, &s, &st);
	capture__counters(s.cap, c);
	report__summary(env, s.cap, c, 0, st.unnamed, s.us);
	sampler__close(&s);
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
