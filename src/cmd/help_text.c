// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text of smolder's help, as data (see help_text.h): the pages of a
 * capture and of the two commands that draw folded files, and what only the
 * man page says.  The drawing options are one block, shared by all three.
 */
#include <stddef.h>
#include "cmd/help_text.h"

/* ---- smolder [options] [duration] ---- */

static const char *const capture_synopsis[] = {
	"smolder [options] [duration]",
	"smolder [options] [duration] -- COMMAND [ARGS...]",
	"smolder flamegraph [options] [FILE...]",
	"smolder flamegraph [options] [--from TIME] [--to TIME] DIR",
	"smolder diff [options] BEFORE AFTER",
	NULL,
};

static const struct help_block capture_about = {
	.kind = HELP_TEXT,
	.text = "Samples on-CPU stacks of the whole machine (or the selected processes,\n"
		"threads and CPUs) with a BPF program on cpu-clock perf events, counts them\n"
		"in the kernel, and writes them at the end: a readable report, folded\n"
		"stacks (-f), or a picture chosen by the output file's name: an\n"
		"interactive flame graph (.svg), speedscope (.speedscope.json) or pprof\n"
		"(.pb.gz).  Runs for duration seconds, or until Ctrl-C, SIGTERM or SIGHUP;\n"
		"each still writes everything collected, after at most half a second of\n"
		"naming frames, whatever other processes' files hold (what does not fit is\n"
		"named by file offset, or counted as unnamed).  `smolder flamegraph --help` and\n"
		"`smolder diff --help` describe the two commands that draw folded files.",
};

static const struct help_option sample_options[] = {
	{ .short_name = "-p", .long_name = "--pid", .arg = "PID[,PID...]",
	  .text = "only these processes (no empty elements); the\n"
		"capture ends when every one has exited" },
	{ .short_name = "-L", .long_name = "--tid", .arg = "TID[,TID...]",
	  .text = "only these threads (not with -p, as in bcc)" },
	{ .short_name = "--", .arg = "COMMAND [ARGS...]",
	  .text = "run COMMAND and sample only it and the\n"
		"processes it starts; the capture ends when it\n"
		"exits, and smolder exits with its status (128\n"
		"+ N when signal N killed it; 127 when it\n"
		"cannot run; 1 when smolder failed and the\n"
		"command succeeded).  A signal or the duration\n"
		"that ends the capture first is passed on to it\n"
		"(the duration as SIGTERM).  When the profile\n"
		"goes to standard output, the command's\n"
		"standard output goes to standard error" },
	{ .long_name = "--no-inherit",
	  .text = "with a COMMAND: not the processes it starts" },
	{ .short_name = "-G", .long_name = "--cgroup", .arg = "PATH",
	  .text = "only tasks in this cgroup (v2) and below it: a\n"
		"directory, or a path under the cgroup2 mount\n"
		"(system.slice/nginx.service)" },
	{ .long_name = "--cgroupmap", .arg = "PATH",
	  .text = "only cgroups whose ids are keys of the BPF hash\n"
		"pinned at PATH, as bcc's (8-byte keys)" },
	{ .long_name = "--mntnsmap", .arg = "PATH",
	  .text = "only mount namespaces whose inode numbers are\n"
		"keys of the BPF hash pinned at PATH, as bcc's" },
	{ .short_name = "-C", .long_name = "--cpu", .arg = "CPU[,CPU...]",
	  .text = "only these CPUs (ranges like 0-3 work)" },
	{ .short_name = "-F", .long_name = "--frequency", .arg = "HZ",
	  .text = "samples per second per CPU (default 49; 499\n"
		"with a COMMAND, so that a short one gets a\n"
		"profile: 150 samples in 0.3 s)" },
	{ .short_name = "-c", .long_name = "--count", .arg = "NS",
	  .text = "a sample every NS nanoseconds of CPU time on a\n"
		"CPU (bcc's -c counts events of its perf event,\n"
		"the same for cpu-clock; at least 10000)" },
	{ .short_name = "-I", .long_name = "--include-idle",
	  .text = "keep samples of the idle loop" },
	{ .long_name = "--idle-only",
	  .text = "show only samples of the idle loop\n"
		"(interrupt and softirq work on an idle CPU is\n"
		"not idle: it is shown by default)" },
	{ .short_name = "-U", .long_name = "--user-stacks-only",
	  .text = "no kernel frames" },
	{ .long_name = "--unwind", .arg = "dwarf|fp",
	  .text = "how user stacks are walked.  dwarf (default):\n"
		"with the unwind tables of each file's CFI\n"
		"(.eh_frame, .debug_frame, debug files), so\n"
		"code built without frame pointers (most of a\n"
		"distribution) gets whole stacks; code without\n"
		"tables (JIT, files without CFI) and files whose\n"
		"table is not loaded yet fall back to frame\n"
		"pointers, counted by reason (-v).  fp: frame\n"
		"pointers only, as bcc's profile: enough for\n"
		"code built with frame pointers, and cheaper\n"
		"per sample (no tables: less startup, memory)" },
	{ .long_name = "--unwind-memory", .arg = "MB",
	  .text = "kernel memory for unwind tables (default 64,\n"
		"at most 1024); least recently used tables are\n"
		"evicted first, one that does not fit is\n"
		"counted and falls back to frame pointers" },
	{ .short_name = "-K", .long_name = "--kernel-stacks-only",
	  .text = "no user frames (every sample kept, as bcc's)" },
	{ .long_name = "--kernel-mode",
	  .text = "only samples taken in kernel mode (system\n"
		"calls, faults, interrupts, kernel threads);\n"
		"the rest are left out in the kernel, counted\n"
		"apart from losses.  --off-cpu's waits stay" },
	{ .long_name = "--kernel-threads",
	  .text = "only kernel threads' samples (kworker,\n"
		"ksoftirqd, kswapd...; the idle task with -I);\n"
		"with --off-cpu, kernel threads' waits instead\n"
		"of user tasks'" },
	{ .long_name = "--stack-storage-size", .arg = "N",
	  .text = "distinct stacks kept in the kernel (default\n"
		"32768 stacks of up to 32 frames, 15 MiB of\n"
		"kernel memory; deeper ones take more room; a\n"
		"sample whose stack finds no room is counted as\n"
		"lost and reported).  At most 4194304 (about\n"
		"1.9 GiB); over 256 MiB a line says how much" },
	{ .long_name = "--hash-storage-size", .arg = "N",
	  .text = "distinct sample keys (stack, process, CPU)\n"
		"kept (default 3/8 of the stack storage size,\n"
		"at least 1024, at most 4194304); a sample that\n"
		"finds it full is counted as lost" },
	{ .long_name = "--ebpf",
	  .text = "bcc prints its BPF program; smolder's is built\n"
		"in (bpf/smolder.bpf.c): says so and exits" },
	{ 0 },
};

