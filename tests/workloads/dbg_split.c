/*
 * dbg_split: a 75/25 CPU split like cpu_split, but every function but main
 * is static, so once the binary is stripped no symbol table left in it
 * (not even .dynsym) names them: only separate debug information does
 * (a .gnu_debuglink file, a /usr/lib/debug/.build-id file, or a
 * MiniDebugInfo .gnu_debugdata section; the tests build those).
 *
 *   main -> dbg_loop -> dbg_three -> dbg_leaf   (3 units of work per round)
 *                    -> dbg_one   -> dbg_leaf   (1 unit of work per round)
 *
 * Usage: dbg_split [SECONDS]  (default 5); exits on its own.
 */
#include <stdlib.h>
#include <time.h>

#define UNIT 200000UL

static volatile unsigned long sink;

/* noclone: no dbg_leaf.constprop.0 and the like, the names stay plain. */
#define STATIC_FN static __attribute__((noinline, noclone, used))

STATIC_FN void dbg_leaf(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink = acc;
}

STATIC_FN void dbg_three(unsigned long unit)
{
	dbg_leaf(3 * unit);
	__asm__ volatile("" ::: "memory");
}

STATIC_FN void dbg_one(unsigned long unit)
{
	dbg_leaf(unit);
	__asm__ volatile("" ::: "memory");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

STATIC_FN void dbg_loop(double seconds, unsigned long unit)
{
	double end = now() + seconds;

	while (now() < end) {
		for (int i = 0; i < 10; i++) {
			dbg_three(unit);
			dbg_one(unit);
		}
	}
}

int main(int argc, char **argv)
{
	dbg_loop(argc > 1 ? atof(argv[1]) : 5, UNIT);
	return 0;
}
