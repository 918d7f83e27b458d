/*
 * dlopen_late: maps a shared library only after it has run (and been
 * sampled) for a while, then spends its time in the library:
 *
 *   main -> before_dlopen -> pre_leaf   until SIGUSR1 (or SECONDS pass)
 *   main -> call_lib -> SYMBOL          (the library's function, looked up
 *                                        with dlsym) for the rest of SECONDS
 *
 * SYMBOL (default lib_burn) is called as void SYMBOL(double seconds) and
 * should burn CPU for that long.  Prints "started" once SIGUSR1 is handled
 * and "loaded" once the library is in.
 * Usage: dlopen_late SECONDS LIBRARY [SYMBOL]
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile sig_atomic_t go;
static volatile unsigned long sink;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void pre_leaf(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink = acc;
}

__attribute__((noinline)) void before_dlopen(double end)
{
	while (!go && now() < end)
		for (int i = 0; i < 10; i++)
			pre_leaf(20000);
}

__attribute__((noinline)) void call_lib(void (*fn)(double), double seconds)
{
	fn(seconds);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	double end;
	void *h, *fn;

	if (argc < 3) {
		fprintf(stderr, "usage: dlopen_late SECONDS LIBRARY [SYMBOL]\n");
		return 2;
	}
	signal(SIGUSR1, on_usr1);
	printf("started\n");
	fflush(stdout);
	end = now() + atof(argv[1]);
	before_dlopen(end);
	h = dlopen(argv[2], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen_late: %s\n", dlerror());
		return 1;
	}
	fn = dlsym(h, argc > 3 ? argv[3] : "lib_burn");
	if (!fn) {
		fprintf(stderr, "dlopen_late: %s\n", dlerror());
		return 1;
	}
	printf("loaded\n");
	fflush(stdout);
	if (end > now())
		call_lib((void (*)(double))fn, end - now());
	return 0;
}
