/*
 * thin_tower: one wide shallow hot path and one thin deep tower, for the
 * flame graph's first screen (tests/cli/svg_browser.sh).  Rounds of 100 ms
 * of CPU time: 98.5 ms in main -> wide_path -> wide_leaf, 1.5 ms at the top of
 * a 140-deep recursion (climb), deeper than the 127 frames a stack keeps.
 * The split is of CPU time, so it does not depend on how busy the machine
 * is.  Usage: thin_tower [SECONDS]  (default 3).
 */
#include <stdlib.h>
#include <time.h>

#define TOWER_DEPTH 140

static volatile unsigned long sink;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void spin(double cpu_seconds)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + cpu_seconds;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

__attribute__((noinline)) void wide_leaf(void)
{
	spin(0.0985);
}

__attribute__((noinline)) void wide_path(void)
{
	wide_leaf();
	sink++; /* keeps the call from becoming a tail call */
}

__attribute__((noinline)) void tower_leaf(void)
{
	spin(0.0015);
}

__attribute__((noinline)) void climb(int depth)
{
	if (depth > 1)
		climb(depth - 1);
	else
		tower_leaf();
	sink++;
}

int main(int argc, char **argv)
{
	double end = clock_s(CLOCK_MONOTONIC) + (argc > 1 ? atof(argv[1]) : 3);

	while (clock_s(CLOCK_MONOTONIC) < end) {
		wide_path();
		climb(TOWER_DEPTH);
	}
	return 0;
}
