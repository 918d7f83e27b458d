// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folding and output formats on fixtures: a kallsyms fixture for kernel
 * frames, this process's own functions for user frames.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "unit.h"
#include "lib/cpus.h"
#include "fold/fold.h"
#include "symbols/ksyms.h"
#include "output/format.h"
#include "profile/profile.h"
#include "symbols/usyms.h"
#include "output/folded.h"
#include "output/report.h"

static const char kallsyms_fixture[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T entry_SYSCALL_64\n"
	"ffffffff81000200 t do_syscall_64\n"
	"ffffffff81000300 T ksys_read\n"
	"ffffffff81000400 d some_data\n"
	"ffffffff81000500 T asm_sysvec_apic_timer_interrupt\n"
	"ffffffff81000600 T handle_softirqs\n"
	"ffffffff81000700 T try_to_wake_up\n"
	"ffffffff81000800 t hrtimer_wakeup\n"
	"ffffffffc0000000 t ipt_do_table\t[ip_tables]\n";

static struct ksyms *ks;
static struct usyms *us;

__attribute__((noinline)) void user_root_fn(void) { __asm__ volatile(""); }
__attribute__((noinline)) void user_leaf_fn(void) { __asm__ volatile(""); }
/* Long enough that two addresses 8 bytes apart are both in it. */
__attribute__((noinline)) unsigned long user_loop_fn(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++) {
		s += i ^ (s >> 3);
		__asm__ volatile("");
	}
	return s;
}

static struct ksyms *load_fixture(void)
{
	char path[] = "/tmp/smolder-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	struct ksyms *k;

	if (fd < 0 || write(fd, kallsyms_fixture, sizeof(kallsyms_fixture) - 1) < 0)
		return NULL;
	close(fd);
	k = ksyms__load_file(path);
	unlink(path);
	return k;
}

static struct sample_key make_key(uint32_t flags)
{
	struct sample_key k = { .tgid = getpid(), .pid = getpid() + 1, .cpu = 1, .flags = flags };

	memcpy(k.comm, "app", 4);
	return k;
}

/* A user stack as BPF stores it: leaf first; callers are return addresses. */
static struct stack_trace user_stack(void)
{
	struct stack_trace st = { .nr = 2 };

	st.ip[0] = (uint64_t)(uintptr_t)user_leaf_fn;
	st.ip[1] = (uint64_t)(uintptr_t)user_root_fn + 1; /* return address */
	return st;
}

static struct stack_trace kernel_stack(void)
{
	struct stack_trace st = { .nr = 3 };

	st.ip[0] = 0xffffffff81000310; /* ksys_read, the leaf */
	st.ip[1] = 0xffffffff81000210; /* in do_syscall_64 */
	st.ip[2] = 0xffffffff81000101; /* return address at entry_SYSCALL_64 + 1 */
	return st;
}

/* Stack i of p as folded text (one of four buffers, reused in turn). */
static const char *text_of(const struct profile *p, size_t i)
{
	static char buf[4][1024];
	static int next;
	char *b = buf[next++ % 4];

	if (i >= p->nr)
		return "?";
	profile__text(p, &p->stacks[i], b, sizeof(buf[0]));
	return b;
}

static const char *fold_one(const struct fold_opts *o, uint32_t flags, bool k, bool u,
			    char *buf, size_t len)
{
	struct fold *f = fold__new(o, ks, us);
	struct sample_key key = make_key(flags);
	struct stack_trace kst = kernel_stack(), ust = user_stack();
	const struct profile *out;
	size_t nr;

	fold__add(f, &key, 5, k ? &kst : NULL, u ? &ust : NULL);
	out = fold__profile(f);
	nr = out->nr;
	snprintf(buf, len, "%s %llu", nr == 1 ? text_of(out, 0) : "?",
		 nr == 1 ? (unsigned long long)out->stacks[0].count : 0ULL);
	fold__free(f);
	return buf;
}