static const struct help_block sample_block = {
	.kind = HELP_OPTIONS, .heading = "What to sample", .options = sample_options,
};

static const struct help_option write_options[] = {
	{ .short_name = "-f", .long_name = "--folded",
	  .text = "folded stacks: comm;user...;kernel... COUNT\n"
		"(a frame without a symbol is [FILE+0xOFFSET],\n"
		"the offset in FILE as /proc/PID/maps counts it)" },
	{ .short_name = "-d", .long_name = "--delimited",
	  .text = "a \"-\" frame between user and kernel frames" },
	{ .short_name = "-a", .long_name = "--annotations",
	  .text = "append _[k] to kernel frames, _[j] to JIT frames,\n"
		"_[py] to Python frames, _[i] to inlined frames" },
	{ .long_name = "--no-demangle",
	  .text = "keep C++ and Rust symbols as they are mangled" },
	{ .long_name = "--no-inline",
	  .text = "one frame per symbol: no frames for the functions\n"
		"the compiler inlined (default: from DWARF where the\n"
		"file or its debug file has it)" },
	{ .long_name = "--lines",
	  .text = "the leaf user frame names its source line, from\n"
		"DWARF: func (file.c:42)" },
	{ .long_name = "--no-python",
	  .text = "no Python frames: CPython's interpreter loop\n"
		"(_PyEval_EvalFrameDefault) stays as it is" },
	{ .long_name = "--python-lines",
	  .text = "Python frames name their line: func (file.py:42)\n"
		"(default: one frame per function, func (file.py))" },
	{ .long_name = "--hottest-first",
	  .text = "the report's hottest stack first (default: last,\n"
		"as bcc prints it, the answer at the bottom)" },
	{ .long_name = "--per-cpu",
	  .text = "a cpu_N frame before the process" },
	{ .long_name = "--per-pid",
	  .text = "the process frame is comm-PID" },
	{ .long_name = "--per-thread",
	  .text = "the process frame is comm-PID/TID" },
	{ .short_name = "-o", .long_name = "--output", .arg = "FILE",
	  .text = "write to FILE instead of standard output; the\n"
		"name picks the format: .folded or .txt folded,\n"
		".svg flame graph, .speedscope.json speedscope,\n"
		".pb.gz pprof, .report the report, .summary\n"
		"samples by process and kernel context; a name\n"
		"without a suffix: the report, or folded with\n"
		"-f; another suffix is an error.  Give -o up\n"
		"to 8 times to write several formats of one\n"
		"capture; one that fails does not stop the\n"
		"others.  A file is replaced whole (a temporary\n"
		"file, then a rename; a symlink's target is\n"
		"written); a character device, terminal or\n"
		"FIFO is written in place (a FIFO needs its\n"
		"reader); - is standard output.  Block devices,\n"
		"and symlinks of another user in a sticky\n"
		"directory such as /tmp, are refused" },
	{ .long_name = "--format", .arg = "FORMAT",
	  .text = "report, summary, folded, svg, speedscope or\n"
		"pprof, whatever the names say" },
	{ 0 },
};

