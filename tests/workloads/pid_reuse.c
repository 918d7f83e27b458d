/*
 * pid_reuse: for SECONDS, gives one PID to one binary after another, so a
 * profiler that caches a process's mappings or symbols by PID would name
 * one binary's samples with another's functions.  Each round:
 *
 *   1. fork; the child execs EXEC_A MS EXEC_B MS: it burns MS ms of CPU in
 *      exec_a's a_work/a_leaf, then execs exec_b (same PID, new binary)
 *      and burns MS ms in b_work/b_leaf;
 *   2. once that PID is free, clone3 with set_tid creates a new process
 *      with the same PID, which execs EXEC_B MS;
 *   3. the same again with EXEC_A MS.
 *
 * exec_a and exec_b have the same code at the same addresses (see
 * exec_a.c), so only the right binary's symbols give the right names.
 * Prints "rounds N reused M" at the end (M: processes that got a PID
 * again; clone3's set_tid needs root).
 * Usage: pid_reuse SECONDS EXEC_A EXEC_B [MS]   (MS default 40)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A child with PID want (0: any), which execs argv; -1 on failure. */
static pid_t spawn(pid_t want, char **argv)
{
	struct clone_args args;
	pid_t tid = want;
	long pid;

	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	if (want) {
		args.set_tid = (uint64_t)(uintptr_t)&tid;
		args.set_tid_size = 1;
	}
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0) {
		execv(argv[0], argv);
		perror("exec");
		_exit(127);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pid_reuse: child %d failed\n", (int)pid);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *ms = argc > 4 ? argv[4] : "40";
	long rounds = 0, reused = 0;
	double end;

	if (argc < 4) {
		fprintf(stderr, "usage: pid_reuse SECONDS EXEC_A EXEC_B [MS]\n");
		return 2;
	}
	char *a_then_b[] = { argv[2], ms, argv[3], ms, NULL };
	char *b_only[] = { argv[3], ms, NULL };
	char *a_only[] = { argv[2], ms, NULL };

	end = now() + atof(argv[1]);
	while (now() < end) {
		pid_t pid = spawn(0, a_then_b), again;

		if (pid < 0 || reap(pid))
			return 1;
		rounds++;
		again = spawn(pid, b_only);
		if (again < 0) {
			/* the PID was taken meanwhile, or no privilege */
			if (errno != EEXIST && errno != EPERM)
				perror("clone3");
			continue;
		}
		if (reap(again))
			return 1;
		reused++;
		again = spawn(pid, a_only);
		if (again < 0)
			continue;
		if (reap(again))
			return 1;
		reused++;
	}
	printf("rounds %ld reused %ld\n", rounds, reused);
	return 0;
}
