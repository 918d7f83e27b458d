// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Naming, folding and writing what a capture counted (see finish.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cpus.h"
#include "fold/ctxframes.h"
#include "session/finish.h"
#include "session/warm.h"
#include "lib/hash.h"
#include "lib/log.h"

#define TGID_SET_SIZE 4096 /* open addressing; more processes are capped */

struct fold_ctx {
	const struct sample_source *src;
	struct fold *fold;
	struct finish_result *res;
	bool waker_stacks; /* --wakers (with -U too: the stack tells an interrupt) */
	uint32_t tgids[TGID_SET_SIZE]; /* seen tgids + 1 (0: empty slot) */
	struct stack_trace kst, ust, wst, pyst;
};

static int capture_for_each(void *cap, sample_fn fn, void *arg)
{
	return capture__for_each_sample(cap, fn, arg);
}

static int capture_stack(void *cap, uint64_t id, struct stack_trace *out)
{
	return capture__stack(cap, id, out);
}

static int capture_work_desc(void *cap, uint64_t id, struct work_desc *out)
{
	return capture__work_desc(cap, id, out);
}

static int capture_waker_desc(void *cap, uint64_t id, struct waker_desc *out)
{
	return capture__waker_desc(cap, id, out);
}

struct sample_source finish__capture_source(struct capture *cap)
{
	return (struct sample_source){ capture_for_each, capture_stack, capture_work_desc, cap,
				       capture_waker_desc };
}

/* With --wakers: the kernel stack of who woke an off-CPU key's task. */
static const struct stack_trace *waker_stack(struct fold_ctx *c, const struct sample_key *key)
{
	const struct sample_source *src = c->src;
	struct waker_desc d;

	if (!(key->flags & SAMPLE_OFFCPU) || !key->work || !c->waker_stacks || !src->waker_desc ||
	    src->waker_desc(src->arg, key->work, &d) || !d.kstack ||
	    src->stack(src->arg, d.kstack, &c->wst))
		return NULL;
	return &c->wst;
}

static void count_tgid(struct fold_ctx *c, uint32_t tgid)
{
	size_t j = hash__mix64(tgid) % TGID_SET_SIZE;

	for (size_t n = 0; n < TGID_SET_SIZE; n++, j = (j + 1) % TGID_SET_SIZE) {
		if (c->tgids[j] == tgid + 1)
			return;
		if (!c->tgids[j]) {
			c->tgids[j] = tgid + 1;
			c->res->processes++;
			return;
		}
	}
}

static int fold_sample(const struct sample_key *key, uint64_t count, void *arg)
{
	struct fold_ctx *c = arg;
	const struct sample_source *src = c->src;
	bool have_k = key->kstack && !src->stack(src->arg, key->kstack, &c->kst);
	bool have_u = key->ustack && !src->stack(src->arg, key->ustack, &c->ust);
	bool have_py = key->pystack && !src->stack(src->arg, key->pystack, &c->pyst);
	struct fold_stacks st = {
		.kernel = have_k ? &c->kst : NULL,
		.user = have_u ? &c->ust : NULL,
		.python = have_py ? &c->pyst : NULL,
		.waker = waker_stack(c, key),
	};

	if (!(key->flags & SAMPLE_OFFCPU))
		c->res->samples += count;
	else
		c->res->offcpu_ns += count;
	count_tgid(c, key->tgid);
	return fold__add_stacks(c->fold, key, count, &st);
}

/* With inline frames, the user frames of src not named ahead yet, named
 * in address order before they are folded (warm.h), within usyms' budget:
 * what is left is named as it is folded. */
static void name_ahead(const struct finish_opts *o, const struct sample_source *src,
		       struct usyms *us)
{
	struct warm *w = o->named_ahead ? o->named_ahead : warm__new();

	if (usyms__inline_frames(us))
		warm__pass(w, src, us, NULL);
	if (w != o->named_ahead)
		warm__free(w);
}

