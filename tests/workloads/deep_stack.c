/*
 * deep_stack: burns CPU at the bottom of a 100-deep recursion, so every
 * sample's user stack holds exactly 100 recurse() frames between run() and
 * deep_leaf(): deeper than several of smolder's 16-frame stack chunks.
 * Usage: deep_stack [SECONDS]  (default 3).
 */
#include <stdlib.h>
#include <time.h>

#define DEPTH 100

static volatile unsigned long sink;
static double end_time;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void deep_leaf(void)
{
	while (now() < end_time)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void recurse(int depth)
{
	if (depth > 1)
		recurse(depth - 1);
	else
		deep_leaf();
	sink++; /* keeps the call from becoming a tail call */
}

__attribute__((noinline)) void run(void)
{
	recurse(DEPTH);
}

int main(int argc, char **argv)
{
	end_time = now() + (argc > 1 ? atof(argv[1]) : 3);
	run();
	return 0;
}
