// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Command-line parsing and validation (see cli.h).  Every usage error is one
 * line naming the fix and exits 2; a check against the running system (a PID
 * that does not exist, an offline CPU) exits 1.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "capture/capture.h"
#include "cmd/cli.h"
#include "cmd/help.h"
#include "cmd/man.h"
#include "lib/log.h"
#include "cmd/profile_dir.h"
#include "cmd/intervals.h"
#include "lib/clock.h"
#include "cmd/serve.h"

enum {
	OPT_IDLE_ONLY = 1000, OPT_STACK_STORAGE, OPT_PER_CPU, OPT_PER_PID,
	OPT_PER_THREAD, OPT_VERSION, OPT_NO_DEMANGLE, OPT_NO_INLINE, OPT_LINES, OPT_NO_PYTHON, OPT_PYTHON_LINES, OPT_FORMAT, OPT_TITLE,
	OPT_SUBTITLE, OPT_WIDTH, OPT_MINWIDTH, OPT_COLORS, OPT_COUNTNAME,
	OPT_INVERTED, OPT_REVERSE, OPT_FLAMECHART, OPT_CONTINUOUS, OPT_INTERVAL,
	OPT_OUTPUT_DIR, OPT_KEEP, OPT_MAX_SIZE, OPT_GROUP_THREADS, OPT_KWORKER, OPT_IRQ_FRAMES,
	OPT_BTF, OPT_UNWIND, OPT_UNWIND_MEMORY, OPT_STRICT, OPT_NO_INHERIT, OPT_CGROUPMAP,
	OPT_MNTNSMAP, OPT_HASH_STORAGE, OPT_EBPF, OPT_HOTTEST_FIRST, OPT_OFF_CPU, OPT_WAKERS,
	OPT_OFFCPU_SAMPLE, OPT_OFFCPU_MIN, OPT_OFFCPU_MAX, OPT_KERNEL_MODE, OPT_KERNEL_THREADS,
	OPT_FROM, OPT_TO, OPT_SERVE, OPT_SERVE_TOKEN_FILE, OPT_SERVE_PID_LABELS,
};

#define RENDER_OPTIONS                                                        \
	{ "output", required_argument, NULL, 'o' },                           \
	{ "format", required_argument, NULL, OPT_FORMAT },                    \
	{ "title", required_argument, NULL, OPT_TITLE },                      \
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },                \
	{ "width", required_argument, NULL, OPT_WIDTH },                      \
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },                \
	{ "colors", required_argument, NULL, OPT_COLORS },                    \
	{ "countname", required_argument, NULL, OPT_COUNTNAME },              \
	{ "inverted", no_argument, NULL, OPT_INVERTED },                      \
	{ "reverse", no_argument, NULL, OPT_REVERSE },                        \
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },                  \
	{ "verbose", no_argument, NULL, 'v' },                                \
	{ "quiet", no_argument, NULL, 'q' },                                  \
	{ "help", no_argument, NULL, 'h' }

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 'L' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "frequency", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "include-idle", no_argument, NULL, 'I' },
	{ "idle-only", no_argument, NULL, OPT_IDLE_ONLY },
	{ "user-stacks-only", no_argument, NULL, 'U' },
	{ "kernel-stacks-only", no_argument, NULL, 'K' },
	{ "kernel-mode", no_argument, NULL, OPT_KERNEL_MODE },
	{ "kernel-threads", no_argument, NULL, OPT_KERNEL_THREADS },
	{ "stack-storage-size", required_argument, NULL, OPT_STACK_STORAGE },
	{ "continuous", no_argument, NULL, OPT_CONTINUOUS },
	{ "serve", required_argument, NULL, OPT_SERVE },
	{ "serve-token-file", required_argument, NULL, OPT_SERVE_TOKEN_FILE },
	{ "serve-pid-labels", no_argument, NULL, OPT_SERVE_PID_LABELS },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "output-dir", required_argument, NULL, OPT_OUTPUT_DIR },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "folded", no_argument, NULL, 'f' },
	{ "delimited", no_argument, NULL, 'd' },
	{ "annotations", no_argument, NULL, 'a' },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
	{ "python-lines", no_argument, NULL, OPT_PYTHON_LINES },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "per-pid", no_argument, NULL, OPT_PER_PID },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "group-threads", no_argument, NULL, OPT_GROUP_THREADS },
	{ "kworker", no_argument, NULL, OPT_KWORKER },
	{ "irq-frames", no_argument, NULL, OPT_IRQ_FRAMES },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "btf", required_argument, NULL, OPT_BTF },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "unwind-memory", required_argument, NULL, OPT_UNWIND_MEMORY },
	{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "cgroupmap", required_argument, NULL, OPT_CGROUPMAP },
	{ "mntnsmap", required_argument, NULL, OPT_MNTNSMAP },
	{ "hash-storage-size", required_argument, NULL, OPT_HASH_STORAGE },
	{ "ebpf", no_argument, NULL, OPT_EBPF },
	{ "hottest-first", no_argument, NULL, OPT_HOTTEST_FIRST },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "wakers", no_argument, NULL, OPT_WAKERS },
	{ "off-cpu-sample", required_argument, NULL, OPT_OFFCPU_SAMPLE },
	{ "off-cpu-min-us", required_argument, NULL, OPT_OFFCPU_MIN },
	{ "off-cpu-max-us", required_argument, NULL, OPT_OFFCPU_MAX },
	RENDER_OPTIONS,
	{ 0 },
};

