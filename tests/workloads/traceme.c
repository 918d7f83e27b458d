/*
 * traceme: a command that makes its parent its tracer (PTRACE_TRACEME), as
 * anti-debugging checks and hand-made debuggees do, or that stops itself:
 * for the tests of `smolder -- COMMAND` (tests/cli/command_traced.sh),
 * where smolder is that parent.  Usage: traceme MODE SECONDS STATUS
 *
 *   signal  traced, sends itself SIGUSR1 (caught), then burns SECONDS
 *   exec    traced, execs itself as "burn": execve's SIGTRAP must not kill it
 *   thread  a second thread is traced and gets SIGUSR1; joined, then burns
 *   hold    traced, burns SECONDS with no signal (longer than the capture)
 *   stop    sends itself SIGSTOP; once continued, burns SECONDS
 *   tstop   traced, then as stop
 *   burn    burns SECONDS
 *
 * then exits STATUS.  Its CPU time is in main -> traced_burn -> spin.  A
 * caught SIGUSR1 that never arrived exits 70; in stop and tstop a SIGTERM
 * is caught (as a server cleaning up would) and exits 100 + STATUS.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>

static volatile sig_atomic_t got_usr1;
static volatile unsigned long sink;
static int status;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void on_term(int sig)
{
	(void)sig;
	_exit(100 + status);
}

/* A stack slot gives the leaf a frame-pointer prologue (see cpu_split.c). */
__attribute__((noinline)) void spin(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink = acc;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void traced_burn(double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		spin(100000);
}

static void traceme(void)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
		perror("traceme: PTRACE_TRACEME");
		exit(2);
	}
}

/* The thread of mode thread: traced, then a signal of its own. */
static void *traced_thread(void *arg)
{
	(void)arg;
	traceme();
	pthread_kill(pthread_self(), SIGUSR1);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double seconds;
	pthread_t th;

	if (argc != 4) {
		fprintf(stderr, "usage: traceme signal|exec|thread|hold|stop|tstop|burn SECONDS STATUS\n");
		return 2;
	}
	seconds = atof(argv[2]);
	status = atoi(argv[3]);
	signal(SIGUSR1, on_usr1);
	if (!strcmp(mode, "signal")) {
		traceme();
		kill(getpid(), SIGUSR1);
		if (!got_usr1)
			return 70;
	} else if (!strcmp(mode, "exec")) {
		traceme();
		execl("/proc/self/exe", "traceme", "burn", argv[2], argv[3], (char *)NULL);
		perror("traceme: exec");
		return 2;
	} else if (!strcmp(mode, "thread")) {
		if (pthread_create(&th, NULL, traced_thread, NULL) || pthread_join(th, NULL))
			return 2;
		if (!got_usr1)
			return 70;
	} else if (!strcmp(mode, "hold")) {
		traceme();
	} else if (!strcmp(mode, "stop") || !strcmp(mode, "tstop")) {
		signal(SIGTERM, on_term);
		if (!strcmp(mode, "tstop"))
			traceme();
		kill(getpid(), SIGSTOP);
	} else if (strcmp(mode, "burn")) {
		fprintf(stderr, "traceme: unknown mode %s\n", mode);
		return 2;
	}
	traced_burn(seconds);
	return status;
}
