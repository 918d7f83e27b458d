/*
 * short_parent: runs short-lived children back to back for SECONDS
 * (fork, exec CHILD with argument MS, wait), so that a capture of the
 * machine sees a stream of processes that each live ~MS ms.  The parent
 * itself only waits.  Prints "children N" at the end.
 * Usage: short_parent SECONDS CHILD [MS]   (MS default 40)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *ms = argc > 3 ? argv[3] : "40";
	double end;
	long n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: short_parent SECONDS CHILD [MS]\n");
		return 2;
	}
	end = now() + atof(argv[1]);
	while (now() < end) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			execl(argv[2], argv[2], ms, (char *)NULL);
			perror("exec");
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "short_parent: child failed\n");
			return 1;
		}
		n++;
	}
	printf("children %ld\n", n);
	return 0;
}
