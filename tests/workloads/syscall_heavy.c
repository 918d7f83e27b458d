/*
 * syscall_heavy: spends nearly all its time in the kernel on a known path,
 * read(2) of 1 MiB from /dev/zero:
 *
 *   user:   main -> do_reads  (the syscall instruction is in do_reads)
 *   kernel: entry_SYSCALL_64 -> ... -> ksys_read -> vfs_read -> read_zero
 *
 * The system call is issued inline from do_reads (not through libc's
 * frameless read() wrapper), so a frame-pointer unwind of the user stack
 * reliably shows main;do_reads.
 * Usage: syscall_heavy [SECONDS]  (default 5); exits on its own.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define CHUNK (1 << 20)

static char buf[CHUNK];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) long do_reads(int fd, double seconds)
{
	double end = now() + seconds;
	long total = 0;

	while (now() < end) {
		for (int i = 0; i < 16; i++) {
			long ret;
#if defined(__x86_64__)
			__asm__ volatile("syscall"
					 : "=a"(ret)
					 : "0"((long)SYS_read), "D"((long)fd), "S"(buf),
					   "d"((long)CHUNK)
					 : "rcx", "r11", "memory");
#else
			ret = syscall(SYS_read, fd, buf, CHUNK);
#endif
			if (ret <= 0)
				return -1;
			total += ret;
		}
	}
	return total;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	if (do_reads(fd, seconds) < 0) {
		fprintf(stderr, "syscall_heavy: read failed\n");
		return 1;
	}
	return 0;
}