static const struct option flamegraph_opts[] = {
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	RENDER_OPTIONS,
	{ 0 },
};

static const struct option diff_opts[] = {
	{ "normalize", no_argument, NULL, 'n' },
	{ "strict", no_argument, NULL, OPT_STRICT },
	RENDER_OPTIONS,
	{ 0 },
};

static const char *const palettes[] = {
	"hot", "mem", "io", "kernel", "java", "red", "green", "blue", "aqua",
	"yellow", "purple", "orange", NULL,
};

/* A decimal number in [lo, hi], else a usage error naming the option. */
static int parse_u64(const char *s, const char *what, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '-' || *s == '+' || !*s)
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	err("invalid %s '%s' (expected a whole number from %llu to %llu)", what, s,
	    (unsigned long long)lo, (unsigned long long)hi);
	return -1;
}

/* A list with an empty element ("1,,2", ",1", "1,", ""): a usage error. */
static bool empty_element(const char *s)
{
	return !*s || *s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,");
}

/* "1,2,3" into a fresh array of ids. */
static int parse_ids(const char *s, const char *what, uint32_t **ids, size_t *nr)
{
	char *copy, *save = NULL;
	uint64_t v;

	if (empty_element(s)) {
		err("invalid %s list '%s' (%s: expected e.g. 1 or 1,2)", what, s,
		    *s ? "an empty element" : "empty");
		return -1;
	}
	if (!(copy = strdup(s)))
		return -1;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint32_t *n = realloc(*ids, (*nr + 1) * sizeof(**ids));

		if (!n || parse_u64(t, what, 1, INT_MAX, &v)) {
			free(copy);
			return -1;
		}
		*ids = n;
		(*ids)[(*nr)++] = v;
	}
	free(copy);
	return 0;
}

static int parse_seconds(const char *s, const char *what, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v <= 0 || v > 1e9) {
		err("invalid %s '%s' (expected seconds, e.g. 10 or 0.5)", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

static uint64_t max_sample_rate(void)
{
	unsigned long long v = 100000;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 100000;
		fclose(f);
	}
	return v;
}

static int add_output(const char *path, struct env *env)
{
	if (!*path) {
		err("empty output file name (give -o FILE)");
		return -1;
	}
	if (env->nr_outputs == MAX_OUTPUTS) {
		err("too many -o options (at most %d)", MAX_OUTPUTS);
		return -1;
	}
	env->outputs[env->nr_outputs++].path = path;
	return 0;
}

/* "1.5" pixels, or "2%" of all samples (stored negative). */
static int parse_minwidth(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0 || (*end && strcmp(end, "%")) ||
	    (*end == '%' && v > 100)) {
		err("invalid minimum width '%s' (expected pixels like 0.5, or a percentage like 1%%)", s);
		return -1;
	}
	*out = *end == '%' ? -v : v;
	if (!v) /* 0 means "the default" to the renderer; this keeps every frame */
		*out = 1e-12;
	return 0;
}

static int parse_palette(const char *s, struct env *env)
{
	for (size_t i = 0; palettes[i]; i++)
		if (!strcmp(s, palettes[i])) {
			env->render.colors = palettes[i];
			return 0;
		}
	err("unknown palette '%s' (expected hot, mem, io, kernel, java, red, green, blue, aqua, yellow, purple or orange)", s);
	return -1;
}