TEST(order_root_to_leaf_user_then_kernel)
{
	struct fold_opts o = { .user = true, .kernel = true };
	char buf[512];

	CHECK_STR(fold_one(&o, 0, true, true, buf, sizeof(buf)),
		  "app;user_root_fn;user_leaf_fn;entry_SYSCALL_64;do_syscall_64;ksys_read 5");
}

TEST(delimiter_only_with_both_parts)
{
	struct fold_opts o = { .user = true, .kernel = true, .delimiter = true };
	char buf[512];

	CHECK_STR(fold_one(&o, 0, true, true, buf, sizeof(buf)),
		  "app;user_root_fn;user_leaf_fn;-;entry_SYSCALL_64;do_syscall_64;ksys_read 5");
	CHECK_STR(fold_one(&o, 0, false, true, buf, sizeof(buf)), "app;user_root_fn;user_leaf_fn 5");
	CHECK_STR(fold_one(&o, SAMPLE_KTHREAD, true, false, buf, sizeof(buf)),
		  "app;entry_SYSCALL_64;do_syscall_64;ksys_read 5");
}

TEST(annotations_and_kernel_only)
{
	struct fold_opts o = { .kernel = true, .annotate = true };
	char buf[512];

	CHECK_STR(fold_one(&o, 0, true, true, buf, sizeof(buf)),
		  "app;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_read_[k] 5");
}

TEST(process_frames)
{
	struct fold_opts o = { .user = true, .per_cpu = true, .proc = PROC_THREAD };
	char buf[512], want[512];

	snprintf(want, sizeof(want), "cpu_1;app-%d/%d;user_root_fn;user_leaf_fn 5", getpid(),
		 getpid() + 1);
	CHECK_STR(fold_one(&o, 0, false, true, buf, sizeof(buf)), want);
	o.per_cpu = false;
	o.proc = PROC_PID;
	snprintf(want, sizeof(want), "app-%d;user_root_fn;user_leaf_fn 5", getpid());
	CHECK_STR(fold_one(&o, 0, false, true, buf, sizeof(buf)), want);
}

TEST(lost_and_missed_stacks_are_named)
{
	struct fold_opts o = { .user = true, .kernel = true };
	char buf[512];

	CHECK_STR(fold_one(&o, SAMPLE_USTACK_LOST | SAMPLE_KSTACK_ERR, false, false, buf,
			   sizeof(buf)), "app;[lost user stack];[missed kernel stack] 5");
}

TEST(module_names_and_unknown_kernel_frames)
{
	struct fold_opts o = { .kernel = true, .module_names = true };
	struct fold *f = fold__new(&o, ks, us);
	struct sample_key key = make_key(SAMPLE_KTHREAD);
	struct stack_trace kst = { .nr = 2, .ip = { 0xffffffffc0000010, 0x1000 } };
	const struct profile *out;
	size_t nr;

	fold__add(f, &key, 1, &kst, NULL);
	out = fold__profile(f);
	nr = out->nr;
	CHECK(nr == 1);
	CHECK_STR(text_of(out, 0), "app;[unknown];ipt_do_table [ip_tables]");
	fold__free(f);
}

TEST(equal_texts_merge_and_sort_by_count)
{
	struct fold_opts o = { .user = true, .kernel = true };
	struct fold *f = fold__new(&o, ks, us);
	struct sample_key a = make_key(0), b = make_key(0);
	struct stack_trace kst = kernel_stack(), ust = user_stack();
	const struct profile *out;
	size_t nr;

	b.pid++; /* another thread, same text: merged without by_process */
	fold__add(f, &a, 2, &kst, &ust);
	fold__add(f, &b, 3, &kst, &ust);
	fold__add(f, &a, 7, NULL, &ust);
	out = fold__profile(f);
	nr = out->nr;
	CHECK(nr == 2);
	CHECK(out->stacks[0].count == 7 && out->stacks[1].count == 5);
	CHECK(fold__total(f) == 12);
	/* adding after a sort still merges into the existing entries */
	fold__add(f, &a, 10, &kst, &ust);
	out = fold__profile(f);
	nr = out->nr;
	CHECK(nr == 2 && out->stacks[0].count == 15 && out->stacks[1].count == 7);
	fold__free(f);
}

