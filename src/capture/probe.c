// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probe (see probe.h): owns everything smolder checks about the running
 * kernel before it loads the BPF object, and the words for what fails
 * after all.  One static binary meets kernels from 5.10 to the newest, run
 * by root or by a service with a few capabilities, locked down or not;
 * whatever stops it must say what to do, in one line:
 *
 *  - BTF: /sys/kernel/btf/vmlinux, or --btf FILE (relocation only: BTF
 *    tracepoints still need the kernel's own).
 *  - Privileges: CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN before 5.8), from
 *    our effective set, before anything is tried.
 *  - Lockdown: "confidentiality" denies BPF programs every read of kernel
 *    memory (the verifier rejects bpf_probe_read_kernel); "integrity",
 *    Secure Boot's default, is fine.
 *  - RLIMIT_MEMLOCK: kernels before 5.11 charge BPF memory to it; raised
 *    to unlimited when we may.
 *  - Kernel features, from the table below: an essential one missing is an
 *    error naming the kernel that has it; a degradable one is left out of
 *    the object with a note naming what is lost.
 *  - kernel.perf_event_max_stack below the depth we ask for: a note.
 *  - Afterwards: a load the verifier rejected (its reason; the end of its
 *    log with -v), bpf(2) and perf_event_open(2) errors (perf_event_paranoid
 *    above 2 on Debian's and Ubuntu's kernels wants CAP_SYS_ADMIN).
 *
 * libbpf's messages come here too: kept (the verifier's log, which libbpf
 * prints on a failed load, is what probe__load_failed quotes), and printed
 * only with -vv.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <zlib.h>
#include "lib/log.h"
#include "capture/probe.h"
#include "smolder.h"
#include "smolder.skel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
#define VERIFIER_TAIL_LINES 20

/* What the checks found, for the explanations of later failures. */
static struct {
	const char *btf_path;    /* --btf, as libbpf opens it: btf_link */
	char btf_link[32];       /* /proc/self/fd/N of the --btf file, kept open */
	bool vmlinux_btf;        /* libbpf finds the kernel's own BTF */
	uint32_t caps[2];        /* our effective capabilities */
	bool memlock_charged;    /* the kernel charges BPF memory to RLIMIT_MEMLOCK */
	bool memlock_stuck;      /* and we could not raise it to unlimited */
	rlim_t memlock;          /* the limit then */
	bool missing[16];        /* degradable features this kernel lacks */
} st;

/* ---- libbpf's log ---------------------------------------------------- */

static char *verifier_log; /* the last failed load's log, its end */
static char failed_prog[64];

/* Keeps the end (at most 16 KiB) of a "-- BEGIN PROG LOAD LOG --" block. */
static void keep_verifier_log(const char *msg)
{
	const char *begin = strstr(msg, "-- BEGIN PROG LOAD LOG --\n"), *end;
	size_t n;

	if (!begin)
		return;
	begin += strlen("-- BEGIN PROG LOAD LOG --\n");
	end = strstr(begin, "-- END PROG LOAD LOG --");
	n = end ? (size_t)(end - begin) : strlen(begin);
	if (n > 16384) {
		begin += n - 16384;
		n = 16384;
	}
	free(verifier_log);
	verifier_log = strndup(begin, n);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char small[512], *msg = small;
	const char *p;
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(small, sizeof(small), fmt, copy);
	va_end(copy);
	if (n >= (int)sizeof(small)) {
		msg = malloc(n + 1);
		if (!msg)
			return 0;
		vsnprintf(msg, n + 1, fmt, ap);
	}
	if (level == LIBBPF_WARN) {
		if ((p = strstr(msg, "': BPF program load failed")) && !strncmp(msg, "libbpf: prog '", 14))
			snprintf(failed_prog, sizeof(failed_prog), "%.*s", (int)(p - msg - 14), msg + 14);
		keep_verifier_log(msg);
	}
	if (log_verbosity >= 3) /* -vv: all of libbpf's messages, as they come */
		fputs(msg, stderr);
	if (msg != small)
		free(msg);
	return 0;
}

/* ---- privileges -------------------------------------------------------- */

static bool has_cap(int cap)
{
	return st.caps[cap / 32] & (1u << (cap % 32));
}

static int read_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	st.caps[0] = d[0].effective;
	st.caps[1] = d[1].effective;
	return 0;
}

