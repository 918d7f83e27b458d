// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Capture: owns the BPF skeleton, the perf events and the banks of count
 * and stack maps.  Configuration goes into the object's read-only data
 * between open and load; the banks' maps are created here, sized per
 * capture, and put in the outer maps before any event is attached; one
 * cpu-clock event per selected CPU carries the program.  Errors are printed
 * here, once, as one line naming the fix.
 *
 * Rotation (continuous mode): the sampler reads live_bank once per run and
 * writes the whole sample (stacks, count, counters) into that bank.
 * capture__rotate flips live_bank, then updates a slot of an array of maps:
 * for map-in-map types the bpf(2) update returns only after synchronize_rcu()
 * (kernel/bpf/syscall.c, maybe_wait_bpf_programs), and perf_event programs
 * run under rcu_read_lock() in interrupt context, so every run that read the
 * old live_bank has ended by then and every later run sees the new one.  The
 * old bank is then complete and still: no sample is lost or split, and
 * release empties it before it can go live again, so none counts twice.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/announce.h"
#include "capture/capture.h"
#include "capture/load_report.h"
#include "capture/kctx.h"
#include "lib/log.h"
#include "lib/phase.h"
#include "capture/map_walk.h"
#include "capture/offcpu.h"
#include "capture/probe.h"
#include "smolder.skel.h"
#include "unwind/unwind_maps.h"

struct capture {
	struct smolder_bpf *skel;
	struct bpf_program *sampler; /* do_sample, or do_sample_unrolled */
	struct ring_buffer *events;
	struct bpf_link *exec_link, *exit_link, *fork_link;
	struct kctx_opts kctx_opts; /* what the kernel allowed of the options */
	struct kctx *kctx;
	struct offcpu *offcpu; /* --off-cpu (an empty one without) */
	struct unwind_maps *unwind; /* --unwind dwarf: the tables in the kernel */
	image_fn on_image;
	pystack_fn on_pystack;
	void *arg;
	struct bpf_link **links;
	int *perf_fds;
	size_t nr_events;
	int counts_fd[SMOLDER_BANKS], stacks_fd[SMOLDER_BANKS]; /* -1: not created */
	uint32_t stack_chunks, count_entries;
	unsigned int live;     /* bank the sampler writes to */
	unsigned int read;     /* bank the readers see */
	bool drained;          /* between rotate and release: read != live */
	uint64_t released[CNT__MAX]; /* counters of released banks */
	struct capture_opts opts; /* for capture__start */
};

/* Inode of our PID namespace, so samples carry the PIDs we see. */
static int our_pidns(uint32_t *inum)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*inum = st.st_ino;
	return 0;
}

/* --unwind dwarf: the unwinder's maps, sized for the budget (with --unwind
 * fp they keep one entry each and the unwinder is dead code). */
static int configure_unwind(struct smolder_bpf *skel, const struct capture_opts *o,
			    int *shard_template)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);
	struct smolder_bpf__rodata *ro = skel->rodata;
	uint32_t bits, shards;
	int e;

	unwind_maps__layout(o->unwind_budget ? o->unwind_budget : UNWIND_DEFAULT_BUDGET, &bits,
			    &shards);
	ro->dwarf_unwind = true;
	ro->unwind_shard_bits = bits;
	ro->have_task_pt_regs =
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, NULL) == 1;
	if ((e = bpf_map__set_max_entries(skel->maps.unwind_shards, shards)) ||
	    (e = bpf_map__set_max_entries(skel->maps.unwind_files, UNWIND_MAX_FILES)) ||
	    (e = bpf_map__set_max_entries(skel->maps.unwind_mappings, UNWIND_MAX_MAPPINGS)))
		return e;
	/* The shards' shape, as unwind_shards.c creates them (libbpf 1.1 cannot
	 * resize the inner map of a definition). */
	*shard_template = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_shard", sizeof(__u32), 8,
					 1u << bits, &mmapable);
	if (*shard_template < 0)
		return -errno;
	return bpf_map__set_inner_map_fd(skel->maps.unwind_shards, *shard_template);
}