/* The site of profile p with leaf location address addr, or NULL. */
static const struct psite *site_at(const struct profile *p, uint64_t addr)
{
	const struct paddrs *a = p->addrs;

	for (size_t i = 0; i < a->nr_sites; i++) {
		const struct psite *s = &a->sites[i];
		const uint32_t *l = paddrs__site_locs(a, s);

		if (a->locs[l[p->stacks[s->stack].depth - 1]].addr == addr)
			return s;
	}
	return NULL;
}

TEST(sites_by_address_beside_merged_stacks)
{
	struct fold_opts o = { .user = true, .kernel = true };
	struct fold *f = fold__new(&o, ks, us);
	struct sample_key key = make_key(0);
	struct stack_trace a = user_stack(), b = user_stack(), kst = kernel_stack();
	uint64_t fn = (uint64_t)(uintptr_t)user_loop_fn;
	const struct profile *p;
	const struct paddrs *ad;
	const struct psite *sa, *sb;
	const uint32_t *l;
	const struct pmapping *m;

	a.ip[0] = fn + 4;
	b.ip[0] = fn + 12;
	fold__add(f, &key, 2, NULL, &a);
	fold__add(f, &key, 3, NULL, &b);
	fold__add(f, &key, 1, NULL, &a);
	fold__add(f, &key, 9, &kst, NULL); /* sorts first: stacks renumbered */
	p = fold__profile(f);
	ad = p->addrs;
	CHECK(p->nr == 2 && ad->nr_sites == 3);
	CHECK_STR(text_of(p, 1), "app;user_root_fn;user_loop_fn");
	CHECK(p->stacks[1].count == 6);
	/* one name, two addresses: each site has its own leaf location */
	m = &ad->maps[0];
	CHECK(ad->nr_maps == 1 && m->vaddr != UINT64_MAX);
	for (size_t i = 0; i < ad->nr_sites; i++) {
		const struct psite *s = &ad->sites[i];

		l = paddrs__site_locs(ad, s);
		if (s->stack == 1) {
			CHECK(ad->locs[l[2]].map == 1);
			CHECK(ad->locs[l[1]].map == 1);
			CHECK(ad->locs[l[0]].map == 0 && ad->locs[l[0]].addr == 0);
		} else {
			CHECK(s->stack == 0 && s->count == 9);
			CHECK(ad->locs[l[3]].map == PADDR_KERNEL);
			CHECK(ad->locs[l[3]].addr == 0xffffffff81000310); /* the leaf's own */
			CHECK(ad->locs[l[2]].addr == 0xffffffff8100020f); /* a caller's - 1 */
		}
	}
	/* user addresses are file offsets: 8 bytes apart, counts by address */
	sa = sb = NULL;
	for (size_t i = 0; i < ad->nr_sites; i++) {
		const struct psite *s = &ad->sites[i];

		if (s->stack != 1)
			continue;
		if (!sa)
			sa = s;
		else
			sb = s;
	}
	CHECK(sa && sb);
	if (sa && sb) {
		uint64_t xa = ad->locs[paddrs__site_locs(ad, sa)[2]].addr;
		uint64_t xb = ad->locs[paddrs__site_locs(ad, sb)[2]].addr;

		CHECK(xb - xa == 8 && sa->count == 3 && sb->count == 3);
		CHECK(site_at(p, xa) == sa);
		/* a file offset: where this process has it is the function's */
		CHECK(m->seen_at + (xa - m->offset) == fn + 4);
	}
	fold__free(f);
}