static const struct help_block write_block = {
	.kind = HELP_OPTIONS, .heading = "How to write it", .options = write_options,
};

static const struct help_option kcontext_options[] = {
	{ .long_name = "--group-threads",
	  .text = "one name for per-CPU and pooled kernel threads:\n"
		"kworker/u16:3, kworker/2:1H -> kworker,\n"
		"ksoftirqd/0 -> ksoftirqd, migration/3 ->\n"
		"migration, idle_inject/1 -> idle_inject\n"
		"(BASE/N... where N starts with a digit, u and a\n"
		"digit, or R-), irq/24-nvme0q1 -> irq/nvme0q1" },
	{ .long_name = "--kworker",
	  .text = "kworker samples gain wq:WORKQUEUE, the work\n"
		"function and queued-by:COMM-PID (or\n"
		"queued-by:[softirq:TIMER], [irq], [unknown]);\n"
		"a kworker queuing work is queued-by:kworker/N:M-PID\n"
		"(with --group-threads queued-by:kworker)" },
	{ .long_name = "--irq-frames",
	  .text = "interrupt work gains [irq] or [softirq:NAME]\n"
		"(NET_RX, TIMER, BLOCK, RCU, ...), whichever\n"
		"task it interrupted" },
	{ .long_name = "--idle-only",
	  .text = "also gains [idle:PATH] (halt, mwait, poll,\n"
		"cpuidle, inject, other) and a per-CPU table of\n"
		"idle time by path on stderr (a CPU with no\n"
		"idle sample: a row of -, and a line saying\n"
		"why by /proc/stat's count of its idle time)" },
	{ 0 },
};

static const struct help_block kcontext_block = {
	.kind = HELP_OPTIONS, .heading = "Kernel context (frames right above the process frame)",
	.options = kcontext_options,
};

static const struct help_option offcpu_options[] = {
	{ .long_name = "--off-cpu",
	  .text = "also count the time tasks wait: a task that\n"
		"leaves the CPU sleeping (S) or uninterruptible\n"
		"(D) is counted, in the kernel, under its\n"
		"stacks from then until it runs again.  Every\n"
		"count is then microseconds: a CPU sample\n"
		"weighs its period (1/-F), a wait its length,\n"
		"so each function's width is its wall time,\n"
		"running and waiting.  Waiting stacks end in\n"
		"[off-cpu:S] or [off-cpu:D] above the kernel's\n"
		"schedule path (-U: above the user leaf).  User\n"
		"tasks only (no kernel threads), and of them\n"
		"only those -p, -L, --cgroup or a COMMAND\n"
		"select; --per-cpu names the CPU a task left.\n"
		"A wait still going on at the end (or at an\n"
		"interval's end) counts up to then, the rest in\n"
		"the next interval; one already going on when\n"
		"the capture starts (a hang) counts from then\n"
		"(Linux 5.9+; not with --cgroup, a maximum or\n"
		"--continuous: -v says)" },
	{ .long_name = "--wakers",
	  .text = "with --off-cpu: above [off-cpu:...], who woke\n"
		"the task, woken-by:COMM, and its kernel stack\n"
		"at the wakeup; woken-by-timer (one frame) for\n"
		"a timer, woken-by-irq or -softirq for another\n"
		"interrupt, and woken-by-unknown, have no colon:\n"
		"no task's name can read as them" },
	{ .long_name = "--off-cpu-min-us", .arg = "N",
	  .text = "leave out waits shorter than N microseconds\n"
		"(default 1, as offcputime); a wait cut by the\n"
		"capture's end counts if it is as long" },
	{ .long_name = "--off-cpu-max-us", .arg = "N",
	  .text = "leave out waits longer than N microseconds\n"
		"(default: no limit), e.g. idle thread pools;\n"
		"a wait cut by an interval's end counts while\n"
		"it is shorter" },
	{ .long_name = "--off-cpu-sample", .arg = "N",
	  .text = "count one switch in N, chosen at random, its\n"
		"time times N: less overhead on machines that\n"
		"switch millions of times a second" },
	{ 0 },
};

