// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Capture: owns the BPF skeleton and the perf events.  Configuration goes
 * into the object's read-only data between open and load; map sizes are set
 * before load; one cpu-clock event per selected CPU carries the program.
 * Errors are printed here, once, as one line naming the fix.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <zlib.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture.h"
#include "log.h"
#include "smolder.skel.h"

struct capture {
	struct smolder_bpf *skel;
	struct ring_buffer *events;
	struct bpf_link *exec_link, *exit_link;
	image_fn on_image;
	void *arg;
	struct bpf_link **links;
	int *perf_fds;
	size_t nr_events;
};

static const char *fix_for(int error)
{
	if (error == EPERM || error == EACCES)
		return "run as root or grant CAP_BPF and CAP_PERFMON";
	if (error == ENOMEM)
		return "lower --stack-storage-size or free memory";
	return "run with -vv for libbpf's log";
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (log_verbosity < 3 && level != LIBBPF_WARN)
		return 0;
	if (log_verbosity < 3)
		return 0; /* libbpf's warnings are multi-line; we print our own */
	return vfprintf(stderr, fmt, ap);
}

/* Inode of our PID namespace, so samples carry the PIDs we see. */
static int our_pidns(uint32_t *inum)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*inum = st.st_ino;
	return 0;
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
static uint64_t kernel_thread_size(void)
{
	uint64_t size = 16384, page = sysconf(_SC_PAGESIZE);

	if (page > size)
		size = page;
	if (kernel_config_has("CONFIG_KASAN=y"))
		size *= 2;
	return size;
}

static int fill_filter(struct bpf_map *map, const uint32_t *ids, size_t nr)
{
	uint8_t one = 1;

	for (size_t i = 0; i < nr; i++)
		if (bpf_map__update_elem(map, &ids[i], sizeof(ids[i]), &one, sizeof(one), BPF_ANY))
			return -errno;
	return 0;
}

static int configure(struct smolder_bpf *skel, const struct capture_opts *o)
{
	struct smolder_bpf__rodata *ro = skel->rodata;
	uint32_t inum = 0;
	int e;

	e = our_pidns(&inum);
	if (e)
		return e;
	ro->kernel_stacks = o->kernel_stacks;
	ro->user_stacks = o->user_stacks;
	ro->per_cpu = o->per_cpu;
	ro->filter_tgid = o->nr_tgids > 0;
	ro->filter_tid = o->nr_tids > 0;
	ro->idle_mode = o->idle_mode;
	ro->pidns_inum = inum;
	ro->thread_size = kernel_thread_size();
	if ((e = bpf_map__set_max_entries(skel->maps.stacks, o->stack_chunks)) ||
	    (e = bpf_map__set_max_entries(skel->maps.counts, o->count_entries)) ||
	    (e = bpf_map__set_max_entries(skel->maps.tgids, o->nr_tgids ? o->nr_tgids : 1)) ||
	    (e = bpf_map__set_max_entries(skel->maps.tids, o->nr_tids ? o->nr_tids : 1)))
		return e;
	return 0;
}

static int open_cpu_clock(const struct capture_opts *o, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
	};

	if (o->freq) {
		attr.freq = 1;
		attr.sample_freq = o->freq;
	} else {
		attr.sample_period = o->period;
	}
	return syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int attach_events(struct capture *c, const struct capture_opts *o)
{
	c->links = calloc(o->nr_cpus, sizeof(*c->links));
	c->perf_fds = calloc(o->nr_cpus, sizeof(*c->perf_fds));
	if (!c->links || !c->perf_fds)
		return -ENOMEM;
	for (size_t i = 0; i < o->nr_cpus; i++) {
		int fd = open_cpu_clock(o, o->cpus[i]);

		if (fd < 0) {
			if (errno == ENODEV) /* went offline since we looked */
				continue;
			err("cannot open cpu-clock perf event on cpu %d: %s (%s)", o->cpus[i],
			    errstr(errno),
			    errno == EACCES || errno == EPERM
				    ? "run as root or grant CAP_PERFMON"
				    : "this kernel needs CONFIG_PERF_EVENTS");
			return -1;
		}
		c->perf_fds[c->nr_events] = fd;
		c->links[c->nr_events] = bpf_program__attach_perf_event(c->skel->progs.do_sample, fd);
		c->nr_events++;
		if (!c->links[c->nr_events - 1]) {
			err("cannot attach BPF program to cpu %d: %s (%s)", o->cpus[i],
			    errstr(errno), fix_for(errno));
			return -1;
		}
	}
	if (!c->nr_events) {
		err("no online cpu to sample (check -C against /sys/devices/system/cpu/online)");
		return -1;
	}
	return 0;
}

static int load(struct capture *c, const struct capture_opts *o)
{
	int e;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		err("kernel BTF not found at /sys/kernel/btf/vmlinux (run a kernel built with CONFIG_DEBUG_INFO_BTF=y)");
		return -1;
	}
	libbpf_set_print(libbpf_log);
	c->skel = smolder_bpf__open();
	if (!c->skel) {
		err("cannot open BPF object: %s (%s)", errstr(errno), fix_for(errno));
		return -1;
	}
	e = configure(c->skel, o);
	if (e) {
		err("cannot configure BPF object: %s (%s)", errstr(-e), fix_for(-e));
		return -1;
	}
	e = smolder_bpf__load(c->skel);
	if (e) {
		err("cannot load BPF program: %s (%s)", errstr(-e), fix_for(-e));
		return -1;
	}
	if ((e = fill_filter(c->skel->maps.tgids, o->tgids, o->nr_tgids)) ||
	    (e = fill_filter(c->skel->maps.tids, o->tids, o->nr_tids))) {
		err("cannot fill pid filter: %s (%s)", errstr(-e), fix_for(-e));
		return -1;
	}
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct capture *c = ctx;
	const struct image_event *ev = data;

	if (size >= sizeof(*ev) && c->on_image)
		c->on_image(ev->tgid, ev->gen, c->arg);
	return 0;
}

