// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folding (see fold.h): names every frame of a counted sample through the
 * kernel and user symbolizers, interns each name into the profile, and
 * merges equal runs of frame ids in an open-addressing hash table; where
 * each frame was (file and offset, or kernel address) goes beside, to the
 * profile's sites (profile_addr.h), which pprof writes.  Leaf
 * frames are looked up at their address; callers' return addresses at
 * address - 1, so that a call that is the last instruction of a function
 * names that function, not the next.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cpus.h"
#include "fold/ctxframes.h"
#include "fold/fold.h"
#include "fold/fold_int.h"
#include "fold/pyframes.h"
#include "fold/cgroup_labels.h"
#include "fold/unsym.h"
#include "profile/frame_name.h"
#include "lib/hash.h"
#include "symbols/ksyms.h"
#include "symbols/usyms.h"

/* The sample being named gets one more frame (fold_int.h). */
int fold_push_frame(struct fold *f, const char *name, const char *suffix)
{
	size_t n = strnlen(name, NAME_MAX_LEN), m = strnlen(suffix, 8);
	char buf[NAME_MAX_LEN + 8];
	long id;

	if (f->nr_ids == FOLD_MAX_FRAMES)
		return -E2BIG;
	if (m) {
		memcpy(buf, name, n);
		memcpy(buf + n, suffix, m);
		name = buf;
	}
	id = profile__intern(f->p, name, n + m);
	if (id < 0)
		return -ENOMEM;
	f->at[f->nr_ids] = (struct paddr_frame){ 0 };
	f->ids[f->nr_ids++] = (uint32_t)id;
	return 0;
}

/* The last frame pushed was in user file fr (if in one) at its offset. */
static int user_frame_at(struct fold *f, const struct usyms_frame *fr)
{
	struct paddr_file file = { .path = fr->file, .build_id = fr->build_id, .dev = fr->dev,
				   .ino = fr->ino, .start = fr->map_start, .end = fr->map_end,
				   .pgoff = fr->map_pgoff, .off = fr->off, .vaddr = fr->vaddr };
	long map;

	if (!fr->file)
		return 0;
	if ((map = paddrs__mapping(f->p->addrs, &file)) < 0)
		return -ENOMEM;
	f->at[f->nr_ids - 1] = (struct paddr_frame){ .map = (uint32_t)map, .addr = fr->off };
	return 0;
}

struct fold *fold__new(const struct fold_opts *opts, const struct ksyms *ksyms,
		       struct usyms *usyms)
{
	struct fold *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->o = *opts;
	f->ksyms = ksyms;
	f->usyms = usyms;
	f->nslots = 1024;
	f->slots = calloc(f->nslots, sizeof(*f->slots));
	f->p = profile__new();
	f->unsym = unsym_tally__new();
	if (f->p)
		f->p->addrs = paddrs__new();
	if (opts->cgroup_labels)
		f->cgroups = cgroup_labels__new();
	if (!f->slots || !f->p || !f->p->addrs || !f->unsym || profile__with_origins(f->p) ||
	    (opts->cgroup_labels && !f->cgroups)) {
		fold__free(f);
		return NULL;
	}
	return f;
}

static uint64_t hash_ids(const uint32_t *ids, uint32_t n, uint32_t tgid)
{
	return hash__mix64(hash__fnv1a_words(HASH_FNV_OFFSET ^ tgid, ids, n));
}

static uint64_t hash_stack(const struct fold *f, size_t i)
{
	const struct pstack *s = &f->p->stacks[i];

	return hash_ids(profile__ids(f->p, s), s->depth,
			f->o.by_process ? f->p->origins[i].tgid : 0);
}

/* Rebuilds the slot table with n slots (after growth or a sort). */
static int reindex(struct fold *f, size_t n)
{
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < f->p->nr; i++) {
		size_t j = hash_stack(f, i) & (n - 1);

		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = i + 1;
	}
	free(f->slots);
	f->slots = s;
	f->nslots = n;
	return 0;
}