/* Options shared by a capture and the two drawing commands. */
static int parse_render_option(int c, const char *arg, struct env *env)
{
	struct render_opts *r = &env->render;
	uint64_t v;

	switch (c) {
	case 'o': return add_output(arg, env);
	case OPT_FORMAT:
		if (!format__parse(arg, &env->format) &&
		    (env->cmd == CMD_CAPTURE ||
		     (env->format != FMT_REPORT && env->format != FMT_SUMMARY)))
			return 0;
		err("unknown format '%s' (expected %sfolded, svg, speedscope or pprof)", arg,
		    env->cmd == CMD_CAPTURE ? "report, summary, " : "");
		return -1;
	case OPT_TITLE: r->title = arg; return 0;
	case OPT_SUBTITLE: r->subtitle = arg; return 0;
	case OPT_COUNTNAME: r->countname = arg; return 0;
	case OPT_COLORS: return parse_palette(arg, env);
	case OPT_WIDTH:
		if (parse_u64(arg, "width", 100, 100000, &v))
			return -1;
		r->width = v;
		return 0;
	case OPT_MINWIDTH: return parse_minwidth(arg, &r->minwidth);
	case OPT_INVERTED: r->inverted = true; return 0;
	case OPT_REVERSE: r->reverse = true; return 0;
	case OPT_FLAMECHART: r->flamechart = true; return 0;
	case 'v': env->verbosity++; return 0;
	case 'q': env->verbosity = 0; return 0;
	}
	return -1;
}

/* An option's path, which must not be empty. */
static int nonempty(const char *arg, const char *opt, const char **out)
{
	if (!*arg) {
		err("empty path for --%s (give --%s PATH)", opt, opt);
		return -1;
	}
	*out = arg;
	return 0;
}