static bool unwind_image_current(pid_t pid, uint32_t gen, void *arg)
{
	return capture__image_current(arg, pid, gen);
}

/* After the load: the object that fills the unwinder's maps. */
static int open_unwind(struct capture *c, const struct capture_opts *o)
{
	struct unwind_maps_opts uo = {
		.shards_fd = bpf_map__fd(c->skel->maps.unwind_shards),
		.files_fd = bpf_map__fd(c->skel->maps.unwind_files),
		.mappings_fd = bpf_map__fd(c->skel->maps.unwind_mappings),
		.image_current = unwind_image_current,
		.arg = c,
	};

	if (!o->dwarf_unwind)
		return 0;
	unwind_maps__layout(o->unwind_budget ? o->unwind_budget : UNWIND_DEFAULT_BUDGET,
			    &uo.shard_bits, &uo.max_shards);
	c->unwind = unwind_maps__new(&uo);
	if (!c->unwind)
		return -ENOMEM;
	unwind_maps__preload_self(c->unwind);
	return 0;
}

void capture__maps_read(pid_t pid, uint32_t gen, const struct proc_maps *pm, void *arg)
{
	struct capture *c = arg;

	if (c->unwind)
		unwind_maps__update(pid, gen, pm, c->unwind);
}

int capture__python_add(struct capture *c, uint32_t tgid, const struct py_proc *pp)
{
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.py_procs), &tgid, pp, BPF_ANY))
		return errno == E2BIG ? -ENOSPC : -errno;
	return 0;
}

bool capture__unwind_stats(struct capture *c, struct unwind_maps_stats *out)
{
	if (!c->unwind)
		return false;
	unwind_maps__stats(c->unwind, out);
	return true;
}

/* Whether -p names smolder's own process: then it is profiled like any
 * other; else the BPF programs leave it out. */
static bool named_self(const struct capture_opts *o)
{
	for (size_t i = 0; i < o->scope.nr_tgids; i++)
		if (o->scope.tgids[i] == (uint32_t)getpid())
			return true;
	return false;
}

/*
 * The sampler's program: do_sample, whose loops are bpf_loop calls (5.17),
 * verified a body once, or do_sample_unrolled before (smolder.bpf.c).
 */
static struct bpf_program *pick_sampler(struct smolder_bpf *skel, const struct capture_opts *o)
{
	bool loop = libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL) == 1;

	bpf_program__set_autoload(skel->progs.do_sample, loop);
	bpf_program__set_autoload(skel->progs.do_sample_unrolled, !loop);
	if (o->dwarf_unwind && o->user_stacks)
		info("unwinder: %s", loop ? "bpf_loop walk" : "unrolled walk (kernel before 5.17)");
	return loop ? skel->progs.do_sample : skel->progs.do_sample_unrolled;
}