static const struct help_block offcpu_block = {
	.kind = HELP_OPTIONS, .heading = "Off-CPU time (where the time goes, not only the CPU)",
	.options = offcpu_options,
};

/* The drawing options, shared by a capture and both commands. */
static const struct help_option render_options[] = {
	{ .long_name = "--title", .arg = "TEXT",
	  .text = "the title (default \"Flame Graph\"); also the\n"
		"speedscope profile's name and a pprof comment" },
	{ .long_name = "--subtitle", .arg = "TEXT",
	  .text = "a second line under the title" },
	{ .long_name = "--width", .arg = "PX",
	  .text = "the image width (default 1200)" },
	{ .long_name = "--minwidth", .arg = "PX|N%",
	  .text = "leave out frames narrower than PX pixels, or\n"
		"than N% of all samples (default 0.1 pixels):\n"
		"this keeps huge profiles light" },
	{ .long_name = "--colors", .arg = "PALETTE",
	  .text = "hot (default), mem, io, kernel (user warm,\n"
		"kernel _[k] frames and those after \"-\" blue,\n"
		"JIT _[j] green, Python _[py] aqua, inlined _[i]\n"
		"yellow, \"-\" grey; alias java), red, green,\n"
		"blue, aqua, yellow, purple, orange.  Colors\n"
		"follow the name: equal in every graph" },
	{ .long_name = "--countname", .arg = "NAME",
	  .text = "what counts are (default \"samples\")" },
	{ .long_name = "--inverted",
	  .text = "an icicle graph: roots at the top" },
	{ .long_name = "--reverse",
	  .text = "merge stacks from the leaf: what calls the\n"
		"hottest functions" },
	{ .long_name = "--flamechart",
	  .text = "keep stacks in input order and merge only\n"
		"neighbours: x is time, not alphabetical" },
	{ 0 },
};

static const struct help_block render_block = {
	.kind = HELP_OPTIONS, .heading = "How to draw a flame graph (.svg)",
	.options = render_options,
};

static const struct help_option continuous_options[] = {
	{ .long_name = "--continuous",
	  .text = "sample until SIGINT/SIGTERM (default 19 Hz)\n"
		"and write DIR/smolder-<UTC time>.<ext> every\n"
		"interval, each with exactly that interval's\n"
		"samples; SIGUSR1 ends the interval at once,\n"
		"SIGINT/SIGTERM/SIGHUP write the last partial\n"
		"one.  An interval that cannot be written (a\n"
		"full disk) counts its samples as lost, and\n"
		"the exit code is then 1" },
	{ .long_name = "--interval", .arg = "SECONDS",
	  .text = "the interval (default 60)" },
	{ .long_name = "--output-dir", .arg = "DIR",
	  .text = "where profiles go (created if missing; one\n"
		"others may write in is refused unless sticky)" },
	{ .long_name = "--keep", .arg = "N",
	  .text = "keep the newest N profiles (default 1440)" },
	{ .long_name = "--max-size", .arg = "MB",
	  .text = "and at most MB megabytes of them; only the\n"
		"profiles smolder wrote count and are removed,\n"
		"this run's and those its index in DIR names\n"
		"(--format picks the format, default folded)" },
	{ 0 },
};

static const struct help_block continuous_block = {
	.kind = HELP_OPTIONS, .heading = "Continuous mode (leave it running; a profile per interval)",
	.options = continuous_options,
};

