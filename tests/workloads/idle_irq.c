/*
 * idle_irq: makes softirq work happen on an otherwise idle CPU.
 *
 * A reader pinned to one CPU does synchronous O_DIRECT 4 KiB reads at random
 * offsets of a 64 MiB file, so it sleeps in every read and its CPU goes
 * idle.  The request completes in the block softirq (blk_done_softirq):
 * with one hardware queue blk-mq raises it on the CPU that took the disk
 * interrupt, or, with the queue's rq_affinity set to 2, sends an IPI to the
 * reader's CPU and runs it there.  Either way it runs on an idle CPU, on
 * its idle task (pid 0, swapper/N).  tests/cli/idle.sh sets rq_affinity=2
 * for its run: on this VM the disk interrupt goes to CPU 1, and an idle
 * CPU 1 takes no cpu-clock samples, so the completions are brought to the
 * reader's CPU 0.
 * The file is created if missing or short; "ready" is printed on stdout
 * when the reads start.
 * Usage: idle_irq [SECONDS [FILE [CPU [KIB [RATE]]]]]
 *   default 5 s, file build/idle_irq.dat, CPU 0, 4 KiB per read, at most
 *   3000 reads a second (0: as fast as the disk goes).  The file must be on
 *   a real block device (tmpfs has no O_DIRECT).  The number of reads is
 *   printed on stderr at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#define FILE_SIZE (64L << 20)
#define ALIGN 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int make_file(const char *path)
{
	struct stat st;
	static char chunk[1 << 20];
	int fd;

	if (stat(path, &st) == 0 && st.st_size >= FILE_SIZE)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)(i * 131 + 7);
	for (long off = 0; off < FILE_SIZE; off += sizeof(chunk))
		if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk)) {
			close(fd);
			return -1;
		}
	if (fsync(fd) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static long block = 4096; /* bytes per read */
/* Reads a second at most: unpaced, a fast disk keeps the reader's CPU half
 * busy with submissions (11,000 reads/s here, more on CI's machines), and
 * the idle views need that CPU mostly idle. */
static long rate = 3000;

/* Sleep until the next read's slot, so a fast disk does not busy the CPU. */
static void pace(struct timespec *slot)
{
	if (rate <= 0)
		return;
	slot->tv_nsec += 1000000000L / rate;
	if (slot->tv_nsec >= 1000000000L) {
		slot->tv_sec++;
		slot->tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, slot, NULL) == EINTR)
		;
}

__attribute__((noinline)) long direct_reads(int fd, void *buf, double seconds)
{
	double end = now() + seconds;
	unsigned long long x = 88172645463325252ULL; /* xorshift state */
	struct timespec slot;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &slot);
	while (now() < end) {
		pace(&slot);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		off_t off = (off_t)(x % (FILE_SIZE / block)) * block;
		if (pread(fd, buf, block, off) != block)
			return -1;
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	const char *path = argc > 2 ? argv[2] : "build/idle_irq.dat";
	int cpu = argc > 3 ? atoi(argv[3]) : 0;
	cpu_set_t set;
	void *buf;
	int fd;

	if (argc > 4)
		block = atol(argv[4]) * 1024;
	if (argc > 5)
		rate = atol(argv[5]);
	if (block < ALIGN || block % ALIGN || block > FILE_SIZE) {
		fprintf(stderr, "idle_irq: bad block size\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		fprintf(stderr, "idle_irq: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
	if (make_file(path) < 0) {
		fprintf(stderr, "idle_irq: cannot create %s: %s\n", path, strerror(errno));
		return 1;
	}
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "idle_irq: cannot open %s with O_DIRECT: %s\n", path,
			strerror(errno));
		return 1;
	}
	if (posix_memalign(&buf, ALIGN, block)) {
		fprintf(stderr, "idle_irq: out of memory\n");
		return 1;
	}
	printf("ready\n"); /* the file exists: the reads start now */
	fflush(stdout);
	long reads = direct_reads(fd, buf, seconds);
	if (reads < 0) {
		fprintf(stderr, "idle_irq: read failed: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "idle_irq: %ld reads in %.1f s\n", reads, seconds);
	return 0;
}