TEST(empty_fold_sorts_to_nothing)
{
	struct fold_opts o = { .user = true };
	struct fold *f = fold__new(&o, ks, us);
	const struct profile *out = fold__profile(f);

	CHECK(out && out->nr == 0);
	CHECK(out && out->origins); /* a capture's, if empty: pprof says kernel frames may come */
	CHECK(out && folded__write(stdout, out) == 0);
	fold__free(f);
}

TEST(hostile_comm_is_sanitized)
{
	struct fold_opts o = { .user = true };
	struct fold *f = fold__new(&o, ks, us);
	struct sample_key k = make_key(0);
	const struct profile *out;
	size_t nr;

	memcpy(k.comm, "a;b\nc\td", 8);
	k.comm[8] = 0;
	fold__add(f, &k, 1, NULL, NULL);
	out = fold__profile(f);
	nr = out->nr;
	CHECK(nr == 1);
	CHECK_STR(text_of(out, 0), "a:b?c?d");
	fold__free(f);
}

TEST(report_is_leaf_first)
{
	struct fold_opts o = { .user = true, .kernel = true, .delimiter = true,
			       .by_process = true };
	struct fold *f = fold__new(&o, ks, us);
	struct sample_key key = make_key(0);
	struct stack_trace kst = kernel_stack(), ust = user_stack();
	const struct profile *out;
	char *text = NULL, want[512];
	size_t nr, len = 0;
	FILE *mem = open_memstream(&text, &len);

	fold__add(f, &key, 4, &kst, &ust);
	out = fold__profile(f);
	nr = out->nr;
	CHECK(nr == 1);
	report__write(mem, out, true);
	fclose(mem);
	snprintf(want, sizeof(want),
		 "    ksys_read\n    do_syscall_64\n    entry_SYSCALL_64\n    --\n"
		 "    user_leaf_fn\n    user_root_fn\n    -                app (%d)\n        4\n\n",
		 getpid());
	CHECK_STR(text, want);
	free(text);
	fold__free(f);
}

/* Each stack's origin: the process, and the thread and CPU the view kept. */
TEST(origins_from_the_sample)
{
	struct fold_opts o = { .user = true, .kernel = true, .delimiter = true, .per_cpu = true,
			       .proc = PROC_THREAD, .by_process = true };
	struct fold *f = fold__new(&o, ks, us);
	struct sample_key key = make_key(0);
	struct stack_trace kst = kernel_stack(), ust = user_stack();
	const struct profile *out;

	fold__add(f, &key, 4, &kst, &ust);
	out = fold__profile(f);
	CHECK(out && out->nr == 1 && out->origins);
	if (out && out->nr == 1 && out->origins) {
		const struct stack_origin *g = &out->origins[0];

		CHECK(g->tgid == (uint32_t)getpid() && g->tid == (uint32_t)getpid() + 1 && g->cpu == 1);
		CHECK_STR(g->comm, "app");
		CHECK(g->n_head == 2 && g->n_user == 2 && g->n_delim == 1 && g->n_kernel == 3);
		CHECK(stack_origin__kernel_from(g) == 5 && out->stacks[0].depth == 8);
	}
	fold__free(f);
	o.per_cpu = false;
	o.proc = PROC_PID;
	f = fold__new(&o, ks, us);
	fold__add(f, &key, 4, NULL, &ust);
	out = fold__profile(f);
	CHECK(out && out->nr == 1 && out->origins[0].tid == 0 && out->origins[0].cpu == -1 &&
	      out->origins[0].n_delim == 0 && out->origins[0].n_kernel == 0);
	fold__free(f);
}

/*
 * Stacks of equal counts sort as their folded texts do under strcmp, names
 * that begin others included ("a;b" before "ab": ';' is below 'b'), and
 * equal texts in the order they were added; more samples first.
 */