static const struct help_option serve_options[] = {
	{ .long_name = "--serve", .arg = "ADDR",
	  .text = "sample until SIGTERM (default 19 Hz) and\n"
		"answer GET /debug/pprof/profile?seconds=N\n"
		"(1 to 600, default 30) with a gzip'd pprof of\n"
		"the next N seconds, as Go's net/http/pprof,\n"
		"for Parca, Grafana Alloy and go tool pprof;\n"
		"/metrics for Prometheus.  ADDR is HOST:PORT,\n"
		"or PORT (or :PORT) for 127.0.0.1:PORT: other\n"
		"interfaces only when named (0.0.0.0:7071).\n"
		"No TLS: put a proxy in front (docs/serve.md)" },
	{ .long_name = "--serve-token-file", .arg = "FILE",
	  .text = "every request must carry Authorization:\n"
		"Bearer TOKEN, TOKEN the line FILE holds (a\n"
		"file other users cannot read)" },
	{ .long_name = "--serve-pid-labels",
	  .text = "label samples with pid (and thread) too: a\n"
		"series per process on a busy host.  Samples\n"
		"always carry process, cgroup and container;\n"
		"?cgroup=/PATH narrows a request to a cgroup" },
	{ 0 },
};

static const struct help_block serve_block = {
	.kind = HELP_OPTIONS, .heading = "Serving scrapes (a pprof endpoint; docs/serve.md)",
	.options = serve_options,
};

static const struct help_option other_options[] = {
	{ .long_name = "--btf", .arg = "FILE",
	  .text = "the kernel's BTF, for kernels without\n"
		"/sys/kernel/btf/vmlinux (a vmlinux with .BTF,\n"
		"or raw BTF, a regular file); exec and exit are\n"
		"then not traced" },
	{ .short_name = "-v", .long_name = "--verbose",
	  .text = "more detail on stderr (twice: libbpf's log)" },
	{ .short_name = "-q", .long_name = "--quiet",
	  .text = "no summary line on stderr" },
	{ .short_name = "-h", .long_name = "--help",
	  .text = "this help" },
	{ .long_name = "--version",
	  .text = "the version" },
	{ 0 },
};

static const struct help_block other_block = {
	.kind = HELP_OPTIONS, .heading = "Other", .options = other_options,
};

static const struct help_example capture_examples[] = {
	{ "smolder -dfK 10 > out.folded", "kernel stacks of the machine, 10 s" },
	{ .command = "smolder -F 999 -p 181 -f -o app.folded 30" },
	{ "smolder -da -o out.svg -o out.pb.gz 30", "a flame graph and a pprof file" },
	{ "smolder -I --per-cpu -f 5", "idle time too, split by CPU" },
	{ "smolder -K --kworker --irq-frames --group-threads -o kern.svg 10",
	  "who queued the kworkers' work, and\n"
	  "interrupt work as its own frames" },
	{ "smolder -K --kernel-mode --irq-frames --format summary 10",
	  "kernel time by process and interrupt\n"
	  "context, hottest first" },
	{ "smolder --off-cpu --wakers -p 181 -o wall.svg 10",
	  "running and waiting time of one\n"
	  "process, and who woke it" },
	{ 0 },
};

static const struct help_block capture_examples_block = {
	.kind = HELP_EXAMPLES, .heading = "Examples", .examples = capture_examples,
};

static const struct help_block capture_exit = {
	.kind = HELP_TEXT,
	.text = "At exit smolder prints how many samples it took and how many were lost,\n"
		"by reason (with --off-cpu, waits too).  It needs root, or CAP_BPF and\n"
		"CAP_PERFMON.",
};

static const struct help_block *const capture_blocks[] = {
	&capture_about, &sample_block, &write_block, &kcontext_block, &offcpu_block,
	&render_block, &continuous_block, &serve_block, &other_block, &capture_examples_block,
	&capture_exit, NULL,
};

/* ---- smolder flamegraph and smolder diff ---- */

/* Their last options. */
static const struct help_option quiet_options[] = {
	{ .short_name = "-q", .long_name = "--quiet",
	  .text = "no warnings" },
	{ .short_name = "-h", .long_name = "--help",
	  .text = "this help" },
	{ 0 },
};

static const struct help_block quiet_block = {
	.kind = HELP_OPTIONS, .options = quiet_options,
};

static const char *const flamegraph_synopsis[] = {
	"smolder flamegraph [options] [FILE...]",
	"smolder flamegraph [options] [--from TIME] [--to TIME] DIR",
	NULL,
};

