/*
 * hostile: a process that makes a profiler's symbolization expensive, as an
 * unprivileged user can.  The main thread runs code that some file or map
 * must name; a second thread maps and unmaps a page in a loop, so that the
 * number of mappings changes all the time (a profiler told of every change
 * would re-read everything, again and again).  MODE:
 *   jit LINES NAMELEN  JIT code in anonymous executable memory, named
 *                      jit_hot_loop by the last line of a /tmp/perf-PID.map
 *                      of LINES lines (the others name code elsewhere, each
 *                      name NAMELEN bytes long)
 *   elf FILE           runs the code page of FILE (tests/tools/many_syms),
 *                      mapped executable from the file
 *   maps N             N more anonymous mappings (no perf map); JIT code
 * Prints "ready" once set up; removes its map file at exit.  x86-64 only;
 * elsewhere it exits with status 3.
 * Usage: hostile SECONDS MODE ARGS...
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#define CODE_OFF 0x40

static volatile int stop;
static char map_path[64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Maps and unmaps a page, as fast as it can. */
static void *churn(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)arg;
	while (!stop) {
		void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, page);
	}
	return NULL;
}

__attribute__((noinline)) void run_code(void (*fn)(void), double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		fn();
}

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

/* The generated code in anonymous executable memory. */
static unsigned char *jit_code(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *mem = mmap(NULL, page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	memset(mem, 0xcc, page);
	memcpy(mem + CODE_OFF, code, sizeof(code));
	if (mprotect(mem, page, PROT_READ | PROT_EXEC))
		return NULL;
	return mem + CODE_OFF;
}

/* LINES - 1 lines naming code elsewhere, then the one naming ours. */
static int write_map(const unsigned char *fn, long lines, int namelen)
{
	char *name = malloc(namelen + 1);
	FILE *f;
	long i;

	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map_path, "w");
	if (!f || !name)
		return -1;
	memset(name, 'x', namelen);
	name[namelen] = '\0';
	for (i = 0; i < lines - 1; i++) {
		int n = snprintf(name, namelen + 1, "LazyCompile:*fn%ld", i);

		if (n < namelen)
			name[n] = 'x';
		fprintf(f, "%lx 40 %s\n", 0x10000000UL + i * 0x40, name);
	}
	fprintf(f, "%lx %zx jit_hot_loop\n", (unsigned long)fn, sizeof(code));
	free(name);
	return fclose(f);
}

/* FILE's code page, mapped executable from the file itself. */
static void *file_code(const char *path)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, 0x1000, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0x1000);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* n anonymous pages, every other one writable so that none merge. */
static int many_maps(long n)
{
	long page = sysconf(_SC_PAGESIZE), i;

	for (i = 0; i < n; i++)
		if (mmap(NULL, page, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			return -1;
	return 0;
}

static void *setup(int argc, char **argv)
{
	const char *mode = argv[2];

	if (!strcmp(mode, "jit") && argc == 5) {
		unsigned char *fn = jit_code();

		return fn && !write_map(fn, atol(argv[3]), atoi(argv[4])) ? fn : NULL;
	}
	if (!strcmp(mode, "elf") && argc == 4)
		return file_code(argv[3]);
	if (!strcmp(mode, "maps") && argc == 4)
		return many_maps(atol(argv[3])) ? NULL : jit_code();
	fprintf(stderr, "usage: hostile SECONDS jit LINES NAMELEN | elf FILE | maps N\n");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	void *fn;

	if (argc < 3)
		return 2;
	fn = setup(argc, argv);
	if (!fn) {
		perror("hostile");
		return 1;
	}
	if (pthread_create(&tid, NULL, churn, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	run_code((void (*)(void))fn, atof(argv[1]));
	stop = 1;
	pthread_join(tid, NULL);
	if (map_path[0])
		unlink(map_path);
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "hostile: x86-64 only\n");
	return 3;
}
#endif
