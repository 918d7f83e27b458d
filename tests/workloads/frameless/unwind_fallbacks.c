/*
 * unwind_fallbacks: the DWARF unwinder's fallbacks, with call chains known
 * by construction (every named function noinline, no tail calls), built
 * like unwind_paths (-O2, no frame pointers, gcc and clang).  The hot
 * leaves are hand-written (unwind_fallbacks_x86_64.S) with call-frame
 * information the unwinder cannot use:
 *
 *   cfaexpr     main -> run_cfa_expr -> mid_cfa_expr -> spin_cfa_expr: CFA
 *               by a DWARF expression ("unsupported rule"); the leaf keeps
 *               a frame pointer, so the fallback finds its true caller
 *   raexpr      main -> run_ra_expr -> mid_ra_expr -> spin_ra_expr: the
 *               return address by an expression (also "unsupported rule")
 *   unreadable  main -> run_unreadable -> spin_unreadable, which points rbp
 *               at a page of run_unreadable's frame made PROT_NONE while its
 *               CFI says CFA = rbp + 16: the unwinder reads unreadable
 *               memory, and must cut the stack there
 *
 * Usage: unwind_fallbacks MODE [SECONDS]  (default 5); x86_64 only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else /* gcc would also clone and rename functions (foo.isra.0) */
#define NOINLINE __attribute__((noipa))
#endif
/* Keeps a call from being a tail call: the caller's frame stays. */
#define NOT_TAIL() __asm__ volatile("" ::: "memory")

#define SPIN 100000UL

unsigned long spin_cfa_expr(unsigned long n);
unsigned long spin_ra_expr(unsigned long n);
unsigned long spin_unreadable(unsigned long n, uintptr_t fp);

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE unsigned long mid_cfa_expr(unsigned long n)
{
	unsigned long r = spin_cfa_expr(n);

	NOT_TAIL();
	return r + 1;
}

NOINLINE void run_cfa_expr(double end)
{
	while (now() < end)
		sink += mid_cfa_expr(SPIN);
	NOT_TAIL();
}

NOINLINE unsigned long mid_ra_expr(unsigned long n)
{
	unsigned long r = spin_ra_expr(n);

	NOT_TAIL();
	return r + 2;
}

NOINLINE void run_ra_expr(double end)
{
	while (now() < end)
		sink += mid_ra_expr(SPIN);
	NOT_TAIL();
}

/*
 * A page inside this frame, above the leaf's stack pointer (so a CFA there
 * passes the unwinder's "above rsp" check), made unreadable while the leaf
 * runs and readable again before the frame is given back.
 */
NOINLINE void run_unreadable(double end)
{
	volatile char buf[3 * 4096];
	uintptr_t page = ((uintptr_t)buf + 4095) & ~(uintptr_t)4095;

	buf[0] = 1;
	if (mprotect((void *)page, 4096, PROT_NONE)) {
		perror("unwind_fallbacks: mprotect");
		exit(1);
	}
	while (now() < end)
		sink += spin_unreadable(SPIN, page);
	if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE)) {
		perror("unwind_fallbacks: mprotect");
		exit(1);
	}
	sink += buf[0];
	NOT_TAIL();
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 2 ? atof(argv[2]) : 5);

	if (argc < 2) {
		fprintf(stderr, "usage: unwind_fallbacks MODE [SECONDS]\n");
		return 2;
	}
	if (!strcmp(argv[1], "cfaexpr"))
		run_cfa_expr(end);
	else if (!strcmp(argv[1], "raexpr"))
		run_ra_expr(end);
	else if (!strcmp(argv[1], "unreadable"))
		run_unreadable(end);
	else
		return 2;
	return 0;
}