static const struct help_block flamegraph_about = {
	.kind = HELP_TEXT,
	.text = "Reads folded stacks (from the files, or standard input when none or -)\n"
		"as written by smolder -f, bcc's profile -f, perf script report\n"
		"stackcollapse, stackcollapse-perf.pl, async-profiler (collapsed),\n"
		"austin, py-spy (--format raw) and others: a stack per line, frames\n"
		"separated by ';', root first, then whitespace and a sample count (whole\n"
		"or decimal, at most 10^18).  Frame names may hold spaces; a line is at\n"
		"most 4 MiB.  Lines with two counts (BEFORE AFTER, as difffolded.pl\n"
		"writes) draw a differential graph.\n"
		"Writes an interactive SVG flame graph to standard output, or what -o\n"
		"names (written as a capture's -o are: see smolder --help).",
};

static const struct help_option flamegraph_options[] = {
	{ .short_name = "-o", .long_name = "--output", .arg = "FILE",
	  .text = "write FILE; .svg, .folded/.txt,\n"
		".speedscope.json or .pb.gz by its name (other\n"
		"names: svg); up to 8 times" },
	{ .long_name = "--format", .arg = "FORMAT",
	  .text = "svg, folded, speedscope or pprof" },
	{ .long_name = "--strict",
	  .text = "a line that is not a stack is an error (exit 2)" },
	{ .long_name = "--from", .arg = "TIME",
	  .text = "with a continuous-mode DIR: the intervals whose\n"
		"middle is at or after TIME (HH:MM[:SS],\n"
		"YYYY-MM-DDTHH:MM[:SS], Z for UTC, or -10m)" },
	{ .long_name = "--to", .arg = "TIME",
	  .text = "...and before TIME (default: now)" },
	{ 0 },
};

static const struct help_block flamegraph_block = {
	.kind = HELP_OPTIONS, .options = flamegraph_options,
};

static const struct help_example flamegraph_examples[] = {
	{ .command = "smolder flamegraph out.folded > out.svg" },
	{ .command = "perf script | stackcollapse-perf.pl | smolder flamegraph -o perf.svg" },
	{ .command = "perf script report stackcollapse | smolder flamegraph -o perf.svg" },
	{ .command = "smolder flamegraph --colors kernel --title \"boot\" -o x.pb.gz x.folded" },
	{ .command = "smolder flamegraph --from 10:02 --to 10:07 /var/lib/smolder -o hot.svg" },
	{ 0 },
};

static const struct help_block flamegraph_examples_block = {
	.kind = HELP_EXAMPLES, .heading = "Examples", .examples = flamegraph_examples,
};

static const struct help_block flamegraph_skips = {
	.kind = HELP_TEXT,
	.text = "Lines that are not stacks are skipped, as flamegraph.pl skips them, and\n"
		"counted in one warning that quotes the first: lines without a count at\n"
		"the end, comments ('#' first and no ';', as the \"# key: value\" headers\n"
		"of Python profilers), lines with a NUL byte or over 4 MiB (read to their\n"
		"end, never held), one-count lines in a two-count file.  With --strict\n"
		"each is an error naming the file and line.  Input without any stack, and\n"
		"a stack whose count is over 10^18, are errors either way (exit 2).",
};

static const struct help_block *const flamegraph_blocks[] = {
	&flamegraph_about, &flamegraph_block, &render_block, &quiet_block,
	&flamegraph_examples_block, &flamegraph_skips, NULL,
};

static const char *const diff_synopsis[] = {
	"smolder diff [options] BEFORE AFTER",
	NULL,
};

static const struct help_block diff_about = {
	.kind = HELP_TEXT,
	.text = "Draws a differential flame graph of two folded-stack files: frame widths\n"
		"from AFTER, red where AFTER spent more samples than BEFORE, blue where it\n"
		"spent fewer, the deeper the color the larger the change.  A frame's\n"
		"tooltip gives the change in samples and percent.",
};

static const struct help_option diff_options[] = {
	{ .short_name = "-n", .long_name = "--normalize",
	  .text = "scale BEFORE's counts so both have the same\n"
		"total (compare shares, not sample counts)" },
	{ .short_name = "-o", .long_name = "--output", .arg = "FILE",
	  .text = "write FILE (default: standard output); .svg,\n"
		".folded (\"stack BEFORE AFTER\" lines)..." },
	{ .long_name = "--format", .arg = "FORMAT",
	  .text = "svg or folded" },
	{ .long_name = "--strict",
	  .text = "a line that is not a stack is an error (exit 2);\n"
		"without it such lines are skipped, as\n"
		"smolder flamegraph --help says" },
	{ 0 },
};

