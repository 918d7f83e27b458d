// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel context tracking (see kctx.h).  The tracepoint programs load only
 * when an option needs them, and only when the kernel's BTF has their
 * tracepoints; unused maps are shrunk to one entry so that a plain capture
 * pays no kernel memory for them.
 *
 * Work item names: a sample finds its item's description in the
 * "work_names" map or puts it there.  In continuous mode each interval's
 * end moves the map's entries into a snapshot here; a description that a
 * sample of the next interval found before the move is in that snapshot,
 * one it did not find it put back.  So the map, then the last snapshot,
 * name every sample of the interval being read, and neither grows with
 * uptime.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lib/grow.h"
#include "capture/kctx.h"
#include "lib/log.h"
#include "capture/map_walk.h"
#include "capture/probe.h"
#include "smolder.skel.h"

#define NR_IRQ_PROGS 4 /* first in tracepoint_progs(), then the workqueue's */
#define NR_PROGS 7

struct named_work {
	uint64_t id;
	struct work_desc desc;
};

struct kctx {
	bool kworker_frames;
	struct bpf_link *links[NR_PROGS];
	size_t nr_links;
	int names_fd;
	struct named_work *snap; /* sorted by id */
	size_t nr_snap;
};

/* The tracepoints one option needs, as BTF names them. */
static const char *const irq_tracepoints[] = {
	"softirq_entry", "softirq_exit", "irq_handler_entry", "irq_handler_exit", NULL,
};
static const char *const wq_tracepoints[] = {
	"workqueue_queue_work", "workqueue_execute_start", "workqueue_execute_end", NULL,
};

/*
 * Sets *missing to the first of these tracepoints that this kernel lacks, or
 * NULL; 0 or -errno.  A tp_btf program attaches by the "btf_trace_NAME"
 * typedef, which the kernel's BTF has exactly for the tracepoints BPF can
 * attach to by name (one kernel macro makes both), so the kernel answers:
 * prog, a no-op raw tracepoint program, is attached for a moment.  That spares a
 * second parse of vmlinux BTF (5.5 MB, read and copied, on a 6.18 kernel):
 * libbpf 1.1 parses its own while loading, frees it before we could look,
 * and takes none from us.  When the kernel cannot answer, the BTF does.
 */
static int missing_tracepoint(const char *const *names, int prog, struct btf **vmlinux,
			      const char **missing)
{
	char type[128];
	int link, e = 0;

	*missing = NULL;
	for (; *names && !*missing && !e; names++) {
		link = prog >= 0 ? bpf_raw_tracepoint_open(*names, prog) : -1;
		if (link >= 0) {
			close(link);
		} else if (prog >= 0 && errno == ENOENT) {
			*missing = *names;
		} else if (!*vmlinux && !(*vmlinux = btf__load_vmlinux_btf())) {
			e = -errno;
		} else {
			snprintf(type, sizeof(type), "btf_trace_%s", *names);
			if (btf__find_by_name_kind(*vmlinux, type, BTF_KIND_TYPEDEF) < 0)
				*missing = *names;
		}
	}
	return e;
}

/* The no-op program missing_tracepoint attaches, or -1 (then BTF answers). */
static int noop_raw_tp(void)
{
	struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", ret0, 2, NULL);
}

/*
 * The tracepoint programs, irq and softirq ones first (see NR_IRQ_PROGS),
 * in the order they attach: each exit before its entry.  An entry attached
 * first could see a softirq (or work item) begin whose end nobody sees, and
 * every sample of the task that CPU runs next would carry its frame.
 */
static void tracepoint_progs(struct smolder_bpf *skel, struct bpf_program *progs[NR_PROGS])
{
	struct bpf_program *all[NR_PROGS] = {
		skel->progs.on_softirq_exit, skel->progs.on_softirq_entry,
		skel->progs.on_irq_exit, skel->progs.on_irq_entry,
		skel->progs.on_queue_work, skel->progs.on_execute_end,
		skel->progs.on_execute_start,
	};

	memcpy(progs, all, sizeof(all));
}

