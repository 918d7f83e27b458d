// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Continuous mode's draining (capture__rotate / capture__release), against
 * the real BPF program and busy children of this test, sampled with the
 * whole machine at 999 Hz while we rotate every 50-100 ms: every interval's
 * counts add up to its own sample counter, the intervals add up to the
 * totals sample for sample (with and without drops), the stacks of every
 * drained sample resolve, a released bank comes back empty, a second rotate
 * waits for the release, and 100 rotations cost no file descriptor.
 * Needs root (it loads BPF), like the CLI tests.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture.h"
#include "unit.h"

#define SPINNERS 2

static volatile unsigned long sink;

/* Frames kept so that user stacks go deep (some past one 16-frame chunk). */
__attribute__((noinline, optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")))
static void burn(int depth)
{
	if (depth > 0) {
		burn(depth - 1);
		__asm__ volatile("" ::: "memory"); /* not a tail call */
		return;
	}
	for (int i = 0; i < 20000; i++)
		sink += i;
}

static void spin(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a crashed test */
	for (unsigned int i = 0;; i++)
		burn(i % 40);
}

static void start_spinners(pid_t *pids)
{
	for (int i = 0; i < SPINNERS; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			spin();
	}
}

static void stop_spinners(pid_t *pids)
{
	for (int i = 0; i < SPINNERS; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	}
}

static int cpus[1024];

static struct capture *open_capture(uint32_t stack_chunks, uint32_t count_entries, bool rotate)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	struct capture_opts o = {
		.freq = 999,
		.kernel_stacks = true,
		.user_stacks = true,
		.idle_mode = IDLE_EXCLUDE,
		.cpus = cpus,
		.nr_cpus = n > 0 && n < 1024 ? n : 1,
		.stack_chunks = stack_chunks,
		.count_entries = count_entries,
		.rotate = rotate,
	};

	for (size_t i = 0; i < o.nr_cpus; i++)
		cpus[i] = i;
	return capture__open(&o);
}

/* What one drained bank holds. */
struct tally {
	struct capture *c;
	pid_t *pids;
	uint64_t samples, spinner_samples;
	size_t keys;
	int unresolved;  /* stacks referenced but not in the bank */
	uint64_t a_stack; /* some stack id seen, 0 if none */
	struct stack_trace st;
};

static bool resolves(struct tally *t, uint64_t id)
{
	if (!id)
		return true;
	t->a_stack = id;
	return !capture__stack(t->c, id, &t->st) && t->st.nr > 0;
}

static int tally_sample(const struct sample_key *k, uint64_t n, void *arg)
{
	struct tally *t = arg;

	t->samples += n;
	t->keys++;
	for (int i = 0; t->pids && i < SPINNERS; i++)
		if (k->tgid == (uint32_t)t->pids[i])
			t->spinner_samples += n;
	if (!resolves(t, k->kstack) || !resolves(t, k->ustack))
		t->unresolved++;
	return 0;
}

/*
 * Reads the drained bank into t and its counters into cnt, and checks it
 * on its own: its counts are exactly its counted samples minus the ones the
 * full count map dropped, and every stack it references is there.
 */
static void drain(struct capture *c, pid_t *pids, struct tally *t, uint64_t *cnt)
{
	*t = (struct tally){ .c = c, .pids = pids };
	CHECK(capture__for_each_sample(c, tally_sample, t) == 0);
	capture__counters(c, cnt);
	CHECK(t->samples + cnt[CNT_COUNT_MAP_FULL] == cnt[CNT_SAMPLES]);
	CHECK(t->unresolved == 0);
	if (t->samples + cnt[CNT_COUNT_MAP_FULL] != cnt[CNT_SAMPLES] || t->unresolved)
		printf("  interval: %llu counted, %llu dropped, %llu samples, %d unresolved\n",
		       (unsigned long long)t->samples, (unsigned long long)cnt[CNT_COUNT_MAP_FULL],
		       (unsigned long long)cnt[CNT_SAMPLES], t->unresolved);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct run {
	uint64_t samples, spinner_samples, cnt[CNT__MAX];
	int intervals;
	uint64_t last_stack; /* a stack of the last drained interval */
};

/* Rotates every 50-100 ms for `seconds`, then stops and drains the rest. */
static void rotate_for(struct capture *c, pid_t *pids, double seconds, struct run *r)
{
	uint64_t cnt[CNT__MAX];
	double end = now_s() + seconds;
	struct tally t;
	bool stopped = false;

	*r = (struct run){ 0 };
	while (!stopped) {
		if (now_s() < end) {
			usleep(50000 + (r->intervals % 6) * 10000);
		} else {
			capture__stop(c);
			stopped = true;
		}
		if (capture__rotate(c)) {
			CHECK(!"capture__rotate failed");
			return;
		}
		drain(c, pids, &t, cnt);
		r->samples += t.samples;
		r->spinner_samples += t.spinner_samples;
		for (int i = 0; i < CNT__MAX; i++)
			r->cnt[i] += cnt[i];
		r->intervals++;
		if (t.a_stack)
			r->last_stack = t.a_stack;
		CHECK(capture__release(c) == 0);
	}
}

/* The intervals add up to the run's totals, counter for counter. */
static void check_totals(struct capture *c, const struct run *r)
{
	uint64_t tot[CNT__MAX];

	capture__counters_total(c, tot);
	for (int i = 0; i < CNT__MAX; i++)
		CHECK(tot[i] == r->cnt[i]);
	CHECK(r->samples + tot[CNT_COUNT_MAP_FULL] == tot[CNT_SAMPLES]);
	printf("  %d intervals, %llu samples (%llu of the spinners), %llu dropped\n",
	       r->intervals, (unsigned long long)tot[CNT_SAMPLES],
	       (unsigned long long)r->spinner_samples,
	       (unsigned long long)tot[CNT_COUNT_MAP_FULL]);
}

/* After the stop: both banks, once released, come back empty. */
static void check_released_empty(struct capture *c, uint64_t old_stack)
{
	uint64_t cnt[CNT__MAX];
	struct tally t;

	for (int i = 0; i < SMOLDER_BANKS; i++) {
		CHECK(capture__rotate(c) == 0);
		drain(c, NULL, &t, cnt);
		CHECK(t.keys == 0);
		for (int j = 0; j < CNT__MAX; j++)
			CHECK(cnt[j] == 0);
		if (old_stack)
			CHECK(capture__stack(c, old_stack, &t.st) == -ENOENT);
		CHECK(capture__release(c) == 0);
	}
}

TEST(rotate_intervals_add_up)
{
	pid_t pids[SPINNERS];
	struct capture *c;
	struct run r;

	start_spinners(pids);
	c = open_capture(16384, 4096, true);
	CHECK(c != NULL);
	if (c) {
		rotate_for(c, pids, 2.0, &r);
		check_totals(c, &r);
		CHECK(r.intervals >= 10); /* ~25 on an idle machine */
		/* ~4000 on an idle machine; far fewer when others share the CPUs */
		CHECK(r.spinner_samples > 200);
		check_released_empty(c, r.last_stack);
		capture__free(c);
	}
	stop_spinners(pids);
}

/* Maps far too small: drops in every interval, each one still counted. */
TEST(rotate_counts_every_drop)
{
	pid_t pids[SPINNERS];
	struct capture *c;
	struct run r;

	start_spinners(pids);
	c = open_capture(16, 8, true);
	CHECK(c != NULL);
	if (c) {
		rotate_for(c, pids, 1.0, &r);
		check_totals(c, &r);
		CHECK(r.cnt[CNT_COUNT_MAP_FULL] > 0);
		CHECK(r.cnt[CNT_STACK_MAP_FULL] > 0);
		check_released_empty(c, 0);
		capture__free(c);
	}
	stop_spinners(pids);
}

TEST(rotate_waits_for_release)
{
	struct capture *c = open_capture(1024, 256, true);

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(capture__release(c) == 0); /* nothing drained: no-op */
	CHECK(capture__rotate(c) == 0);
	CHECK(capture__rotate(c) == -EBUSY);
	CHECK(capture__release(c) == 0);
	CHECK(capture__rotate(c) == 0);
	CHECK(capture__release(c) == 0);
	capture__free(c);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * Opened without rotate: the first rotate creates the second bank, later
 * ones reuse both.  Back-to-back rotations (a grace period apart) while the
 * spinners run: each short interval must still add up on its own.
 */
TEST(rotate_keeps_fds)
{
	uint64_t bytes, cnt[CNT__MAX], samples = 0;
	pid_t pids[SPINNERS];
	struct capture *c;
	struct tally t;
	int fds;

	start_spinners(pids);
	c = open_capture(16384, 4096, false);
	CHECK(c != NULL);
	if (c) {
		CHECK(capture__rotate(c) == 0);
		CHECK(capture__release(c) == 0);
		fds = count_fds();
		bytes = capture__map_bytes(c);
		for (int i = 0; i < 100; i++) {
			CHECK(capture__rotate(c) == 0);
			drain(c, pids, &t, cnt);
			samples += t.samples;
			CHECK(capture__release(c) == 0);
		}
		CHECK(fds > 0 && count_fds() == fds);
		CHECK(capture__map_bytes(c) == bytes);
		CHECK(samples > 0);
		capture__free(c);
	}
	stop_spinners(pids);
}

int main(void)
{
	if (geteuid()) {
		printf("FAIL capture_rotate: needs root (it loads the BPF program)\n");
		return 1;
	}
	RUN(rotate_intervals_add_up);
	RUN(rotate_counts_every_drop);
	RUN(rotate_waits_for_release);
	RUN(rotate_keeps_fds);
	UNIT_EXIT();
}