/* The index of the stack the sample's frames (and tgid when by process)
 * name, made with origin o if new; -ENOMEM. */
static long find_or_add(struct fold *f, uint32_t tgid, const struct stack_origin *o)
{
	uint32_t key_tgid = f->o.by_process ? tgid : 0;
	size_t j = hash_ids(f->ids, f->nr_ids, key_tgid) & (f->nslots - 1);
	struct profile *p = f->p;

	for (; f->slots[j]; j = (j + 1) & (f->nslots - 1)) {
		size_t i = f->slots[j] - 1;
		const struct pstack *s = &p->stacks[i];

		if ((!f->o.by_process || p->origins[i].tgid == tgid) && s->depth == f->nr_ids &&
		    !memcmp(profile__ids(p, s), f->ids, f->nr_ids * sizeof(f->ids[0])))
			return (long)i;
	}
	if (p->nr >= UINT32_MAX - 1 || profile__add_ids(p, f->ids, f->nr_ids, 0, o))
		return -ENOMEM;
	f->slots[j] = p->nr;
	if (p->nr * 2 > f->nslots && reindex(f, f->nslots * 2))
		return -ENOMEM;
	return (long)p->nr - 1;
}

/* cpu_N and the process frame; o gets the CPU and thread they name. */
static int add_head(struct fold *f, const struct sample_key *key, uint16_t *n,
		    struct stack_origin *o)
{
	char name[SMOLDER_COMM_LEN + 32], comm[SMOLDER_COMM_LEN + 1], group[SMOLDER_COMM_LEN + 1];
	bool grouped;

	memcpy(comm, key->comm, SMOLDER_COMM_LEN);
	comm[SMOLDER_COMM_LEN] = 0;
	frame_name__sanitize(comm);
	/* grouping merges the threads: their PIDs would split them again */
	grouped = f->o.group_threads && (key->flags & SAMPLE_KTHREAD) &&
		  ctxframes__group_thread(comm, group, sizeof(group));
	*n = 0;
	o->cpu = f->o.per_cpu ? (int32_t)key->cpu : -1;
	o->tid = f->o.proc == PROC_THREAD && !grouped ? key->pid : 0;
	if (f->o.per_cpu) {
		snprintf(name, sizeof(name), "cpu_%u", key->cpu);
		if (fold_push_frame(f, name, ""))
			return -ENOMEM;
		(*n)++;
	}
	if (grouped)
		snprintf(name, sizeof(name), "%s", group);
	else if (f->o.proc == PROC_PID)
		snprintf(name, sizeof(name), "%s-%u", comm, key->tgid);
	else if (f->o.proc == PROC_THREAD)
		snprintf(name, sizeof(name), "%s-%u/%u", comm, key->tgid, key->pid);
	else
		snprintf(name, sizeof(name), "%s", comm);
	(*n)++;
	return fold_push_frame(f, name, "");
}

/* Frame i's address to name (as the type pyframes__merge takes). */
static uint64_t frame_addr(const struct stack_trace *st, int i)
{
	return stack_trace__frame_addr(st, i);
}

/* Native user frame i of st, named; *miss gets why it is "[unknown]". */
static int native_frame(struct fold *f, const struct sample_key *key,
			const struct stack_trace *st, int i, enum usyms_miss *miss)
{
	struct usyms_frame fr = { .miss = USYMS_MISS_FOREIGN };
	char name[NAME_MAX_LEN];

	if (key->flags & SAMPLE_FOREIGN_PID)
		snprintf(name, sizeof(name), "[unknown]");
	else
		usyms__name_frame(f->usyms, key->tgid, key->gen, frame_addr(st, i), name,
				  sizeof(name), &fr);
	if (fr.miss != USYMS_NAMED)
		*miss = fr.miss;
	/* the leaf: where the time went (a stripped libc's start-up frames
	 * sit under every stack of every process, named or not) */
	if (i == 0)
		unsym_tally__frame(f->unsym, &fr);
	frame_name__sanitize(name);
	if (fold_push_frame(f, name, fr.jit && f->o.annotate ? "_[j]" : "") || user_frame_at(f, &fr))
		return -ENOMEM;
	return fr.chain ? fold_inline_frames(f, name, fr.chain, i == 0) : 0;
}

