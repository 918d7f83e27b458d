/*
 * cpu_time: spins until it has used SECONDS of CPU time (its own clock,
 * CLOCK_PROCESS_CPUTIME_ID), however long that takes on a loaded machine,
 * so a sampler at F Hz takes about SECONDS * F samples of it:
 *
 *   main -> spin_until -> burn
 *
 * Usage: cpu_time [SECONDS]  (default 0.3).
 */
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

static void __attribute__((noinline)) burn(void)
{
	for (int i = 0; i < 20000; i++)
		sink += i;
}

static void __attribute__((noinline)) spin_until(double seconds)
{
	while (cpu_seconds() < seconds)
		burn();
}

int main(int argc, char **argv)
{
	spin_until(argc > 1 ? atof(argv[1]) : 0.3);
	return 0;
}