static int configure(struct smolder_bpf *skel, const struct capture_opts *o, int *shard_template)
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
	ro->filter_tgid = o->scope.nr_tgids > 0;
	ro->self_tgid = named_self(o) ? 0 : (uint32_t)getpid();
	ro->filter_tid = o->scope.nr_tids > 0;
	ro->idle_mode = o->idle_mode;
	ro->kernel_mode_only = o->kernel_mode;
	ro->kernel_threads_only = o->kernel_threads;
	ro->pidns_inum = inum;
	ro->thread_size = probe__thread_size();
	ro->python_frames = o->python_frames && o->user_stacks;
	/* following forks, room for the processes the command starts */
	if ((e = bpf_map__set_max_entries(skel->maps.tgids, o->scope.follow_forks ? SMOLDER_MAX_FOLLOWED
							   : o->scope.nr_tgids ? o->scope.nr_tgids : 1)) ||
	    (e = bpf_map__set_max_entries(skel->maps.tids, o->scope.nr_tids ? o->scope.nr_tids : 1)))
		return e;
	return o->dwarf_unwind ? configure_unwind(skel, o, shard_template) : 0;
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
	if (!c->links || !c->perf_fds) {
		err("cannot set up perf events for %zu cpus: out of memory", o->nr_cpus);
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->nr_cpus; i++) {
		int fd = open_cpu_clock(o, o->cpus[i]);

		if (fd < 0) {
			if (errno == ENODEV) /* went offline since we looked */
				continue;
			err("cannot open cpu-clock perf event on cpu %d: %s (%s)", o->cpus[i],
			    log__errstr(errno), probe__perf_fix(errno));
			return -1;
		}
		c->perf_fds[c->nr_events] = fd;
		c->links[c->nr_events] = bpf_program__attach_perf_event(c->sampler, fd);
		c->nr_events++;
		if (!c->links[c->nr_events - 1]) {
			err("cannot attach BPF program to cpu %d: %s (%s)", o->cpus[i],
			    log__errstr(errno), probe__fix(errno));
			return -1;
		}
	}
	if (!c->nr_events) {
		err("no online cpu to sample (check -C against /sys/devices/system/cpu/online)");
		return -1;
	}
	return 0;
}

/* One inner map to put in a slot of an outer map. */
struct slot {
	int outer, inner;
	uint32_t idx;
	int err;
};

static void *set_slot(void *arg)
{
	struct slot *s = arg;

	s->err = bpf_map_update_elem(s->outer, &s->idx, &s->inner, BPF_ANY);
	return NULL;
}

/*
 * Fills slots.  Every update waits for an RCU grace period (see
 * capture__rotate), needless before the sampler runs but not skippable:
 * made from one thread each, the waits overlap, and the open takes about
 * one grace period instead of one per slot.
 */
static int set_slots(struct slot *s, size_t n)
{
	pthread_t tid[2 * SMOLDER_BANKS];
	bool threaded[2 * SMOLDER_BANKS] = { false };

	for (size_t i = 1; i < n; i++)
		threaded[i] = !pthread_create(&tid[i], NULL, set_slot, &s[i]);
	for (size_t i = 0; i < n; i++)
		if (!threaded[i])
			set_slot(&s[i]);
	for (size_t i = 1; i < n; i++)
		if (threaded[i])
			pthread_join(tid[i], NULL);
	for (size_t i = 0; i < n; i++)
		if (s[i].err)
			return s[i].err;
	return 0;
}

/*
 * Creates the count and stack maps of banks first .. first + n - 1, sized
 * per capture (each bank takes that memory again), and puts them in the
 * outer maps' slots.
 */
static int create_banks(struct capture *c, unsigned int first, unsigned int n)
{
	int count_banks = bpf_map__fd(c->skel->maps.count_banks);
	int stack_banks = bpf_map__fd(c->skel->maps.stack_banks);
	struct slot s[2 * SMOLDER_BANKS];
	size_t ns = 0;
	int e = 0;

	for (unsigned int b = first; b < first + n && !e; b++) {
		c->counts_fd[b] = bpf_map_create(BPF_MAP_TYPE_HASH, "counts", sizeof(struct sample_key),
						 sizeof(__u64), c->count_entries, NULL);
		c->stacks_fd[b] = bpf_map_create(BPF_MAP_TYPE_HASH, "stacks",
						 sizeof(struct stack_chunk_key),
						 sizeof(struct stack_chunk), c->stack_chunks, NULL);
		e = c->counts_fd[b] < 0 ? c->counts_fd[b] : c->stacks_fd[b] < 0 ? c->stacks_fd[b] : 0;
		s[ns++] = (struct slot){ .outer = count_banks, .inner = c->counts_fd[b], .idx = b };
		s[ns++] = (struct slot){ .outer = stack_banks, .inner = c->stacks_fd[b], .idx = b };
	}
	if (!e)
		e = set_slots(s, ns);
	for (unsigned int b = first; e && b < first + n; b++) {
		if (c->counts_fd[b] >= 0)
			close(c->counts_fd[b]);
		if (c->stacks_fd[b] >= 0)
			close(c->stacks_fd[b]);
		c->counts_fd[b] = c->stacks_fd[b] = -1;
	}
	return e;
}