TEST(ties_sort_by_folded_text)
{
	static const char *const names[] = { "a", "ab", "b", "", "a b", "a:", "~" };
	struct profile *p = profile__new();
	uint32_t ids[6];
	unsigned seed = 7;
	char x[256], y[256];
	bool ordered = true;

	for (int n = 0; n < 400 && p; n++) {
		uint32_t depth = 1 + (seed = seed * 1103515245 + 12345) % 5;
		struct stack_origin o = { .tgid = n };

		for (uint32_t i = 0; i < depth; i++) {
			seed = seed * 1103515245 + 12345;
			ids[i] = profile__intern(p, names[(seed >> 8) % 7], strlen(names[(seed >> 8) % 7]));
		}
		profile__add_ids(p, ids, depth, 1 + (seed >> 4) % 2, &o);
	}
	CHECK(p && p->nr == 400 && !profile__sort_by_count(p));
	for (size_t i = 1; p && i < p->nr; i++) {
		const struct pstack *s = &p->stacks[i - 1], *t = &p->stacks[i];
		int c;

		profile__text(p, s, x, sizeof(x));
		profile__text(p, t, y, sizeof(y));
		c = strcmp(x, y);
		if (s->count < t->count || (s->count == t->count && c > 0) ||
		    (s->count == t->count && !c && p->origins[i - 1].tgid > p->origins[i].tgid))
			ordered = false;
	}
	CHECK(ordered);
	profile__free(p);
}

static int fixture_work(void *arg, uint64_t id, struct work_desc *out)
{
	struct work_desc d = { .func = 0xffffffff81000300, .queued_from = QUEUED_BY_TASK,
			       .queuer_tgid = 77 };

	(void)arg;
	if (id != 42)
		return -2;
	memcpy(d.wq, "writeback", 10);
	memcpy(d.queuer_comm, "sync", 5);
	*out = d;
	return 0;
}

/* Context frames go right above the process frame, in a fixed order, and
 * count as head frames; grouping drops the PID a view would add. */
TEST(context_frames_above_process)
{
	struct fold_opts o = { .kernel = true, .per_cpu = true, .proc = PROC_PID,
			       .group_threads = true, .irq_frames = true, .kworker_frames = true,
			       .work_desc = fixture_work };
	struct fold *f = fold__new(&o, ks, us);
	struct sample_key key = make_key(SAMPLE_KTHREAD);
	struct stack_trace kst = kernel_stack();
	const struct profile *out;
	size_t nr;

	memcpy(key.comm, "kworker/u8:2", 13);
	key.work = 42;
	fold__add(f, &key, 3, &kst, NULL);
	key.work = 7; /* never described: unknown, but still three frames */
	fold__add(f, &key, 2, &kst, NULL);
	key.work = 0;
	key.ctx = CTX_SOFTIRQ + 3;
	fold__add(f, &key, 1, &kst, NULL);
	out = fold__profile(f);
	nr = out->nr;
	CHECK(nr == 3);
	if (nr == 3) {
		CHECK_STR(text_of(out, 0), "cpu_1;kworker;wq:writeback;ksys_read;queued-by:sync-77;"
				       "entry_SYSCALL_64;do_syscall_64;ksys_read");
		CHECK(out->origins[0].n_head == 5 && out->origins[0].n_kernel == 3);
		CHECK_STR(text_of(out, 1), "cpu_1;kworker;wq:[unknown];[unknown];queued-by:[unknown];"
				       "entry_SYSCALL_64;do_syscall_64;ksys_read");
		CHECK_STR(text_of(out, 2), "cpu_1;kworker;[softirq:NET_RX];"
				       "entry_SYSCALL_64;do_syscall_64;ksys_read");
		CHECK(out->origins[2].n_head == 3);
	}
	fold__free(f);
}

/* Wakers for waker_markers: 1 and 2 are tasks named like the markers, 3
 * a task an interrupt landed on; 4 is not described. */
