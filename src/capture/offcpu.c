// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Off-CPU time, the loader's side (see offcpu.h and bpf/offcpu.bpf.h).
 *
 * Boundaries (continuous mode).  Before a bank goes live, its epoch (the
 * boundary's time) is set; runs in that bank count only the part of a wait
 * after it.  After the flip and a grace period, every wait still pending
 * began before the boundary: its part up to the boundary is carried into
 * the interval that ends (from the later of its start and that interval's
 * epoch), its stacks are copied to the live bank, which will count the
 * rest, and (thread, start) is remembered.  A wait that ended after the
 * flip but before this pass saw it left its part in "offcpu_late"; after a
 * second grace period those entries are read, and those not remembered
 * are carried too.  So each part of a wait is counted once, in its
 * interval; late entries written after the pass are always remembered
 * ones, and are deleted at the next boundary.
 *
 * A maximum block time applies to what a wait lasted so far: a wait longer
 * than the maximum that spans a boundary keeps the parts counted while it
 * was shorter.  The minimum applies only to waits that end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "capture/map_walk.h"
#include "capture/offcpu.h"
#include "capture/probe.h"
#include "unwind/task_walk.h"
#include "smolder.skel.h"

#define WAKER_ENTRIES 16384
/* The most the user stacks of the tasks found waiting may delay the start
 * (a process's thousands of sleeping threads): the rest keep kernel frames. */
#define WAITING_WALK_SECONDS 0.1

struct carried {
	struct sample_key key;
	uint64_t ns;
};

struct seen_wait {
	uint32_t tid;
	uint64_t start;
};

struct named_waker {
	uint64_t id;
	struct waker_desc desc;
};

struct offcpu {
	struct smolder_bpf *skel;
	struct offcpu_opts o;
	struct bpf_link *links[2];
	struct carried *carry; /* of the interval being read */
	size_t nr_carry, cap_carry;
	struct seen_wait *seen; /* waits the last boundary's pass counted, sorted */
	size_t nr_seen, cap_seen;
	struct named_waker *snap; /* sorted by id */
	size_t nr_snap, cap_snap;
	uint64_t lost[2]; /* stacks that found no room in the live bank: interval, total */
	uint64_t carried_waits; /* waits still going at the end, counted there */
	bool waiting;           /* the offcpu_waiting iterator is loaded */
	struct offcpu_waiting *found; /* the tasks it found waiting */
	size_t nr_found, cap_found;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns()'s clock */
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Whether the kernel has the task iterator (5.8) and bpf_get_task_stack
 * (5.9) the offcpu_waiting program needs: both are in its BTF. */
static bool have_task_iter(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool ok = false;
	int id;

	if (!btf)
		return false;
	if (btf__find_by_name_kind(btf, "bpf_iter__task", BTF_KIND_STRUCT) > 0 &&
	    (id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM)) > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *v = btf_enum(t);

		for (int i = 0; i < btf_vlen(t) && !ok; i++)
			ok = !strcmp(btf__name_by_offset(btf, v[i].name_off), "BPF_FUNC_get_task_stack");
	}
	btf__free(btf);
	return ok;
}

/* Whether tasks already waiting at the start can be found (see
 * bpf/offcpu.bpf.h's offcpu_waiting); says why not, once. */
static bool waiting_found(const struct offcpu_opts *o, bool btf)
{
	const char *lost = "a task waiting when the capture begins is seen only once it runs again";

	if (!o->enabled)
		return false;
	if (o->cgroup_filtered) {
		info("with --cgroup or --cgroupmap, %s", lost);
		return false;
	}
	/* its start is unknown: no maximum can judge it */
	if (o->max_ns) {
		info("with --off-cpu-max-us, %s", lost);
		return false;
	}
	if (o->rotate) { /* not split at boundaries yet */
		info("in continuous mode, %s", lost);
		return false;
	}
	if (!btf) { /* said already: no BTF tracing programs */
		info("without BTF tracing programs %s too", lost);
		return false;
	}
	if (!have_task_iter()) {
		info("this kernel has no BPF task iterator with bpf_get_task_stack (Linux 5.9): %s",
		     lost);
		return false;
	}
	return true;
}

int offcpu__configure(struct smolder_bpf *skel, const struct offcpu_opts *o)
{
	bool btf = probe__tp_btf();
	uint32_t n = o->enabled ? o->pending_entries : 1;
	int e;

	if (o->enabled && !btf)
		info("this kernel has no BTF tracepoints: --off-cpu uses raw tracepoints");
	bpf_program__set_autoload(skel->progs.offcpu_waiting, waiting_found(o, btf));
	bpf_program__set_autoload(skel->progs.on_switch, o->enabled && btf);
	bpf_program__set_autoload(skel->progs.on_switch_raw, o->enabled && !btf);
	bpf_program__set_autoload(skel->progs.on_waking, o->wakers && btf);
	bpf_program__set_autoload(skel->progs.on_waking_raw, o->wakers && !btf);
	skel->rodata->offcpu_min_ns = o->min_ns;
	skel->rodata->offcpu_max_ns = o->max_ns;
	skel->rodata->offcpu_sample = o->sample ? o->sample : 1;
	if ((e = bpf_map__set_max_entries(skel->maps.offcpu_pending, n)) ||
	    (e = bpf_map__set_max_entries(skel->maps.offcpu_late, o->rotate ? n : 1)) ||
	    (e = bpf_map__set_max_entries(skel->maps.offcpu_wakers_map,
					  o->wakers ? WAKER_ENTRIES : 1)))
		return e;
	return 0;
}

/*
 * Runs the offcpu_waiting iterator once; with record, its output (one
 * struct offcpu_waiting per task found waiting) into o->found.
 */
static int run_waiting(struct offcpu *o, bool record)
{
	struct bpf_link *link;
	struct offcpu_waiting w;
	ssize_t n;
	int fd, e = 0;

	o->skel->bss->offcpu_waiting_record = record;
	link = bpf_program__attach_iter(o->skel->progs.offcpu_waiting, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		e = -errno;
	while (fd >= 0 && (n = read(fd, &w, sizeof(w))) > 0) {
		if (n != sizeof(w))
			break; /* never: each run writes one record, each read takes one */
		if (GROW(o->found, o->cap_found, o->nr_found + 1, 64)) {
			e = -ENOMEM;
			break;
		}
		o->found[o->nr_found++] = w;
	}
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	return e;
}

struct offcpu *offcpu__new(struct smolder_bpf *skel, const struct offcpu_opts *o)
{
	struct offcpu *oc = calloc(1, sizeof(*oc));
	int e;

	if (!oc) {
		err("out of memory");
		return NULL;
	}
	oc->skel = skel;
	oc->o = *o;
	oc->waiting = bpf_program__autoload(skel->progs.offcpu_waiting);
	if (oc->waiting && (e = run_waiting(oc, false))) {
		info("cannot look for tasks already waiting: %s (they are seen once they run again)",
		     log__errstr(-e));
		oc->waiting = false;
	}
	return oc;
}

/* Stores trace in the stack map fd under its id, as store_trace does; 0 if
 * it found no room. */
static uint64_t store_stack(struct offcpu *o, int fd, const struct stack_trace *st)
{
	uint64_t id = smolder_hash_stack(st);
	struct stack_chunk_key k = { .id = id };
	struct stack_chunk c;
	int last = (st->nr - 1) / STACK_CHUNK_FRAMES;

	for (int i = last; i >= 0; i--) { /* chunk 0 last: it marks a whole stack */
		c = (struct stack_chunk){ .nr = st->nr, .exact = st->exact };
		memcpy(c.ip, &st->ip[i * STACK_CHUNK_FRAMES], sizeof(c.ip));
		k.idx = i;
		if (bpf_map_update_elem(fd, &k, &c, BPF_NOEXIST) && errno != EEXIST) {
			o->lost[0]++;
			o->lost[1]++;
			return 0;
		}
	}
	return id;
}

/*
 * The user stack of a task found waiting, walked here (the kernel cannot),
 * into its pending record while that is still the one the iterator wrote
 * (same start): a task that ran since has a record of its own.
 */
static void walk_waiting(struct offcpu *o, const struct task_walk_maps *m, int stacks,
			 const struct offcpu_waiting *w)
{
	struct task_walk_regs r = { .tgid = w->tgid, .gen = w->gen, .ip = w->ip, .sp = w->sp,
				    .bp = w->bp, .lr = w->lr };
	int pending = bpf_map__fd(o->skel->maps.offcpu_pending);
	struct offcpu_start rec;
	struct stack_trace st;
	uint32_t reasons;

	if (!w->ip || !w->tgid)
		return;
	reasons = task_walk__stack(m, &r, &st);
	debug("off-CPU: thread %u of %u waiting since before the capture: %u user frames%s",
	      w->tid, w->tgid, st.nr, reasons & TASK_WALK_COMPLETE ? ", whole" : "");
	if (!st.nr || bpf_map_lookup_elem(pending, &w->tid, &rec) || rec.start != w->start)
		return;
	rec.key.ustack = store_stack(o, stacks, &st);
	if (!rec.key.ustack)
		rec.key.flags |= SAMPLE_USTACK_LOST;
	/* BPF_EXIST: a task that woke meanwhile keeps what the kernel counted */
	bpf_map_update_elem(pending, &w->tid, &rec, BPF_EXIST);
}

/*
 * The waits found count from here, where the capture starts, not from the
 * iterator's run before the walks (a slow machine's walks would add their
 * time to every hang); those that ended meanwhile were counted already.
 */
static void restart_found(struct offcpu *o)
{
	int pending = bpf_map__fd(o->skel->maps.offcpu_pending);
	uint64_t now = now_ns();
	struct offcpu_start rec;

	for (size_t i = 0; i < o->nr_found; i++) {
		const struct offcpu_waiting *w = &o->found[i];

		if (bpf_map_lookup_elem(pending, &w->tid, &rec) || rec.start != w->start)
			continue;
		rec.start = now;
		bpf_map_update_elem(pending, &w->tid, &rec, BPF_EXIST);
	}
}

int offcpu__attach(struct offcpu *o, int live_stacks)
{
	struct smolder_bpf *skel = o->skel;
	struct bpf_program *progs[] = { skel->progs.on_switch, skel->progs.on_switch_raw,
					skel->progs.on_waking, skel->progs.on_waking_raw };
	struct task_walk_maps m = {
		.shards_fd = bpf_map__fd(skel->maps.unwind_shards),
		.files_fd = bpf_map__fd(skel->maps.unwind_files),
		.mappings_fd = bpf_map__fd(skel->maps.unwind_mappings),
		.shard_bits = skel->rodata->unwind_shard_bits,
		.max_shards = bpf_map__max_entries(skel->maps.unwind_shards),
		/* the walk's frame pointers are strict only where tables
		 * are expected (--unwind dwarf), as in the kernel */
		.image_events = skel->rodata->image_events && skel->rodata->dwarf_unwind,
	};
	double t0 = clock__now(), t1;
	size_t n = 0, i;
	int e;

	/* the waking program first: no wait may end unnamed for want of it */
	for (int i = 3; i >= 0; i--) {
		if (!bpf_program__autoload(progs[i]))
			continue;
		o->links[n] = bpf_program__attach(progs[i]);
		if (!o->links[n]) {
			err("cannot attach %s: %s (%s)", bpf_program__name(progs[i]),
			    log__errstr(errno), probe__fix(errno));
			return -1;
		}
		n++;
	}
	if (!o->waiting)
		return 0;
	/* after the switch program: a task that leaves the CPU from now on
	 * has its own record, which the iterator's never replaces */
	if ((e = run_waiting(o, true))) {
		info("cannot look for tasks already waiting: %s (they are seen once they run again)",
		     log__errstr(-e));
		return 0;
	}
	t1 = clock__now();
	for (i = 0; i < o->nr_found && clock__now() - t1 < WAITING_WALK_SECONDS; i++)
		walk_waiting(o, &m, live_stacks, &o->found[i]);
	task_walk__end();
	restart_found(o);
	info("off-CPU: %zu threads in scope were waiting when the capture began (found in %.1f "
	     "ms, walked in %.1f ms)", o->nr_found, (t1 - t0) * 1000, (clock__now() - t1) * 1000);
	if (i < o->nr_found)
		info("off-CPU: the user stacks of %zu of them were not walked (%.2f s spent): "
		     "their waits have kernel frames only", o->nr_found - i, WAITING_WALK_SECONDS);
	return 0;
}

static void detach(struct offcpu *o)
{
	for (int i = 0; o && i < 2; i++) {
		bpf_link__destroy(o->links[i]);
		o->links[i] = NULL;
	}
}

static int carry(struct offcpu *o, const struct sample_key *key, uint64_t ns)
{
	if (!ns)
		return 0;
	if (GROW(o->carry, o->cap_carry, o->nr_carry + 1, 256))
		return -ENOMEM;
	o->carry[o->nr_carry].key = *key;
	o->carry[o->nr_carry++].ns = ns;
	return 0;
}

/* Copies stack id from one bank's stack map to another's, chunk 0 last. */
static void copy_stack(struct offcpu *o, int from, int to, uint64_t id)
{
	struct stack_chunk_key k = { .id = id };
	struct stack_chunk chunks[STACK_CHUNKS];
	int n;

	if (!id || !bpf_map_lookup_elem(to, &k, &chunks[0]) ||
	    bpf_map_lookup_elem(from, &k, &chunks[0]))
		return; /* there already, or never stored */
	n = chunks[0].nr ? (chunks[0].nr - 1) / STACK_CHUNK_FRAMES + 1 : 1;
	for (k.idx = 1; k.idx < (uint32_t)n && k.idx < STACK_CHUNKS; k.idx++)
		if (bpf_map_lookup_elem(from, &k, &chunks[k.idx]))
			return;
	for (int i = (n < STACK_CHUNKS ? n : STACK_CHUNKS) - 1; i >= 0; i--) {
		k.idx = i;
		if (bpf_map_update_elem(to, &k, &chunks[i], BPF_NOEXIST) && errno != EEXIST) {
			o->lost[0]++;
			o->lost[1]++;
			return;
		}
	}
}

/* The stacks a key names (its own and its waker's) into the live bank. */
static void copy_key_stacks(struct offcpu *o, const struct offcpu_boundary *b,
			    const struct sample_key *key)
{
	struct waker_desc d;

	copy_stack(o, b->old_stacks, b->new_stacks, key->kstack);
	copy_stack(o, b->old_stacks, b->new_stacks, key->ustack);
	copy_stack(o, b->old_stacks, b->new_stacks, key->pystack);
	if (key->work && !offcpu__waker_desc(o, key->work, &d))
		copy_stack(o, b->old_stacks, b->new_stacks, d.kstack);
}

struct pass {
	struct offcpu *o;
	const struct offcpu_boundary *b; /* NULL at the end of a one-shot capture */
	uint64_t at, epoch;              /* the boundary, the ending interval's start */
};

/* A wait pending at the boundary: its part up to there. */
static int pending_part(const void *k, const void *v, void *arg)
{
	const struct offcpu_start *rec = v;
	const struct pass *p = arg;
	struct offcpu *o = p->o;
	uint64_t from = rec->start > p->epoch ? rec->start : p->epoch;

	/* even one that began after the boundary: its run may have found the
	 * old bank still live, and stored its stacks there */
	if (p->b)
		copy_key_stacks(o, p->b, &rec->key);
	if (rec->start >= p->at)
		return 0; /* all in the next interval */
	if (p->b) {
		if (GROW(o->seen, o->cap_seen, o->nr_seen + 1, 256))
			return -ENOMEM;
		o->seen[o->nr_seen++] = (struct seen_wait){ *(const uint32_t *)k, rec->start };
	}
	if (o->o.max_ns && p->at - rec->start > o->o.max_ns)
		return 0;
	/* at the capture's end the part seen is all there will be; at a
	 * boundary the wait may still reach the minimum */
	if (!p->b && p->at - rec->start < o->o.min_ns)
		return 0;
	if (!p->b && from < p->at)
		o->carried_waits++; /* counted here, as the kernel counts those that end */
	return carry(o, &rec->key, from < p->at ? (p->at - from) * o->o.sample : 0);
}

static int by_wait(const void *a, const void *b)
{
	const struct seen_wait *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* A late part written in the live bank: counted unless the pass did. */
static int late_part(const void *k, const void *v, void *arg)
{
	const struct offcpu_late_key *lk = k;
	const struct offcpu_late *late = v;
	const struct pass *p = arg;
	const struct offcpu_boundary *b = p->b;
	struct offcpu *o = p->o;
	struct seen_wait w = { lk->tid, late->start };

	if (lk->bank != b->next)
		return 0;
	copy_key_stacks(o, b, &late->key); /* the live bank counts the rest */
	if (o->nr_seen && bsearch(&w, o->seen, o->nr_seen, sizeof(w), by_wait))
		return 0;
	return carry(o, &late->key, late->ns);
}

static int stale_late(const void *k, const void *v __attribute__((unused)), void *arg)
{
	const struct offcpu_late_key *lk = k;
	const struct pass *p = arg;

	if (lk->bank == p->b->old)
		bpf_map_delete_elem(bpf_map__fd(p->o->skel->maps.offcpu_late), lk);
	return 0;
}

static int grace(int outer, int inner, uint32_t idx)
{
	return bpf_map_update_elem(outer, &idx, &inner, BPF_ANY) ? -errno : 0;
}

uint64_t offcpu__epoch(struct offcpu *o, unsigned int next)
{
	uint64_t t = now_ns();

	if (o->o.enabled)
		__atomic_store_n(&o->skel->bss->offcpu_epoch[next], t, __ATOMIC_SEQ_CST);
	return t;
}

int offcpu__boundary(struct offcpu *o, const struct offcpu_boundary *b)
{
	struct pass p = { .o = o, .b = b, .at = b->at, .epoch = o->skel->bss->offcpu_epoch[b->old] };
	int late = bpf_map__fd(o->skel->maps.offcpu_late), e;

	if (!o->o.enabled)
		return 0;
	o->nr_seen = 0;
	if ((e = map_walk__each(late, sizeof(struct offcpu_late_key), sizeof(struct offcpu_late),
			  stale_late, &p)) ||
	    (e = map_walk__each(bpf_map__fd(o->skel->maps.offcpu_pending), sizeof(__u32),
			  sizeof(struct offcpu_start), pending_part, &p)))
		return e;
	qsort(o->seen, o->nr_seen, sizeof(*o->seen), by_wait);
	/* runs that ended a wait before the pass saw it have written it down */
	if ((e = grace(b->grace_outer, b->grace_inner, b->grace_idx)))
		return e;
	return map_walk__each(late, sizeof(struct offcpu_late_key), sizeof(struct offcpu_late), late_part,
			&p);
}

int offcpu__stop(struct offcpu *o, unsigned int bank, int grace_outer, int grace_inner)
{
	struct pass p = { .o = o, .at = now_ns() };
	int e;

	if (!o || !o->links[0])
		return 0;
	detach(o);
	if (o->o.rotate)
		return 0;
	p.epoch = o->skel->bss->offcpu_epoch[bank];
	/* runs still going when the programs were detached end first */
	if ((e = grace(grace_outer, grace_inner, bank)))
		return e;
	return map_walk__each(bpf_map__fd(o->skel->maps.offcpu_pending), sizeof(__u32),
			sizeof(struct offcpu_start), pending_part, &p);
}

int offcpu__for_each_carry(struct offcpu *o, offcpu_key_fn fn, void *arg)
{
	int e;

	for (size_t i = 0; o && i < o->nr_carry; i++)
		if ((e = fn(&o->carry[i].key, o->carry[i].ns, arg)))
			return e;
	return 0;
}

int offcpu__prog_fd(const struct offcpu *o)
{
	if (!o || !o->o.enabled)
		return -1;
	return bpf_program__fd(bpf_program__autoload(o->skel->progs.on_switch) ? o->skel->progs.on_switch
									: o->skel->progs.on_switch_raw);
}

void offcpu__counters(const struct offcpu *o, uint64_t *c, bool total)
{
	if (!o)
		return;
	c[CNT_OFFCPU_STACK_FULL] += o->lost[total];
	c[CNT_OFFCPU_WAITS] += o->carried_waits;
}

static int by_id(const void *a, const void *b)
{
	const struct named_waker *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int offcpu__waker_desc(struct offcpu *o, uint64_t id, struct waker_desc *out)
{
	struct named_waker key = { .id = id }, *hit;

	if (!o || !o->o.wakers)
		return -ENOENT;
	if (!bpf_map_lookup_elem(bpf_map__fd(o->skel->maps.offcpu_wakers_map), &id, out))
		return 0;
	hit = o->nr_snap ? bsearch(&key, o->snap, o->nr_snap, sizeof(key), by_id) : NULL;
	if (!hit)
		return -ENOENT;
	*out = hit->desc;
	return 0;
}

static int snap_waker(const void *k, const void *v, void *arg)
{
	struct offcpu *o = arg;

	if (GROW(o->snap, o->cap_snap, o->nr_snap + 1, 256))
		return -ENOMEM;
	o->snap[o->nr_snap].id = *(const uint64_t *)k;
	o->snap[o->nr_snap++].desc = *(const struct waker_desc *)v;
	bpf_map_delete_elem(bpf_map__fd(o->skel->maps.offcpu_wakers_map), k);
	return 0;
}

/*
 * Waker names move out of the kernel map into a snapshot: a wakeup names
 * its wait's key at once and the wait ends soon after, so the map and the
 * last snapshot name every key of the next interval, and neither grows
 * with uptime.
 */
int offcpu__release(struct offcpu *o)
{
	int e;

	if (!o || !o->o.enabled)
		return 0;
	o->nr_carry = 0;
	o->lost[0] = 0;
	if (!o->o.wakers)
		return 0;
	free(o->snap);
	o->snap = NULL;
	o->nr_snap = o->cap_snap = 0;
	e = map_walk__each(bpf_map__fd(o->skel->maps.offcpu_wakers_map), sizeof(__u64),
		     sizeof(struct waker_desc), snap_waker, o);
	qsort(o->snap, o->nr_snap, sizeof(*o->snap), by_id);
	return e;
}

void offcpu__free(struct offcpu *o)
{
	if (!o)
		return;
	detach(o);
	free(o->carry);
	free(o->found);
	free(o->seen);
	free(o->snap);
	free(o);
}
