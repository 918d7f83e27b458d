// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a request asks for, and --serve's address (see request.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include "lib/log.h"
#include "serve/request.h"

int request__parse_addr(const char *addr, char *host, size_t len, unsigned *port)
{
	const char *colon = strrchr(addr, ':'), *p;
	char *end;
	unsigned long v;

	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');

		if (!close || close[1] != ':' || (size_t)(close - addr - 1) >= len)
			goto bad;
		snprintf(host, len, "%.*s", (int)(close - addr - 1), addr + 1);
		p = close + 2;
	} else if (colon) {
		if ((size_t)(colon - addr) >= len || memchr(addr, ':', colon - addr))
			goto bad; /* a bare IPv6 address: give it in brackets */
		/* ":PORT" is loopback, not every interface: listening beyond
		 * the machine is an explicit choice (0.0.0.0:PORT) */
		snprintf(host, len, "%.*s", (int)(colon - addr), colon == addr ? "127.0.0.1" : addr);
		if (colon == addr)
			snprintf(host, len, "127.0.0.1");
		p = colon + 1;
	} else {
		snprintf(host, len, "127.0.0.1");
		p = addr;
	}
	errno = 0;
	v = strtoul(p, &end, 10);
	if (!*p || *end || errno || v > 65535 || *p == '-' || *p == '+')
		goto bad;
	*port = v;
	return 0;
bad:
	err("bad --serve address '%s' (give HOST:PORT, [IPV6]:PORT or PORT; e.g. 127.0.0.1:%d)",
	    addr, HTTP_DEFAULT_PORT);
	return -1;
}

/* Constant time in the length of the secret, whatever was given. */
bool request__same_secret(const char *given, const char *secret)
{
	size_t gl = strlen(given), sl = strlen(secret);
	unsigned char d = gl != sl;

	for (size_t i = 0; i < sl; i++)
		d |= (unsigned char)secret[i] ^ (unsigned char)(i < gl ? given[i] : 0);
	return !d;
}

/* seconds=N: 1..HTTP_MAX_SECONDS, decimal digits only.  0 or -1. */
static int parse_seconds(const char *v, unsigned *out)
{
	unsigned long n = 0;

	if (!*v || strlen(v) > 6)
		return -1;
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '9')
			return -1;
		n = n * 10 + (*c - '0');
	}
	if (n < 1 || n > HTTP_MAX_SECONDS)
		return -1;
	*out = n;
	return 0;
}

/* pid=P[,P...], repeatable: at most WINDOW_MAX_PIDS in all.  0 or -1. */
static int parse_pids(const char *v, struct http_job *j)
{
	char *end;

	do {
		unsigned long p;

		if (*v < '0' || *v > '9' || j->nr_pids == WINDOW_MAX_PIDS)
			return -1;
		errno = 0;
		p = strtoul(v, &end, 10);
		if (errno || !p || p > UINT32_MAX || (*end && *end != ','))
			return -1;
		j->pids[j->nr_pids++] = p;
		v = *end ? end + 1 : end;
	} while (*v);
	return 0;
}

static char cgroup_root[PATH_MAX];

void request__set_cgroup_root(const char *mount)
{
	snprintf(cgroup_root, sizeof(cgroup_root), "%s", mount ? mount : "");
}

/*
 * cgroup=/PATH: absolute, printable, no "." or ".." component (it names a
 * cgroup, never a file elsewhere), and a directory under the cgroup2
 * mount, so that a typo is a 400, not an empty profile.  0 or -1.
 */
static int parse_cgroup(const char *v, struct http_job *j)
{
	char dir[PATH_MAX + PROC_CGROUP_MAX];
	struct stat st;

	if (!*cgroup_root || v[0] != '/' || strlen(v) >= sizeof(j->cgroup))
		return -1;
	for (const char *c = v; *c; c++)
		if (*c <= ' ' || *c > '~')
			return -1;
	for (const char *c = v + 1; *c;) {
		size_t n = strcspn(c, "/");

		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return -1;
		c += n + (c[n] == '/');
	}
	snprintf(dir, sizeof(dir), "%s%s", cgroup_root, v);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return -1;
	snprintf(j->cgroup, sizeof(j->cgroup), "%s", v);
	return 0;
}

/* The job a query asks for; 0, or -1 with why in *why. */
int request__parse_query(const char *query, struct http_job *j, const char **why)
{
	struct evkeyvalq q = { 0 };
	struct evkeyval *kv;
	int rc = 0;

	j->seconds = HTTP_DEFAULT_SECONDS;
	if (query && evhttp_parse_query_str(query, &q)) {
		*why = "the query does not parse";
		return -1;
	}
	for (kv = q.tqh_first; kv; kv = kv->next.tqe_next) {
		if (!strcmp(kv->key, "seconds") && parse_seconds(kv->value, &j->seconds)) {
			*why = "seconds must be a whole number from 1 to 600";
			rc = -1;
		} else if (!strcmp(kv->key, "pid") && parse_pids(kv->value, j)) {
			*why = "pid must be process ids, comma-separated (at most 16)";
			rc = -1;
		} else if (!strcmp(kv->key, "cgroup") && parse_cgroup(kv->value, j)) {
			*why = "cgroup must be an existing cgroup v2 path, as in /proc/PID/cgroup "
			       "(e.g. /system.slice)";
			rc = -1;
		}
		if (rc)
			break;
	}
	evhttp_clear_headers(&q);
	return rc;
}