static int fixture_waker(void *arg, uint64_t id, struct waker_desc *out)
{
	static const char *const comms[] = { NULL, "[irq]", "woken-by-irq", "victim" };

	(void)arg;
	if (id < 1 || id > 3)
		return -2;
	memset(out, 0, sizeof(*out));
	snprintf(out->comm, sizeof(out->comm), "%s", comms[id]);
	return 0;
}

/* What woke a task: tasks as woken-by:COMM, whatever the COMM; interrupts
 * and the unknown as woken-by-irq, -softirq, -unknown, which no COMM can
 * make.  With -U (no kernel frames) the stack still tells an interrupt. */
TEST(waker_markers_no_task_can_name)
{
	/* leaf first: try_to_wake_up under a syscall, a timer interrupt, a softirq */
	static const struct stack_trace task = { .nr = 2, .ip = { 0xffffffff81000710,
								   0xffffffff81000101 } };
	static const struct stack_trace irq = { .nr = 2, .ip = { 0xffffffff81000710,
								  0xffffffff81000501 } };
	static const struct stack_trace soft = { .nr = 3, .ip = { 0xffffffff81000710,
								   0xffffffff81000601,
								   0xffffffff81000501 } };
	/* fewest microseconds first, with kernel frames and with -U */
	static const char *const want[2][5] = {
		{ "app;[off-cpu:S];woken-by:[irq];entry_SYSCALL_64;try_to_wake_up 1",
		  "app;[off-cpu:S];woken-by:woken-by-irq;entry_SYSCALL_64;try_to_wake_up 2",
		  "app;[off-cpu:S];woken-by-irq;asm_sysvec_apic_timer_interrupt;try_to_wake_up 3",
		  "app;[off-cpu:S];woken-by-softirq;asm_sysvec_apic_timer_interrupt;"
		  "handle_softirqs;try_to_wake_up 4",
		  "app;[off-cpu:S];woken-by-unknown;entry_SYSCALL_64;try_to_wake_up 5" },
		{ "app;[off-cpu:S];woken-by:[irq] 1", "app;[off-cpu:S];woken-by:woken-by-irq 2",
		  "app;[off-cpu:S];woken-by-irq 3", "app;[off-cpu:S];woken-by-softirq 4",
		  "app;[off-cpu:S];woken-by-unknown 5" },
	};

	for (int user_only = 0; user_only < 2; user_only++) {
		struct fold_opts o = { .kernel = !user_only, .time_weighted = true,
				       .sample_ns = 1000, .wakers = true,
				       .waker_desc = fixture_waker };
		struct fold *f = fold__new(&o, ks, us);
		struct sample_key key = make_key(SAMPLE_OFFCPU_S);
		const struct profile *out;
		char got[1024];

		key.work = 1;
		fold__add_woken(f, &key, 1000, NULL, NULL, &task);
		key.work = 2;
		fold__add_woken(f, &key, 2000, NULL, NULL, &task);
		key.work = 3; /* the task the interrupt landed on */
		fold__add_woken(f, &key, 3000, NULL, NULL, &irq);
		fold__add_woken(f, &key, 4000, NULL, NULL, &soft);
		key.work = 4;
		fold__add_woken(f, &key, 5000, NULL, NULL, &task);
		out = fold__profile(f);
		CHECK(out->nr == 5);
		for (size_t i = 0; i < 5 && i < out->nr; i++) {
			snprintf(got, sizeof(got), "%s %llu", text_of(out, out->nr - 1 - i),
				 (unsigned long long)out->stacks[out->nr - 1 - i].count);
			CHECK_STR(got, want[user_only][i]);
		}
		fold__free(f);
	}
}

/* A timer's wakeup is woken-by-timer, one frame, from an interrupt or a
 * task (ksoftirqd running the timer), with or without kernel frames: the
 * timer interrupt's chain is the same on every sleep. */
