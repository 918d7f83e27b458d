/*
 * net_pump: pushes data through a TCP connection over loopback, so that the
 * kernel spends much of its time in the NET_RX softirq (loopback delivers
 * every packet through the backlog, processed by net_rx_action on the
 * sending CPU when the sender re-enables bottom halves).  The receiving
 * thread is named "pump/1", a name shaped like a per-CPU kernel thread's,
 * which --group-threads must leave alone: it is a user thread.
 * Prints "ready" once connected, and at the end the bytes it sent per
 * second (for make bench-kcontext).  Usage: net_pump [SECONDS] (default 5).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#define CHUNK (64 * 1024)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void *pump_recv(void *arg)
{
	static char buf[CHUNK];
	int fd = *(int *)arg;

	prctl(PR_SET_NAME, "pump/1");
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

__attribute__((noinline)) static double pump_send(int fd, double seconds)
{
	static char buf[CHUNK];
	double start = now(), end = start + seconds, sent = 0;
	ssize_t n;

	while (now() < end && (n = write(fd, buf, sizeof(buf))) > 0)
		sent += n;
	return sent / (now() - start);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd = socket(AF_INET, SOCK_STREAM, 0), sfd;
	pthread_t t;

	if (lfd < 0 || cfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(lfd, 1) || getsockname(lfd, (struct sockaddr *)&a, &len) ||
	    connect(cfd, (struct sockaddr *)&a, sizeof(a)) || (sfd = accept(lfd, NULL, NULL)) < 0) {
		perror("net_pump: loopback connection");
		return 1;
	}
	if (pthread_create(&t, NULL, pump_recv, &sfd)) {
		perror("net_pump: thread");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	double rate = pump_send(cfd, seconds);

	shutdown(cfd, SHUT_WR);
	pthread_join(t, NULL);
	printf("bytes/s %.0f\n", rate);
	return 0;
}
