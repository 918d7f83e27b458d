/*
 * pty_pump: writes to a pseudo-terminal's master while a thread reads the
 * slave.  The kernel hands what the master writes to the slave's line
 * discipline in a work item, flush_to_ldisc, which pty_pump's writes queue
 * on the events_unbound workqueue: a kworker busy with work whose queuer is
 * known (queued-by:pty_pump-PID), on any machine, with no disk.
 * Needs /dev/ptmx and devpts.  Prints "ready"; usage: pty_pump [SECONDS].
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *drain(void *arg)
{
	static char buf[65536];
	int fd = *(int *)arg;

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, end;
	static char line[4096];
	struct termios t;
	pthread_t reader, echo;
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave;

	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    (slave = open(ptsname(master), O_RDWR | O_NOCTTY)) < 0) {
		perror("pty_pump: pseudo-terminal");
		return 1;
	}
	/* canonical mode with echo: the line discipline has work per byte */
	tcgetattr(slave, &t);
	t.c_lflag |= ICANON | ECHO;
	tcsetattr(slave, TCSANOW, &t);
	for (size_t i = 0; i < sizeof(line); i++)
		line[i] = i % 64 == 63 ? '\n' : 'a' + i % 26;
	/* the echo comes back on the master: read that away too */
	if (pthread_create(&reader, NULL, drain, &slave) ||
	    pthread_create(&echo, NULL, drain, &master)) {
		perror("pty_pump: thread");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (end = now() + seconds; now() < end;)
		if (write(master, line, sizeof(line)) < 0)
			break;
	return 0;
}