/* The highest capability this kernel knows (CAP_BPF came in 5.8). */
static int cap_last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int v = CAP_BPF;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = CAP_BPF;
		fclose(f);
	}
	return v;
}

static int check_privileges(void)
{
	const char *missing;

	if (read_caps()) /* cannot tell: let the kernel decide */
		return 0;
	if (has_cap(CAP_SYS_ADMIN))
		return 0;
	if (cap_last_cap() < CAP_BPF) {
		err("not permitted: kernels before 5.8 have no CAP_BPF and let only CAP_SYS_ADMIN trace with BPF (run as root or grant CAP_SYS_ADMIN)");
		return -1;
	}
	if (has_cap(CAP_BPF) && has_cap(CAP_PERFMON))
		return 0;
	missing = has_cap(CAP_BPF) ? "CAP_PERFMON is missing"
		  : has_cap(CAP_PERFMON) ? "CAP_BPF is missing" : "CAP_BPF and CAP_PERFMON are missing";
	err("not permitted to trace with BPF: %s (run as root or grant CAP_BPF and CAP_PERFMON, e.g. setcap cap_bpf,cap_perfmon+ep smolder)",
	    missing);
	return -1;
}

/* ---- BTF ----------------------------------------------------------------- */

/*
 * The --btf file, pinned: only a regular file (a FIFO would block the
 * open, and with it SIGINT and SIGTERM, forever; a device could act on
 * an open), and libbpf reads that very file through st.btf_link, however
 * the path changes meanwhile.  0, or -1 after printing why.
 */
static int pin_btf(const char *path)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	struct stat s;

	if (fd < 0 || fstat(fd, &s)) {
		err("cannot read BTF from %s: %s (give --btf the kernel's BTF file)", path,
		    log__errstr(errno));
	} else if (!S_ISREG(s.st_mode)) {
		err("cannot read BTF from %s: %s (give --btf the kernel's BTF file)", path,
		    S_ISDIR(s.st_mode) ? "is a directory" : "not a regular file");
	} else {
		snprintf(st.btf_link, sizeof(st.btf_link), "/proc/self/fd/%d", fd);
		return 0;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

static int check_btf(const char *path)
{
	struct btf *btf;
	int e;

	st.vmlinux_btf = !access(VMLINUX_BTF, R_OK);
	if (!st.vmlinux_btf) {
		/* libbpf also looks for a vmlinux with BTF under /boot and /lib/modules */
		btf = btf__load_vmlinux_btf();
		st.vmlinux_btf = !libbpf_get_error(btf);
		if (st.vmlinux_btf)
			btf__free(btf);
	}
	if (!path) {
		if (st.vmlinux_btf)
			return 0;
		err("kernel BTF not found at " VMLINUX_BTF
		    " (run a kernel built with CONFIG_DEBUG_INFO_BTF=y, or give its BTF with --btf FILE)");
		return -1;
	}
	if (pin_btf(path))
		return -1;
	btf = btf__parse(st.btf_link, NULL);
	e = libbpf_get_error(btf);
	if (e) {
		btf = NULL;
		e = -e;
		err("cannot read BTF from %s: %s (give --btf the kernel's BTF: a vmlinux with a .BTF section, or raw BTF such as a copy of " VMLINUX_BTF ")",
		    path, e == ENOENT || e == EACCES || e == EISDIR ? log__errstr(e) : "not BTF data");
		return -1;
	}
	/* A kernel's BTF has tens of thousands of types; a program's or a
	 * module's, with struct task_struct too, a few hundred: relocating
	 * against those would load, and read the wrong offsets. */
	if (btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) < 0 ||
	    btf__type_cnt(btf) < 10000) {
		err("cannot use BTF from %s: it does not describe a kernel (%u types%s; give --btf the BTF of the running kernel, not of a module or a program)",
		    path, btf__type_cnt(btf) - 1,
		    btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) < 0 ? ", no struct task_struct" : "");
		btf__free(btf);
		return -1;
	}
	btf__free(btf);
	st.btf_path = st.btf_link;
	return 0;
}

/* ---- lockdown ------------------------------------------------------------ */

