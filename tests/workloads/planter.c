/*
 * planter: an unprivileged user's attack on continuous mode's output
 * directory.  It plants a node at every name smolder will choose in DIR,
 * smolder-YYYYMMDDTHHMMSS.mmmZ.EXT, one per millisecond of UTC, as
 * whatever user runs it, and keeps SECONDS seconds ahead of the clock
 * until SIGTERM.  MODE:
 *   fifo          a FIFO at each name, held open for reading with a 4 KiB
 *                 pipe buffer and never read: a writer that opens one
 *                 blocks once 4 KiB are in it
 *   symlink FILE  a symbolic link at each name, to FILE
 *   future        once, an empty file at each name of SECONDS seconds
 *                 from the start of 2999 (names that sort after every
 *                 real one)
 * Prints "ready N" once N names are planted (the first SECONDS), then
 * goes on until SIGTERM; then prints "planted N, unread B bytes in F
 * fifos" (what writers put in its FIFOs, which should be nothing) and
 * exits.
 * Usage: planter DIR EXT SECONDS fifo|symlink FILE|future
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define YEAR_2999_MS 32472144000000LL

static volatile sig_atomic_t stop;
static const char *dir, *ext, *mode, *link_to;
static int *fds;
static long long nr_fds, cap_fds, planted;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static long long now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec * 1000LL + now.tv_nsec / 1000000;
}

/* DIR/smolder-<ms>.EXT for the millisecond ms of UTC. */
static void name_at(char *buf, size_t len, long long ms)
{
	time_t sec = ms / 1000;
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(buf, len, "%s/smolder-%04d%02d%02dT%02d%02d%02d.%03lldZ%s", dir, tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000, ext);
}

/* A FIFO at path, open for reading, its buffer one page. */
static bool plant_fifo(const char *path)
{
	int fd;

	if (mkfifo(path, 0666))
		return false;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	fcntl(fd, F_SETPIPE_SZ, 4096);
	if (nr_fds == cap_fds) {
		cap_fds = cap_fds ? 2 * cap_fds : 4096;
		fds = realloc(fds, cap_fds * sizeof(*fds));
		if (!fds)
			exit(1);
	}
	fds[nr_fds++] = fd;
	return true;
}

static bool plant_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	return fd >= 0 && !close(fd);
}

/* Plants at the names of the milliseconds [from, to). */
static void plant(long long from, long long to)
{
	char path[4096];

	for (long long ms = from; ms < to && !stop; ms++) {
		name_at(path, sizeof(path), ms);
		if (!strcmp(mode, "fifo") ? plant_fifo(path) :
		    !strcmp(mode, "future") ? plant_file(path) : !symlink(link_to, path))
			planted++;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	long long ahead, until, unread = 0;
	struct rlimit rl;
	int avail;

	if (argc < 5 || (strcmp(argv[4], "fifo") && strcmp(argv[4], "future") &&
			 (strcmp(argv[4], "symlink") || argc < 6))) {
		fprintf(stderr, "usage: planter DIR EXT SECONDS fifo|symlink FILE|future\n");
		return 2;
	}
	dir = argv[1];
	ext = argv[2];
	ahead = atof(argv[3]) * 1000;
	mode = argv[4];
	link_to = argv[5];
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (!strcmp(mode, "future")) {
		plant(YEAR_2999_MS, YEAR_2999_MS + ahead);
		printf("ready %lld\n", planted);
		fflush(stdout);
		while (!stop)
			pause();
		printf("planted %lld, unread 0 bytes in 0 fifos\n", planted);
		return 0;
	}
	until = now_ms();
	for (bool ready = false; !stop; usleep(20000)) {
		long long now = now_ms();

		plant(until > now ? until : now, now + ahead);
		until = now + ahead;
		if (!ready) {
			printf("ready %lld\n", planted);
			fflush(stdout);
			ready = true;
		}
	}
	for (long long i = 0; i < nr_fds; i++)
		if (!ioctl(fds[i], FIONREAD, &avail))
			unread += avail;
	printf("planted %lld, unread %lld bytes in %lld fifos\n", planted, unread, nr_fds);
	return 0;
}