static int load(struct capture *c, const struct capture_opts *o)
{
	struct probe_opts po = { .btf_path = o->btf_path };
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	int e, shard_template = -1;
	uint64_t started_at;

	if (probe__kernel(&po))
		return -1;
	phase__mark("kernel probed");
	probe__open_opts(&open_opts);
	c->skel = smolder_bpf__open_opts(&open_opts);
	if (!c->skel) {
		err("cannot open BPF object: %s (%s)", log__errstr(errno), probe__fix(errno));
		return -1;
	}
	c->kctx_opts = (struct kctx_opts){ .irq_frames = o->irq_frames,
					   .kworker_frames = o->kworker_frames };
	if (filters__configure(c->skel, &o->scope))
		return -1;
	c->sampler = pick_sampler(c->skel, o);
	e = configure(c->skel, o, &shard_template);
	if (!e)
		e = kctx__configure(c->skel, &c->kctx_opts);
	if (!e) {
		struct offcpu_opts oo = o->offcpu;

		oo.cgroup_filtered = o->scope.cgroup || o->scope.cgroupmap;
		e = offcpu__configure(c->skel, &oo);
	}
	if (e) {
		err("cannot configure BPF object: %s (%s)", log__errstr(-e), probe__fix(-e));
		if (shard_template >= 0)
			close(shard_template);
		return -1;
	}
	probe__adjust(c->skel);
	bpf_program__set_autoload(c->skel->progs.announce_targets,
				  announce__wanted(c->skel, o->scope.nr_tgids || o->scope.nr_tids,
						   o->dwarf_unwind && o->user_stacks));
	started_at = load_report__now();
	phase__mark("object opened and configured");
	e = smolder_bpf__load(c->skel);
	if (shard_template >= 0)
		close(shard_template);
	if (e) {
		probe__load_failed(e);
		return -1;
	}
	load_report__print(c->skel->obj, started_at, load_report__now());
	phase__mark("loaded (vmlinux BTF, maps, relocation, verification)");
	if (o->on_loaded)
		o->on_loaded(o->loaded_arg);
	if (filters__fill(c->skel, &o->scope))
		return -1;
	e = create_banks(c, 0, o->rotate ? SMOLDER_BANKS : 1);
	phase__mark("count and stack maps created");
	if (!e)
		e = open_unwind(c, o);
	phase__mark("unwinder ready (own tables)");
	if (e) {
		err("cannot create BPF maps: %s (%s)", log__errstr(-e), probe__fix(-e));
		return -1;
	}
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct capture *c = ctx;
	const struct image_event *ev = data;
	const struct pystack_event *py = data;

	if (size == sizeof(*py) && c->on_pystack)
		c->on_pystack(py->tgid, py->gen, py->pystack, c->arg);
	else if (size == sizeof(*ev) && c->on_image)
		c->on_image(ev->tgid, ev->gen, c->arg);
	return 0;
}

/*
 * Exec and exit end an image; new images announce themselves by ring buffer.
 * Either may be left out on kernels without them (probe.c).
 */