/* "none", "integrity" or "confidentiality"; NULL when unreadable. */
static const char *lockdown_mode(void)
{
	static char mode[32];
	char buf[128], *a, *b;
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");

	if (!f)
		return NULL;
	a = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!a || !(a = strchr(buf, '[')) || !(b = strchr(a, ']')))
		return NULL;
	snprintf(mode, sizeof(mode), "%.*s", (int)(b - a - 1), a + 1);
	return mode;
}

static int check_lockdown(void)
{
	const char *mode = lockdown_mode();

	if (!mode || strcmp(mode, "confidentiality"))
		return 0;
	err("the kernel is locked down in confidentiality mode, which forbids BPF programs to read kernel memory (boot with lockdown=integrity, Secure Boot's usual mode, or without lockdown: smolder runs under both)");
	return -1;
}

/* ---- RLIMIT_MEMLOCK ------------------------------------------------------ */

/* As libbpf tells: kernels that charge BPF memory to the memory cgroup (5.11)
 * have bpf_ktime_get_coarse_ns (5.11) too. */
static bool kernel_charges_memlock(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_ktime_get_coarse_ns },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns, 2, NULL);

	if (fd < 0)
		return true;
	close(fd);
	return false;
}

static void format_kib(char *buf, size_t size, rlim_t v)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, size, "unlimited");
	else
		snprintf(buf, size, "%llu KiB", (unsigned long long)v / 1024);
}

static int check_memlock(void)
{
	struct rlimit r, inf = { RLIM_INFINITY, RLIM_INFINITY };
	int fd;

	st.memlock_charged = kernel_charges_memlock();
	if (!st.memlock_charged || getrlimit(RLIMIT_MEMLOCK, &r) || r.rlim_cur == RLIM_INFINITY)
		return 0;
	if (!setrlimit(RLIMIT_MEMLOCK, &inf))
		return 0;
	if (r.rlim_cur < r.rlim_max) { /* as far as we may */
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_MEMLOCK, &r);
	}
	st.memlock_stuck = true;
	st.memlock = r.rlim_cur;
	/* Too low for even the probes: say so now, not as missing features. */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EPERM)
		return 0;
	err("cannot create BPF maps: %s (%s)", log__errstr(EPERM), probe__fix(EPERM));
	return -1;
}

/* ---- kernel features ------------------------------------------------------ */

static bool probe_perf_event_prog(void)
{
	return libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT, NULL) == 1;
}

static bool probe_array_of_maps(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_ARRAY_OF_MAPS, NULL) == 1;
}

static bool probe_get_stack(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_get_stack, NULL) == 1;
}

static bool probe_read_kernel(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_probe_read_kernel,
				       NULL) == 1;
}

static bool probe_ringbuf(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
}

/*
 * tp_btf programs name their tracepoint by its id in the kernel's BTF, which
 * libbpf must find too.  Type 1 is never a tracepoint's "btf_trace_" typedef,
 * so a kernel that has them rejects this load from its BTF (libbpf's own
 * probe asks for an fentry program, which kernels without ftrace refuse).
 */
static bool probe_tp_btf(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1, .expected_attach_type = BPF_TRACE_RAW_TP, .attach_btf_id = 1);
	int fd;

	if (!st.vmlinux_btf)
		return false;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &opts);
	if (fd >= 0)
		close(fd);
	return fd >= 0 || (errno == EINVAL && strstr(log, "attach_btf_id 1 "));
}

static void no_ringbuf(struct smolder_bpf *skel)
{
	bpf_map__set_autocreate(skel->maps.events, false);
	skel->rodata->image_events = false;
}

static void no_tp_btf(struct smolder_bpf *skel)
{
	bpf_program__set_autoload(skel->progs.on_exec, false);
	bpf_program__set_autoload(skel->progs.on_exit, false);
	bpf_program__set_autoload(skel->progs.on_fork, false);
}

struct feature {
	const char *name;  /* as notes and errors call it */
	const char *since; /* the first Linux release that has it */
	bool (*probe)(void);
	/* Degradable features only (NULL: smolder cannot run without it): */
	const char *lost;  /* what a capture loses without it */
	void (*leave_out)(struct smolder_bpf *skel); /* before load */
};

