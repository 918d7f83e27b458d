/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a --serve request asks for, parsed without trusting it: the
 * profile query (seconds=, pid=, cgroup=), the bearer token compared in constant
 * time; and --serve's own address.
 */
#ifndef SMOLDER_SERVE_REQUEST_H
#define SMOLDER_SERVE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "files/proc_cgroup.h"
#include "serve/window.h"

#define HTTP_DEFAULT_PORT 7071   /* the Parca agent's, in the docs' examples */
#define HTTP_MAX_SECONDS 600     /* the longest window a request may ask for */
#define HTTP_DEFAULT_SECONDS 30  /* as Go's net/http/pprof */

/* A profile request, for the sampler. */
struct http_job {
	uint64_t id;
	unsigned seconds;
	uint32_t pids[WINDOW_MAX_PIDS]; /* pid=: only these processes */
	size_t nr_pids;
	char cgroup[PROC_CGROUP_MAX]; /* cgroup=: only processes in it or below ("" all) */
};


/* Parses --serve's address into host and port: HOST:PORT, [V6]:PORT, or
 * PORT and :PORT for 127.0.0.1:PORT.  0, or -1 after printing why. */
int request__parse_addr(const char *addr, char *host, size_t len, unsigned *port);
/* Where cgroup= paths are looked up: the cgroup2 mount (NULL: none, and
 * cgroup= is refused).  Set before the HTTP thread starts. */
void request__set_cgroup_root(const char *mount);
/* The job a query asks for (seconds=N, 1 to HTTP_MAX_SECONDS, default
 * HTTP_DEFAULT_SECONDS; pid=P[,P...]; cgroup=/PATH, an existing cgroup v2
 * directory under the mount); query may be NULL.  0, or -1 with why (a
 * constant string) in *why. */
int request__parse_query(const char *query, struct http_job *j, const char **why);
/* given equals secret, in a time that depends on secret's length only. */
bool request__same_secret(const char *given, const char *secret);

#endif
