/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The command line: bcc profile's options and smolder's views, parsed and
 * validated into one env struct.  Only main.c and cli.c see it: main.c
 * builds each stage's own options from it.
 */
#ifndef SMOLDER_CLI_H
#define SMOLDER_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/cpus.h"
#include "capture/map_sizes.h"
#include "output/emit.h"
#include "smolder.h"

#define DEFAULT_FREQ 49
/* -- COMMAND without -F or -c: a command of a third of a second gets over
 * 100 samples (perf records at 4000 Hz, but writes them all out; here
 * they are counted in the kernel's maps, which hold a make -j2 of a
 * minute at this rate: see map_sizes.h) */
#define DEFAULT_COMMAND_FREQ 499
#define DEFAULT_CONTINUOUS_FREQ 19 /* the fleet profilers' rate */
#define DEFAULT_INTERVAL 60
#define DEFAULT_KEEP 1440          /* a day of 1-minute profiles */
#define DEFAULT_OFFCPU_MIN_US 1    /* offcputime's: shorter waits are noise */

enum command {
	CMD_CAPTURE,    /* smolder [options] [duration] */
	CMD_FLAMEGRAPH, /* smolder flamegraph [options] [FILE...] */
	CMD_DIFF,       /* smolder diff [options] BEFORE AFTER */
};

struct profile_dir;

struct env {
	enum command cmd;
	uint64_t freq;     /* -F */
	bool default_rate; /* neither -F nor -c: freq is the default */
	uint64_t period;   /* -c, ns */
	double duration;   /* seconds, 0 = until SIGINT/SIGTERM */
	bool user_only;    /* -U */
	bool kernel_only;  /* -K */
	bool kernel_mode;  /* --kernel-mode */
	bool kernel_threads; /* --kernel-threads */
	bool delimited;    /* -d */
	bool annotate;     /* -a */
	bool folded;       /* -f */
	bool no_demangle;  /* --no-demangle */
	bool no_inline;    /* --no-inline */
	bool source_lines; /* --lines */
	bool no_python;    /* --no-python */
	bool python_lines; /* --python-lines */
	bool per_cpu, per_pid, per_thread;
	bool group_threads; /* --group-threads */
	bool kworker;       /* --kworker */
	bool irq_frames;    /* --irq-frames */
	bool off_cpu;       /* --off-cpu */
	bool wakers;        /* --wakers */
	uint64_t offcpu_sample; /* --off-cpu-sample, 0: not given (1) */
	uint64_t offcpu_min_us, offcpu_max_us; /* block time bounds, max 0: none */
	bool offcpu_bounds; /* --off-cpu-min-us or --off-cpu-max-us given */
	enum idle_mode idle;
	uint32_t *tgids;   /* -p */
	size_t nr_tgids;
	uint32_t *tids;    /* -L */
	size_t nr_tids;
	char **command;    /* -- COMMAND ARGS...: run and sample it, NULL-terminated */
	bool no_inherit;   /* --no-inherit: not the command's children */
	const char *cgroup_path; /* --cgroup */
	int cgroup_fd;     /* its directory, open; -1 without */
	const char *cgroupmap, *mntnsmap; /* bcc's pinned filter maps */
	bool hottest_first; /* --hottest-first: the report's old order */
	int cpus[MAX_CPUS]; /* -C, else all online */
	size_t nr_cpus;
	bool cpus_given;    /* -C */
	uint32_t stack_entries; /* --stack-storage-size */
	uint32_t count_entries; /* distinct sample keys kept (from the above) */
	uint32_t offcpu_entries; /* --off-cpu waits pending at once (likewise) */
	uint32_t hash_entries;  /* --hash-storage-size: count_entries given */
	struct out_spec outputs[MAX_OUTPUTS]; /* -o, each with its format */
	size_t nr_outputs;      /* 0: standard output, outputs[0].fmt */
	enum out_format format; /* --format, else by name */
	struct render_opts render; /* --title, --width, ... */
	char **inputs;          /* flamegraph: FILE...; diff: BEFORE AFTER */
	size_t nr_inputs;
	bool normalize;         /* diff -n */
	bool strict;            /* flamegraph, diff --strict: a line that is not a stack is an error */
	const char *from_arg, *to_arg; /* flamegraph --from, --to: as given, */
	uint64_t from_ns, to_ns;       /* and read (ns since the epoch; 0: not given) */
	bool continuous;        /* --continuous (and --serve, whose capture is its) */
	const char *serve;      /* --serve ADDR */
	const char *serve_token_file; /* --serve-token-file */
	bool serve_pid_labels;  /* --serve-pid-labels */
	double interval;        /* --interval, seconds */
	const char *output_dir; /* --output-dir */
	struct profile_dir *profile_dir; /* it, open (continuous mode) */
	uint64_t keep;          /* --keep */
	uint64_t max_bytes;     /* --max-size, 0: no limit */
	const char *btf_path;   /* --btf */
	bool unwind_fp;         /* --unwind fp: frame pointers only */
	uint64_t unwind_bytes;  /* --unwind-memory, bytes; 0: the capture's default */
	int verbosity;          /* -v, -q as parsed, then log_verbosity (log.h),
				 * the one setting every stage reads */
	/* Filled by the capture, for the exports: */
	uint64_t captured_ns;    /* how long it sampled */
	uint64_t started_ns;     /* when, ns since the epoch */
	uint64_t lost;           /* samples it could not keep */
	char main_binary[4096];  /* the command's or the one -p process's executable */
	char main_build_id[81];  /* its GNU build id, hex; "" when none */
};

/*
 * Fills env from argv.  Returns -1 to go on, else the exit code (0 after
 * --help/--version, 2 after a usage error, 1 after a failed check such as an
 * unknown PID), having printed what is wrong.
 */
int cli__parse(int argc, char **argv, struct env *env);
void cli__free(struct env *env);
/* The capture's targets and outputs checked against the running system
 * (cli_system.c): 0, or the exit code (1: the system, 2: usage). */
int cli__check_capture(struct env *env);

/*
 * The sampling rate of -F or -c (one of env's freq and period is 0), the
 * one place either is turned into the other: samples per second per CPU,
 * and the CPU time one sample stands for.
 */
static inline double cli__rate_hz(const struct env *env)
{
	return env->freq ? (double)env->freq : 1e9 / env->period;
}

static inline double cli__period_ns(const struct env *env)
{
	return env->freq ? 1e9 / env->freq : (double)env->period;
}

#endif
