/*
 * jit_anon: runs generated code from anonymous memory, like a JIT, so the
 * leaf of its samples is in a mapping with no file: smolder's "[anon]".
 *
 *   main -> run_jit -> <code in an anonymous mapping>  (nearly all the time)
 *
 * The generated code is a frameless counted loop, so a frame-pointer
 * unwind shows main;[anon] (run_jit, its caller, is skipped as usual for
 * frameless leaves).  x86-64 only; elsewhere it exits with status 3.
 * Usage: jit_anon [SECONDS]  (default 5); exits on its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void run_jit(void (*fn)(void), double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 10; i++)
			fn();
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
#if defined(__x86_64__)
	static const unsigned char code[] = {
		0x48, 0xb9, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, /* mov $1000000, %rcx */
		0x48, 0xff, 0xc9,                             /* 1: dec %rcx */
		0x75, 0xfb,                                   /* jnz 1b */
		0xc3,                                         /* ret */
	};
	void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) < 0) {
		perror("mprotect");
		return 1;
	}
	run_jit((void (*)(void))mem, seconds);
	return 0;
#else
	(void)seconds;
	fprintf(stderr, "jit_anon: x86-64 only\n");
	return 3;
#endif
}