static int parse_option(int c, const char *arg, struct env *env)
{
	uint64_t v;

	switch (c) {
	case 'p': return parse_ids(arg, "pid", &env->tgids, &env->nr_tgids);
	case 'L': return parse_ids(arg, "tid", &env->tids, &env->nr_tids);
	case 'C': {
		int n = empty_element(arg) ? -1 : cpus__parse_list(arg, env->cpus, MAX_CPUS);

		if (n < 0) {
			err("invalid cpu list '%s' (%sexpected e.g. 0,2 or 0-3)", arg,
			    empty_element(arg) ? "an empty element: " : "");
			return -1;
		}
		env->nr_cpus = n;
		env->cpus_given = true;
		return 0;
	}
	case 'F': return parse_u64(arg, "frequency", 1, max_sample_rate(), &env->freq);
	case 'c': return parse_u64(arg, "sample period", 10000, UINT64_MAX / 2, &env->period);
	case OPT_CONTINUOUS: env->continuous = true; return 0;
	case OPT_SERVE:
		env->serve = arg;
		return serve__check_addr(arg);
	case OPT_SERVE_TOKEN_FILE:
		env->serve_token_file = arg;
		return 0;
	case OPT_SERVE_PID_LABELS:
		env->serve_pid_labels = true;
		return 0;
	case OPT_INTERVAL: return parse_seconds(arg, "interval", &env->interval);
	case OPT_OUTPUT_DIR:
		if (!*arg) {
			err("empty output directory (give --output-dir DIR)");
			return -1;
		}
		env->output_dir = arg;
		return 0;
	case OPT_KEEP:
		if (parse_u64(arg, "number of profiles to keep", 1, 1000000000, &v))
			return -1;
		env->keep = v;
		return 0;
	case OPT_MAX_SIZE:
		if (parse_u64(arg, "maximum size in MB", 1, 1ull << 40, &v))
			return -1;
		env->max_bytes = v << 20;
		return 0;
	case OPT_STACK_STORAGE:
		if (parse_u64(arg, "stack storage size", 16, MAX_STACK_ENTRIES, &v))
			return -1;
		env->stack_entries = v;
		return 0;
	case 'I': env->idle = IDLE_INCLUDE; return 0;
	case OPT_IDLE_ONLY: env->idle = IDLE_ONLY; return 0;
	case 'U': env->user_only = true; return 0;
	case 'K': env->kernel_only = true; return 0;
	case OPT_KERNEL_MODE: env->kernel_mode = true; return 0;
	case OPT_KERNEL_THREADS: env->kernel_threads = true; return 0;
	case 'f': env->folded = true; return 0;
	case 'd': env->delimited = true; return 0;
	case 'a': env->annotate = true; return 0;
	case OPT_NO_DEMANGLE: env->no_demangle = true; return 0;
	case OPT_NO_INLINE: env->no_inline = true; return 0;
	case OPT_LINES: env->source_lines = true; return 0;
	case OPT_NO_PYTHON: env->no_python = true; return 0;
	case OPT_PYTHON_LINES: env->python_lines = true; return 0;
	case OPT_PER_CPU: env->per_cpu = true; return 0;
	case OPT_PER_PID: env->per_pid = true; return 0;
	case OPT_PER_THREAD: env->per_thread = true; return 0;
	case OPT_GROUP_THREADS: env->group_threads = true; return 0;
	case OPT_KWORKER: env->kworker = true; return 0;
	case OPT_IRQ_FRAMES: env->irq_frames = true; return 0;
	case OPT_UNWIND:
		if (!strcmp(arg, "fp") || !strcmp(arg, "dwarf")) {
			env->unwind_fp = !strcmp(arg, "fp");
			return 0;
		}
		err("unknown unwinder '%s' (expected dwarf or fp)", arg);
		return -1;
	case OPT_UNWIND_MEMORY:
		if (parse_u64(arg, "unwind table memory in MiB", 1, 1024, &v))
			return -1;
		env->unwind_bytes = v << 20;
		return 0;
	case OPT_NO_INHERIT: env->no_inherit = true; return 0;
	case OPT_HOTTEST_FIRST: env->hottest_first = true; return 0;
	case OPT_OFF_CPU: env->off_cpu = true; return 0;
	case OPT_WAKERS: env->wakers = true; return 0;
	case OPT_OFFCPU_SAMPLE:
		return parse_u64(arg, "off-CPU sampling ratio", 1, 1000000, &env->offcpu_sample);
	case OPT_OFFCPU_MIN:
	case OPT_OFFCPU_MAX:
		env->offcpu_bounds = true;
		return parse_u64(arg, "block time in microseconds", c == OPT_OFFCPU_MIN ? 0 : 1,
				 UINT64_MAX / 1000, c == OPT_OFFCPU_MIN ? &env->offcpu_min_us
									: &env->offcpu_max_us);
	case 'G': return nonempty(arg, "cgroup", &env->cgroup_path);
	case OPT_CGROUPMAP: return nonempty(arg, "cgroupmap", &env->cgroupmap);
	case OPT_MNTNSMAP: return nonempty(arg, "mntnsmap", &env->mntnsmap);
	case OPT_HASH_STORAGE:
		if (parse_u64(arg, "hash storage size", 1024, MAX_STACK_ENTRIES, &v))
			return -1;
		env->hash_entries = v;
		return 0;
	case OPT_BTF:
		if (!*arg) {
			err("empty BTF file name (give --btf FILE)");
			return -1;
		}
		env->btf_path = arg;
		return 0;
	}
	return parse_render_option(c, arg, env);
}