/* Exec and exit end an image; new images announce themselves by ring buffer. */
static int attach_image_tracking(struct capture *c)
{
	c->exec_link = bpf_program__attach(c->skel->progs.on_exec);
	c->exit_link = bpf_program__attach(c->skel->progs.on_exit);
	c->events = ring_buffer__new(bpf_map__fd(c->skel->maps.events), on_event, c, NULL);
	if (!c->exec_link || !c->exit_link || !c->events) {
		err("cannot attach process tracking: %s (%s)", errstr(errno), fix_for(errno));
		return -1;
	}
	return 0;
}

int capture__poll(struct capture *c, int timeout_ms)
{
	int n = ring_buffer__poll(c->events, timeout_ms);

	return n < 0 && n != -EINTR ? n : 0;
}

bool capture__image_current(struct capture *c, uint32_t tgid, uint32_t gen)
{
	struct image_state cur;

	return !bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.procs), &tgid, &cur) &&
	       cur.gen == gen;
}

struct capture *capture__open(const struct capture_opts *o)
{
	struct capture *c = calloc(1, sizeof(*c));

	if (!c) {
		err("out of memory");
		return NULL;
	}
	c->on_image = o->on_image;
	c->arg = o->arg;
	if (load(c, o) || attach_image_tracking(c) || attach_events(c, o)) {
		capture__free(c);
		return NULL;
	}
	return c;
}

void capture__stop(struct capture *c)
{
	for (size_t i = 0; i < c->nr_events; i++) {
		bpf_link__destroy(c->links[i]);
		close(c->perf_fds[i]);
	}
	c->nr_events = 0;
}

int capture__for_each_sample(struct capture *c, sample_fn fn, void *arg)
{
	int fd = bpf_map__fd(c->skel->maps.counts);
	struct sample_key key, next;
	void *prev = NULL;
	uint64_t count;
	int e;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &count)) {
			e = fn(&next, count, arg);
			if (e)
				return e;
		}
		key = next;
		prev = &key;
	}
	return errno == ENOENT ? 0 : -errno;
}

int capture__stack(struct capture *c, uint64_t id, struct stack_trace *out)
{
	int fd = bpf_map__fd(c->skel->maps.stacks);
	struct stack_chunk_key key = { .id = id };
	struct stack_chunk chunk;
	uint32_t nr = 0;

	for (key.idx = 0; key.idx < STACK_CHUNKS; key.idx++) {
		if (key.idx * STACK_CHUNK_FRAMES >= nr && key.idx)
			break;
		if (bpf_map_lookup_elem(fd, &key, &chunk))
			return key.idx ? -EIO : -errno; /* a chunk went missing */
		if (!key.idx)
			nr = chunk.nr < SMOLDER_MAX_DEPTH ? chunk.nr : SMOLDER_MAX_DEPTH;
		memcpy(&out->ip[key.idx * STACK_CHUNK_FRAMES], chunk.ip, sizeof(chunk.ip));
	}
	out->nr = nr;
	return 0;
}

void capture__counters(struct capture *c, uint64_t *out)
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(c->skel->maps.counters);
	uint64_t *vals;

	memset(out, 0, CNT__MAX * sizeof(*out));
	if (ncpu <= 0 || !(vals = calloc(ncpu, sizeof(*vals))))
		return;
	for (uint32_t i = 0; i < CNT__MAX; i++) {
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int cpu = 0; cpu < ncpu; cpu++)
			out[i] += vals[cpu];
	}
	free(vals);
}

/* A "name: value" line of /proc/self/fdinfo/FD, 0 if absent. */
static uint64_t fdinfo_field(int fd, const char *field)
{
	char path[64], line[128];
	size_t n = strlen(field);
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':' && sscanf(line + n + 1, "%llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

void capture__prog_stats(struct capture *c, uint64_t *run_ns, uint64_t *runs)
{
	int fd = bpf_program__fd(c->skel->progs.do_sample);

	*run_ns = fdinfo_field(fd, "run_time_ns");
	*runs = fdinfo_field(fd, "run_cnt");
}

uint64_t capture__map_bytes(struct capture *c)
{
	struct bpf_map *m;
	uint64_t sum = 0;

	bpf_object__for_each_map(m, c->skel->obj)
		if (bpf_map__fd(m) >= 0)
			sum += fdinfo_field(bpf_map__fd(m), "memlock");
	return sum;
}

void capture__free(struct capture *c)
{
	if (!c)
		return;
	capture__stop(c);
	/* tracking stays until here: names are checked against it after the stop */
	bpf_link__destroy(c->exec_link);
	bpf_link__destroy(c->exit_link);
	ring_buffer__free(c->events);
	smolder_bpf__destroy(c->skel);
	free(c->links);
	free(c->perf_fds);
	free(c);
}