/* Names and folds every sample src holds; NULL after printing why. */
static struct fold *fold_all(const struct finish_opts *o, const struct sample_source *src,
			     const struct ksyms *ks, struct usyms *us, struct finish_result *res)
{
	struct fold_opts fo = o->fold;
	struct fold_ctx *ctx = calloc(1, sizeof(*ctx));
	struct fold *f = NULL;
	int e = -ENOMEM;

	fo.work_desc = src->work_desc;
	fo.waker_desc = src->waker_desc;
	fo.work_arg = src->arg;
	if (ctx)
		f = fold__new(&fo, ks, us);
	if (f && us)
		name_ahead(o, src, us);
	if (f) {
		ctx->src = src;
		ctx->fold = f;
		ctx->res = res;
		ctx->waker_stacks = fo.wakers;
		e = src->for_each(src->arg, fold_sample, ctx);
		memcpy(res->unnamed, fold__unnamed(f), sizeof(res->unnamed));
		fold__unsymbolized(f, &res->unsym);
		fold__py_stats(f, &res->py);
		res->cgroup_other = fold__cgroup_other(f);
	}
	free(ctx);
	if (e) {
		err("cannot read samples: %s (run with -v)", log__errstr(-e));
		fold__free(f);
		return NULL;
	}
	return f;
}

/* Writes p to each of outs, whatever failed before; 0, or -1.  p says
 * what it shows (o->info, and the samples read). */
static int write_outputs(const struct finish_opts *o, struct profile *p,
			 const struct out_spec *outs, size_t nr_outs, uint64_t samples)
{
	struct out_data d = { .prof = p, .render = o->render, .hottest_last = o->hottest_last };
	int rc = 0;

	/* whole nanoseconds, as 1000000000 / -F gives them (the quotient of
	 * two integers below 2^53 truncates alike in double) */
	p->period_ns = (uint64_t)o->sample_ns;
	p->time_weighted = o->fold.time_weighted;
	p->info = o->info;
	p->info.samples = samples;
	for (size_t i = 0; i < nr_outs; i++)
		if (emit__one(&outs[i], &d))
			rc = -1;
	return rc;
}

static void idle_table(const struct finish_opts *o, const struct fold *f);

int finish__write(const struct finish_opts *o, const struct sample_source *src,
		  const struct ksyms *ks, struct usyms *us, const struct out_spec *outs,
		  size_t nr_outs, struct finish_result *res)
{
	struct fold *f;
	struct profile *p;
	int rc = -1;

	*res = (struct finish_result){ 0 };
	f = fold_all(o, src, ks, us, res);
	if (!f)
		return -1;
	res->named = true;
	p = fold__profile(f);
	if (!p) {
		err("out of memory");
	} else {
		res->stacks = p->nr;
		rc = write_outputs(o, p, outs, nr_outs, res->samples);
	}
	if (o->idle_table)
		idle_table(o, f);
	fold__free(f);
	return rc;
}

struct ksyms *finish__load_ksyms(const struct finish_opts *o)
{
	return finish__ksyms_of(o, NULL);
}

struct ksyms *finish__ksyms_of(const struct finish_opts *o, struct ksyms_reader *r)
{
	struct ksyms *ks;

	if (!o->kernel_symbols) {
		if (r)
			ksyms__free(ksyms_reader__finish(r));
		return NULL;
	}
	ks = r ? ksyms_reader__finish(r) : ksyms__load();
	if (!ks)
		warn("cannot read /proc/kallsyms: %s (kernel frames stay unnamed)", log__errstr(errno));
	else if (ksyms__addresses_hidden(ks))
		warn("kernel addresses are hidden (set sysctl kernel.kptr_restrict=0)");
	return ks;
}

/* --unwind dwarf, with -v: how user stacks were walked, what the tables hold. */
static void report_unwind(struct capture *cap, const uint64_t *c)
{
	struct unwind_maps_stats st;

	if (!capture__unwind_stats(cap, &st))
		return;
	info("user stacks: %" PRIu64 " walked with unwind tables, %" PRIu64 " of them whole;"
	     " frame pointers for code without a table in %" PRIu64 ", not loaded yet in %" PRIu64
	     ", with an unsupported rule in %" PRIu64 "; cut at unreadable memory %" PRIu64
	     ", at a bad frame %" PRIu64 ", at %d frames %" PRIu64,
	     c[CNT_UNWIND_STACKS], c[CNT_UNWIND_COMPLETE], c[CNT_UNWIND_NO_TABLE],
	     c[CNT_UNWIND_NOT_LOADED], c[CNT_UNWIND_UNSUPPORTED], c[CNT_UNWIND_UNREADABLE],
	     c[CNT_UNWIND_BAD_FRAME], SMOLDER_MAX_DEPTH, c[CNT_UNWIND_DEPTH]);
	info("unwind tables: %zu files (%" PRIu64 " KiB), %zu without CFI, %" PRIu64
	     " did not fit, %" PRIu64 " evicted; %" PRIu64 " KiB of kernel memory (at most %" PRIu64
	     " MiB); %zu process images, %zu mapping entries; built in %.0f ms",
	     st.files_loaded, st.table_bytes / 1024, st.files_no_table, st.too_big, st.evicted,
	     st.kernel_bytes / 1024, st.budget >> 20, st.processes, st.mappings, st.build_ms);
	info("unwind files: %zu known, %" PRIu64 " no longer mapped freed; %zu tables of mapped files"
	     " not loaded (waiting for room), %" PRIu64 " loaded again; %" PRIu64 " image reads left"
	     " mappings out, beyond a user's or a process's share", st.files_known, st.forgotten, st.waiting,
	     st.reloaded, st.over_share);
	if (st.mappings_dropped)
		warn("%" PRIu64 " process mappings found no room in the kernel: their frames fall"
		     " back to frame pointers", st.mappings_dropped);
}

