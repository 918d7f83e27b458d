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
#include <libgen.h>
#include <sys/stat.h>
#include "cli.h"
#include "log.h"

static const char usage_text[] =
"usage: smolder [options] [duration]\n"
"\n"
"Samples on-CPU stacks of the whole machine (or the selected processes,\n"
"threads and CPUs) with a BPF program on cpu-clock perf events, counts them\n"
"in the kernel, and prints them at the end: readable, or folded for\n"
"flamegraph.pl with -f.  Runs for duration seconds, or until Ctrl-C or\n"
"SIGTERM; both still print everything collected.\n"
"\n"
"What to sample:\n"
"  -p, --pid PID[,PID...]     only these processes\n"
"  -L, --tid TID[,TID...]     only these threads\n"
"  -C, --cpu CPU[,CPU...]     only these CPUs (ranges like 0-3 work)\n"
"  -F, --frequency HZ         samples per second per CPU (default 49)\n"
"  -c, --count NS             a sample every NS nanoseconds of CPU time\n"
"  -I, --include-idle         keep samples of the idle loop\n"
"      --idle-only            show only samples of the idle loop\n"
"                             (interrupt and softirq work on an idle CPU is\n"
"                             not idle: it is shown by default)\n"
"  -U, --user-stacks-only     no kernel frames\n"
"  -K, --kernel-stacks-only   no user frames\n"
"      --stack-storage-size N distinct stacks kept in the kernel (default\n"
"                             32768 stacks of up to 32 frames; deeper ones\n"
"                             take more room; a sample whose stack finds no\n"
"                             room is counted as lost and reported)\n"
"\n"
"How to print it:\n"
"  -f, --folded               folded stacks: comm;user...;kernel... COUNT\n"
"  -d, --delimited            a \"-\" frame between user and kernel frames\n"
"  -a, --annotations          append _[k] to kernel frames, _[j] to JIT frames\n"
"      --no-demangle          keep C++ and Rust symbols as they are mangled\n"
"      --per-cpu              a cpu_N frame before the process\n"
"      --per-pid              the process frame is comm-PID\n"
"      --per-thread           the process frame is comm-PID/TID\n"
"  -o, --output FILE          write to FILE instead of standard output\n"
"\n"
"Other:\n"
"  -v, --verbose              more detail on stderr (twice: libbpf's log)\n"
"  -q, --quiet                no summary line on stderr\n"
"  -h, --help                 this help\n"
"      --version              the version\n"
"\n"
"Examples:\n"
"  smolder -dfK 10 > out.folded         kernel stacks of the machine, 10 s\n"
"  smolder -F 999 -p 181 -f -o app.folded 30\n"
"  smolder -I --per-cpu -f 5            idle time too, split by CPU\n"
"\n"
"At exit smolder prints how many samples it took and how many were lost,\n"
"by reason.  It needs root, or CAP_BPF and CAP_PERFMON.\n";

enum {
	OPT_IDLE_ONLY = 1000, OPT_STACK_STORAGE, OPT_PER_CPU, OPT_PER_PID,
	OPT_PER_THREAD, OPT_VERSION, OPT_NO_DEMANGLE,
};

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
	{ "stack-storage-size", required_argument, NULL, OPT_STACK_STORAGE },
	{ "folded", no_argument, NULL, 'f' },
	{ "delimited", no_argument, NULL, 'd' },
	{ "annotations", no_argument, NULL, 'a' },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "per-pid", no_argument, NULL, OPT_PER_PID },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "output", required_argument, NULL, 'o' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 },
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

/* "1,2,3" into a fresh array of ids. */
static int parse_ids(const char *s, const char *what, uint32_t **ids, size_t *nr)
{
	char *copy = strdup(s), *save = NULL;
	uint64_t v;

	if (!copy)
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
	if (!*nr) {
		err("invalid %s '%s' (expected a comma-separated list)", what, s);
		return -1;
	}
	return 0;
}

