/*
 * pingpong: two threads bounce one byte over two pipes, so that each
 * round trip is two sleeps and two wakeups: a context-switch-heavy
 * workload for what off-CPU tracing costs (make bench-offcpu).
 *
 *   thread "ping": main -> ping_loop: write(a), read(b)  (sleeps in read)
 *   thread "pong": pong_main -> pong_loop: read(a), write(b)
 *
 * It bounces for WARMUP seconds, or until SIGUSR1 (a tracer started after
 * it attaches meanwhile, and the signal says it has), then SECONDS more,
 * and prints the round trips per second of those SECONDS: "pingpong: N
 * round trips/s".
 * Usage: pingpong [SECONDS] [WARMUP]  (default 5 and 0); exits on its own.
 */
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

static int a[2], b[2]; /* ping -> pong, pong -> ping */
static volatile sig_atomic_t warm; /* SIGUSR1 came: the warm-up is over */

static void on_usr1(int sig)
{
	(void)sig;
	warm = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Echoes every byte back until ping closes its end. */
__attribute__((noinline)) static void pong_loop(void)
{
	char c;

	while (read(a[0], &c, 1) == 1)
		if (write(b[1], &c, 1) != 1)
			break;
}

static void *pong_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "pong");
	pong_loop();
	return NULL;
}

/* Round trips until `until` (or, warming up, SIGUSR1); -1 when a pipe
 * failed. */
__attribute__((noinline)) static long ping_loop(double until, bool warming)
{
	long n = 0;
	char c = 'x';

	while (now() < until && !(warming && warm))
		for (int i = 0; i < 256; i++, n++)
			if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
				return -1;
	return n;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, warmup = argc > 2 ? atof(argv[2]) : 0;
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	double start;
	pthread_t pong;
	long n;

	if (seconds <= 0 || warmup < 0) {
		fprintf(stderr, "usage: pingpong [SECONDS] [WARMUP]\n");
		return 2;
	}
	if (pipe(a) || pipe(b)) {
		perror("pingpong: pipe");
		return 1;
	}
	sigaction(SIGUSR1, &sa, NULL);
	prctl(PR_SET_NAME, "ping");
	if (pthread_create(&pong, NULL, pong_main, NULL)) {
		fprintf(stderr, "pingpong: cannot start the second thread\n");
		return 1;
	}
	if (ping_loop(now() + warmup, true) < 0 ||
	    (start = now(), n = ping_loop(start + seconds, false)) < 0) {
		fprintf(stderr, "pingpong: a pipe failed\n");
		return 1;
	}
	n = (long)(n / (now() - start));
	close(a[1]);
	pthread_join(pong, NULL);
	printf("pingpong: %ld round trips/s\n", n);
	return 0;
}
