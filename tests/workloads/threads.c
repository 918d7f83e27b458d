/*
 * threads: two worker threads with distinct thread functions and a known
 * CPU split, for the thread filter (-L) and --per-thread tests.
 *
 *   thread_one -> spin_one: spins all the time            (1 CPU)
 *   thread_two -> spin_two: spins 5 ms, sleeps 5 ms, ...  (~1/2 CPU)
 *
 * so thread_one gets ~2/3 of the process's samples and thread_two ~1/3.
 * Each thread prints "NAME TID" (its gettid()) on stdout as it starts; the
 * main thread only waits in pthread_join (no CPU).  With "pin", thread_one
 * is pinned to CPU 0 and thread_two to CPU 1 (before they announce), so
 * which CPU runs which function is known too.
 * Usage: threads [SECONDS [pin]]  (default 5); exits on its own.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double seconds = 5;
static double start;
static int pin;
static volatile unsigned long sink;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void announce(const char *name, int cpu)
{
	if (pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
			fprintf(stderr, "threads: cannot pin %s to CPU %d\n", name, cpu);
			exit(1);
		}
	}
	pthread_mutex_lock(&out_lock);
	printf("%s %ld\n", name, (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

/* Spin until the monotonic clock reaches `until`, checking it sparsely. */
__attribute__((noinline)) void spin_one(double until)
{
	unsigned long acc = 0;

	while (now() < until)
		for (unsigned long i = 0; i < 20000; i++) {
			acc += i ^ (acc >> 3);
			__asm__ volatile("" : "+r"(acc) : : "memory");
		}
	sink = acc;
}

__attribute__((noinline)) void spin_two(double until)
{
	unsigned long acc = 0;

	while (now() < until)
		for (unsigned long i = 0; i < 20000; i++) {
			acc += i ^ (acc >> 5);
			__asm__ volatile("" : "+r"(acc) : : "memory");
		}
	sink = acc;
}

__attribute__((noinline)) void *thread_one(void *arg)
{
	(void)arg;
	announce("thread_one", 0);
	spin_one(start + seconds);
	return NULL;
}

__attribute__((noinline)) void *thread_two(void *arg)
{
	struct timespec nap = { 0, 5000000 }; /* 5 ms */
	double end = start + seconds;

	(void)arg;
	announce("thread_two", 1);
	while (now() < end) {
		spin_two(now() + 0.005);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t one, two;

	if (argc > 1)
		seconds = atof(argv[1]);
	pin = argc > 2 && !strcmp(argv[2], "pin");
	start = now();
	if (pthread_create(&one, NULL, thread_one, NULL) ||
	    pthread_create(&two, NULL, thread_two, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(one, NULL);
	pthread_join(two, NULL);
	return 0;
}
