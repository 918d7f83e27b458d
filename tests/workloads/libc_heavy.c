/*
 * libc_heavy: one thread that spends nearly all its CPU time inside the C
 * library, in code whose source lines only Debian's libc6-dbg knows:
 *
 *   main -> libc_round -> memcpy  (copies of 256 KiB: memmove-vec-unaligned-erms.S)
 *                      -> strlen  (a 256 KiB string: strlen-*.S)
 *                      -> qsort   (4096 ints: msort.c, its comparison ours)
 *
 * Sizes come from variables the compiler cannot see through, so no call
 * is expanded inline or dropped.  Prints "ready" when the work starts.
 * Usage: libc_heavy [SECONDS]  (default 5); exits on its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF_BYTES (256 * 1024)
#define SORT_INTS 4096

static volatile size_t copy_bytes = BUF_BYTES;
static volatile unsigned long sink;

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One round: copies, a string's length, a sort of a shuffled array. */
static void libc_round(char *src, char *dst, int *ints, unsigned int *seed)
{
	for (int i = 0; i < 32; i++)
		memcpy(dst, src, copy_bytes);
	for (int i = 0; i < 32; i++)
		sink += strlen(src);
	for (int i = 0; i < SORT_INTS; i++) {
		*seed = *seed * 1103515245u + 12345u;
		ints[i] = (int)(*seed >> 8);
	}
	qsort(ints, SORT_INTS, sizeof(*ints), by_value);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	char *src = malloc(BUF_BYTES + 1), *dst = malloc(BUF_BYTES + 1);
	int *ints = malloc(SORT_INTS * sizeof(*ints));
	unsigned int seed = 26;

	if (!src || !dst || !ints) {
		fprintf(stderr, "libc_heavy: out of memory\n");
		return 1;
	}
	memset(src, 'x', BUF_BYTES);
	src[BUF_BYTES] = '\0';
	printf("ready\n");
	fflush(stdout);
	double end = now() + seconds;
	while (now() < end)
		libc_round(src, dst, ints, &seed);
	return 0;
}
