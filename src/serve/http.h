/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HTTP side of --serve: libevent's evhttp on a thread of its own, so
 * that no client, however slow, ever delays sampling (the sampler's loop
 * owns the capture and naming, which are not thread-safe; the HTTP thread
 * owns every socket).  The two meet only here, under one mutex: the HTTP
 * thread queues profile requests (jobs) and requests whose client went
 * away (cancels); the sampler takes them at its next tick, and hands back
 * each job's answer (a whole gzip'd pprof, or an error status) and the
 * text of /metrics.  Nothing is sent as 200 before its body is complete.
 *
 * Paths: /debug/pprof/profile?seconds=N[&pid=P,...] (the next N seconds),
 * /debug/pprof/ (a text index), /metrics (Prometheus text); everything
 * else is 404.  Errors are text/plain with X-Go-Pprof: 1, which go tool
 * pprof needs to print them.
 *
 * Bounds on what clients may take: HTTP_MAX_CONNS connections (the one
 * idle longest is dropped to make room), HTTP_IDLE_SECONDS from accepting
 * (or from the last reply) to a complete request, however slowly its
 * bytes come, HTTP_MAX_HEADER_BYTES of request line and headers, no body,
 * HTTP_IO_SECONDS without progress on a read or a write, HTTP_MAX_JOBS
 * profile requests at once.
 */
#ifndef SMOLDER_SERVE_HTTP_H
#define SMOLDER_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "serve/request.h"

#define HTTP_MAX_CONNS 512
#define HTTP_IDLE_SECONDS 5
#define HTTP_IO_SECONDS 10
#define HTTP_MAX_HEADER_BYTES 8192
#define HTTP_MAX_JOBS 16

struct http_opts {
	const char *addr;  /* --serve: HOST:PORT, [V6]:PORT, :PORT or PORT */
	const char *token; /* the bearer token every request must carry, or NULL */
};

struct http;

/* Resolves and binds the address (or prints why not: NULL), then serves
 * from a thread of its own. */
struct http *http__start(const struct http_opts *o);
/* True when jobs or cancels wait (cheap: the sampler asks it often). */
bool http__news(struct http *h);
/* Takes up to max new jobs and cancelled job ids; their counts. */
size_t http__take_jobs(struct http *h, struct http_job *out, size_t max);
size_t http__take_cancels(struct http *h, uint64_t *out, size_t max);
/* Answers job id: status 200 with body (a pprof, malloc'd: taken), or an
 * error status with body the one-line reason (copied). */
void http__answer(struct http *h, uint64_t id, int status, void *body, size_t len);
/* The sampler's part of /metrics (malloc'd text: taken). */
void http__set_metrics(struct http *h, char *text);
/* Profile requests waiting for their window. */
unsigned http__open_jobs(struct http *h);
/* Stops listening, sends what was answered (jobs not answered get 503),
 * waits up to 2 s for the replies to leave, and frees everything. */
void http__stop(struct http *h);

#endif