/*
 * Why samples were lost, naming the map that was full and the option that
 * sizes it: the count map holds 3/8 as many sample keys as the stack map
 * holds stacks, or in continuous mode the samples of one interval.
 */
static void loss_hints(const struct finish_opts *o, const uint64_t *c)
{
	if (c[CNT_STACK_MAP_FULL])
		warn("the stack map was full for %" PRIu64 " stacks (it holds %u): raise "
		     "--stack-storage-size", c[CNT_STACK_MAP_FULL], o->stack_entries);
	if (!c[CNT_COUNT_MAP_FULL])
		return;
	if (o->continuous)
		warn("the count map was full for %" PRIu64 " samples (it holds %u sample keys: "
		     "the samples one interval takes at this rate, at most 65536): shorten "
		     "--interval or lower -F", c[CNT_COUNT_MAP_FULL], o->count_entries);
	else
		warn("the count map was full for %" PRIu64 " samples (it holds %u sample keys, one "
		     "per process, thread and stack): raise --stack-storage-size, which sizes it too "
		     "(%s, at least 1024), or lower -F", c[CNT_COUNT_MAP_FULL], o->count_entries,
		     o->count_entries == o->stack_entries ? "as many keys" : "3/8 as many keys");
}

/*
 * Samples with "[unknown]" user frames, by why: a line like the lost
 * samples' (a warning when there are some, with -v always); then what
 * naming gave up.
 */
static void naming_losses(const uint64_t *unnamed, const struct usyms *us)
{
	uint64_t total = 0, none[USYMS_MISS__MAX] = { 0 };
	struct usyms_stats st;
	char why[512];
	size_t at = 0;

	if (!unnamed)
		unnamed = none;
	for (int m = USYMS_NAMED + 1; m < USYMS_MISS__MAX; m++) {
		total += unnamed[m];
		if (at < sizeof(why))
			at += snprintf(why + at, sizeof(why) - at, "%s%s %" PRIu64,
				       at ? ", " : "", usyms__miss_name(m), unnamed[m]);
	}
	/* not "N samples": that starts the summary's first line, which
	 * scripts look for */
	log__msg(total ? 1 : 2, "%" PRIu64 " unnamed samples, with [unknown] user frames (%s)",
		total, why);
	usyms__stats(us, &st);
	if (st.files_too_big || st.files_late || st.jit_maps_cut)
		info("symbols: %" PRIu64 " files too big to read, %" PRIu64 " reads out of time, "
		     "%" PRIu64 " perf maps read in part", st.files_too_big, st.files_late,
		     st.jit_maps_cut);
	if (st.dwarf_files || st.dwarf_too_big || st.dwarf_failed)
		info("inline frames: %" PRIu64 " files with DWARF (%" PRIu64 " read for the frames "
		     "sampled in them), %" PRIu64 " without (%" PRIu64 " with only MiniDebugInfo, "
		     "which has none), %" PRIu64 " over the memory budget, %" PRIu64
		     " unreadable (their frames keep symbol names)", st.dwarf_files, st.dwarf_ready,
		     st.dwarf_none, st.dwarf_mini, st.dwarf_too_big, st.dwarf_failed);
}

/* --kernel-mode, --kernel-threads: what they left out, on request, so
 * apart from what was lost. */
