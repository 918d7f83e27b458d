/*
 * many_stacks: produces 10,000 distinct user stacks.
 *
 * Path number p (0..9999) is walked as 14 nested calls, the call at depth d
 * going to step_a when bit d of p is 0 and to step_b when it is 1, then
 * leaf() burns ~75 us of CPU.  So every path is a distinct sequence of
 * function names (distinct even after symbolization):
 *
 *   main -> worker -> walk -> step_?(x14) -> leaf
 *
 * One worker thread per online CPU (or argv[2] threads), each cycling
 * through all paths from its own starting point.  Used by the loss test and
 * the benchmarks.  Usage: many_stacks [SECONDS [THREADS]]  (default 5).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define LEVELS 14
#define PATHS 10000
#define LEAF_NS 75000.0

static double seconds = 5;
static double end_time;
static int nthreads;
static unsigned long leaf_iters = 10000;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The accumulator lives on the stack (volatile): a leaf function that uses
 * no stack gets no frame-pointer prologue from gcc even with
 * -fno-omit-frame-pointer, and a frame-pointer unwind would then skip its
 * caller.  With a stack slot the prologue is there and every frame shows.
 */
__attribute__((noinline)) void leaf(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink = acc;
}

__attribute__((noinline)) void step_b(int depth, unsigned path);

__attribute__((noinline)) void step_a(int depth, unsigned path)
{
	if (depth == LEVELS)
		leaf(leaf_iters);
	else if ((path >> depth) & 1)
		step_b(depth + 1, path);
	else
		step_a(depth + 1, path);
	__asm__ volatile("" ::: "memory"); /* keep a real frame, no tail call */
}

__attribute__((noinline)) void step_b(int depth, unsigned path)
{
	if (depth == LEVELS)
		leaf(leaf_iters);
	else if ((path >> depth) & 1)
		step_b(depth + 1, path);
	else
		step_a(depth + 1, path);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void walk(unsigned path)
{
	if (path & 1)
		step_b(1, path);
	else
		step_a(1, path);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *worker(void *arg)
{
	unsigned path = (unsigned)(long)arg * (PATHS / nthreads);

	while (now() < end_time) {
		for (int i = 0; i < 100; i++) {
			walk(path);
			if (++path == PATHS)
				path = 0;
		}
	}
	return NULL;
}

/* Find how many leaf() iterations take LEAF_NS on this machine. */
static void calibrate(void)
{
	unsigned long n = 1000000;
	double best = 1e9;

	for (int i = 0; i < 5; i++) {
		double t = now();
		leaf(n);
		t = now() - t;
		if (t < best)
			best = t;
	}
	leaf_iters = (unsigned long)(n * (LEAF_NS / 1e9) / best);
	if (leaf_iters < 100)
		leaf_iters = 100;
}

int main(int argc, char **argv)
{
	pthread_t tids[256];

	if (argc > 1)
		seconds = atof(argv[1]);
	nthreads = argc > 2 ? atoi(argv[2]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > 256)
		nthreads = 256;
	calibrate();
	end_time = now() + seconds;
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, (void *)i)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
