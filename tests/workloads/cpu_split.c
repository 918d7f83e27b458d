/*
 * cpu_split: one thread whose CPU time is split 75/25 between two named
 * functions by construction.
 *
 *   main -> run_loop -> burn_a -> spin   (3 units of work per round)
 *                    -> burn_b -> spin   (1 unit of work per round)
 *
 * burn_a and burn_b call the same leaf, spin(), with iteration counts 3:1,
 * so the share of samples on stacks through burn_a is 75% whatever the CPU
 * speed.  Each round's length varies at random (half to one and a half
 * times the mean, the 3:1 kept exactly within the round): with rounds of
 * one length a fixed-period sampler can fall into step with them, and a
 * 1.5 s capture in a slow emulated guest once saw 56% burn_a that way.
 * Usage: cpu_split [SECONDS]  (default 5); exits on its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT 200000UL /* spin iterations per unit: ~0.1-0.3 ms */

/* This round's length in quarter units: 2..6, 4 on average. */
static unsigned long round_quarters = 4;

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
	spin(3 * (UNIT / 4) * round_quarters);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void burn_b(void)
{
	spin((UNIT / 4) * round_quarters);
	__asm__ volatile("" ::: "memory");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift32: the rounds need to be irregular, not unpredictable. */
static inline __attribute__((always_inline)) unsigned int next_random(void)
{
	static unsigned int x = 2463534242u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

__attribute__((noinline)) void run_loop(double seconds)
{
	double end = now() + seconds;

	/* Check the clock once per 10 rounds: time outside spin() is tiny. */
	while (now() < end) {
		for (int i = 0; i < 10; i++) {
			round_quarters = 2 + next_random() % 5;
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