static const struct help_block diff_block = {
	.kind = HELP_OPTIONS, .options = diff_options,
};

static const struct help_example diff_examples[] = {
	{ .command = "smolder -f -o before.folded 30; (change); smolder -f -o after.folded 30" },
	{ .command = "smolder diff -n before.folded after.folded -o diff.svg" },
	{ 0 },
};

static const struct help_block diff_examples_block = {
	.kind = HELP_EXAMPLES, .heading = "Example", .examples = diff_examples,
};

static const struct help_block *const diff_blocks[] = {
	&diff_about, &diff_block, &render_block, &quiet_block, &diff_examples_block, NULL,
};

const struct help_page_text help_pages[HELP_NR_PAGES] = {
	[HELP_CAPTURE] = { capture_synopsis, capture_blocks },
	[HELP_FLAMEGRAPH] = { flamegraph_synopsis, flamegraph_blocks },
	[HELP_DIFF] = { diff_synopsis, diff_blocks },
};

/* ---- what only the man page says ---- */

/* One line, as apropos and whatis read it. */
const char help_summary[] = "eBPF CPU profiler, and flame graphs of any profiler's folded stacks";

static const struct help_option exit_statuses[] = {
	{ .short_name = "0", .text = "the capture or the drawing is written (also --help, --version\n"
				     "and --ebpf)" },
	{ .short_name = "1", .text = "smolder failed: it cannot trace or read what it needs, a PID or\n"
				     "CPU it was given does not exist, an output or a continuous\n"
				     "interval could not be written (the others still are)" },
	{ .short_name = "2", .text = "a usage error, which one line names; for flamegraph and diff\n"
				     "also an input that cannot be read, holds no stack, has a count\n"
				     "over 10^18 or, with --strict, a line that is not a stack" },
	{ .short_name = "--", .arg = "COMMAND",
	  .text = "the command's exit status; 128 + N when signal N killed it,\n"
		  "127 when it could not run, 1 when smolder failed and the\n"
		  "command succeeded" },
	{ 0 },
};

static const struct help_block exit_status_section = {
	.kind = HELP_OPTIONS, .heading = "EXIT STATUS", .options = exit_statuses,
};

static const struct help_option files[] = {
	{ .long_name = "/sys/kernel/btf/vmlinux",
	  .text = "the running kernel's BTF, which the BPF program is relocated\n"
		  "against (--btf FILE gives it on kernels without it)" },
	{ .long_name = "/proc/kallsyms", .text = "kernel frames' names" },
	{ .long_name = "/proc/PID/maps, /proc/PID/map_files, /proc/PID/root",
	  .text = "a process's mappings, and its files opened as the process sees\n"
		  "them (containers, deleted files); only regular files are read" },
	{ .long_name = "/tmp/perf-PID.map",
	  .text = "JIT code's names, read only when the file is regular and owned\n"
		  "by the process's user or by root" },
	{ .long_name = "/usr/lib/debug",
	  .text = "separate debug files of stripped binaries: .build-id/ and\n"
		  ".gnu_debuglink targets (also beside the file and in its .debug/),\n"
		  "looked up in the process's root" },
	{ .long_name = "DIR/.smolder-FORMAT.index",
	  .text = "continuous mode's record of the profiles it wrote in DIR, so that\n"
		  "--keep and --max-size count those of earlier runs too" },
	{ .long_name = "smolder.service",
	  .text = "the systemd unit that runs continuous mode as a service, beside\n"
		  "the system's units (make install puts it there)" },
	{ 0 },
};

static const struct help_block files_section = {
	.kind = HELP_OPTIONS, .heading = "FILES", .options = files,
};

static const struct help_block see_also_section = {
	.kind = HELP_TEXT, .heading = "SEE ALSO",
	.text = "perf(1), systemd.exec(5); README.md and docs/ in smolder's source: how\n"
		"stacks are walked and frames named, continuous mode, kernel\n"
		"investigation, the kernels smolder runs on.",
};

const struct help_block *const help_man_sections[] = {
	&exit_status_section, &files_section, &see_also_section, NULL,
};
