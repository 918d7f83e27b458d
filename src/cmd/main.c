// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * smolder: parse the command line and run its command.  The default one
 * captures until the duration ends or a signal arrives, then reads the
 * counted samples, names their frames, folds them and writes the chosen
 * outputs.  Data flows one way:
 * capture -> stacks -> symbols -> profile -> outputs.
 * --continuous writes a profile per interval instead (continuous.c);
 * `smolder flamegraph` and `smolder diff` (convert.c) draw folded files.
 * Each stage gets its own options, built here from the command line
 * (stage_opts, and after the capture finish_opts_of): no stage sees
 * struct env.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include "cmd/cli.h"
#include "lib/clock.h"
#include "lib/cpus.h"
#include "cmd/continuous.h"
#include "cmd/serve.h"
#include "cmd/convert.h"
#include "lib/log.h"
#include "lib/phase.h"
#include "session/recording.h"
#include "session/finish.h"
#include "session/sampler.h"
#include "session/targets.h"
#include "unwind/unwind_table.h"

/* Appends ids as "1,2,3" (the first eight, then ",...") to buf[*at..len). */
static size_t put_ids(char *buf, size_t len, size_t at, const uint32_t *ids, size_t nr)
{
	for (size_t i = 0; i < nr && i < 8 && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%u", i ? "," : "", ids[i]);
	if (nr > 8 && at < len)
		at += snprintf(buf + at, len - at, ",...");
	return at;
}

/*
 * What the capture sampled, as the command line said it, for the outputs
 * (capture_info.targets): "-- make -j8", "-p 12,13", "--tid 14", "CPUs
 * 0,2", "all CPUs"; " in cgroup PATH" after.
 */
static const char *scope_of(const struct env *env)
{
	static char buf[256];
	size_t at = 0, len = sizeof(buf);

	if (env->command) {
		at = snprintf(buf, len, "--");
		for (char **a = env->command; *a && at < len; a++)
			at += snprintf(buf + at, len - at, " %s", *a);
	} else if (env->nr_tgids) {
		at = put_ids(buf, len, snprintf(buf, len, "-p "), env->tgids, env->nr_tgids);
	} else if (env->nr_tids) {
		at = put_ids(buf, len, snprintf(buf, len, "--tid "), env->tids, env->nr_tids);
	} else if (env->cpus_given) {
		at = snprintf(buf, len, "CPU%s ", env->nr_cpus > 1 ? "s" : "");
		for (size_t i = 0; i < env->nr_cpus && at < len; i++)
			at += snprintf(buf + at, len - at, "%s%d", i ? "," : "", env->cpus[i]);
	} else {
		at = snprintf(buf, len, "all CPUs");
	}
	if (env->cgroup_path && at < len)
		snprintf(buf + at, len - at, " in cgroup %s", env->cgroup_path);
	return buf;
}

/* The machine's name and kernel release, for the outputs; a name is one
 * word there (folded_read.h's header), so spaces become '_'. */
static void fill_host(struct capture_info *ci)
{
	struct utsname u;

	if (uname(&u))
		return;
	snprintf(ci->host, sizeof(ci->host), "%s", u.nodename);
	snprintf(ci->release, sizeof(ci->release), "%s", u.release);
	for (char *c = ci->host; *c; c++)
		if (*c <= ' ' || *c == 0x7f)
			*c = '_';
}

/* When smolder started (monotonic), for continuous mode's late start. */
static double launched;

/* What the post-capture stage needs of the command line; after the
 * capture (it fills env's duration, start, losses and main binary). */
static struct finish_opts finish_opts_of(const struct env *env)
{
	struct finish_opts fo = {
		.fold = {
			.user = !env->kernel_only,
			.kernel = !env->user_only,
			.delimiter = env->delimited,
			.annotate = env->annotate,
			.python_lines = env->python_lines,
			.source_lines = env->source_lines,
			.module_names = !env->folded,
			.per_cpu = env->per_cpu,
			.proc = env->per_thread ? PROC_THREAD : env->per_pid ? PROC_PID : PROC_COMM,
			.by_process = !env->folded,
			.cgroup_labels = !env->folded,
			.group_threads = env->group_threads,
			.irq_frames = env->irq_frames,
			.kworker_frames = env->kworker,
			.idle_paths = env->idle == IDLE_ONLY,
			.time_weighted = env->off_cpu,
			.sample_ns = cli__period_ns(env),
			.wakers = env->wakers,
		},
		.outputs = env->outputs,
		.nr_outputs = env->nr_outputs,
		.render = &env->render,
		.hottest_last = !env->hottest_first,
		.sample_ns = cli__period_ns(env),
		.info = {
			.duration_ns = env->captured_ns,
			.main_binary = *env->main_binary ? env->main_binary : NULL,
			.main_build_id = *env->main_build_id ? env->main_build_id : NULL,
			.kernel = !env->user_only,
			.targets = scope_of(env),
			.start_ns = env->started_ns,
			.rate_hz = cli__rate_hz(env),
			.counted = true,
			.lost = env->lost,
		},
		/* with -U --wakers too: a waker's stack tells an interrupt */
		.kernel_symbols = !env->user_only || env->wakers,
		/* continuous mode writes no idle table */
		.idle_table = env->idle == IDLE_ONLY && !env->continuous,
		.cpus = env->cpus,
		.nr_cpus = env->nr_cpus,
		.stack_entries = env->stack_entries,
		.count_entries = env->count_entries,
		.offcpu_entries = env->offcpu_entries,
		.continuous = env->continuous,
		.kernel_mode = env->kernel_mode,
		.kernel_threads = env->kernel_threads,
	};

	fill_host(&fo.info);
	return fo;
}

/* Whether an output shows where in the source frames ran (--lines, pprof's
 * lines and functions' files, speedscope's file and line): else inline
 * chains are named without reading the files' line programs. */
static bool shows_source_lines(const struct env *env)
{
	if (env->source_lines || env->format == FMT_PPROF || env->format == FMT_SPEEDSCOPE)
		return true;
	for (size_t i = 0; i < env->nr_outputs; i++)
		if (env->outputs[i].fmt == FMT_PPROF || env->outputs[i].fmt == FMT_SPEEDSCOPE)
			return true;
	return false;
}

static struct continuous_opts continuous_opts_of(const struct env *env)
{
	return (struct continuous_opts){
		.interval = env->interval,
		.duration = env->duration,
		.output_dir = env->output_dir,
		.dir = env->profile_dir,
		.format = env->format,
		.keep = env->keep,
		.max_bytes = env->max_bytes,
		.launched = launched,
		.opened = clock__now(),
	};
}

/* Names, folds and writes what src holds (s: the sampler it came from,
 * whose naming budget starts once kernel symbols are read; or NULL; kr:
 * the read of kernel symbols begun during the capture, or NULL). */
static int finish_capture(const struct finish_opts *fo, struct sampler *s,
			  const struct sample_source *src, struct usyms *us,
			  struct ksyms_reader *kr, struct finish_result *res)
{
	double start = clock__now();
	struct ksyms *ks = finish__ksyms_of(fo, kr);
	struct rusage ru;
	int rc;

	phase__mark("kernel symbols read");
	if (s)
		sampler__start_naming(s);
	rc = finish__write(fo, src, ks, us, fo->outputs, fo->nr_outputs, res) ? 1 : 0;
	phase__mark("named, folded and written");
	getrusage(RUSAGE_SELF, &ru);
	info("%zu stacks named and written in %.0f ms; peak RSS %ld KiB", res->stacks,
	     (clock__now() - start) * 1000, ru.ru_maxrss);
	ksyms__free(ks);
	return rc;
}

/* SMOLDER_REPLAY=FILE, a developer's facility (recording.h): names and
 * writes a recorded capture's samples instead of capturing. */
static int cmd_replay(struct env *env, const char *path)
{
	struct recording *rec = recording__load(path);
	struct usyms *us = rec ? usyms__new() : NULL;
	struct finish_result res;
	struct finish_opts fo;
	struct sample_source src;
	int rc = 1;

	if (us) {
		usyms__set_demangle(us, !env->no_demangle);
		usyms__set_inline(us, !env->no_inline, shows_source_lines(env));
		usyms__set_func_reader(us, unwind_funcs__reader);
		env->captured_ns = recording__captured_ns(rec);
		snprintf(env->main_binary, sizeof(env->main_binary), "%s",
			 recording__main_binary(rec));
		snprintf(env->main_build_id, sizeof(env->main_build_id), "%s",
			 recording__main_build_id(rec));
		fo = finish_opts_of(env);
		src = recording__source(rec);
		rc = finish_capture(&fo, NULL, &src, us, NULL, &res);
	}
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

/*
 * Whether a COMMAND's standard output must go to smolder's standard
 * error: when a profile goes to standard output, where the command's own
 * output would land in it (perf record and perf stat keep them apart
 * too).
 */
static bool command_out_to_err(const struct env *env)
{
	if (!env->command)
		return false;
	for (size_t i = 0; i < env->nr_outputs; i++)
		if (!env->outputs[i].path || !strcmp(env->outputs[i].path, "-"))
			return true;
	return false;
}

/* Once the command runs (a command that cannot run gets its one error
 * line alone), when standard output is not the terminal. */
static void say_command_out(const struct env *env)
{
	if (command_out_to_err(env) && !isatty(STDOUT_FILENO))
		warn("the command's output goes to standard error, out of the profile on standard"
		     " output (-o FILE leaves it on standard output)");
}

/* The options of every stage, from the command line. */
struct stage_opts {
	struct sampler_opts sampler;
	struct convert_opts convert;
	uint32_t command_pid; /* -- COMMAND: the one process sampled, with its children */
};

/*
 * The one place the command line becomes the stages' options.  command:
 * the PID of the command run (-- COMMAND), else 0.  o points into env,
 * which must outlive it.
 */
static void stage_opts(const struct env *env, pid_t command, struct stage_opts *o)
{
	*o = (struct stage_opts){
		.sampler.capture = {
			.freq = env->freq,
			.period = env->period,
			.kernel_stacks = !env->user_only,
			.user_stacks = !env->kernel_only,
			/* the idle breakdown is per CPU whatever the view */
			.per_cpu = env->per_cpu || env->idle == IDLE_ONLY,
			.idle_mode = env->idle,
			.kernel_mode = env->kernel_mode,
			.kernel_threads = env->kernel_threads,
			.irq_frames = env->irq_frames,
			.kworker_frames = env->kworker,
			.scope = {
				.tgids = env->tgids,
				.nr_tgids = env->nr_tgids,
				.tids = env->tids,
				.nr_tids = env->nr_tids,
				.follow_forks = env->command && !env->no_inherit,
				.cgroup = env->cgroup_fd >= 0,
				.cgroup_fd = env->cgroup_fd,
				.cgroupmap = env->cgroupmap,
				.mntnsmap = env->mntnsmap,
			},
			.cpus = env->cpus,
			.nr_cpus = env->nr_cpus,
			/* room for stack_entries stacks of up to 32 frames */
			.stack_chunks = env->stack_entries * 2,
			.count_entries = env->count_entries,
			.rotate = env->continuous,
			.btf_path = env->btf_path,
			.dwarf_unwind = !env->unwind_fp && !env->kernel_only,
			.python_frames = !env->no_python && !env->kernel_only,
			.unwind_budget = env->unwind_bytes,
			.offcpu = {
				.enabled = env->off_cpu,
				.wakers = env->wakers,
				.rotate = env->continuous,
				.min_ns = env->offcpu_min_us * 1000,
				.max_ns = env->offcpu_max_us * 1000,
				.sample = env->offcpu_sample ? env->offcpu_sample : 1,
				.pending_entries = env->offcpu_entries,
			},
		},
		.sampler.demangle = !env->no_demangle,
		.sampler.inline_frames = !env->no_inline,
		.sampler.source_lines = shows_source_lines(env),
		.convert = {
			.inputs = env->inputs,
			.nr_inputs = env->nr_inputs,
			.strict = env->strict,
			.normalize = env->normalize,
			.outputs = env->outputs,
			.nr_outputs = env->nr_outputs,
			.render = &env->render,
			.from_ns = env->from_ns,
			.to_ns = env->to_ns,
		},
		.command_pid = command,
	};
	if (command) {
		o->sampler.capture.scope.tgids = &o->command_pid;
		o->sampler.capture.scope.nr_tgids = 1;
	}
}

/* --idle-only: the kernel's count of each CPU's idle time (MAX_CPUS ms),
 * to tell at the end why a CPU had no idle sample; else NULL. */
static double *idle_count(const struct env *env)
{
	double *ms = env->idle == IDLE_ONLY ? calloc(MAX_CPUS, sizeof(*ms)) : NULL;

	if (ms && cpus__idle_ms(ms, MAX_CPUS)) {
		free(ms);
		return NULL;
	}
	return ms;
}

/* The idle time counted since idle_count(env) gave start, into start; NULL
 * (start freed) when it cannot be read. */
static double *idle_since(const struct env *env, double *start)
{
	double *now = start ? idle_count(env) : NULL;

	for (int cpu = 0; now && cpu < MAX_CPUS; cpu++)
		start[cpu] = now[cpu] - start[cpu];
	if (!now) {
		free(start);
		start = NULL;
	}
	free(now);
	return start;
}

/*
 * One capture, until the duration ends, a signal arrives or the targets
 * are gone; then what it counted is named, written and summed up.  *sig:
 * the signal that ended it, or 0.  Returns the exit code.
 */
static int capture_once(struct env *env, struct sampler *s, struct targets *t,
			struct ksyms_reader *kr, const sigset_t *sigs, int *sig)
{
	struct finish_result res;
	struct finish_opts fo;
	struct sample_source src;
	uint64_t c[CNT__MAX];
	double started, *idle;
	int rc;

	start_line(env, t ? targets__command_pid(t) : 0);
	if (t) {
		s->done = targets_gone;
		s->done_arg = t;
		s->done_fd = targets__wake_fd(t);
		targets__main_binary(t, env->main_binary, sizeof(env->main_binary),
				     env->main_build_id, sizeof(env->main_build_id));
	}
	idle = idle_count(env);
	started = clock__now();
	env->started_ns = clock__realtime_ns();
	*sig = sampler__wait(s, sigs, env->duration > 0 ? started + env->duration : 0);
	phase__mark("capture ended");
	capture__stop(s->cap);
	phase__mark("sampling off");
	env->captured_ns = (uint64_t)((clock__now() - started) * 1e9);
	capture__counters(s->cap, c);
	env->lost = c[CNT_STACK_MAP_FULL] + c[CNT_COUNT_MAP_FULL];
	idle = idle_since(env, idle);
	if (getenv("SMOLDER_RECORD"))
		recording__save(getenv("SMOLDER_RECORD"), s->cap, env->captured_ns,
				env->main_binary, env->main_build_id);

	fo = finish_opts_of(env);
	fo.fold.py = s->py;
	fo.idle_ms = idle;
	fo.named_ahead = s->warm;
	src = finish__capture_source(s->cap);
	rc = finish_capture(&fo, s, &src, s->us, kr, &res);
	free(idle);
	capture__counters(s->cap, c);
	finish__summary(&fo, s->cap, c, 0, res.unnamed, s->us, res.offcpu_ns);
	finish__python_summary(c, &res.py, s->py);
	finish__unsymbolized_hint(&res.unsym, res.samples);
	phase__mark("summed up");
	return rc;
}

/* The capture's own BPF programs, at most (ksyms_reader__own). */
#define MAX_OWN_PROGS 64

/*
 * A one-shot capture's kernel symbols are read in a thread of their own
 * from the moment its programs are loaded, while it samples: they are
 * needed only at the end.  Not sooner: during the load, libbpf's copy of
 * the kernel's BTF and the symbol table would add up to a higher peak RSS.
 * The other modes read them once, as they start.
 */
static void start_ksyms(void *arg)
{
	*(struct ksyms_reader **)arg = ksyms_reader__start("/proc/kallsyms");
}

/*
 * smolder [options] [duration] [-- COMMAND...]: sample, then name, fold
 * and write; or, with --continuous, a profile per interval.  The sampler
 * is closed here whatever happened, before the command is waited for.
 */
static int cmd_capture(struct env *env)
{
	struct continuous_opts co;
	struct finish_opts fo;
	struct targets *t = NULL;
	uint32_t ids[MAX_OWN_PROGS];
	struct ksyms_reader *kr;
	struct stage_opts o;
	struct sampler s;
	sigset_t sigs;
	int rc, sig = -1;

	if (getenv("SMOLDER_REPLAY"))
		return cmd_replay(env, getenv("SMOLDER_REPLAY"));
	block_stop_signals(env, &sigs);
	if (!env->continuous && (env->command || env->nr_tgids)) {
		t = targets__new(env->tgids, env->nr_tgids, env->command,
				 command_out_to_err(env));
		if (!t)
			return 1;
	}
	stage_opts(env, t ? targets__command_pid(t) : 0, &o);
	kr = NULL;
	if (!env->serve && !env->continuous && (!env->user_only || env->wakers)) {
		o.sampler.capture.on_loaded = start_ksyms;
		o.sampler.capture.loaded_arg = &kr;
	}
	if (sampler__open(&s, &o.sampler)) {
		ksyms__free(kr ? ksyms_reader__finish(kr) : NULL);
		targets__free(t);
		return 1;
	}
	if (kr)
		ksyms_reader__own(kr, ids, capture__prog_ids(s.cap, ids, MAX_OWN_PROGS));
	if (stopped_during_start(&sigs)) {
		rc = 1;
	} else if (env->serve) {
		fo = finish_opts_of(env);
		fo.fold.py = s.py;
		rc = serve__run(&(struct serve_opts){ .addr = env->serve,
						      .token_file = env->serve_token_file },
				&fo, &s, &sigs);
	} else if (env->continuous) {
		fo = finish_opts_of(env);
		fo.fold.py = s.py;
		co = continuous_opts_of(env);
		rc = continuous__run(&co, &fo, &s, &sigs);
	} else if (t && targets__go(t)) {
		rc = 127;
	} else {
		say_command_out(env);
		rc = capture_once(env, &s, t, kr, &sigs, &sig);
		kr = NULL; /* capture_once ended it */
	}
	if (kr)
		ksyms__free(ksyms_reader__finish(kr));
	if (sig >= 0)
		sampler__end(&s); /* a one-shot capture ran: the exit drops the rest */
	else
		sampler__close(&s);
	phase__mark("sampler closed");
	if (sig >= 0) /* a capture ran: the command's exit code */
		rc = exit_code(rc, targets__finish(t, sig));
	targets__free(t);
	return rc;
}

/* smolder flamegraph [FILE...] */
static int cmd_flamegraph(struct env *env)
{
	struct stage_opts o;

	stage_opts(env, 0, &o);
	return convert__flamegraph(&o.convert);
}

/* smolder diff BEFORE AFTER */
static int cmd_diff(struct env *env)
{
	struct stage_opts o;

	stage_opts(env, 0, &o);
	return convert__diff(&o.convert);
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

	launched = clock__now();
	phase__start();
	rc = cli__parse(argc, argv, &env);
	if (rc < 0)
		rc = commands[env.cmd](&env);
	cli__free(&env);
	phase__mark("exit");
	return rc;
}