static int parse_duration(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v <= 0 || v > 1e9) {
		err("invalid duration '%s' (expected seconds, e.g. 10 or 0.5)", s);
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

static int parse_option(int c, const char *arg, struct env *env)
{
	uint64_t v;

	switch (c) {
	case 'p': return parse_ids(arg, "pid", &env->tgids, &env->nr_tgids);
	case 'L': return parse_ids(arg, "tid", &env->tids, &env->nr_tids);
	case 'C': {
		int n = cpus__parse_list(arg, env->cpus, MAX_CPUS);

		if (n < 0) {
			err("invalid cpu list '%s' (expected e.g. 0,2 or 0-3)", arg);
			return -1;
		}
		env->nr_cpus = n;
		return 0;
	}
	case 'F': return parse_u64(arg, "frequency", 1, max_sample_rate(), &env->freq);
	case 'c': return parse_u64(arg, "sample period", 10000, UINT64_MAX / 2, &env->period);
	case OPT_STACK_STORAGE:
		if (parse_u64(arg, "stack storage size", 16, 1u << 24, &v))
			return -1;
		env->stack_entries = v;
		return 0;
	case 'I': env->idle = IDLE_INCLUDE; return 0;
	case OPT_IDLE_ONLY: env->idle = IDLE_ONLY; return 0;
	case 'U': env->user_only = true; return 0;
	case 'K': env->kernel_only = true; return 0;
	case 'f': env->folded = true; return 0;
	case 'd': env->delimited = true; return 0;
	case 'a': env->annotate = true; return 0;
	case OPT_NO_DEMANGLE: env->no_demangle = true; return 0;
	case OPT_PER_CPU: env->per_cpu = true; return 0;
	case OPT_PER_PID: env->per_pid = true; return 0;
	case OPT_PER_THREAD: env->per_thread = true; return 0;
	case 'o': env->output = arg; return 0;
	case 'v': env->verbosity++; return 0;
	case 'q': env->verbosity = 0; return 0;
	}
	return -1;
}

static int check_conflicts(const struct env *env)
{
	if (env->user_only && env->kernel_only)
		err("-U and -K exclude each other (drop one)");
	else if (env->freq && env->period)
		err("-F and -c exclude each other (give a frequency or a period)");
	else if (env->per_pid && env->per_thread)
		err("--per-pid and --per-thread exclude each other (drop one)");
	else if (env->output && !*env->output)
		err("empty output file name (give -o FILE)");
	else
		return 0;
	return -1;
}

/* The output's directory must take a new file before we spend a capture. */
static int check_output(const char *path)
{
	char *copy = strdup(path), *dir;
	struct stat st;
	int ok;

	if (!copy)
		return -1;
	dir = dirname(copy);
	ok = !access(dir, W_OK | X_OK) && !(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	if (!ok)
		err("cannot write %s: %s (check the directory exists and is writable)", path,
		    errno == 0 || errno == EEXIST ? "is a directory" : errstr(errno));
	free(copy);
	return ok ? 0 : -1;
}

/* PIDs must exist and CPUs be online: exit 1 otherwise. */
static int check_system(struct env *env)
{
	int online[MAX_CPUS], n = cpus__online(online, MAX_CPUS);
	char path[64];

	for (size_t i = 0; i < env->nr_tgids; i++)
		if (kill(env->tgids[i], 0) && errno == ESRCH) {
			err("no such process: %u (check the PID with ps)", env->tgids[i]);
			return 1;
		}
	for (size_t i = 0; i < env->nr_tids; i++) {
		snprintf(path, sizeof(path), "/proc/%u", env->tids[i]);
		if (access(path, F_OK)) {
			err("no such thread: %u (check the TID with ps -L)", env->tids[i]);
			return 1;
		}
	}
	if (env->output && strcmp(env->output, "-") && check_output(env->output))
		return 1;
	if (n < 0) {
		err("cannot read /sys/devices/system/cpu/online (mount sysfs)");
		return 1;
	}
	if (!env->nr_cpus) {
		memcpy(env->cpus, online, n * sizeof(*online));
		env->nr_cpus = n;
		return 0;
	}
	for (size_t i = 0; i < env->nr_cpus; i++) {
		bool ok = false;

		for (int j = 0; j < n; j++)
			ok |= online[j] == env->cpus[i];
		if (!ok) {
			err("cpu %d is not online (see /sys/devices/system/cpu/online)", env->cpus[i]);
			return 1;
		}
	}
	return 0;
}

int cli__parse(int argc, char **argv, struct env *env)
{
	int c;

	memset(env, 0, sizeof(*env));
	env->verbosity = 1;
	env->stack_entries = DEFAULT_STACK_ENTRIES;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:L:C:F:c:IUKfdao:vqh", long_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (c == OPT_VERSION) {
			printf("smolder %s\n", SMOLDER_VERSION);
			return 0;
		}
		if (c == '?' || c == ':') {
			err("%s '%s' (see smolder --help)",
			    c == '?' ? "unknown option" : "missing argument for", argv[optind - 1]);
			return 2;
		}
		if (parse_option(c, optarg, env))
			return 2;
	}
	if (optind < argc && parse_duration(argv[optind++], &env->duration))
		return 2;
	if (optind < argc) {
		err("unexpected argument '%s' (the only operand is the duration)", argv[optind]);
		return 2;
	}
	if (check_conflicts(env))
		return 2;
	if (!env->freq && !env->period)
		env->freq = DEFAULT_FREQ;
	log_verbosity = env->verbosity;
	return check_system(env) ? 1 : -1;
}

void cli__free(struct env *env)
{
	free(env->tgids);
	free(env->tids);
}