static void kernel_filter_summary(const struct finish_opts *o, struct capture *cap)
{
	if (!o->kernel_mode && !o->kernel_threads)
		return;
	fprintf(stderr, "smolder: %" PRIu64 " samples left out by %s (%s)\n",
		capture__kernel_filtered(cap),
		o->kernel_mode && o->kernel_threads ? "--kernel-mode and --kernel-threads"
		: o->kernel_mode ? "--kernel-mode" : "--kernel-threads",
		o->kernel_mode && o->kernel_threads ? "taken in user mode, or of user tasks"
		: o->kernel_mode ? "taken in user mode" : "of user tasks");
}

/* How to get the distribution's debug symbols for the file at path into
 * buf: Debian's libc is libc6-dbg's, other packages' are in their -dbgsym
 * packages. */
static void debug_package_hint(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (!strncmp(base, "libc.so", 7) || !strncmp(base, "ld-linux", 8) ||
	    !strncmp(base, "libm.so", 7))
		snprintf(buf, len, "Debian: apt install libc6-dbg");
	else
		snprintf(buf, len, "Debian: apt install PKG-dbgsym from the debug archive, PKG "
			 "from `dpkg -S %s`", base);
}

void finish__unsymbolized_hint(const struct unsym_summary *u, uint64_t samples)
{
	char where[160], pkg[320];

	if (!u || !samples || u->samples * 100 < samples * FINISH_UNSYM_PERCENT)
		return;
	for (size_t i = 0; i < u->nr; i++) {
		const struct unsym_file *f = &u->top[i];

		if (i && f->samples * 100 < samples * FINISH_UNSYM_PERCENT / 2)
			break; /* the few that matter */
		if (strlen(f->build_id) > 2)
			snprintf(where, sizeof(where), ", or a debug file at /usr/lib/debug/.build-id/"
				 "%.2s/%s.debug", f->build_id, f->build_id + 2);
		else
			where[0] = '\0';
		debug_package_hint(f->path, pkg, sizeof(pkg));
		warn("note: %.0f%% of samples have frames in %s without symbols (named "
		     "[file+0xSTART], where their function starts): for names, install its debug "
		     "symbols (%s)%s", 100.0 * f->samples / samples, f->path, pkg, where);
	}
}

/* --off-cpu: "smolder: N off-CPU waits (T s), M lost (...)", as the
 * samples': T is the time the profile holds. */
static void offcpu_summary(const struct finish_opts *o, const uint64_t *c, uint64_t ns)
{
	if (!o->fold.time_weighted)
		return;
	char held[32] = "";

	if (ns != FINISH_TIME_UNKNOWN) /* --serve: its windows overlap */
		snprintf(held, sizeof(held), " (%.3f s)", ns / 1e9);
	fprintf(stderr, "smolder: %" PRIu64 " off-CPU waits%s, %" PRIu64 " lost (pending map"
		" full %" PRIu64 ", count map full %" PRIu64 ", stack map full %" PRIu64 ")\n",
		c[CNT_OFFCPU_WAITS], held, finish__offcpu_lost(c), c[CNT_OFFCPU_PENDING_FULL],
		c[CNT_OFFCPU_COUNT_FULL], c[CNT_OFFCPU_STACK_FULL]);
	if (c[CNT_OFFCPU_PENDING_FULL])
		warn("the map of pending waits was full for %" PRIu64 " waits (it holds %u threads"
		     " waiting at once): raise --hash-storage-size, or narrow the capture with -p"
		     " or --cgroup", c[CNT_OFFCPU_PENDING_FULL], o->offcpu_entries);
	if (c[CNT_OFFCPU_COUNT_FULL] && !c[CNT_COUNT_MAP_FULL])
		loss_hints(o, (uint64_t[CNT__MAX]){ [CNT_COUNT_MAP_FULL] = c[CNT_OFFCPU_COUNT_FULL] });
	info("off-CPU: %" PRIu64 " waits under the minimum and %" PRIu64 " over the maximum left"
	     " out; %" PRIu64 " wakers unnamed (their map was full)", c[CNT_OFFCPU_SHORT],
	     c[CNT_OFFCPU_LONG], c[CNT_OFFCPU_WAKERS_UNNAMED]);
}