static int check_conflicts(const struct env *env)
{
	if (env->nr_tgids && env->nr_tids)
		err("options -p and -L exclude each other, as in bcc (give -L alone: thread ids are unique)");
	else if (env->command && (env->nr_tgids || env->nr_tids))
		err("a COMMAND and -p or -L exclude each other (sample the command, or running processes)");
	else if (env->command && env->continuous)
		err("continuous mode does not run a COMMAND (start it apart and give -p or --cgroup)");
	else if (env->no_inherit && !env->command)
		err("--no-inherit is for a COMMAND (smolder --no-inherit -- COMMAND...)");
	else if (env->user_only && env->kernel_only)
		err("-U and -K exclude each other (drop one)");
	else if (env->user_only && env->kernel_threads)
		err("options -U and --kernel-threads exclude each other (kernel threads have no user stacks: drop -U)");
	else if (env->command && env->kernel_threads)
		err("a COMMAND and --kernel-threads exclude each other (a command is no kernel thread: drop one)");
	else if (env->freq && env->period)
		err("-F and -c exclude each other (give a frequency or a period)");
	else if (env->per_pid && env->per_thread)
		err("--per-pid and --per-thread exclude each other (drop one)");
	else if (env->serve && env->continuous)
		err("options --serve and --continuous exclude each other (serve scrapes, or write files)");
	else if (env->serve && (env->command || env->nr_outputs))
		err("options --serve and -o or a COMMAND exclude each other (it answers scrapes: drop them)");
	else if (env->serve_token_file && !env->serve)
		err("option --serve-token-file needs --serve ADDR");
	else if (env->serve_pid_labels && !env->serve)
		err("option --serve-pid-labels needs --serve ADDR (one-shot profiles always have pid labels)");
	else if (env->continuous && !env->output_dir)
		err("continuous mode needs --output-dir DIR (where the profiles go)");
	else if (env->continuous && env->nr_outputs)
		err("continuous mode writes to --output-dir, not -o (drop -o)");
	else if (!env->continuous && (env->output_dir || env->interval || env->keep || env->max_bytes))
		err("options --output-dir, --interval, --keep and --max-size need --continuous");
	else if (!env->off_cpu && (env->wakers || env->offcpu_sample || env->offcpu_bounds))
		err("options --wakers, --off-cpu-sample, --off-cpu-min-us and --off-cpu-max-us need --off-cpu (add it)");
	else if (env->off_cpu && env->idle == IDLE_ONLY)
		err("--off-cpu and --idle-only exclude each other (idle CPUs do not wait: drop one)");
	else if (env->offcpu_max_us && env->offcpu_min_us > env->offcpu_max_us)
		err("the minimum block time is above the maximum (give --off-cpu-min-us below --off-cpu-max-us)");
	else
		return 0;
	return -1;
}

/* Map sizes, once the rate, the interval and the CPUs are known. */
static void size_maps(struct env *env)
{
	struct map_sizes m = {
		.stack_entries = env->stack_entries,
		.hash_entries = env->hash_entries,
		.continuous = env->continuous,
		.key_per_stack = env->command && env->default_rate,
		.hz = cli__rate_hz(env),
		.interval = env->interval,
		.duration = env->duration,
		.off_cpu = env->off_cpu,
		.nr_cpus = env->nr_cpus,
	};

	map_sizes__choose(&m);
	env->stack_entries = m.stack_entries;
	env->count_entries = m.count_entries;
	env->offcpu_entries = m.offcpu_entries;
}

/* Continuous mode's defaults and its output directory, made if missing
 * and opened (profile_dir.h says which it refuses). */
static int setup_continuous(struct env *env)
{
	if (!env->freq && !env->period)
		env->freq = DEFAULT_CONTINUOUS_FREQ;
	if (!env->interval)
		env->interval = DEFAULT_INTERVAL;
	if (!env->keep)
		env->keep = DEFAULT_KEEP;
	if (!env->format)
		env->format = FMT_FOLDED;
	env->profile_dir = profile_dir__open(env->output_dir, env->format);
	return env->profile_dir ? 0 : -1;
}

/* --serve: continuous mode's capture (its rate, two banks), sized for
 * the samples of a few ticks: naming a window delays the next flip. */
static void setup_serve(struct env *env)
{
	if (!env->freq && !env->period)
		env->freq = DEFAULT_CONTINUOUS_FREQ;
	env->continuous = true;
	env->interval = SERVE_SIZED_SECONDS;
	env->format = FMT_PPROF;
	/* a pid label on every sample of a busy host is a series per process */
	env->render.without_pids = !env->serve_pid_labels;
}

/*
 * Each output's format: --format, else what its name says, else the
 * command's default: a capture's report (folded with -f), a drawing
 * command's SVG.  With no -o, one output: standard output.
 */
static void resolve_formats(struct env *env)
{
	enum out_format dflt = env->cmd != CMD_CAPTURE ? FMT_SVG
			       : env->folded ? FMT_FOLDED : FMT_REPORT;

	if (!env->nr_outputs)
		env->nr_outputs = 1; /* outputs[0].path NULL: standard output */
	for (size_t i = 0; i < env->nr_outputs; i++) {
		struct out_spec *o = &env->outputs[i];

		o->fmt = env->format ? env->format : format__of_path(o->path);
		/* folded files carry no origins to report: other names draw */
		if (o->fmt == FMT_AUTO || (env->cmd != CMD_CAPTURE &&
					   (o->fmt == FMT_REPORT || o->fmt == FMT_SUMMARY)))
			o->fmt = dflt;
	}
}

