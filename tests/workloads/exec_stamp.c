/*
 * exec_stamp: when things start, on CLOCK_MONOTONIC (the clock smolder's
 * SMOLDER_PHASES lines give), in nanoseconds.
 *
 *   exec_stamp FILE             writes the time it began to FILE, exits 0:
 *                               the command of `smolder -- COMMAND`, whose
 *                               exec must come after sampling began
 *   exec_stamp --exec FILE CMD  writes the time to FILE, then execs CMD: a
 *                               launcher, so that CMD's times can be told
 *                               from its exec
 *   exec_stamp --slots FILE S   writes the time to FILE, then runs S
 *                               seconds on the CPU with the 2 ms slot it
 *                               is in written into its stack: a sample's
 *                               stack says when it was taken (below)
 *
 * The slot k = (now - start) / 2 ms is the path of 11 calls, most
 * significant bit first: bit10_1;bit9_0;...;bit0_1;slot_spin is slot
 * 0b10...1.  The earliest slot among a profile's samples is the time of
 * its first sample, to within 2 ms, whatever the profiler (frame pointers
 * are kept, so every unwinder walks it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOT_NS 2000000ULL
#define BITS 11

static unsigned long long start_ns;
static unsigned long long end_ns;
static volatile unsigned long sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long slot_now(void)
{
	return (now_ns() - start_ns) / SLOT_NS;
}

/* Spins while the slot is k (and the run has not ended). */
__attribute__((noinline)) void slot_spin(unsigned long long k)
{
	while (slot_now() == k && now_ns() < end_ns)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

static void descend(int bit, unsigned long long k);

/* One pair of functions per bit: the frame names the bit's value. */
#define BIT(n)                                                                   \
	__attribute__((noinline)) void bit##n##_0(unsigned long long k)          \
	{                                                                        \
		descend(n - 1, k);                                               \
		sink++;                                                          \
	}                                                                        \
	__attribute__((noinline)) void bit##n##_1(unsigned long long k)          \
	{                                                                        \
		descend(n - 1, k);                                               \
		sink++;                                                          \
	}
BIT(0) BIT(1) BIT(2) BIT(3) BIT(4) BIT(5) BIT(6) BIT(7) BIT(8) BIT(9) BIT(10)

static void (*const pairs[BITS][2])(unsigned long long) = {
	{ bit0_0, bit0_1 }, { bit1_0, bit1_1 }, { bit2_0, bit2_1 }, { bit3_0, bit3_1 },
	{ bit4_0, bit4_1 }, { bit5_0, bit5_1 }, { bit6_0, bit6_1 }, { bit7_0, bit7_1 },
	{ bit8_0, bit8_1 }, { bit9_0, bit9_1 }, { bit10_0, bit10_1 },
};

static void descend(int bit, unsigned long long k)
{
	if (bit < 0)
		slot_spin(k);
	else
		pairs[bit][(k >> bit) & 1](k);
}

static int stamp(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%llu\n", start_ns) < 0 || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	start_ns = now_ns();
	if (argc >= 4 && !strcmp(argv[1], "--exec")) {
		if (stamp(argv[2]))
			return 1;
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	if (argc == 4 && !strcmp(argv[1], "--slots")) {
		if (stamp(argv[2]))
			return 1;
		end_ns = start_ns + (unsigned long long)(atof(argv[3]) * 1e9);
		if (end_ns - start_ns > (SLOT_NS << BITS)) /* the slots count that far */
			end_ns = start_ns + (SLOT_NS << BITS);
		while (now_ns() < end_ns)
			descend(BITS - 1, slot_now());
		return 0;
	}
	if (argc == 2 && argv[1][0] != '-')
		return stamp(argv[1]) ? 1 : 0;
	fprintf(stderr, "usage: exec_stamp FILE | --exec FILE CMD... | --slots FILE SECONDS\n");
	return 2;
}
