/*
 * short_child: a short-lived process for the symbolization tests.  It burns
 * MS milliseconds of its own CPU time (default 40) in two named functions,
 * then exits:
 *
 *   main -> short_work -> short_leaf   (nearly all of its life)
 *
 * short_parent runs it over and over, so a profile of the machine holds
 * many processes that each lived ~40 ms and were gone long before the
 * capture ended.  Usage: short_child [MS]
 */
#include <stdlib.h>
#include <time.h>

#define UNIT 20000UL /* short_leaf iterations per call: ~10-30 us */

static volatile unsigned long sink;

/* The volatile stack slot gives the leaf a frame-pointer prologue. */
__attribute__((noinline)) void short_leaf(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink = acc;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void short_work(double ms)
{
	/* from now: a process's CPU time includes what it used before exec */
	double end = cpu_ms() + ms;

	/* Read the clock (a system call) once per ~0.5-1.5 ms of work. */
	while (cpu_ms() < end)
		for (int i = 0; i < 50; i++)
			short_leaf(UNIT);
}

int main(int argc, char **argv)
{
	short_work(argc > 1 ? atof(argv[1]) : 40);
	return 0;
}
