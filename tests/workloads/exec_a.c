/*
 * exec_a / exec_b: two programs with the same code at the same addresses
 * but different function names, to catch symbols attached to the wrong
 * binary after exec or PID reuse.  exec_b.c defines the B names and
 * includes this file, so both are built from one text and their functions
 * sit at identical offsets (check: nm build/workloads/exec_[ab]).
 *
 *   exec_a: main -> a_work -> a_leaf      exec_b: main -> b_work -> b_leaf
 *
 * Each burns MS milliseconds of CPU time (default 40); then, if more
 * arguments follow, it execs them (same PID, new binary):
 *   exec_a 40 /path/exec_b 40   burns in a_* for 40 ms, then in b_* for 40 ms.
 * Usage: exec_a [MS [PROGRAM ARGS...]]   (make workloads rebuilds exec_b
 * only when exec_b.c changes: touch it after editing this file)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef EXEC_WORK
#define EXEC_WORK a_work
#define EXEC_LEAF a_leaf
#endif

#define UNIT 20000UL

static volatile unsigned long sink;

__attribute__((noinline)) void EXEC_LEAF(unsigned long n)
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

__attribute__((noinline)) void EXEC_WORK(double ms)
{
	/* from now: a process's CPU time includes what it used before exec */
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		for (int i = 0; i < 50; i++)
			EXEC_LEAF(UNIT);
}

int main(int argc, char **argv)
{
	EXEC_WORK(argc > 1 ? atof(argv[1]) : 40);
	if (argc > 2) {
		execv(argv[2], argv + 2);
		perror("exec");
		return 127;
	}
	return 0;
}
