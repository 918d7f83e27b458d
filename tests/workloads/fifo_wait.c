/*
 * fifo_wait: a process that hangs in read(2) on a FIFO, for the off-CPU
 * tests of a process stuck for a whole capture (issue 24).
 *
 *   fifo_wait FIFO
 *     main -> wait_for_input   blocked in read() on FIFO (opened read-write,
 *                              so no writer is needed for it to block)
 *     a line read:  main -> handle_input -> wait_for_more   blocked again,
 *                              in read(), until the next line
 *
 * Prints "blocked" on stdout (flushed) before each read, so a test knows
 * it is about to wait; exits at end of file or on the line "quit".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[256];

static ssize_t __attribute__((noinline)) wait_for_input(int fd)
{
	ssize_t n;

	printf("blocked\n");
	fflush(stdout);
	n = read(fd, buf, sizeof(buf) - 1);
	__asm__ volatile("" ::: "memory"); /* not a tail call: keep the frame */
	return n;
}

static ssize_t __attribute__((noinline)) wait_for_more(int fd)
{
	ssize_t n;

	printf("blocked\n");
	fflush(stdout);
	n = read(fd, buf, sizeof(buf) - 1);
	__asm__ volatile("" ::: "memory");
	return n;
}

static int __attribute__((noinline)) handle_input(int fd)
{
	ssize_t n;

	while ((n = wait_for_more(fd)) > 0) {
		buf[n] = 0;
		if (strstr(buf, "quit"))
			return 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	ssize_t n;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: fifo_wait FIFO\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	n = wait_for_input(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (strstr(buf, "quit"))
		return 0;
	return handle_input(fd);
}
