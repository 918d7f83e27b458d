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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "cli.h"
#include "continuous.h"
#include "convert.h"
#include "log.h"
#include "recording.h"
#include "report.h"
#include "sampler.h"
#include "targets.h"

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
	f = report__fold(env, s->cap, NULL, ks, s->us, st);
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

/* SMOLDER_REPLAY=FILE, a developer's facility (recording.h): names and
 * writes a recorded capture's samples instead of capturing. */
static int cmd_replay(struct env *env, const char *path)
{
	struct recording *rec = recording__load(path);
	struct usyms *us = rec ? usyms__new() : NULL;
	struct ksyms *ks = NULL;
	struct fold *f = NULL;
	int rc = 1;

	if (us) {
		usyms__set_demangle(us, !env->no_demangle);
		env->captured_ns = recording__captured_ns(rec);
		snprintf(env->main_binary, sizeof(env->main_binary), "%s",
			 recording__main_binary(rec));
		snprintf(env->main_build_id, sizeof(env->main_build_id), "%s",
			 recording__main_build_id(rec));
		ks = report__load_ksyms(env);
		f = report__fold(env, NULL, rec, ks, us, NULL);
	}
	if (f && !report__write(env, f, env->outputs, env->nr_outputs))
		rc = 0;
	if (f)
		report__idle_table(env, f);
	fold__free(f);
	ksyms__free(ks);
	usyms__free(us);
	recording__free(rec);
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

/* What the capture samples, for the start line: "all threads", "PID 12 (make) and its children". */
static void describe_targets(const struct env *env, pid_t child, char *buf, size_t len)
{
	const uint32_t *ids = env->nr_tgids ? env->tgids : env->tids;
	size_t nr = env->nr_tgids ? env->nr_tgids : env->nr_tids, o;

	if (child) {
		snprintf(buf, len, "PID %d (%s)%s", child, env->command[0],
			 env->no_inherit ? "" : " and its children");
		return;
	}
	if (!nr) {
		snprintf(buf, len, "all threads");
	} else {
		o = snprintf(buf, len, "%s", env->nr_tgids ? (nr > 1 ? "PIDs " : "PID ")
					     : (nr > 1 ? "TIDs " : "TID "));
		for (size_t i = 0; i < nr && i < 8 && o < len; i++)
			o += snprintf(buf + o, len - o, "%s%u", i ? "," : "", ids[i]);
		if (nr > 8 && o < len)
			snprintf(buf + o, len - o, ",...");
	}
	o = strlen(buf);
	if (env->cgroup_path && o < len)
		snprintf(buf + o, len - o, " in cgroup %s", env->cgroup_path);
}

/*
 * On a terminal, as bcc's profile does, one line saying what is sampled
 * and how the capture ends: "smolder: sampling all threads at 49 Hz, user
 * + kernel stacks, until Ctrl-C".
 */
static void start_line(const struct env *env, pid_t child)
{
	char what[256], rate[64], until[64];

	if (log_verbosity < 1 || !isatty(STDERR_FILENO))
		return;
	describe_targets(env, child, what, sizeof(what));
	if (env->freq)
		snprintf(rate, sizeof(rate), "%" PRIu64 " Hz", env->freq);
	else
		snprintf(rate, sizeof(rate), "every %" PRIu64 " ns of CPU time", env->period);
	if (env->duration > 0)
		snprintf(until, sizeof(until), "for %g s (Ctrl-C ends it sooner)", env->duration);
	else
		snprintf(until, sizeof(until), "%s", child ? "until it exits" : "until Ctrl-C");
	warn("sampling %s at %s, %s stacks, %s", what, rate,
	     env->user_only ? "user" : env->kernel_only ? "kernel" : "user + kernel", until);
}

static bool targets_gone(void *arg)
{
	if (!targets__gone(arg))
		return false;
	info("%s: the capture ends", targets__command_pid(arg) ? "the command exited"
							    : "every -p process has exited");
	return true;
}

/* With a command, the exit code is its own, but a failure of smolder's
 * when the command succeeded. */
static int exit_code(int rc, int command_rc)
{
	return command_rc < 0 || (rc && !command_rc) ? rc : command_rc;
}

/* -- COMMAND: the command is the one process sampled (with its children). */
static int add_command_target(struct env *env, struct targets *t)
{
	if (!targets__command_pid(t))
		return 0;
	free(env->tgids);
	env->tgids = malloc(sizeof(*env->tgids));
	if (!env->tgids) {
		err("out of memory");
		return -1;
	}
	env->tgids[0] = targets__command_pid(t);
	env->nr_tgids = 1;
	return 0;
}

/*
 * Blocked before the capture starts: a signal just after start still ends
 * it cleanly instead of killing us with the maps unread.  SIGHUP (a closed
 * terminal) ends it like SIGTERM, unless it was ignored when we started
 * (nohup).
 */
static void block_stop_signals(const struct env *env, sigset_t *sigs)
{
	struct sigaction hup;

	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	if (sigaction(SIGHUP, NULL, &hup) || hup.sa_handler != SIG_IGN)
		sigaddset(sigs, SIGHUP);
	if (env->continuous)
		sigaddset(sigs, SIGUSR1);
	sigprocmask(SIG_BLOCK, sigs, NULL);
}

/* smolder [options] [duration] [-- COMMAND...]: sample, then name, fold and write. */
static int cmd_capture(struct env *env)
{
	struct fold_stats st = { 0 };
	uint64_t c[CNT__MAX];
	struct targets *t = NULL;
	struct sampler s;
	sigset_t sigs;
	double started;
	int rc, sig;

	if (getenv("SMOLDER_REPLAY"))
		return cmd_replay(env, getenv("SMOLDER_REPLAY"));
	block_stop_signals(env, &sigs);
	if (!env->continuous && (env->command || env->nr_tgids)) {
		t = targets__new(env->tgids, env->nr_tgids, env->command);
		if (!t || add_command_target(env, t)) {
			targets__free(t);
			return 1;
		}
	}
	if (sampler__open(&s, env)) {
		targets__free(t);
		return 1;
	}
	if (stopped_during_start(&sigs)) {
		sampler__close(&s);
		targets__free(t);
		return 1;
	}
	if (env->continuous)
		return run_continuous(env, &s, &sigs);
	if (t && targets__go(t)) {
		sampler__close(&s);
		targets__free(t);
		return 127;
	}
	start_line(env, t ? targets__command_pid(t) : 0);
	if (t) {
		s.done = targets_gone;
		s.done_arg = t;
		targets__main_binary(t, env->main_binary, sizeof(env->main_binary),
				     env->main_build_id, sizeof(env->main_build_id));
	}
	started = sampler__now();
	sig = sampler__wait(&s, &sigs, env->duration > 0 ? started + env->duration : 0);
	capture__stop(s.cap);
	env->captured_ns = (uint64_t)((sampler__now() - started) * 1e9);
	if (getenv("SMOLDER_RECORD"))
		recording__save(getenv("SMOLDER_RECORD"), s.cap, env->captured_ns,
				env->main_binary, env->main_build_id);

	rc = report(env, &s, &st);
	capture__counters(s.cap, c);
	report__summary(env, s.cap, c, 0, st.unnamed, s.us);
	sampler__close(&s);
	rc = exit_code(rc, targets__finish(t, sig));
	targets__free(t);
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