/* Python frame i of pyst, named; *miss gets why it is not. */
static int python_frame(struct fold *f, const struct sample_key *key,
			const struct stack_trace *pyst, int i, enum py_miss *miss)
{
	struct py_frame pf;
	char name[NAME_MAX_LEN];
	int e;

	py_names__frame(f->o.py, key->tgid, key->gen, pyst, i, &pf);
	if (pf.func) {
		pyframes__name(&pf, f->o.python_lines, name, sizeof(name));
	} else {
		snprintf(name, sizeof(name), "[unknown python frame]");
		if (*miss == PY_NAMED)
			*miss = pf.miss;
	}
	frame_name__sanitize(name);
	e = fold_push_frame(f, name, f->o.annotate ? "_[py]" : "");
	if (e || !pf.func) /* an unnamed Python frame has no source */
		return e;
	return paddrs__source(f->p->addrs, &(struct paddr_source){ .func = pf.func,
			      .file = pf.file, .line = pf.line, .start_line = pf.first_line },
			      &f->at[f->nr_ids - 1]);
}

/* The user frames with the Python frames merged in (pyframes.h). */
static int add_merged(struct fold *f, const struct sample_key *key, const struct py_interp *pi,
		      const struct stack_trace *st, const struct stack_trace *pyst, uint16_t *n,
		      enum usyms_miss *miss)
{
	size_t nr = pyframes__merge(pi, st, frame_addr, pyst, f->merged);
	enum py_miss pmiss = PY_NAMED;

	for (size_t k = 0; k < nr; k++) {
		const struct merged_frame *m = &f->merged[k];
		int e = m->python ? python_frame(f, key, pyst, m->index, &pmiss)
				  : native_frame(f, key, st, m->index, miss);

		if (e)
			return e;
		(*n)++;
	}
	f->py_miss = pmiss;
	return 0;
}

/* Which Python frames the sample has, for the counts of fold__py_stats;
 * the interpreter when they are to be merged in. */
static const struct py_interp *python_of(struct fold *f, const struct sample_key *key,
					 const struct stack_trace *pyst)
{
	const struct py_interp *pi;

	f->py_kind = PY_NONE;
	if (!f->o.py || (key->flags & SAMPLE_FOREIGN_PID) ||
	    !(pi = py_names__interp(f->o.py, key->tgid, key->gen)))
		return NULL;
	f->py_kind = !pi->layout ? PY_UNSUPPORTED : pyst ? PY_WITH : PY_WITHOUT;
	return pyst && pi->layout ? pi : NULL;
}