static int attach_image_tracking(struct capture *c)
{
	bool tp = bpf_program__autoload(c->skel->progs.on_exec);
	bool rb = bpf_map__autocreate(c->skel->maps.events);

	if (tp) {
		c->exec_link = bpf_program__attach(c->skel->progs.on_exec);
		c->exit_link = bpf_program__attach(c->skel->progs.on_exit);
	}
	if (bpf_program__autoload(c->skel->progs.on_fork) &&
	    !(c->fork_link = bpf_program__attach(c->skel->progs.on_fork))) {
		err("cannot attach fork tracking: %s (%s)", log__errstr(errno), probe__fix(errno));
		return -1;
	}
	if (rb)
		c->events = ring_buffer__new(bpf_map__fd(c->skel->maps.events), on_event, c, NULL);
	if ((tp && (!c->exec_link || !c->exit_link)) || (rb && !c->events)) {
		err("cannot attach process tracking: %s (%s)", log__errstr(errno), probe__fix(errno));
		return -1;
	}
	return 0;
}

bool capture__has_events(struct capture *c)
{
	return c->events;
}

int capture__events_fd(struct capture *c)
{
	return c->events ? ring_buffer__epoll_fd(c->events) : -1;
}

int capture__poll(struct capture *c, int timeout_ms)
{
	int n;

	if (!c->events)
		return 0;
	n = ring_buffer__poll(c->events, timeout_ms);

	return n < 0 && n != -EINTR ? n : 0;
}

bool capture__image_current(struct capture *c, uint32_t tgid, uint32_t gen)
{
	struct image_state cur;

	return !bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.procs), &tgid, &cur) &&
	       cur.gen == gen;
}

struct capture *capture__load(const struct capture_opts *o)
{
	struct capture *c = calloc(1, sizeof(*c));

	if (!c) {
		err("out of memory");
		return NULL;
	}
	c->on_image = o->on_image;
	c->on_pystack = o->on_pystack;
	c->arg = o->arg;
	c->stack_chunks = o->stack_chunks;
	c->count_entries = o->count_entries;
	for (int b = 0; b < SMOLDER_BANKS; b++)
		c->counts_fd[b] = c->stacks_fd[b] = -1;
	c->opts = *o;
	if (load(c, o) || attach_image_tracking(c) ||
	    !(c->kctx = kctx__attach(c->skel, &c->kctx_opts)) ||
	    !(c->offcpu = offcpu__new(c->skel, &o->offcpu))) {
		capture__free(c);
		return NULL;
	}
	announce__run(c->skel);
	phase__mark("tracking attached");
	return c;
}

int capture__settle(struct capture *c, double until)
{
	return c->unwind ? unwind_maps__settle(c->unwind, until) : 0;
}

int capture__start(struct capture *c)
{
	/* the off-CPU side last: the tasks it finds waiting count from the
	 * capture's start, not from before the perf events' attach */
	if (attach_events(c, &c->opts) || offcpu__attach(c->offcpu, c->stacks_fd[c->live]))
		return -1;
	phase__mark("sampling on");
	return 0;
}

struct capture *capture__open(const struct capture_opts *o)
{
	struct capture *c = capture__load(o);

	if (c && capture__start(c)) {
		capture__free(c);
		return NULL;
	}
	return c;
}

void capture__stop(struct capture *c)
{
	if (c->offcpu && offcpu__stop(c->offcpu, c->live, bpf_map__fd(c->skel->maps.count_banks),
				      c->counts_fd[c->live]))
		warn("cannot read the waits in progress: %s (their time is left out)", log__errstr(errno));
	unwind_maps__stop(c->unwind);
	for (size_t i = 0; i < c->nr_events; i++) {
		bpf_link__destroy(c->links[i]);
		close(c->perf_fds[i]);
	}
	c->nr_events = 0;
}

struct sample_walk {
	sample_fn fn;
	void *arg;
};

static int walk_sample(const void *key, const void *val, void *arg)
{
	const struct sample_walk *w = arg;

	return w->fn(key, *(const __u64 *)val, w->arg);
}

int capture__for_each_sample(struct capture *c, sample_fn fn, void *arg)
{
	struct sample_walk w = { fn, arg };
	int e = map_walk__each(c->counts_fd[c->read], sizeof(struct sample_key), sizeof(__u64),
			 walk_sample, &w);

	return e ? e : offcpu__for_each_carry(c->offcpu, fn, arg);
}

