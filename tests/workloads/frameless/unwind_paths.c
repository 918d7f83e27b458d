/*
 * unwind_paths: call chains whose paths are known by construction, built
 * the way distributions build code (-O2, no frame pointers) by gcc and by
 * clang, for the DWARF unwinder.  Every named function is noinline and no
 * call is a tail call, so each is a real frame; the leaves are frameless.
 *
 *   leaf      main -> run_leaf -> chain_a -> chain_b -> hot_leaf
 *   bigframe  main -> big_frame (a 72 KiB frame) -> hot_leaf
 *   recurse   main -> recurse (200 deep) -> hot_leaf
 *   plt       main -> run_plt -> qsort (libc, through the PLT) -> by_value
 *   signal    main -> run_leaf -> ...; SIGPROF's handler: on_prof -> hot_leaf
 *             above glibc's __restore_rt
 *   sigentry  main -> run_fault -> load_at_entry, which faults on its first
 *             instruction; SIGSEGV's handler: on_segv -> hot_leaf, then
 *             back to run_fault.  The signal frame's pc is a function's
 *             entry: named as it is, not as a return address - 1 (which is
 *             the function before)
 *   threads   2 threads: thread_main -> run_leaf -> chain_a -> ...
 *   dlopen    main -> run_dlopen -> dl_entry -> dl_work (unwind_dl-CC.so,
 *             next to this binary, frameless too)
 *   jit       main -> run_jit -> jit_trampoline (generated code in anonymous
 *             memory, with a frame pointer, named in /tmp/perf-PID.map) ->
 *             jit_callback -> hot_leaf: table code, JIT code, table code
 *             (x86_64; elsewhere the mode runs run_leaf instead)
 *   all       each of the above in turn
 *   deep      main -> deep_29 -> ... -> deep_0 -> hot_leaf: 30 distinct
 *             functions, so every frame takes its own table search (for
 *             make bench-unwind, which also builds this file with frame
 *             pointers; not in "all")
 *
 * Usage: unwind_paths MODE [SECONDS]  (default 5); exits on its own.
 */
#include <dlfcn.h>
#include <sys/mman.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else /* gcc would also clone and rename functions (foo.isra.0) */
#define NOINLINE __attribute__((noipa))
#endif
/* Keeps a call from being a tail call: the caller's frame stays. */
#define NOT_TAIL() __asm__ volatile("" ::: "memory")

#ifndef WL_CC
#define WL_CC "cc"
#endif

static volatile unsigned long sink;

NOINLINE unsigned long hot_leaf(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < n; i++)
		acc = acc * 6364136223846793005UL + (i ^ (acc >> 29));
	return acc;
}

NOINLINE unsigned long chain_b(unsigned long n)
{
	unsigned long r = hot_leaf(n);

	NOT_TAIL();
	return r + 1;
}

NOINLINE unsigned long chain_a(unsigned long n)
{
	unsigned long r = chain_b(n);

	NOT_TAIL();
	return r + 2;
}

NOINLINE void run_leaf(unsigned long n)
{
	sink += chain_a(n);
	NOT_TAIL();
}

/* A frame over 64 KiB: its CFA offset does not fit 16 bits of bytes. */
NOINLINE void big_frame(unsigned long n)
{
	volatile char buf[72 * 1024];

	buf[0] = (char)n;
	buf[sizeof(buf) - 1] = (char)(n >> 8);
	sink += hot_leaf(n) + buf[0] + buf[sizeof(buf) - 1];
	NOT_TAIL();
}

NOINLINE unsigned long recurse(unsigned int depth, unsigned long n)
{
	unsigned long r = depth ? recurse(depth - 1, n) : hot_leaf(n);

	NOT_TAIL();
	return r + depth;
}

/* deep_N calls deep_N-1, deep_0 calls hot_leaf. */
#define DEEP(n, callee)                                   \
	NOINLINE unsigned long deep_##n(unsigned long x)  \
	{                                                 \
		unsigned long r = callee(x);              \
                                                          \
		NOT_TAIL();                               \
		return r + n;                             \
	}
DEEP(0, hot_leaf) DEEP(1, deep_0) DEEP(2, deep_1) DEEP(3, deep_2) DEEP(4, deep_3)
DEEP(5, deep_4) DEEP(6, deep_5) DEEP(7, deep_6) DEEP(8, deep_7) DEEP(9, deep_8)
DEEP(10, deep_9) DEEP(11, deep_10) DEEP(12, deep_11) DEEP(13, deep_12) DEEP(14, deep_13)
DEEP(15, deep_14) DEEP(16, deep_15) DEEP(17, deep_16) DEEP(18, deep_17) DEEP(19, deep_18)
DEEP(20, deep_19) DEEP(21, deep_20) DEEP(22, deep_21) DEEP(23, deep_22) DEEP(24, deep_23)
DEEP(25, deep_24) DEEP(26, deep_25) DEEP(27, deep_26) DEEP(28, deep_27) DEEP(29, deep_28)

static unsigned long values[4096];