/* In probing order: what a later probe's program needs comes first. */
static const struct feature features[] = {
	{ .name = "perf_event BPF programs", .since = "4.9", .probe = probe_perf_event_prog },
	{ .name = "BPF arrays of maps", .since = "4.12", .probe = probe_array_of_maps },
	{ .name = "bpf_get_stack in perf_event programs", .since = "4.18", .probe = probe_get_stack },
	{ .name = "bpf_probe_read_kernel", .since = "5.5", .probe = probe_read_kernel },
	{ .name = "BPF ring buffer", .since = "5.8", .probe = probe_ringbuf,
	  .lost = "processes are named when the capture ends, so those that exit before stay unnamed",
	  .leave_out = no_ringbuf },
	{ .name = "BTF tracepoints", .since = "5.5", .probe = probe_tp_btf,
	  .lost = "exits and execs are not traced, so once 4096 processes were seen new ones are named only if they still run at the end",
	  .leave_out = no_tp_btf },
};
_Static_assert(sizeof(features) / sizeof(features[0]) <= sizeof(st.missing) / sizeof(st.missing[0]),
	       "st.missing too small");

static int check_features(void)
{
	char have[512] = "";
	size_t n = 0;

	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		const struct feature *f = &features[i];
		bool ok;
		int e;

		errno = 0;
		ok = f->probe();
		e = errno;
		if (!ok && e == EPERM && st.memlock_stuck) { /* the limit, not the kernel */
			err("cannot probe kernel features: %s (%s)", log__errstr(e), probe__fix(e));
			return -1;
		}

		n += snprintf(have + n, n < sizeof(have) ? sizeof(have) - n : 0, "%s%s %s",
			      i ? ", " : "", f->name, ok ? "yes" : "no");
		if (ok)
			continue;
		if (!f->lost) {
			err("this kernel lacks %s (run Linux %s or later%s)", f->name, f->since,
			    f->probe == probe_read_kernel ? ", not locked down in confidentiality mode" : "");
			return -1;
		}
		st.missing[i] = true;
		if (f->probe == probe_tp_btf && !st.vmlinux_btf)
			warn("note: BTF tracepoints need " VMLINUX_BTF ", which is missing: %s", f->lost);
		else
			warn("note: %s not supported by this kernel (Linux %s): %s", f->name, f->since,
			     f->lost);
	}
	info("kernel features: %s", have);
	return 0;
}

bool probe__tp_btf(void)
{
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].probe == probe_tp_btf)
			return !st.missing[i];
	return false;
}

/* ---- perf_event_max_stack ------------------------------------------------- */

