/*
 * cpu_split: one thread whose CPU time is split 75/25 between two named
 * functions by construction.
 *
 *   main -> run_loop -> burn_a -> spin   (3 units of work per round)
 *                    -> burn_b -> spin   (1 unit of work per round)
 *
 * burn_a and burn_b call the same leaf, spin(), with iteration counts 3:1,
 * so the share of samples on stacks through burn_a is 75% whatever the CPU
 * speed.  Usage: cpu_split [SECONDS]  (default 5); exits on its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT 200000UL /* spin iterations per unit: ~0.1-0.3 ms */

static volatile unsigned long sink;

/*
 * The accumulator lives on the stack (volatile): a leaf function that uses
 * no stack gets no frame-pointer prologue from gcc even with
 * -fno-omit-frame-pointer, and a frame-pointer unwind would then skip its
 * caller.  With a stack slot the prologue is there and every frame shows.
 */
__attribute__((noinline)) void spin(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink = acc;
}

__attribute__((noinline)) void burn_a(void)
{
	spin(3 * UNIT);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void burn_b(void)
{
	spin(UNIT);
	__asm__ volatile("" ::: "memory");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void run_loop(double seconds)
{
	double end = now() + seconds;

	/* Check the clock once per 10 rounds: time outside spin() is tiny. */
	while (now() < end) {
		for (int i = 0; i < 10; i++) {
			burn_a();
			burn_b();
		}
	}
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;

	run_loop(seconds);
	return 0;
}