TEST(waker_timer_one_frame)
{
	/* leaf first: try_to_wake_up <- hrtimer_wakeup <- the timer interrupt */
	static const struct stack_trace irq = { .nr = 3, .ip = { 0xffffffff81000710,
								  0xffffffff81000801,
								  0xffffffff81000501 } };
	static const struct stack_trace task = { .nr = 3, .ip = { 0xffffffff81000710,
								   0xffffffff81000801,
								   0xffffffff81000101 } };

	for (int user_only = 0; user_only < 2; user_only++) {
		struct fold_opts o = { .kernel = !user_only, .time_weighted = true,
				       .sample_ns = 1000, .wakers = true,
				       .waker_desc = fixture_waker };
		struct fold *f = fold__new(&o, ks, us);
		struct sample_key key = make_key(SAMPLE_OFFCPU_S);
		const struct profile *out;

		key.work = 3;
		fold__add_woken(f, &key, 1000, NULL, NULL, &irq);
		key.work = 1;
		fold__add_woken(f, &key, 2000, NULL, NULL, &task);
		out = fold__profile(f);
		CHECK(out->nr == 1);
		if (out->nr == 1) {
			CHECK_STR(text_of(out, 0), "app;[off-cpu:S];woken-by-timer");
			CHECK(out->stacks[0].count == 3);
		}
		fold__free(f);
	}
}

/* A user thread keeps its name, however much it looks like a kernel one. */
TEST(grouping_only_for_kernel_threads)
{
	struct fold_opts o = { .kernel = true, .group_threads = true };
	struct fold *f = fold__new(&o, ks, us);
	struct sample_key key = make_key(0);
	const struct profile *out;
	size_t nr;

	memcpy(key.comm, "pump/1", 7);
	fold__add(f, &key, 1, NULL, NULL);
	out = fold__profile(f);
	nr = out->nr;
	CHECK(nr == 1 && !strcmp(text_of(out, 0), "pump/1"));
	fold__free(f);
}

TEST(cpu_lists)
{
	int cpus[16];

	CHECK(cpus__parse_list("0-3,6", cpus, 16) == 5 && cpus[4] == 6);
	CHECK(cpus__parse_list("2,1,2", cpus, 16) == 2 && cpus[0] == 1);
	CHECK(cpus__parse_list("0-1\n", cpus, 16) == 2);
	CHECK(cpus__parse_list("", cpus, 16) == -1);
	CHECK(cpus__parse_list("3-1", cpus, 16) == -1);
	CHECK(cpus__parse_list("a", cpus, 16) == -1);
	CHECK(cpus__parse_list("1,,2", cpus, 16) == -1);
	CHECK(cpus__parse_list("99999", cpus, 16) == -1);
	CHECK(cpus__online(cpus, 16) >= 1);
}

int main(void)
{
	ks = load_fixture();
	us = usyms__new();
	if (!ks || !us) {
		printf("FAIL setup: fixtures\n");
		return 1;
	}
	RUN(order_root_to_leaf_user_then_kernel);
	RUN(delimiter_only_with_both_parts);
	RUN(annotations_and_kernel_only);
	RUN(process_frames);
	RUN(lost_and_missed_stacks_are_named);
	RUN(module_names_and_unknown_kernel_frames);
	RUN(equal_texts_merge_and_sort_by_count);
	RUN(empty_fold_sorts_to_nothing);
	RUN(sites_by_address_beside_merged_stacks);
	RUN(hostile_comm_is_sanitized);
	RUN(report_is_leaf_first);
	RUN(origins_from_the_sample);
	RUN(ties_sort_by_folded_text);
	RUN(context_frames_above_process);
	RUN(waker_markers_no_task_can_name);
	RUN(waker_timer_one_frame);
	RUN(grouping_only_for_kernel_threads);
	RUN(cpu_lists);
	usyms__free(us);
	ksyms__free(ks);
	UNIT_EXIT();
}