/* The user frames, root first; *miss gets why the leaf-most "[unknown]" is. */
static int add_user(struct fold *f, const struct sample_key *key, const struct stack_trace *st,
		    const struct stack_trace *pyst, uint16_t *n, enum usyms_miss *miss)
{
	const struct py_interp *pi = python_of(f, key, pyst);

	*n = 0;
	*miss = USYMS_NAMED;
	f->py_miss = PY_NAMED;
	if (key->flags & (SAMPLE_USTACK_LOST | SAMPLE_USTACK_ERR)) {
		*n = 1;
		return fold_push_frame(f, key->flags & SAMPLE_USTACK_LOST ?
				"[lost user stack]" : "[missed user stack]", "");
	}
	if (pi)
		return add_merged(f, key, pi, st, pyst, n, miss);
	for (int i = st ? (int)st->nr - 1 : -1; i >= 0; i--) {
		if (native_frame(f, key, st, i, miss))
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

/* The bare symbol of kernel frame i (no module, not sanitized), or NULL. */
static const char *kernel_sym(struct fold *f, const struct stack_trace *st, int i)
{
	const struct ksym *s = f->ksyms ? ksyms__map_addr(f->ksyms, frame_addr(st, i)) : NULL;

	return s ? s->name : NULL;
}

static void kernel_name(struct fold *f, uint64_t addr, char *name, size_t len)
{
	const struct ksym *s = f->ksyms ? ksyms__map_addr(f->ksyms, addr) : NULL;

	if (!s)
		snprintf(name, len, "[unknown]");
	else if (s->module && f->o.module_names)
		snprintf(name, len, "%s [%s]", s->name, s->module);
	else
		snprintf(name, len, "%s", s->name);
	frame_name__sanitize(name);
}

/*
 * The idle path of an idle sample: the leaf-most frame that names one;
 * cpuidle_enter_state only when nothing leaf-ward does.
 */
static enum idle_path idle_path(struct fold *f, const struct sample_key *key,
				const struct stack_trace *st)
{
	enum idle_path found = IDLE_PATH_OTHER, p;
	const char *name;

	if (key->flags & SAMPLE_IDLE_INJECT)
		return IDLE_PATH_INJECT;
	for (uint32_t i = 0; st && i < st->nr; i++) {
		if (!(name = kernel_sym(f, st, i)))
			continue;
		p = ctxframes__idle_path_of(name);
		if (p == IDLE_PATH_CPUIDLE && found == IDLE_PATH_OTHER)
			found = p;
		else if (p != IDLE_PATH__MAX && p != IDLE_PATH_CPUIDLE)
			return p;
	}
	return found;
}

static int count_idle(struct fold *f, uint32_t cpu, enum idle_path p, uint64_t count)
{
	if (!f->idle && !(f->idle = calloc((size_t)MAX_CPUS * IDLE_PATH__MAX, sizeof(*f->idle))))
		return -ENOMEM;
	if (cpu < MAX_CPUS)
		f->idle[cpu * IDLE_PATH__MAX + p] += count;
	return 0;
}

/* True when the kernel stack runs the softirq loop (see ctxframes__irq). */
static bool in_softirq_loop(struct fold *f, const struct stack_trace *st)
{
	const char *name;

	for (uint32_t i = 0; st && i < st->nr; i++)
		if ((name = kernel_sym(f, st, i)) && ctxframes__is_softirq_loop(name))
			return true;
	return false;
}

/* wq:NAME, the work function and queued-by:..., for a kworker's sample. */
static int add_work(struct fold *f, const struct sample_key *key, uint16_t *n)
{
	struct work_desc d;
	char name[NAME_MAX_LEN];
	bool known = f->o.work_desc && !f->o.work_desc(f->o.work_arg, key->work, &d);

	if (!known)
		memset(&d, 0, sizeof(d));
	d.wq[sizeof(d.wq) - 1] = 0;
	snprintf(name, sizeof(name), "wq:%s", known && d.wq[0] ? d.wq : "[unknown]");
	frame_name__sanitize(name);
	if (fold_push_frame(f, name, ""))
		return -ENOMEM;
	if (known)
		kernel_name(f, d.func, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "[unknown]");
	if (fold_push_frame(f, name, f->o.annotate ? "_[k]" : ""))
		return -ENOMEM;
	ctxframes__queuer(&d, f->o.group_threads, name, sizeof(name));
	*n += 3;
	return fold_push_frame(f, name, "");
}

/* The context frames above the process frame (see ctxframes.h). */
static int add_context(struct fold *f, const struct sample_key *key,
		       const struct stack_trace *kst, uint16_t *n, enum idle_path *idle)
{
	char name[64];

	*idle = IDLE_PATH__MAX;
	if (f->o.idle_paths && (key->flags & (SAMPLE_IDLE | SAMPLE_IDLE_INJECT))) {
		*idle = idle_path(f, key, kst);
		snprintf(name, sizeof(name), "[idle:%s]", ctxframes__idle_path_name(*idle));
		if (fold_push_frame(f, name, ""))
			return -ENOMEM;
		(*n)++;
	}
	if (f->o.irq_frames &&
	    ctxframes__irq(key->ctx, key->ctx == CTX_IRQ_STACK && in_softirq_loop(f, kst), name,
			   sizeof(name))) {
		if (fold_push_frame(f, name, ""))
			return -ENOMEM;
		(*n)++;
	}
	if (f->o.kworker_frames && key->work)
		return add_work(f, key, n);
	return 0;
}

/*
 * Leaf frames of a tracepoint program's kernel stack that are the program
 * and its caller (bpf_prog_..., bpf_trace_run4, __bpf_trace_...), not the
 * code that hit the tracepoint.
 */
static int tracing_frames(struct fold *f, const struct stack_trace *st)
{
	static const char *const prefixes[] = { "bpf_prog_", "bpf_trace_run", "__bpf_trace_",
						"__traceiter_", NULL };
	const char *name;
	uint32_t i = 0;

	for (bool more = true; st && i < st->nr && more; i += more) {
		more = false;
		name = kernel_sym(f, st, i);
		for (int p = 0; name && prefixes[p] && !more; p++)
			more = !strncmp(name, prefixes[p], strlen(prefixes[p]));
	}
	return i;
}

static int add_kernel(struct fold *f, const struct sample_key *key,
		      const struct stack_trace *st, uint16_t *n)
{
	const char *suffix = f->o.annotate ? "_[k]" : "";
	int skip = key->flags & SAMPLE_OFFCPU ? tracing_frames(f, st) : 0;
	char name[NAME_MAX_LEN];

	*n = 0;
	if (key->flags & (SAMPLE_KSTACK_LOST | SAMPLE_KSTACK_ERR)) {
		*n = 1;
		return fold_push_frame(f, key->flags & SAMPLE_KSTACK_LOST ?
				"[lost kernel stack]" : "[missed kernel stack]", suffix);
	}
	for (int i = st ? (int)st->nr - 1 : -1; i >= skip; i--) {
		kernel_name(f, frame_addr(st, i), name, sizeof(name));
		if (fold_push_frame(f, name, suffix))
			return -ENOMEM;
		f->at[f->nr_ids - 1] = (struct paddr_frame){ .map = PADDR_KERNEL,
							     .addr = frame_addr(st, i) };
		(*n)++;
	}
	return 0;
}

/*
 * A wakeup from an interrupt (a timer's, a device's) ran on whatever task
 * the interrupt came in on: the waker is then the interrupt, and its stack
 * starts at the interrupt's entry.  Returns that frame's index in wst (leaf
 * first), *softirq set when the softirq loop did it, or -1 for a wakeup by
 * the task itself.
 */
static int interrupt_entry(struct fold *f, const struct stack_trace *wst, bool *softirq)
{
	static const char *const entries[] = { "asm_sysvec_", "asm_common_interrupt",
					       "el1h_64_irq", "el0t_64_irq", NULL };
	const char *name;

	for (int i = wst ? (int)wst->nr - 1 : -1; i >= 0; i--) {
		if (!(name = kernel_sym(f, wst, i)))
			continue;
		for (int e = 0; entries[e]; e++) {
			if (strncmp(name, entries[e], strlen(entries[e])))
				continue;
			*softirq = in_softirq_loop(f, wst);
			return i;
		}
	}
	return -1;
}

/* Whether a timer's expiry did the wakeup: its interrupt's frames are the
 * same on every sleep, so the waker is the timer, one frame. */
static bool timer_wakeup(struct fold *f, const struct stack_trace *wst)
{
	const char *name;

	for (uint32_t i = 0; wst && i < wst->nr; i++)
		if ((name = kernel_sym(f, wst, i)) && ctxframes__is_timer_wakeup(name))
			return true;
	return false;
}

/*
 * The waker's frame: "woken-by:COMM" for a task, and for what is no task
 * "woken-by-irq", "woken-by-softirq" or "woken-by-unknown", which no COMM
 * can make (every task's frame has the colon), be it named "[irq]".
 * Returns the interrupt entry's index in wst, as interrupt_entry.
 */
static int waker_frame(struct fold *f, const struct sample_key *key, const struct stack_trace *wst,
		       char *name, size_t len)
{
	char comm[SMOLDER_COMM_LEN + 1];
	struct waker_desc d;
	bool softirq = false;
	int from = interrupt_entry(f, wst, &softirq);

	if (from >= 0) {
		snprintf(name, len, "%s", softirq ? "woken-by-softirq" : "woken-by-irq");
	} else if (f->o.waker_desc && !f->o.waker_desc(f->o.work_arg, key->work, &d)) {
		memcpy(comm, d.comm, SMOLDER_COMM_LEN);
		comm[SMOLDER_COMM_LEN] = 0;
		snprintf(name, len, "woken-by:%s", comm);
		frame_name__sanitize(name);
	} else {
		snprintf(name, len, "woken-by-unknown");
	}
	return from;
}

/* "[off-cpu:S]" and, with wakers, the waker's frame (see waker_frame) and
 * its kernel stack, root first. */
static int add_offcpu(struct fold *f, const struct sample_key *key,
		      const struct stack_trace *wst, uint16_t *n)
{
	char name[SMOLDER_COMM_LEN + 16];
	int from, skip;

	if (fold_push_frame(f, key->flags & SAMPLE_OFFCPU_D ? "[off-cpu:D]" : "[off-cpu:S]", ""))
		return -ENOMEM;
	(*n)++;
	if (!f->o.wakers || !key->work)
		return 0;
	if (timer_wakeup(f, wst)) {
		if (fold_push_frame(f, "woken-by-timer", ""))
			return -ENOMEM;
		(*n)++;
		return 0;
	}
	from = waker_frame(f, key, wst, name, sizeof(name));
	if (fold_push_frame(f, name, ""))
		return -ENOMEM;
	(*n)++;
	if (from < 0)
		from = wst ? (int)wst->nr - 1 : -1;
	skip = tracing_frames(f, wst);
	for (int i = f->o.kernel ? from : -1; i >= skip; i--) {
		char kname[NAME_MAX_LEN];

		kernel_name(f, frame_addr(wst, i), kname, sizeof(kname));
		if (fold_push_frame(f, kname, f->o.annotate ? "_[k]" : ""))
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

/* Puts "-" between the user frames (ending at user_end) and the kernel's. */
static int add_delimiter(struct fold *f, uint32_t user_end)
{
	long id = profile__intern(f->p, "-", 1);

	if (id < 0)
		return -ENOMEM;
	if (f->nr_ids == FOLD_MAX_FRAMES)
		return -E2BIG;
	memmove(&f->ids[user_end + 1], &f->ids[user_end], (f->nr_ids - user_end) * sizeof(f->ids[0]));
	memmove(&f->at[user_end + 1], &f->at[user_end], (f->nr_ids - user_end) * sizeof(f->at[0]));
	f->ids[user_end] = (uint32_t)id;
	f->at[user_end] = (struct paddr_frame){ 0 };
	f->nr_ids++;
	return 0;
}

int fold__add(struct fold *f, const struct sample_key *key, uint64_t count,
	      const struct stack_trace *kst, const struct stack_trace *ust)
{
	return fold__add_woken(f, key, count, kst, ust, NULL);
}

int fold__add_woken(struct fold *f, const struct sample_key *key, uint64_t count,
		    const struct stack_trace *kst, const struct stack_trace *ust,
		    const struct stack_trace *wst)
{
	struct fold_stacks st = { .kernel = kst, .user = ust, .waker = wst };

	return fold__add_stacks(f, key, count, &st);
}

/* Counts the sample's Python frames, or why it has none. */
static void count_python(struct fold *f, uint64_t count)
{
	if (f->py_kind == PY_WITH)
		f->py.with += count;
	else if (f->py_kind == PY_WITHOUT)
		f->py.without += count;
	else if (f->py_kind == PY_UNSUPPORTED)
		f->py.unsupported += count;
	if (f->py_miss != PY_NAMED)
		f->py.miss[f->py_miss] += count;
}

int fold__add_stacks(struct fold *f, const struct sample_key *key, uint64_t count,
		     const struct fold_stacks *st)
{
	const struct stack_trace *kst = st->kernel, *ust = st->user, *wst = st->waker;
	bool offcpu = key->flags & SAMPLE_OFFCPU;
	/* microseconds: sums of fractions, rounded once per stack */
	double weight = !f->o.time_weighted ? (double)count
			: offcpu ? count / 1000.0 : count * f->o.sample_ns / 1000.0;
	struct stack_origin o = { .tgid = key->tgid };
	enum usyms_miss miss = USYMS_NAMED;
	enum idle_path idle;
	uint32_t user_end;
	long i;

	if (f->sorted && reindex(f, f->nslots))
		return -ENOMEM;
	f->sorted = false;
	f->nr_ids = 0;
	f->nr_inlined = 0;
	unsym_tally__end_sample(f->unsym, 0); /* one given up midway counts nothing */
	if (add_head(f, key, &o.n_head, &o) || add_context(f, key, kst, &o.n_head, &idle))
		return -ENOMEM;
	f->py_kind = PY_NONE;
	f->py_miss = PY_NAMED;
	if (f->o.user && add_user(f, key, ust, st->python, &o.n_user, &miss))
		return -ENOMEM;
	user_end = f->nr_ids;
	if (f->o.kernel && add_kernel(f, key, kst, &o.n_kernel))
		return -ENOMEM;
	if (f->o.delimiter && o.n_user && o.n_kernel) {
		if (add_delimiter(f, user_end))
			return -ENOMEM;
		o.n_delim = 1;
	}
	if (offcpu && add_offcpu(f, key, wst, &o.n_kernel))
		return -ENOMEM;
	memcpy(o.comm, key->comm, sizeof(o.comm));
	o.comm[sizeof(o.comm) - 1] = '\0';
	if (f->cgroups && (i = cgroup_labels__name(f->cgroups, f->p, key->tgid, &o)) < 0)
		return -ENOMEM;
	if (f->cgroups && i > 0 && !offcpu)
		f->cgroup_other += count;
	i = find_or_add(f, key->tgid, &o);
	if (i < 0)
		return -ENOMEM;
	f->p->stacks[i].count += weight;
	if (paddrs__add_sample(f->p->addrs, (uint32_t)i, f->ids, f->at, f->nr_ids, weight))
		return -ENOMEM;
	unsym_tally__end_sample(f->unsym, offcpu ? 0 : count);
	if (offcpu)
		return 0; /* nanoseconds, not samples */
	f->total += count;
	if (miss != USYMS_NAMED)
		f->unnamed[miss] += count;
	count_python(f, count);
	if (idle != IDLE_PATH__MAX)
		return count_idle(f, key->cpu, idle, count);
	return 0;
}

struct profile *fold__profile(struct fold *f)
{
	if (f->o.time_weighted)
		for (size_t i = 0; i < f->p->nr; i++)
			f->p->stacks[i].count = (double)(uint64_t)(f->p->stacks[i].count + 0.5);
	/* the slots then point at the wrong stacks: fold__add reindexes */
	if (!f->sorted && profile__sort_by_count(f->p))
		return NULL;
	f->sorted = true;
	return f->p;
}

uint64_t fold__total(const struct fold *f)
{
	return f->total;
}

const uint64_t *fold__idle_paths(const struct fold *f)
{
	return f->idle;
}

uint64_t fold__cgroup_other(const struct fold *f)
{
	return f->cgroup_other;
}

const uint64_t *fold__unnamed(const struct fold *f)
{
	return f->unnamed;
}

void fold__unsymbolized(const struct fold *f, struct unsym_summary *out)
{
	unsym_tally__summary(f->unsym, out);
}

void fold__py_stats(const struct fold *f, struct fold_py_stats *out)
{
	*out = f->py;
}

void fold__free(struct fold *f)
{
	if (!f)
		return;
	free(f->idle);
	free(f->slots);
	cgroup_labels__free(f->cgroups);
	unsym_tally__free(f->unsym);
	profile__free(f->p);
	free(f);
}
