/*
 * jit_perfmap: a JIT that names its code for profilers the way perf
 * expects, in /tmp/perf-PID.map ("START SIZE name" in hex, one a line).
 * It copies machine code with a frame (push %rbp; mov %rsp,%rbp) into
 * executable memory and runs it:
 *
 *   main -> run_jit -> jit_hot_loop   (generated code: a counted loop)
 *
 * The code sits at offset 0x40 of its page; the map also names the first
 * 0x40 bytes jit_cold_stub (never run), so a name found for the wrong
 * address shows.  After every call run_jit reads 128 KiB from /dev/zero,
 * so a few % of the samples have kernel frames too.  MODE:
 *   map    anonymous memory, map file written (default)
 *   nomap  anonymous memory, no map file (the test may plant its own)
 *   heap   the code is in the brk heap ([heap] in /proc/PID/maps), no map
 * Prints "jit START SIZE" (hex) on stdout once ready; removes the map file
 * it wrote at exit.  x86-64 only; elsewhere it exits with status 3.
 * Usage: jit_perfmap [SECONDS [MODE]]  (default 5 map)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#define CODE_OFF 0x40

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void run_jit(void (*fn)(void), double seconds)
{
	static char buf[1 << 17];
	double end = now() + seconds;
	int zero = open("/dev/zero", O_RDONLY);

	while (now() < end) {
		fn();
		if (zero >= 0 && read(zero, buf, sizeof(buf)) < 0)
			break;
	}
	if (zero >= 0)
		close(zero);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	const char *mode = argc > 2 ? argv[2] : "map";
#if defined(__x86_64__)
	static const unsigned char code[] = {
		0x55,                                         /* push %rbp */
		0x48, 0x89, 0xe5,                             /* mov %rsp, %rbp */
		0x48, 0xb9, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, /* mov $1000000, %rcx */
		0x48, 0xff, 0xc9,                             /* 1: dec %rcx */
		0x75, 0xfb,                                   /* jnz 1b */
		0x5d,                                         /* pop %rbp */
		0xc3,                                         /* ret */
	};
	long page = sysconf(_SC_PAGESIZE);
	char path[64] = "";
	unsigned char *mem;

	if (!strcmp(mode, "heap")) {
		void *p = NULL;

		/* small enough for malloc to take it from the brk heap */
		if (posix_memalign(&p, page, page)) {
			perror("posix_memalign");
			return 1;
		}
		mem = p;
	} else if (!strcmp(mode, "map") || !strcmp(mode, "nomap")) {
		mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	} else {
		fprintf(stderr, "jit_perfmap: unknown mode %s\n", mode);
		return 2;
	}
	memset(mem, 0xcc, page); /* int3 around the code */
	memcpy(mem + CODE_OFF, code, sizeof(code));
	if (mprotect(mem, page, PROT_READ | PROT_EXEC) < 0) {
		perror("mprotect");
		return 1;
	}
	if (!strcmp(mode, "map")) {
		FILE *f;

		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(path, "w");
		if (!f) {
			perror(path);
			return 1;
		}
		fprintf(f, "%lx %x jit_cold_stub\n", (unsigned long)mem, CODE_OFF);
		fprintf(f, "%lx %zx jit_hot_loop\n", (unsigned long)(mem + CODE_OFF), sizeof(code));
		fclose(f);
	}
	printf("jit %lx %zx\n", (unsigned long)(mem + CODE_OFF), sizeof(code));
	fflush(stdout);
	run_jit((void (*)(void))(mem + CODE_OFF), seconds);
	if (path[0])
		unlink(path);
	return 0;
#else
	(void)seconds;
	(void)mode;
	fprintf(stderr, "jit_perfmap: x86-64 only\n");
	return 3;
#endif
}
