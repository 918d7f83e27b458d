// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folding (see fold.h): names every frame of a counted sample through the
 * kernel and user symbolizers, builds the folded text and merges equal texts
 * in an open-addressing hash table.  Leaf frames are looked up at their
 * address; callers' return addresses at address - 1, so that a call that is
 * the last instruction of a function names that function, not the next.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpus.h"
#include "ctxframes.h"
#include "fold.h"
#include "frame_name.h"
#include "ksyms.h"
#include "usyms.h"

#define NAME_MAX_LEN 1024

struct strbuf {
	char *s;
	size_t len, cap;
};

struct fold {
	struct fold_opts o;
	const struct ksyms *ksyms;
	struct usyms *usyms;
	struct folded *items;
	size_t nr, cap;
	uint32_t *slots; /* index + 1 into items, 0 = empty */
	size_t nslots;
	uint64_t total;
	bool sorted;
	struct strbuf buf;
	uint64_t *idle; /* [cpu * IDLE_PATH__MAX + path], allocated when needed */
	uint64_t unnamed[USYMS_MISS__MAX];
};

static int sb_grow(struct strbuf *b, size_t more)
{
	char *n;
	size_t cap;

	if (b->len + more + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap * 2 : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n)
		return -ENOMEM;
	b->s = n;
	b->cap = cap;
	return 0;
}

/* Appends a frame (and the ';' before it unless it is the first). */
static int sb_frame(struct strbuf *b, const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);

	if (sb_grow(b, n + m + 1))
		return -ENOMEM;
	if (b->len)
		b->s[b->len++] = ';';
	memcpy(b->s + b->len, name, n);
	memcpy(b->s + b->len + n, suffix, m);
	b->len += n + m;
	b->s[b->len] = 0;
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
	if (!f->slots) {
		free(f);
		return NULL;
	}
	return f;
}

static uint64_t hash_text(const char *s, uint32_t tgid)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ tgid;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* Rebuilds the slot table with n slots (after growth or a sort). */
static int reindex(struct fold *f, size_t n)
{
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr; i++) {
		struct folded *it = &f->items[i];
		size_t j = hash_text(it->text, f->o.by_process ? it->tgid : 0) & (n - 1);

		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = i + 1;
	}
	free(f->slots);
	f->slots = s;
	f->nslots = n;
	return 0;
}

/* Finds the entry for text (and tgid when by process) or makes one. */
static struct folded *intern(struct fold *f, const char *text, uint32_t tgid)
{
	uint32_t key_tgid = f->o.by_process ? tgid : 0;
	size_t j = hash_text(text, key_tgid) & (f->nslots - 1);
	struct folded *it;

	for (; f->slots[j]; j = (j + 1) & (f->nslots - 1)) {
		it = &f->items[f->slots[j] - 1];
		if ((!f->o.by_process || it->tgid == tgid) && !strcmp(it->text, text))
			return it;
	}
	if (f->nr == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024;
		struct folded *n = realloc(f->items, cap * sizeof(*n));

		if (!n)
			return NULL;
		f->items = n;
		f->cap = cap;
	}
	it = &f->items[f->nr];
	memset(it, 0, sizeof(*it));
	it->text = strdup(text);
	if (!it->text)
		return NULL;
	it->tgid = tgid;
	f->slots[j] = ++f->nr;
	if (f->nr * 2 > f->nslots && reindex(f, f->nslots * 2))
		return NULL;
	return &f->items[f->nr - 1];
}

static int add_head(struct fold *f, const struct sample_key *key, uint16_t *n)
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
	if (f->o.per_cpu) {
		snprintf(name, sizeof(name), "cpu_%u", key->cpu);
		if (sb_frame(&f->buf, name, ""))
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
	return sb_frame(&f->buf, name, "");
}

/* Frame i's address to name: the leaf's own, a caller's return address - 1. */
static uint64_t frame_addr(const struct stack_trace *st, int i)
{
	return i ? st->ip[i] - 1 : st->ip[i];
}