void finish__summary(const struct finish_opts *o, struct capture *cap, const uint64_t *c,
		     uint64_t unwritten, const uint64_t *unnamed, const struct usyms *us,
		     uint64_t offcpu_ns)
{
	uint64_t lost, run_ns, runs;
	char more[64] = "";

	lost = c[CNT_STACK_MAP_FULL] + c[CNT_COUNT_MAP_FULL];
	if (log_verbosity < 1)
		return;
	if (unwritten)
		snprintf(more, sizeof(more), ", not written %" PRIu64, unwritten);
	fprintf(stderr, "smolder: %" PRIu64 " samples, %" PRIu64 " lost (stack map full %" PRIu64
		", count map full %" PRIu64 "%s)\n", c[CNT_SAMPLES], lost + unwritten,
		c[CNT_STACK_MAP_FULL], c[CNT_COUNT_MAP_FULL], more);
	loss_hints(o, c);
	kernel_filter_summary(o, cap);
	offcpu_summary(o, c, offcpu_ns);
	naming_losses(unnamed, us);
	info("%" PRIu64 " idle-loop samples left out, %" PRIu64 " kernel and %" PRIu64
	     " user stacks unreadable, %" PRIu64 " samples of tasks outside our pid namespace",
	     c[CNT_IDLE_SKIPPED], c[CNT_KSTACK_ERR], c[CNT_USTACK_ERR], c[CNT_PIDNS_MISS]);
	if (c[CNT_EVENTS_LOST] || c[CNT_IMAGES_UNTRACKED])
		warn("%" PRIu64 " process events lost, %" PRIu64 " samples of untracked processes:"
		     " processes that exited early may stay unnamed", c[CNT_EVENTS_LOST],
		     c[CNT_IMAGES_UNTRACKED]);
	if (c[CNT_WORK_UNNAMED])
		warn("%" PRIu64 " samples of work items stay unnamed (wq:[unknown]): the kernel's"
		     " table of work items was full", c[CNT_WORK_UNNAMED]);
	report_unwind(cap, c);
	info("BPF maps use %" PRIu64 " KiB of kernel memory", capture__map_bytes(cap) / 1024);
	capture__prog_stats(cap, false, &run_ns, &runs);
	if (runs)
		info("BPF program: %" PRIu64 " runs, %" PRIu64 " ns per run", runs, run_ns / runs);
	capture__prog_stats(cap, true, &run_ns, &runs);
	if (runs)
		info("off-CPU program (sched_switch): %" PRIu64 " runs, %" PRIu64 " ns per run",
		     runs, run_ns / runs);
}


/* The cpuidle driver's name ("none" without one), for the idle table. */
static void cpuidle_driver(char *buf, size_t len)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpuidle/current_driver", "re");

	if (!f || !fgets(buf, len, f))
		snprintf(buf, len, "none");
	buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

static void idle_row(const char *label, const uint64_t *n, double ms_per_sample)
{
	fprintf(stderr, "  %-5s", label);
	for (int p = 0; p < IDLE_PATH__MAX; p++)
		fprintf(stderr, " %10.1f", n[p] * ms_per_sample);
	fputc('\n', stderr);
}

/* A sampled CPU without idle samples: "-" in every column; its number
 * is added to the list in none. */
static void idle_row_unknown(const char *label, char *none, size_t len)
{
	size_t n = strlen(none);

	fprintf(stderr, "  %-5s", label);
	for (int p = 0; p < IDLE_PATH__MAX; p++)
		fprintf(stderr, " %10s", "-");
	fputc('\n', stderr);
	snprintf(none + n, len - n, "%s%s", n ? "," : "", label);
}

/*
 * Why CPUs (the list none, n of them) had no idle sample, in one line, by
 * the kernel's own count of their idle time during the capture (counted
 * ms, or < 0 when unknown; /proc/stat counts in 10 ms ticks): busy all
 * along, idle for less than a sampling period, or idle where the sampling
 * timer did not fire (a CPU halted in tickless idle, as some VMs' are);
 * and what to run instead.
 */