NOINLINE int by_value(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

NOINLINE void run_plt(void)
{
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		values[i] = hot_leaf(i & 15) ^ i;
	qsort(values, sizeof(values) / sizeof(values[0]), sizeof(values[0]), by_value);
	NOT_TAIL();
}

static void on_prof(int sig)
{
	sink += hot_leaf(20000 + sig);
	NOT_TAIL();
}

static sigjmp_buf fault_env;
static volatile unsigned long *volatile nowhere;

static void on_segv(int sig)
{
	sink += hot_leaf(20000 + sig);
	siglongjmp(fault_env, 1);
}

/* The load is its first instruction (nothing to set up): it faults there. */
NOINLINE unsigned long load_at_entry(volatile unsigned long *p)
{
	return *p;
}

static void *thread_main(void *arg)
{
	double end = *(double *)arg;
	struct timespec ts;

	do {
		run_leaf(100000);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void run_dlopen(double end)
{
	char path[PATH_MAX];
	unsigned long (*entry)(unsigned long);
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	void *lib;

	if (n <= 0)
		exit(1);
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "unwind_dl-" WL_CC ".so");
	lib = dlopen(path, RTLD_NOW);
	entry = lib ? (unsigned long (*)(unsigned long))dlsym(lib, "dl_entry") : NULL;
	if (!entry) {
		fprintf(stderr, "unwind_paths: %s\n", dlerror());
		exit(1);
	}
	while (now() < end)
		sink += entry(100000);
	NOT_TAIL();
}

NOINLINE unsigned long jit_callback(unsigned long n)
{
	unsigned long r = hot_leaf(n);

	NOT_TAIL();
	return r + 4;
}

typedef unsigned long (*jit_fn)(unsigned long (*)(unsigned long), unsigned long);

/* push %rbp; mov %rsp,%rbp; mov %rdi,%rax; mov %rsi,%rdi; call *%rax;
 * pop %rbp; ret: calls fn(arg) from a frame only frame pointers describe. */
static const unsigned char jit_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0xff, 0xd0, 0x5d, 0xc3,
};

/* The trampoline in fresh anonymous memory, named for profilers; NULL if
 * this is not x86_64 or the memory cannot be had. */
static jit_fn make_jit(char *map_path, size_t len)
{
#ifdef __x86_64__
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *f;

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, jit_code, sizeof(jit_code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return NULL;
	snprintf(map_path, len, "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map_path, "w");
	if (f) {
		fprintf(f, "%lx %zx jit_trampoline\n", (unsigned long)p, sizeof(jit_code));
		fclose(f);
	}
	return (jit_fn)p;
#else
	(void)map_path;
	(void)len;
	return NULL;
#endif
}

NOINLINE void run_jit(double end)
{
	char map_path[64] = "";
	jit_fn fn = make_jit(map_path, sizeof(map_path));

	while (now() < end)
		if (fn)
			sink += fn(jit_callback, 100000);
		else
			run_leaf(100000);
	if (map_path[0])
		unlink(map_path);
	NOT_TAIL();
}

static void run_signal(double end)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	struct sigaction sa = { .sa_handler = on_prof, .sa_flags = SA_RESTART };

	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	while (now() < end)
		run_leaf(100000);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
}

NOINLINE void run_fault(double end)
{
	struct sigaction sa = { .sa_handler = on_segv, .sa_flags = SA_NODEFER };

	sigaction(SIGSEGV, &sa, NULL);
	while (now() < end)
		if (!sigsetjmp(fault_env, 1))
			sink += load_at_entry(nowhere);
	signal(SIGSEGV, SIG_DFL);
	NOT_TAIL();
}

static void run_threads(double end)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, thread_main, &end))
			exit(1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

/* One mode for `seconds`; false if the mode is unknown. */
static int run_mode(const char *mode, double seconds)
{
	double end = now() + seconds;

	if (!strcmp(mode, "signal"))
		run_signal(end);
	else if (!strcmp(mode, "sigentry"))
		run_fault(end);
	else if (!strcmp(mode, "threads"))
		run_threads(end);
	else if (!strcmp(mode, "dlopen"))
		run_dlopen(end);
	else if (!strcmp(mode, "jit"))
		run_jit(end);
	else if (strcmp(mode, "leaf") && strcmp(mode, "bigframe") &&
		 strcmp(mode, "recurse") && strcmp(mode, "plt") && strcmp(mode, "deep"))
		return 0;
	while (now() < end) {
		if (!strcmp(mode, "leaf"))
			run_leaf(100000);
		else if (!strcmp(mode, "bigframe"))
			big_frame(100000);
		else if (!strcmp(mode, "recurse"))
			sink += recurse(200, 100000);
		else if (!strcmp(mode, "plt"))
			run_plt();
		else if (!strcmp(mode, "deep"))
			sink += deep_29(100000);
		else
			break;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static const char *const all[] = { "leaf", "bigframe", "recurse", "plt",
					   "signal", "sigentry", "threads", "dlopen", "jit" };
	double seconds = argc > 2 ? atof(argv[2]) : 5;
	size_t i, n = sizeof(all) / sizeof(all[0]);

	if (argc < 2) {
		fprintf(stderr, "usage: unwind_paths MODE [SECONDS]\n");
		return 2;
	}
	if (strcmp(argv[1], "all"))
		return run_mode(argv[1], seconds) ? 0 : 2;
	for (i = 0; i < n; i++)
		run_mode(all[i], seconds / n);
	return 0;
}