static int read_stack(int fd, uint64_t id, struct stack_trace *out);

int capture__stack(struct capture *c, uint64_t id, struct stack_trace *out)
{
	return read_stack(c->stacks_fd[c->read], id, out);
}

int capture__live_stack(struct capture *c, uint64_t id, struct stack_trace *out)
{
	return read_stack(c->stacks_fd[c->live], id, out);
}

static int read_stack(int fd, uint64_t id, struct stack_trace *out)
{
	struct stack_chunk_key key = { .id = id };
	struct stack_chunk chunk;
	uint32_t nr = 0;

	out->exact = 0;
	for (key.idx = 0; key.idx < STACK_CHUNKS; key.idx++) {
		if (key.idx * STACK_CHUNK_FRAMES >= nr && key.idx)
			break;
		if (bpf_map_lookup_elem(fd, &key, &chunk))
			return key.idx ? -EIO : -errno; /* a chunk went missing */
		if (!key.idx) {
			nr = chunk.nr < STACK_CHUNKS * STACK_CHUNK_FRAMES
				     ? chunk.nr : STACK_CHUNKS * STACK_CHUNK_FRAMES;
			out->exact = chunk.exact;
		}
		memcpy(&out->ip[key.idx * STACK_CHUNK_FRAMES], chunk.ip, sizeof(chunk.ip));
	}
	out->nr = nr;
	return 0;
}

/*
 * Adds bank b's counters, summed over CPUs, to out[CNT__MAX].  With zero
 * set (the bank is still) it also zeroes each one, adding only those it
 * zeroed: a failed release can be retried without counting twice.
 */
static int bank_counters(struct capture *c, unsigned int b, uint64_t *out, bool zero)
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(c->skel->maps.counters);
	uint64_t *vals, sum;
	int e = 0;

	if (ncpu <= 0 || !(vals = calloc(ncpu, sizeof(*vals))))
		return -ENOMEM;
	for (uint32_t i = 0; i < CNT__MAX && !e; i++) {
		uint32_t idx = b * CNT__MAX + i;

		if (bpf_map_lookup_elem(fd, &idx, vals))
			continue;
		sum = 0;
		for (int cpu = 0; cpu < ncpu; cpu++)
			sum += vals[cpu];
		if (zero) {
			memset(vals, 0, ncpu * sizeof(*vals));
			if (bpf_map_update_elem(fd, &idx, vals, BPF_EXIST)) {
				e = -errno;
				break;
			}
		}
		out[i] += sum;
	}
	free(vals);
	return e;
}

uint64_t capture__kernel_filtered(struct capture *c)
{
	return __atomic_load_n(&c->skel->bss->kernel_filtered, __ATOMIC_RELAXED);
}

void capture__counters(struct capture *c, uint64_t *out)
{
	memset(out, 0, CNT__MAX * sizeof(*out));
	bank_counters(c, c->read, out, false);
	offcpu__counters(c->offcpu, out, false);
}

void capture__counters_total(struct capture *c, uint64_t *out)
{
	memcpy(out, c->released, CNT__MAX * sizeof(*out));
	for (unsigned int b = 0; b < SMOLDER_BANKS; b++)
		bank_counters(c, b, out, false);
	offcpu__counters(c->offcpu, out, true);
}

int capture__work_desc(struct capture *c, uint64_t id, struct work_desc *out)
{
	return kctx__work_desc(c->kctx, id, out);
}

int capture__waker_desc(struct capture *c, uint64_t id, struct waker_desc *out)
{
	return offcpu__waker_desc(c->offcpu, id, out);
}