int kctx__configure(struct smolder_bpf *skel, struct kctx_opts *o)
{
	struct bpf_program *progs[NR_PROGS];
	struct btf *vmlinux = NULL;
	const char *missing;
	int e = 0, prog = -1;

	if ((o->irq_frames || o->kworker_frames) && !probe__tp_btf()) {
		/* tp_btf programs attach by the running kernel's own BTF ids */
		warn("note: this kernel has no BTF tracepoints: --irq-frames and --kworker are off");
		o->irq_frames = o->kworker_frames = false;
	}
	if (o->irq_frames || o->kworker_frames)
		prog = noop_raw_tp();
	if (o->irq_frames && !(e = missing_tracepoint(irq_tracepoints, prog, &vmlinux, &missing)) &&
	    missing) {
		warn("note: this kernel has no %s tracepoint: --irq-frames is off", missing);
		o->irq_frames = false;
	}
	if (!e && o->kworker_frames && !(e = missing_tracepoint(wq_tracepoints, prog, &vmlinux, &missing)) &&
	    missing) {
		warn("note: this kernel has no %s tracepoint: --kworker is off", missing);
		o->kworker_frames = false;
	}
	btf__free(vmlinux);
	if (prog >= 0)
		close(prog);
	if (e)
		return e;
	skel->rodata->irq_frames = o->irq_frames;
	skel->rodata->kworker_frames = o->kworker_frames;
	tracepoint_progs(skel, progs);
	for (int i = 0; i < NR_PROGS; i++) /* the queuer's context needs the irq state too */
		bpf_program__set_autoload(progs[i], i < NR_IRQ_PROGS ? o->irq_frames || o->kworker_frames
								     : o->kworker_frames);
	if (!o->kworker_frames &&
	    ((e = bpf_map__set_max_entries(skel->maps.queued_work, 1)) ||
	     (e = bpf_map__set_max_entries(skel->maps.running_work, 1)) ||
	     (e = bpf_map__set_max_entries(skel->maps.work_names, 1))))
		return e;
	return 0;
}

struct kctx *kctx__attach(struct smolder_bpf *skel, const struct kctx_opts *o)
{
	struct bpf_program *progs[NR_PROGS];
	struct kctx *k = calloc(1, sizeof(*k));

	if (!k) {
		err("out of memory");
		return NULL;
	}
	k->kworker_frames = o->kworker_frames;
	k->names_fd = bpf_map__fd(skel->maps.work_names);
	tracepoint_progs(skel, progs);
	for (int i = 0; i < NR_PROGS; i++) {
		if (!bpf_program__autoload(progs[i])) /* left out by kctx__configure */
			continue;
		k->links[k->nr_links] = bpf_program__attach(progs[i]);
		if (!k->links[k->nr_links]) {
			err("cannot attach %s: %s (run with -vv for libbpf's log)",
			    bpf_program__name(progs[i]), log__errstr(errno));
			kctx__free(k);
			return NULL;
		}
		k->nr_links++;
	}
	return k;
}

static int by_id(const void *a, const void *b)
{
	const struct named_work *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int kctx__work_desc(struct kctx *k, uint64_t id, struct work_desc *out)
{
	struct named_work key = { .id = id }, *hit;

	if (!bpf_map_lookup_elem(k->names_fd, &id, out))
		return 0;
	hit = k->nr_snap ? bsearch(&key, k->snap, k->nr_snap, sizeof(key), by_id) : NULL;
	if (!hit)
		return -ENOENT;
	*out = hit->desc;
	return 0;
}

struct names {
	struct named_work *list;
	size_t nr, cap;
};

static int add_name(const void *key, const void *val, void *arg)
{
	struct names *n = arg;

	if (GROW(n->list, n->cap, n->nr + 1, 256))
		return -ENOMEM;
	n->list[n->nr].id = *(const uint64_t *)key;
	n->list[n->nr++].desc = *(const struct work_desc *)val;
	return 0;
}

int kctx__end_interval(struct kctx *k)
{
	struct names n = {};
	int e;

	if (!k->kworker_frames)
		return 0;
	/* Copied, then deleted: a sample that finds its item gone puts it
	 * back.  Samples only add names (BPF_NOEXIST), so what the walk
	 * copied is what each deletion removes. */
	if ((e = map_walk__each(k->names_fd, sizeof(__u64), sizeof(struct work_desc), add_name, &n))) {
		free(n.list);
		return e;
	}
	for (size_t i = 0; i < n.nr; i++)
		bpf_map_delete_elem(k->names_fd, &n.list[i].id);
	qsort(n.list, n.nr, sizeof(*n.list), by_id);
	free(k->snap);
	k->snap = n.list;
	k->nr_snap = n.nr;
	return 0;
}

void kctx__free(struct kctx *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nr_links; i++)
		bpf_link__destroy(k->links[i]);
	free(k->snap);
	free(k);
}
