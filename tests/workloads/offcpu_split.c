/*
 * offcpu_split: a thread whose wall time is split by construction between
 * running and two kinds of waiting, for --off-cpu's tests.
 *
 *   offcpu_split [SECONDS]          (default 5) rounds of 100 ms:
 *     main -> run_rounds -> compute    30 ms of CPU time, spinning
 *                        -> doze       50 ms in nanosleep (state S)
 *                        -> wait_pipe  20 ms blocked in read(2) on a pipe
 *                                      (S), until the "pipe_writer" thread,
 *                                      asked through another pipe, has
 *                                      slept 20 ms and writes
 *   offcpu_split long SECONDS       main -> long_naps: nanosleep 1.5 s at a
 *                                   time (waits across 1 s intervals)
 *   offcpu_split vfork SECONDS      main -> vfork_waits: vfork, the child
 *                                   sleeps 100 ms and exits; the parent
 *                                   waits uninterruptibly (D) meanwhile
 *   offcpu_split sleepers N SECONDS N threads ("sleeper") that sleep 50 ms
 *                                   at a time, all waiting at once
 *   offcpu_split blocked N SECONDS  N threads that sleep SECONDS at once:
 *                                   waiting all along, never switching
 *   offcpu_split named NAME SECONDS the default rounds, with the writer
 *                                   thread named NAME (e.g. "[irq]", as
 *                                   any task may name itself)
 *
 * compute spins for CPU time, not wall time, so its share does not depend
 * on how busy the machine is.  Exits on its own; the default mode then
 * prints on stderr "offcpu_split: wall W run_delay R": the main thread's
 * seconds from start to end, and of them those it spent runnable but not
 * running (schedstat), which is neither on nor off the CPU in S or D.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static int request[2], reply[2];
static const char *writer_name = "pipe_writer";
static volatile unsigned long sink;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void compute(double cpu_seconds)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + cpu_seconds;
	volatile unsigned long acc = 0;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			acc += i ^ (acc >> 3);
	sink = acc;
}

__attribute__((noinline)) void doze(double seconds)
{
	nap(seconds);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void wait_pipe(void)
{
	char c = 1;

	if (write(request[1], &c, 1) != 1 || read(reply[0], &c, 1) != 1)
		exit(1);
	__asm__ volatile("" ::: "memory");
}

/* Answers each request after 20 ms. */
static void *pipe_writer(void *arg)
{
	char c;

	(void)arg;
	prctl(PR_SET_NAME, writer_name);
	while (read(request[0], &c, 1) == 1) {
		nap(0.020);
		if (write(reply[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

__attribute__((noinline)) void run_rounds(double seconds)
{
	double end = clock_s(CLOCK_MONOTONIC) + seconds;

	while (clock_s(CLOCK_MONOTONIC) < end) {
		compute(0.030);
		doze(0.050);
		wait_pipe();
	}
}

__attribute__((noinline)) void long_naps(double seconds)
{
	double end = clock_s(CLOCK_MONOTONIC) + seconds;

	while (clock_s(CLOCK_MONOTONIC) < end)
		nap(1.5);
}

__attribute__((noinline)) void vfork_waits(double seconds)
{
	double end = clock_s(CLOCK_MONOTONIC) + seconds;
	pid_t pid;

	while (clock_s(CLOCK_MONOTONIC) < end) {
		pid = vfork();
		if (pid == 0) {
			struct timespec ts = { 0, 100000000 };

			nanosleep(&ts, NULL);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			exit(1);
	}
}

static double nap_length = 0.050; /* "blocked": the whole run at once */

static void *sleeper(void *arg)
{
	double end = *(double *)arg;

	prctl(PR_SET_NAME, "sleeper");
	while (clock_s(CLOCK_MONOTONIC) < end)
		nap(nap_length);
	return NULL;
}

static int sleepers(int n, double seconds)
{
	static double end;
	pthread_attr_t attr;
	pthread_t t;

	end = clock_s(CLOCK_MONOTONIC) + seconds;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, &attr, sleeper, &end)) {
			fprintf(stderr, "offcpu_split: only %d threads\n", i);
			break;
		}
	nap(seconds + 0.5);
	return 0;
}

/* Seconds the calling thread has waited on a run queue (0 without schedstat). */
static double run_delay(void)
{
	unsigned long long run, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay / 1e9;
}

int main(int argc, char **argv)
{
	double t0 = clock_s(CLOCK_MONOTONIC), d0 = run_delay();
	pthread_t w;

	if (argc > 2 && !strcmp(argv[1], "long")) {
		long_naps(atof(argv[2]));
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "vfork")) {
		vfork_waits(atof(argv[2]));
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "sleepers"))
		return sleepers(atoi(argv[2]), atof(argv[3]));
	if (argc > 3 && !strcmp(argv[1], "blocked")) {
		nap_length = atof(argv[3]);
		return sleepers(atoi(argv[2]), atof(argv[3]));
	}
	if (argc > 3 && !strcmp(argv[1], "named")) {
		writer_name = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (pipe(request) || pipe(reply) || pthread_create(&w, NULL, pipe_writer, NULL))
		return 1;
	run_rounds(argc > 1 ? atof(argv[1]) : 5);
	fprintf(stderr, "offcpu_split: wall %.6f run_delay %.6f\n", clock_s(CLOCK_MONOTONIC) - t0,
		run_delay() - d0);
	return 0;
}