int capture__rotate(struct capture *c)
{
	unsigned int old = c->live, next = (c->live + 1) % SMOLDER_BANKS;
	struct offcpu_boundary ob = { .old = old, .next = next };
	int e;

	if (c->drained)
		return -EBUSY;
	if (c->counts_fd[next] < 0 && (e = create_banks(c, next, 1)))
		return e;
	ob.at = offcpu__epoch(c->offcpu, next); /* before any run counts into next */
	__atomic_store_n(&c->skel->bss->live_bank, next, __ATOMIC_SEQ_CST);
	/*
	 * Putting the old bank's map back in its own slot changes nothing for
	 * the sampler, but the update waits for a grace period: afterwards no
	 * run that read the old live_bank is still going.
	 */
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.count_banks), &old,
				&c->counts_fd[old], BPF_ANY)) {
		e = -errno;
		/* Not waited for: keep sampling into both; samples already in
		 * next stay there for the interval after, none are lost. */
		__atomic_store_n(&c->skel->bss->live_bank, old, __ATOMIC_SEQ_CST);
		return e;
	}
	c->live = next;
	c->read = old;
	c->drained = true;
	ob.old_stacks = c->stacks_fd[old], ob.new_stacks = c->stacks_fd[next];
	ob.grace_outer = bpf_map__fd(c->skel->maps.count_banks);
	ob.grace_inner = c->counts_fd[old], ob.grace_idx = old;
	return offcpu__boundary(c->offcpu, &ob);
}

int capture__release(struct capture *c)
{
	unsigned int b = c->read;
	int e;

	if (!c->drained)
		return 0;
	/* the drained bank: nobody writes to it */
	if ((e = map_walk__clear(c->counts_fd[b], sizeof(struct sample_key), sizeof(__u64))) ||
	    (e = map_walk__clear(c->stacks_fd[b], sizeof(struct stack_chunk_key),
			   sizeof(struct stack_chunk))) ||
	    (e = bank_counters(c, b, c->released, true)) ||
	    (e = kctx__end_interval(c->kctx)) || (e = offcpu__release(c->offcpu)))
		return e;
	c->drained = false;
	c->read = c->live;
	return 0;
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

void capture__prog_stats(struct capture *c, bool offcpu, uint64_t *run_ns, uint64_t *runs)
{
	int fd = offcpu ? offcpu__prog_fd(c->offcpu) : bpf_program__fd(c->sampler);

	*run_ns = fd >= 0 ? fdinfo_field(fd, "run_time_ns") : 0;
	*runs = fd >= 0 ? fdinfo_field(fd, "run_cnt") : 0;
}

size_t capture__prog_ids(struct capture *c, uint32_t *ids, size_t max)
{
	struct bpf_prog_info info;
	struct bpf_program *p;
	__u32 len;
	size_t n = 0;

	bpf_object__for_each_program(p, c->skel->obj) {
		len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (n < max && bpf_program__fd(p) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			ids[n++] = info.id;
	}
	return n;
}

uint64_t capture__map_bytes(struct capture *c)
{
	struct bpf_map *m;
	uint64_t sum = 0;

	bpf_object__for_each_map(m, c->skel->obj)
		if (bpf_map__fd(m) >= 0)
			sum += fdinfo_field(bpf_map__fd(m), "memlock");
	for (int b = 0; b < SMOLDER_BANKS; b++) {
		if (c->counts_fd[b] >= 0)
			sum += fdinfo_field(c->counts_fd[b], "memlock");
		if (c->stacks_fd[b] >= 0)
			sum += fdinfo_field(c->stacks_fd[b], "memlock");
	}
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
	bpf_link__destroy(c->fork_link);
	kctx__free(c->kctx);
	offcpu__free(c->offcpu);
	unwind_maps__free(c->unwind);
	ring_buffer__free(c->events);
	smolder_bpf__destroy(c->skel);
	for (int b = 0; b < SMOLDER_BANKS; b++) {
		if (c->counts_fd[b] >= 0)
			close(c->counts_fd[b]);
		if (c->stacks_fd[b] >= 0)
			close(c->stacks_fd[b]);
	}
	free(c->links);
	free(c->perf_fds);
	free(c);
}