static long read_sysctl(const char *path, long dflt)
{
	FILE *f = fopen(path, "re");
	long v = dflt;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

static void check_max_stack(void)
{
	long max = read_sysctl("/proc/sys/kernel/perf_event_max_stack", SMOLDER_MAX_DEPTH);

	if (max < SMOLDER_MAX_DEPTH)
		warn("note: kernel.perf_event_max_stack is %ld, so stacks deeper than %ld frames lose their outermost frames (sysctl -w kernel.perf_event_max_stack=%d)",
		     max, max, SMOLDER_MAX_DEPTH);
}

/* ---- the interface ---------------------------------------------------------- */

int probe__kernel(const struct probe_opts *o)
{
	struct utsname u;

	libbpf_set_print(libbpf_print);
	if (!uname(&u))
		info("kernel %s", u.release);
	if (check_btf(o->btf_path) || check_privileges() || check_lockdown() || check_memlock() ||
	    check_features())
		return -1;
	check_max_stack();
	return 0;
}

void probe__open_opts(struct bpf_object_open_opts *opts)
{
	opts->btf_custom_path = st.btf_path;
}

void probe__adjust(struct smolder_bpf *skel)
{
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (st.missing[i] && features[i].leave_out)
			features[i].leave_out(skel);
}

/* The last line of the verifier's log that says something. */
static void verifier_reason(char *buf, size_t size)
{
	const char *end = verifier_log + strlen(verifier_log), *line;

	buf[0] = 0;
	while (end > verifier_log) {
		while (end > verifier_log && end[-1] == '\n')
			end--;
		for (line = end; line > verifier_log && line[-1] != '\n'; line--)
			;
		if (end > line && strncmp(line, "processed ", 10) && strncmp(line, "verification time", 17)) {
			snprintf(buf, size, "%.*s", (int)(end - line), line);
			return;
		}
		end = line;
	}
}

/* With -v: the last lines of the verifier's log, each as "smolder: verifier: ...". */
static void print_verifier_tail(void)
{
	const char *p = verifier_log + strlen(verifier_log);
	int lines = 0;

	while (p > verifier_log && p[-1] == '\n')
		p--;
	while (p > verifier_log && lines < VERIFIER_TAIL_LINES)
		if (*--p == '\n')
			lines++;
	if (*p == '\n')
		p++;
	while (*p) {
		const char *nl = strchrnul(p, '\n');

		info("verifier: %.*s", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

void probe__load_failed(int e)
{
	char reason[256];

	if (!verifier_log) {
		err("cannot load BPF program: %s (%s)", log__errstr(-e), probe__fix(-e));
		return;
	}
	verifier_reason(reason, sizeof(reason));
	if (log_verbosity >= 2)
		print_verifier_tail();
	err("the kernel's BPF verifier rejected program %s: %s (%s)", failed_prog[0] ? failed_prog : "?",
	    reason[0] ? reason : "no reason given",
	    log_verbosity >= 2 ? "the end of its log is above"
	    : strstr(reason, "CO-RE") && st.btf_path ? "--btf must describe the running kernel; rerun with -v for the end of the verifier's log"
	    : "rerun with -v for the end of the verifier's log");
}

const char *probe__fix(int error)
{
	static char buf[256];
	char lim[32];

	if (error == EPERM && st.memlock_stuck) {
		format_kib(lim, sizeof(lim), st.memlock);
		snprintf(buf, sizeof(buf),
			 "RLIMIT_MEMLOCK is %s and kernels before 5.11 charge BPF memory to it: raise it with ulimit -l unlimited or LimitMEMLOCK=infinity, or grant CAP_SYS_RESOURCE",
			 lim);
		return buf;
	}
	if (error == EPERM || error == EACCES)
		return "run as root or grant CAP_BPF and CAP_PERFMON";
	if (error == ENOMEM)
		return "lower --stack-storage-size or free memory";
	return "run with -vv for libbpf's log";
}

const char *probe__perf_fix(int error)
{
	static char buf[256];
	long paranoid;

	if (error != EACCES && error != EPERM)
		return "this kernel needs CONFIG_PERF_EVENTS";
	if (has_cap(CAP_SYS_ADMIN))
		return "run as root or grant CAP_PERFMON";
	paranoid = read_sysctl("/proc/sys/kernel/perf_event_paranoid", 2);
	if (paranoid > 2)
		/* Debian's and Ubuntu's kernels: above 2, perf events are for
		 * CAP_SYS_ADMIN only, CAP_PERFMON or not */
		snprintf(buf, sizeof(buf),
			 "kernel.perf_event_paranoid is %ld, which on this kernel leaves perf events to CAP_SYS_ADMIN: sysctl -w kernel.perf_event_paranoid=2, or grant CAP_SYS_ADMIN",
			 paranoid);
	else if (!has_cap(CAP_PERFMON))
		snprintf(buf, sizeof(buf),
			 "kernel.perf_event_paranoid is %ld and CAP_PERFMON is missing: grant CAP_PERFMON, or sysctl -w kernel.perf_event_paranoid=0",
			 paranoid);
	else
		return "run as root or grant CAP_PERFMON";
	return buf;
}

/* True if the kernel's build configuration has this line, e.g. CONFIG_KASAN=y. */
static bool kernel_config_has(const char *line)
{
	char path[300], buf[512];
	struct utsname u;
	bool found = false;
	gzFile f;

	f = gzopen("/proc/config.gz", "rb");
	if (!f && !uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = gzopen(path, "rb"); /* reads plain files too */
	}
	if (!f)
		return false;
	while (!found && gzgets(f, buf, sizeof(buf)))
		found = !strncmp(buf, line, strlen(line));
	gzclose(f);
	return found;
}

/*
 * THREAD_SIZE, which BTF does not record: 16 KiB on x86_64 and arm64, the
 * page size on arm64 with 64 KiB pages, twice that under KASAN.
 */
uint64_t probe__thread_size(void)
{
	uint64_t size = 16384, page = sysconf(_SC_PAGESIZE);

	if (page > size)
		size = page;
	if (kernel_config_has("CONFIG_KASAN=y"))
		size *= 2;
	return size;
}
