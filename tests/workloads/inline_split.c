/*
 * inline_split: one thread whose CPU time is split 50/30/20 by
 * construction between three chains of functions the compiler inlines
 * (always_inline) into one real function, outer, at depths 1, 2 and 3:
 *
 *   main -> outer -> half_leaf                              (5 units a round)
 *                 -> thirty_mid -> thirty_leaf               (3 units)
 *                 -> twenty_top -> twenty_mid -> twenty_leaf (2 units)
 *
 * Built -O2 -g by gcc (inline_split) and by clang (inline_split_clang):
 * only outer and main have symbols of their own, and only DWARF names the
 * rest.  Each leaf burns its units in a loop written on one line (the
 * "hot line" of that leaf) whose body differs from the others' only in a
 * shift count, so the three cost the same per iteration, and the compiler
 * cannot merge them into one block of code.  The accumulator is volatile:
 * every iteration is a load and a store, which nothing vectorizes.
 * Each round's length varies at random (half to one and a half times the
 * mean, the 5:3:2 kept exactly within the round), so a fixed-period
 * sampler cannot fall into step with it.
 *
 * Usage: inline_split [SECONDS]   (default 5): prints "ready" when the
 *                                 work starts, exits after SECONDS
 *        inline_split --selfcheck [SECONDS]: times each chain in the
 *                                 thread's CPU time and prints the split
 *                                 ("half=50.0 thirty=30.0 twenty=20.0")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UNIT 50000UL /* loop iterations per unit: ~0.1 ms */

/* clang has no noclone; gcc must not make outer.constprop.0 of outer. */
#ifdef __clang__
#define REAL_FN __attribute__((noinline))
#else
#define REAL_FN __attribute__((noinline, noclone))
#endif
#define INLINE_FN static inline __attribute__((always_inline))

static volatile unsigned long sink;

INLINE_FN void half_leaf(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++) acc += i ^ (acc >> 3); /* hot: half */
	sink = acc;
}

INLINE_FN void thirty_leaf(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++) acc += i ^ (acc >> 5); /* hot: thirty */
	sink = acc;
}

INLINE_FN void thirty_mid(unsigned long n)
{
	thirty_leaf(n);
}

INLINE_FN void twenty_leaf(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++) acc += i ^ (acc >> 7); /* hot: twenty */
	sink = acc;
}

INLINE_FN void twenty_mid(unsigned long n)
{
	twenty_leaf(n);
}

INLINE_FN void twenty_top(unsigned long n)
{
	twenty_mid(n);
}

/* xorshift32: the rounds need to be irregular, not unpredictable. */
REAL_FN unsigned int next_random(void)
{
	static unsigned int x = 2463534242u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/*
 * Not inlined: inlined in main, clang 14 gives it two address ranges (a
 * DWARF 5 rnglistx), which binutils 2.40's addr2line, the tests'
 * reference, does not see as an inlined function.
 */
REAL_FN double clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The CPU time each chain took, for --selfcheck (NULL: not timed). */
struct chain_times {
	double half, thirty, twenty;
};

/*
 * Ten rounds of 5:3:2 units.  The clock is read only when timed is given
 * (--selfcheck): otherwise the chains are all outer runs.
 */
REAL_FN void outer(struct chain_times *timed)
{
	for (int r = 0; r < 10; r++) {
		unsigned long quarter = UNIT / 4 * (2 + next_random() % 5);
		double t0 = timed ? clock_s(CLOCK_THREAD_CPUTIME_ID) : 0;

		half_leaf(5 * quarter);
		double t1 = timed ? clock_s(CLOCK_THREAD_CPUTIME_ID) : 0;
		thirty_mid(3 * quarter);
		double t2 = timed ? clock_s(CLOCK_THREAD_CPUTIME_ID) : 0;
		twenty_top(2 * quarter);
		if (timed) {
			double t3 = clock_s(CLOCK_THREAD_CPUTIME_ID);

			timed->half += t1 - t0;
			timed->thirty += t2 - t1;
			timed->twenty += t3 - t2;
		}
	}
}

int main(int argc, char **argv)
{
	int selfcheck = argc > 1 && strcmp(argv[1], "--selfcheck") == 0;
	double seconds = argc > 1 + selfcheck ? atof(argv[1 + selfcheck]) : 5;
	struct chain_times times = { 0 };

	printf("ready\n");
	fflush(stdout);
	double end = clock_s(CLOCK_MONOTONIC) + seconds;
	while (clock_s(CLOCK_MONOTONIC) < end)
		outer(selfcheck ? &times : NULL);
	if (selfcheck) {
		double all = times.half + times.thirty + times.twenty;

		printf("half=%.1f thirty=%.1f twenty=%.1f\n", 100 * times.half / all,
		       100 * times.thirty / all, 100 * times.twenty / all);
	}
	return 0;
}