static void explain_unknown(const char *none, size_t n, double counted, double ms_per_sample)
{
	const char *its = n > 1 ? "their" : "its";

	if (counted < 0)
		fprintf(stderr, "smolder: no idle samples on cpu %s (-): busy all along, or idle without the sampling timer firing (tickless idle); %s idle time is not known: `mpstat -P ALL 1` shows it\n",
			none, its);
	else if (counted < 10.0 * n)
		fprintf(stderr, "smolder: cpu %s had no idle time (%.0f ms by the kernel's count, /proc/stat): busy all along; run without --idle-only to see what kept %s busy\n",
			none, counted, n > 1 ? "them" : "it");
	else if (counted < ms_per_sample * n)
		fprintf(stderr, "smolder: cpu %s idled %.0f ms by the kernel's count (/proc/stat), less than a sampling period (%.0f ms): raise -F or capture longer for %s idle paths\n",
			none, counted, ms_per_sample, its);
	else
		fprintf(stderr, "smolder: cpu %s idled %.0f ms by the kernel's count (/proc/stat) but no sample landed in %s idle loop: the sampling timer did not fire while idle (tickless idle, as on some VMs), so %s idle time by path is not known; `mpstat -P ALL 1` shows %s idle time\n",
			none, counted, its, its, its);
}

static bool sampled_cpu(const struct finish_opts *o, int cpu)
{
	for (size_t i = 0; i < o->nr_cpus; i++)
		if (o->cpus[i] == cpu)
			return true;
	return false;
}

/* The --idle-only table on stderr (unless -q): idle time per CPU and idle
 * path. */
static void idle_table(const struct finish_opts *o, const struct fold *f)
{
	const uint64_t *idle = fold__idle_paths(f);
	double ms = o->sample_ns / 1e6;
	uint64_t all[IDLE_PATH__MAX] = { 0 }, any;
	char driver[64], label[16], none[256] = "";
	double counted = 0;
	size_t nr_none = 0;

	/* --idle-only without a single idle sample still says so, CPU by CPU */
	static const uint64_t no_samples[(size_t)MAX_CPUS * IDLE_PATH__MAX];

	if (log_verbosity < 1)
		return;
	if (!idle)
		idle = no_samples;
	cpuidle_driver(driver, sizeof(driver));
	fprintf(stderr, "smolder: idle time by path, ms (cpuidle driver %s):\n  %-5s", driver, "cpu");
	for (int p = 0; p < IDLE_PATH__MAX; p++)
		fprintf(stderr, " %10s", ctxframes__idle_path_name(p));
	fputc('\n', stderr);
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		const uint64_t *row = &idle[cpu * IDLE_PATH__MAX];

		any = 0;
		for (int p = 0; p < IDLE_PATH__MAX; p++) {
			any |= row[p];
			all[p] += row[p];
		}
		snprintf(label, sizeof(label), "%d", cpu);
		if (any) {
			idle_row(label, row, ms);
		} else if (sampled_cpu(o, cpu)) {
			idle_row_unknown(label, none, sizeof(none));
			nr_none++;
			if (o->idle_ms)
				counted += o->idle_ms[cpu];
		}
	}
	idle_row("all", all, ms);
	if (none[0])
		explain_unknown(none, nr_none, o->idle_ms ? counted : -1, ms);
}

void finish__python_summary(const uint64_t *c, const struct fold_py_stats *f,
			    const struct py_names *py)
{
	static const char *const why[PY_MISS__MAX] = {
		[PY_MISS_GONE] = "process gone before its names were read",
		[PY_MISS_UNREADABLE] = "code object unreadable",
		[PY_MISS_CHANGED] = "code object replaced before it was read",
		[PY_MISS_FULL] = "over the names' memory bound",
		[PY_MISS_LATE] = "not read in time",
	};
	struct py_names_stats ps;

	if (!py || (!f->with && !f->without && !f->unsupported))
		return;
	py_names__stats(py, &ps);
	if (f->unsupported)
		warn("%" PRIu64 " samples of CPython versions whose frames cannot be read (3.8 to "
		     "3.13 can) keep the interpreter loop's frames", f->unsupported);
	if (log_verbosity < 2)
		return;
	info("python: %" PRIu64 " samples with Python frames, %" PRIu64 " without "
	     "(%" PRIu64 " thread state not found, %" PRIu64 " frame chain unreadable, "
	     "%" PRIu64 " cut at %d frames, %" PRIu64 " unsupported version); "
	     "%zu code objects read in %zu processes, %zu KiB",
	     f->with, f->without, c[CNT_PY_NO_THREAD], c[CNT_PY_UNREADABLE], c[CNT_PY_DEPTH],
	     PY_MAX_FRAMES, f->unsupported, ps.codes, ps.images, ps.bytes >> 10);
	for (int m = PY_MISS_GONE; m < PY_MISS__MAX; m++)
		if (f->miss[m])
			info("python: %" PRIu64 " samples with an unnamed Python frame: %s",
			     f->miss[m], why[m]);
}