/* The user frames, root first; *miss gets why the leaf-most "[unknown]" is. */
static int add_user(struct fold *f, const struct sample_key *key,
		    const struct stack_trace *st, uint16_t *n, enum usyms_miss *miss)
{
	struct usyms_frame fr = { .miss = USYMS_MISS_FOREIGN };
	char name[NAME_MAX_LEN];

	*n = 0;
	*miss = USYMS_NAMED;
	if (key->flags & (SAMPLE_USTACK_LOST | SAMPLE_USTACK_ERR)) {
		*n = 1;
		return sb_frame(&f->buf, key->flags & SAMPLE_USTACK_LOST ?
				"[lost user stack]" : "[missed user stack]", "");
	}
	for (int i = st ? (int)st->nr - 1 : -1; i >= 0; i--) {
		uint64_t addr = frame_addr(st, i);

		if (key->flags & SAMPLE_FOREIGN_PID)
			snprintf(name, sizeof(name), "[unknown]");
		else
			usyms__name_frame(f->usyms, key->tgid, key->gen, addr, name, sizeof(name), &fr);
		if (fr.miss != USYMS_NAMED)
			*miss = fr.miss;
		frame_name__sanitize(name);
		if (sb_frame(&f->buf, name, fr.jit && f->o.annotate ? "_[j]" : ""))
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
	if (sb_frame(&f->buf, name, ""))
		return -ENOMEM;
	if (known)
		kernel_name(f, d.func, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "[unknown]");
	if (sb_frame(&f->buf, name, f->o.annotate ? "_[k]" : ""))
		return -ENOMEM;
	ctxframes__queuer(&d, f->o.group_threads, name, sizeof(name));
	*n += 3;
	return sb_frame(&f->buf, name, "");
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
		if (sb_frame(&f->buf, name, ""))
			return -ENOMEM;
		(*n)++;
	}
	if (f->o.irq_frames &&
	    ctxframes__irq(key->ctx, key->ctx == CTX_IRQ_STACK && in_softirq_loop(f, kst), name,
			   sizeof(name))) {
		if (sb_frame(&f->buf, name, ""))
			return -ENOMEM;
		(*n)++;
	}
	if (f->o.kworker_frames && key->work)
		return add_work(f, key, n);
	return 0;
}

static int add_kernel(struct fold *f, const struct sample_key *key,
		      const struct stack_trace *st, uint16_t *n)
{
	const char *suffix = f->o.annotate ? "_[k]" : "";
	char name[NAME_MAX_LEN];

	*n = 0;
	if (key->flags & (SAMPLE_KSTACK_LOST | SAMPLE_KSTACK_ERR)) {
		*n = 1;
		return sb_frame(&f->buf, key->flags & SAMPLE_KSTACK_LOST ?
				"[lost kernel stack]" : "[missed kernel stack]", suffix);
	}
	for (int i = st ? (int)st->nr - 1 : -1; i >= 0; i--) {
		kernel_name(f, frame_addr(st, i), name, sizeof(name));
		if (sb_frame(&f->buf, name, suffix))
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

int fold__add(struct fold *f, const struct sample_key *key, uint64_t count,
	      const struct stack_trace *kst, const struct stack_trace *ust)
{
	struct folded *it;
	uint16_t head, nu = 0, nk = 0, nd = 0;
	enum usyms_miss miss = USYMS_NAMED;
	enum idle_path idle;
	size_t user_end;

	if (f->sorted && reindex(f, f->nslots))
		return -ENOMEM;
	f->sorted = false;
	f->buf.len = 0;
	if (f->buf.s)
		f->buf.s[0] = 0;
	if (add_head(f, key, &head) || add_context(f, key, kst, &head, &idle))
		return -ENOMEM;
	if (f->o.user && add_user(f, key, ust, &nu, &miss))
		return -ENOMEM;
	user_end = f->buf.len;
	if (f->o.kernel && add_kernel(f, key, kst, &nk))
		return -ENOMEM;
	if (f->o.delimiter && nu && nk) {
		/* insert "-" between the user and kernel parts */
		if (sb_grow(&f->buf, 2))
			return -ENOMEM;
		memmove(f->buf.s + user_end + 2, f->buf.s + user_end, f->buf.len - user_end + 1);
		memcpy(f->buf.s + user_end, ";-", 2);
		f->buf.len += 2;
		nd = 1;
	}
	it = intern(f, f->buf.s, key->tgid);
	if (!it)
		return -ENOMEM;
	if (!it->count) {
		memcpy(it->comm, key->comm, sizeof(it->comm));
		it->n_head = head;
		it->n_user = nu;
		it->n_delim = nd;
		it->n_kernel = nk;
	}
	it->count += count;
	f->total += count;
	if (miss != USYMS_NAMED)
		f->unnamed[miss] += count;
	if (idle != IDLE_PATH__MAX)
		return count_idle(f, key->cpu, idle, count);
	return 0;
}

static int by_count_then_text(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

const struct folded *fold__sorted(struct fold *f, size_t *nr)
{
	if (!f->sorted) {
		/* the slots now point at the wrong items: fold__add reindexes */
		qsort(f->items, f->nr, sizeof(*f->items), by_count_then_text);
		f->sorted = true;
	}
	*nr = f->nr;
	return f->items;
}

uint64_t fold__total(const struct fold *f)
{
	return f->total;
}

const uint64_t *fold__idle_paths(const struct fold *f)
{
	return f->idle;
}

const uint64_t *fold__unnamed(const struct fold *f)
{
	return f->unnamed;
}

void fold__free(struct fold *f)
{
	if (!f)
		return;
	free(f->idle);
	for (size_t i = 0; i < f->nr; i++)
		free(f->items[i].text);
	free(f->items);
	free(f->slots);
	free(f->buf.s);
	free(f);
}