static int show_help(const struct env *env)
{
	help__print(env->cmd == CMD_FLAMEGRAPH ? HELP_FLAMEGRAPH
		    : env->cmd == CMD_DIFF ? HELP_DIFF : HELP_CAPTURE);
	return 0;
}

#define CAPTURE_OPTSTRING ":p:L:C:F:c:G:IUKfdao:vqh"

/* True when arg, an option of the capture's, takes the next argument as its value. */
static bool takes_next(const char *arg)
{
	size_t n;

	if (arg[0] != '-' || !arg[1])
		return false;
	if (arg[1] == '-') {
		if (strchr(arg, '='))
			return false;
		n = strlen(arg + 2);
		/* getopt_long takes any unambiguous prefix */
		for (const struct option *o = long_opts; o->name; o++)
			if (!strncmp(o->name, arg + 2, n))
				return o->has_arg == required_argument;
		return false;
	}
	for (const char *c = arg + 1; *c; c++) {
		const char *o = strchr(CAPTURE_OPTSTRING + 1, *c);

		if (o && *c != ':' && o[1] == ':')
			return !c[1]; /* "-ofile" holds its value */
	}
	return false;
}

/* The index of the "--" that starts a COMMAND, or argc. */
static int command_start(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i;
		if (takes_next(argv[i]))
			i++;
	}
	return argc;
}

/* getopt over argv with the command's options; -1 to go on, else exit code. */
static int parse_options(int argc, char **argv, struct env *env)
{
	static const char *const optstrings[] = {
		[CMD_CAPTURE] = CAPTURE_OPTSTRING,
		[CMD_FLAMEGRAPH] = ":o:vqh",
		[CMD_DIFF] = ":no:vqh",
	};
	static const struct option *const longs[] = {
		[CMD_CAPTURE] = long_opts,
		[CMD_FLAMEGRAPH] = flamegraph_opts,
		[CMD_DIFF] = diff_opts,
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, optstrings[env->cmd], longs[env->cmd], NULL)) != -1) {
		if (c == 'h')
			return show_help(env);
		if (c == OPT_VERSION) {
			printf("smolder %s\n", SMOLDER_VERSION);
			return 0;
		}
		if (c == OPT_EBPF) {
			warn("--ebpf: smolder's BPF program is compiled in, not generated (read bpf/smolder.bpf.c in its source); nothing sampled");
			return 0;
		}
		if (c == '?' || c == ':') {
			err("%s '%s' (see smolder%s --help)",
			    c == '?' ? "unknown option" : "missing argument for", argv[optind - 1],
			    env->cmd == CMD_FLAMEGRAPH ? " flamegraph" : env->cmd == CMD_DIFF ? " diff" : "");
			return 2;
		}
		if (c == 'n') {
			env->normalize = true;
			continue;
		}
		if (c == OPT_STRICT) {
			env->strict = true;
			continue;
		}
		if (c == OPT_FROM || c == OPT_TO) {
			*(c == OPT_FROM ? &env->from_arg : &env->to_arg) = optarg;
			continue;
		}
		if ((env->cmd == CMD_CAPTURE ? parse_option : parse_render_option)(c, optarg, env))
			return 2;
	}
	return -1;
}

/* The rest of a capture's command line: [duration]. */
static int parse_capture(int argc, char **argv, struct env *env)
{
	int rc;

	if (optind < argc && parse_seconds(argv[optind++], "duration", &env->duration))
		return 2;
	if (optind < argc) {
		err("unexpected argument '%s' (the only operand is the duration)", argv[optind]);
		return 2;
	}
	if (check_conflicts(env))
		return 2;
	if (env->serve)
		setup_serve(env);
	else if (env->continuous && setup_continuous(env))
		return 1;
	if (!env->freq && !env->period) {
		env->freq = env->command ? DEFAULT_COMMAND_FREQ : DEFAULT_FREQ;
		env->default_rate = true;
	}
	resolve_formats(env);
	rc = cli__check_capture(env);
	if (rc)
		return rc;
	size_maps(env);
	return -1;
}

/* --from and --to (intervals.h): --to's time of day is the first after
 * --from's.  0, or -1 after printing why. */
static int parse_range(struct env *env)
{
	uint64_t now = clock__realtime_ns();
	const char *bad = NULL, *opt = NULL;
	char a[40], b[40];

	if (env->from_arg && intervals__parse_time(env->from_arg, now, 0, &env->from_ns))
		bad = env->from_arg, opt = "--from";
	else if (env->to_arg && intervals__parse_time(env->to_arg, now, env->from_ns, &env->to_ns))
		bad = env->to_arg, opt = "--to";
	if (bad) {
		err("cannot read the time '%s' of %s (give HH:MM[:SS], YYYY-MM-DDTHH:MM[:SS], Z"
		    " after it for UTC, or an age like -10m)", bad, opt);
		return -1;
	}
	if (env->to_arg && env->to_ns <= env->from_ns) {
		format__utc(env->from_ns, true, false, a, sizeof(a));
		format__utc(env->to_ns, true, false, b, sizeof(b));
		err("the range ends before it starts: --to %s is not after --from %s (give them"
		    " in order)", b, a);
		return -1;
	}
	return 0;
}

/* The rest of flamegraph's or diff's command line: the input files. */
static int parse_inputs(int argc, char **argv, struct env *env)
{
	env->inputs = argv + optind;
	env->nr_inputs = argc - optind;
	if (parse_range(env))
		return 2;
	if (env->cmd == CMD_DIFF && env->nr_inputs != 2) {
		err("diff needs two folded files, BEFORE and AFTER (see smolder diff --help)");
		return 2;
	}
	resolve_formats(env);
	for (size_t i = 0; i < env->nr_outputs; i++)
		if (env->cmd == CMD_DIFF && env->outputs[i].fmt != FMT_SVG &&
		    env->outputs[i].fmt != FMT_FOLDED) {
			err("diff writes svg or folded, not %s (name the file .svg or .folded)",
			    format__name(env->outputs[i].fmt));
			return 2;
		}
	if (emit__check(env->outputs, env->nr_outputs))
		return 1;
	return -1;
}

/*
 * --unwind dwarf is the default where the unwinder reads the CFI (x86_64
 * and arm64: include/unwind.h's rows, bpf/unwind_arch.bpf.h's walk); other
 * architectures walk frame pointers.
 */
#if defined(__x86_64__) || defined(__aarch64__)
#define DWARF_UNWIND_DEFAULT true
#else
#define DWARF_UNWIND_DEFAULT false
#endif

int cli__parse(int argc, char **argv, struct env *env)
{
	int rc;

	memset(env, 0, sizeof(*env));
	env->verbosity = 1;
	env->cgroup_fd = -1;
	env->offcpu_min_us = DEFAULT_OFFCPU_MIN_US;
	env->unwind_fp = !DWARF_UNWIND_DEFAULT;
	/* The man page, which make writes when it installs: a build step, not
	 * an option of a capture, so --help leaves it out and getopt never
	 * takes a prefix of an option for it. */
	if (argc == 2 && !strcmp(argv[1], "--man")) {
		man__print(stdout);
		if (fflush(stdout) || ferror(stdout)) {
			err("cannot write the man page: %s (check free space)", log__errstr(errno));
			return 1;
		}
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "flamegraph"))
		env->cmd = CMD_FLAMEGRAPH;
	else if (argc > 1 && !strcmp(argv[1], "diff"))
		env->cmd = CMD_DIFF;
	if (env->cmd != CMD_CAPTURE)
		argc--, argv++;
	else {
		int dash = command_start(argc, argv);

		if (dash < argc) {
			if (dash + 1 == argc) {
				err("nothing after -- (give the command to run: smolder -- COMMAND ARGS...)");
				return 2;
			}
			env->command = argv + dash + 1;
			argv[dash] = NULL; /* argv[argc] is NULL, so the command is terminated */
			argc = dash;
		}
	}
	rc = parse_options(argc, argv, env);
	if (rc >= 0)
		return rc;
	log_verbosity = env->verbosity; /* the one setting, from here on */
	return env->cmd == CMD_CAPTURE ? parse_capture(argc, argv, env)
				       : parse_inputs(argc, argv, env);
}

void cli__free(struct env *env)
{
	free(env->tgids);
	free(env->tids);
	if (env->cgroup_fd >= 0)
		close(env->cgroup_fd);
	profile_dir__free(env->profile_dir);
}
