// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The HTTP side of --serve (see http.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "serve/http.h"
#include "serve/request.h"

/* A connection evhttp accepted: we hold a reference to its bufferevent,
 * so that we can see when evhttp lets it go (its callbacks are cleared)
 * and drop it when it idles too long. */
struct conn {
	struct bufferevent *bev; /* NULL: free slot */
	double since;            /* accepted, or its last reply sent */
	unsigned busy;           /* requests waiting for their reply */
};

/* A profile request waiting for its window. */
struct pending {
	uint64_t id;             /* 0: free slot */
	struct evhttp_request *req;
	struct evhttp_connection *evcon;
	struct bufferevent *bev; /* its connection's */
};

struct answer {
	struct answer *next;
	uint64_t id;
	int status;
	void *body;
	size_t len;
};

/* Replies by status, for /metrics. */
enum reply_kind { R_200, R_400, R_401, R_404, R_405, R_503, R_500, R__MAX };
static const int reply_codes[R__MAX] = { 200, 400, 401, 404, 405, 503, 500 };

struct http {
	/* The HTTP thread's own. */
	struct event_base *base;
	struct evhttp *http;
	struct evconnlistener *listener;
	struct event *wake_ev, *sweep_ev;
	struct conn conns[HTTP_MAX_CONNS];
	unsigned nr_conns;
	struct pending pend[HTTP_MAX_JOBS];
	uint64_t next_id;
	uint64_t replies[R__MAX];
	uint64_t dropped_idle, dropped_full, in_flight;
	char *token;
	bool stopping;
	double stop_deadline;
	pthread_t thread;
	int wake[2]; /* the sampler writes a byte to wake the HTTP thread */
	/* Shared, under lock. */
	pthread_mutex_t lock;
	struct http_job jobs[HTTP_MAX_JOBS];
	size_t nr_jobs;
	uint64_t cancels[HTTP_MAX_JOBS];
	size_t nr_cancels;
	struct answer *answers;
	char *metrics;
	bool stop;
	atomic_bool news;
	atomic_uint open_jobs;
};

/* ---- connections ---- */

static struct conn *conn_of(struct http *h, struct bufferevent *bev)
{
	for (size_t i = 0; i < HTTP_MAX_CONNS; i++)
		if (h->conns[i].bev == bev)
			return &h->conns[i];
	return NULL;
}

/* Ends a connection: evhttp sees the end of it and frees it. */
static void drop(struct conn *c)
{
	int fd = bufferevent_getfd(c->bev);

	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
}

static bool hung_up(struct conn *c);
static void end_hung_up(struct http *h, struct conn *c);

/* Forgets c if evhttp let it go (ours is then the last reference). */
static bool forget_freed(struct http *h, struct conn *c)
{
	bufferevent_data_cb rd = NULL;

	bufferevent_getcb(c->bev, &rd, NULL, NULL, NULL);
	if (rd)
		return false;
	bufferevent_decref(c->bev);
	c->bev = NULL;
	h->nr_conns--;
	return true;
}

/* Forgets connections evhttp freed, drops those idle too long, ends the
 * jobs of clients that hung up.  Every 100 ms (and when the table is
 * full). */
static void sweep(struct http *h, double now)
{
	for (size_t i = 0; i < HTTP_MAX_CONNS; i++) {
		struct conn *c = &h->conns[i];

		if (!c->bev || forget_freed(h, c))
			continue;
		if (c->busy && hung_up(c)) {
			end_hung_up(h, c);
		} else if (!c->busy && now - c->since > HTTP_IDLE_SECONDS && c->since > 0) {
			drop(c);
			c->since = -1; /* dropped once */
			h->dropped_idle++;
		}
	}
}

static void on_sweep(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sweep(arg, clock__now());
}

/* The table full: the idle connection accepted first makes room. */
static void make_room(struct http *h)
{
	struct conn *oldest = NULL;

	sweep(h, clock__now());
	if (h->nr_conns < HTTP_MAX_CONNS)
		return;
	for (size_t i = 0; i < HTTP_MAX_CONNS; i++) {
		struct conn *c = &h->conns[i];

		if (c->bev && !c->busy && c->since > 0 && (!oldest || c->since < oldest->since))
			oldest = c;
	}
	if (oldest) {
		drop(oldest);
		oldest->since = -1;
		h->dropped_full++;
	}
}

/* evhttp asks for each new connection's bufferevent: ours, counted. */
static struct bufferevent *new_conn(struct event_base *base, void *arg)
{
	struct http *h = arg;
	struct bufferevent *bev;

	if (h->nr_conns >= HTTP_MAX_CONNS)
		make_room(h);
	bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!bev)
		return NULL;
	for (size_t i = 0; i < HTTP_MAX_CONNS; i++) {
		if (h->conns[i].bev)
			continue;
		bufferevent_incref(bev);
		h->conns[i] = (struct conn){ .bev = bev, .since = clock__now() };
		h->nr_conns++;
		return bev;
	}
	/* every slot waits for a reply (HTTP_MAX_CONNS > HTTP_MAX_JOBS, so
	 * only until the sweep): untracked, it ends at the I/O timeout */
	h->dropped_full++;
	return bev;
}

/* ---- replies ---- */

static void count_reply(struct http *h, int code)
{
	for (int k = 0; k < R__MAX; k++)
		if (reply_codes[k] == code) {
			h->replies[k]++;
			return;
		}
	h->replies[R_500]++;
}

static void on_complete(struct evhttp_request *req, void *arg)
{
	struct http *h = arg;
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct conn *c = evcon ? conn_of(h, evhttp_connection_get_bufferevent(evcon)) : NULL;

	h->in_flight--;
	if (c && c->since >= 0)
		c->since = clock__now(); /* idle again from here */
}

static void send_reply(struct http *h, struct evhttp_request *req, int code, const char *reason,
		       struct evbuffer *body)
{
	count_reply(h, code);
	h->in_flight++;
	evhttp_request_set_on_complete_cb(req, on_complete, h);
	evhttp_send_reply(req, code, reason, body);
}

/* An error, or a text page: text/plain, with X-Go-Pprof so that go tool
 * pprof prints it. */
static void reply_text(struct http *h, struct evhttp_request *req, int code, const char *reason,
		       const char *fmt, ...)
{
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct evbuffer *body = evbuffer_new();
	va_list ap;

	evhttp_add_header(out, "Content-Type", "text/plain; charset=utf-8");
	evhttp_add_header(out, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(out, "X-Go-Pprof", "1");
	if (code == 401)
		evhttp_add_header(out, "WWW-Authenticate", "Bearer");
	if (code == 405)
		evhttp_add_header(out, "Allow", "GET");
	if (code == 503)
		evhttp_add_header(out, "Retry-After", "5");
	if (body) {
		va_start(ap, fmt);
		evbuffer_add_vprintf(body, fmt, ap);
		va_end(ap);
	}
	send_reply(h, req, code, reason, body);
	if (body)
		evbuffer_free(body);
}

static const char *reason_of(int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

/* A job's answer: the profile, or its error. */
static void reply_answer(struct http *h, struct pending *p, const struct answer *a)
{
	struct evkeyvalq *out;
	struct evbuffer *body;

	if (a->status != 200) {
		reply_text(h, p->req, a->status, reason_of(a->status), "%.*s\n", (int)a->len,
			   (const char *)a->body);
		return;
	}
	out = evhttp_request_get_output_headers(p->req);
	body = evbuffer_new();
	if (!body || evbuffer_add(body, a->body, a->len)) {
		if (body)
			evbuffer_free(body);
		reply_text(h, p->req, 500, reason_of(500), "out of memory\n");
		return;
	}
	/* what Go's net/http/pprof sends, and Alloy checks */
	evhttp_add_header(out, "Content-Type", "application/octet-stream");
	evhttp_add_header(out, "Content-Disposition", "attachment; filename=\"profile\"");
	evhttp_add_header(out, "X-Content-Type-Options", "nosniff");
	send_reply(h, p->req, 200, "OK", body);
	evbuffer_free(body);
}

static void finish_pending(struct http *h, struct pending *p)
{
	struct conn *c = conn_of(h, p->bev);

	if (c && c->busy)
		c->busy--;
	*p = (struct pending){ 0 };
	atomic_fetch_sub(&h->open_jobs, 1);
}

/* The sampler answered: send what it gave. */
static void deliver_answers(struct http *h)
{
	struct answer *a, *next;

	pthread_mutex_lock(&h->lock);
	a = h->answers;
	h->answers = NULL;
	pthread_mutex_unlock(&h->lock);
	for (; a; a = next) {
		next = a->next;
		for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
			if (h->pend[i].id == a->id) {
				reply_answer(h, &h->pend[i], a);
				finish_pending(h, &h->pend[i]);
			}
		free(a->body);
		free(a);
	}
}

/* ---- requests ---- */

/* The client of a job went away: its request is ours to free (evhttp
 * detached it), its window is cancelled. */
static void on_close(struct evhttp_connection *evcon, void *arg)
{
	struct http *h = arg;

	for (size_t i = 0; i < HTTP_MAX_JOBS; i++) {
		struct pending *p = &h->pend[i];

		if (!p->id || p->evcon != evcon)
			continue;
		pthread_mutex_lock(&h->lock);
		if (h->nr_cancels < HTTP_MAX_JOBS)
			h->cancels[h->nr_cancels++] = p->id;
		atomic_store(&h->news, true);
		pthread_mutex_unlock(&h->lock);
		evhttp_request_free(p->req);
		finish_pending(h, p);
	}
}

/* evhttp does not read while a request waits for its reply, so it would
 * see a client gone only when the reply is written: the socket says so
 * now (an end of file, or an error, where the reply is to go). */
static bool hung_up(struct conn *c)
{
	int fd = bufferevent_getfd(c->bev);
	char b;

	if (fd < 0)
		return false;
	ssize_t n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Cancels the jobs of a client that hung up and frees its connection
 * (with their requests: evhttp owns them while attached). */
static void end_hung_up(struct http *h, struct conn *c)
{
	struct evhttp_connection *evcon = NULL;

	for (size_t i = 0; i < HTTP_MAX_JOBS; i++) {
		struct pending *p = &h->pend[i];

		if (!p->id || p->bev != c->bev)
			continue;
		evcon = p->evcon;
		pthread_mutex_lock(&h->lock);
		if (h->nr_cancels < HTTP_MAX_JOBS)
			h->cancels[h->nr_cancels++] = p->id;
		atomic_store(&h->news, true);
		pthread_mutex_unlock(&h->lock);
		finish_pending(h, p);
	}
	c->busy = 0;
	if (evcon)
		evhttp_connection_free(evcon);
}

static bool authorized(const struct http *h, struct evhttp_request *req)
{
	const char *a;

	if (!h->token)
		return true;
	a = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
	return a && !strncasecmp(a, "Bearer ", 7) && request__same_secret(a + 7, h->token);
}

static void request_profile(struct http *h, struct evhttp_request *req, const char *query)
{
	struct http_job j = { 0 };
	struct pending *p = NULL;
	const char *why = "";
	struct conn *c;

	if (request__parse_query(query, &j, &why)) {
		reply_text(h, req, 400, "Bad Request", "smolder: %s\n", why);
		return;
	}
	for (size_t i = 0; i < HTTP_MAX_JOBS && !p; i++)
		if (!h->pend[i].id)
			p = &h->pend[i];
	pthread_mutex_lock(&h->lock);
	if (!p || h->stop || h->nr_jobs == HTTP_MAX_JOBS) {
		pthread_mutex_unlock(&h->lock);
		reply_text(h, req, 503, "Service Unavailable", "smolder: %s\n",
			   h->stop ? "stopping" : "too many profile requests at once (at most 16)");
		return;
	}
	j.id = ++h->next_id;
	h->jobs[h->nr_jobs++] = j;
	atomic_store(&h->news, true);
	pthread_mutex_unlock(&h->lock);
	atomic_fetch_add(&h->open_jobs, 1);
	*p = (struct pending){ .id = j.id, .req = req, .evcon = evhttp_request_get_connection(req) };
	p->bev = evhttp_connection_get_bufferevent(p->evcon);
	if ((c = conn_of(h, p->bev)))
		c->busy++;
	evhttp_connection_set_closecb(p->evcon, on_close, h);
}

static void reply_metrics(struct http *h, struct evhttp_request *req)
{
	static const char *const reasons[R__MAX] = { "200", "400", "401", "404", "405", "503", "500" };
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct evbuffer *b = evbuffer_new();

	if (!b) {
		reply_text(h, req, 500, "Internal Server Error", "out of memory\n");
		return;
	}
	/* the gauge counts no connection evhttp has already freed, even
	 * one dropped less than a sweep ago */
	for (size_t i = 0; i < HTTP_MAX_CONNS; i++)
		if (h->conns[i].bev)
			forget_freed(h, &h->conns[i]);
	pthread_mutex_lock(&h->lock);
	if (h->metrics)
		evbuffer_add(b, h->metrics, strlen(h->metrics));
	pthread_mutex_unlock(&h->lock);
	evbuffer_add_printf(b, "# HELP smolder_http_open_requests Profile requests waiting for their window.\n"
			       "# TYPE smolder_http_open_requests gauge\nsmolder_http_open_requests %u\n",
			    atomic_load(&h->open_jobs));
	evbuffer_add_printf(b, "# HELP smolder_http_connections Connections open.\n"
			       "# TYPE smolder_http_connections gauge\nsmolder_http_connections %u\n",
			    h->nr_conns);
	evbuffer_add_printf(b, "# HELP smolder_http_connections_dropped_total Connections ended by smolder.\n"
			       "# TYPE smolder_http_connections_dropped_total counter\n"
			       "smolder_http_connections_dropped_total{reason=\"idle\"} %" PRIu64 "\n"
			       "smolder_http_connections_dropped_total{reason=\"full\"} %" PRIu64 "\n",
			    h->dropped_idle, h->dropped_full);
	evbuffer_add_printf(b, "# HELP smolder_http_responses_total Responses by status code.\n"
			       "# TYPE smolder_http_responses_total counter\n");
	count_reply(h, 200); /* this one */
	for (int k = 0; k < R__MAX; k++)
		evbuffer_add_printf(b, "smolder_http_responses_total{code=\"%s\"} %" PRIu64 "\n",
				    reasons[k], h->replies[k]);
	h->replies[R_200]--; /* counted again by send_reply */
	evhttp_add_header(out, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	send_reply(h, req, 200, "OK", b);
	evbuffer_free(b);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct http *h = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	bool get = evhttp_request_get_command(req) == EVHTTP_REQ_GET;
	bool profile, index, metrics;

	if (!path) {
		reply_text(h, req, 400, "Bad Request", "smolder: bad request line\n");
		return;
	}
	if (!authorized(h, req)) {
		reply_text(h, req, 401, "Unauthorized",
			   "smolder: a bearer token is needed (Authorization: Bearer TOKEN)\n");
		return;
	}
	profile = !strcmp(path, "/debug/pprof/profile");
	index = !strcmp(path, "/debug/pprof/") || !strcmp(path, "/debug/pprof");
	metrics = !strcmp(path, "/metrics");
	if (!profile && !index && !metrics) {
		reply_text(h, req, 404, "Not Found",
			   "smolder: no such profile (smolder serves /debug/pprof/profile, CPU only)\n");
	} else if (!get) {
		reply_text(h, req, 405, "Method Not Allowed", "smolder: only GET is served\n");
	} else if (profile) {
		request_profile(h, req, evhttp_uri_get_query(uri));
	} else if (metrics) {
		reply_metrics(h, req);
	} else {
		reply_text(h, req, 200, "OK",
			   "smolder profiles: CPU only\n\n"
			   "/debug/pprof/profile?seconds=N  the next N seconds (1 to %d, default %d),"
			   " gzip'd pprof; pid=P,... narrows it to those processes\n"
			   "/metrics                        Prometheus metrics of smolder itself\n",
			   HTTP_MAX_SECONDS, HTTP_DEFAULT_SECONDS);
	}
}

/* ---- the thread ---- */

static bool all_sent(const struct http *h)
{
	return !h->in_flight;
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct http *h = arg;
	char buf[64];
	bool stop;

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	deliver_answers(h);
	pthread_mutex_lock(&h->lock);
	stop = h->stop;
	pthread_mutex_unlock(&h->lock);
	if (stop && !h->stopping) {
		h->stopping = true;
		h->stop_deadline = clock__now() + 2;
		if (h->listener)
			evconnlistener_disable(h->listener);
		for (size_t i = 0; i < HTTP_MAX_JOBS; i++)
			if (h->pend[i].id) {
				reply_text(h, h->pend[i].req, 503, "Service Unavailable",
					   "smolder: stopping\n");
				finish_pending(h, &h->pend[i]);
			}
	}
	if (h->stopping && (all_sent(h) || clock__now() >= h->stop_deadline))
		event_base_loopbreak(h->base);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct http *h = arg;

	on_sweep(fd, what, arg);
	if (h->stopping)
		on_wake(h->wake[0], 0, h);
}

static void *run(void *arg)
{
	struct http *h = arg;
	sigset_t pipe;

	/* a client that hangs up before its reply is written: EPIPE on that
	 * connection, which evhttp then frees, not the end of the run */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, NULL);
	event_base_dispatch(h->base);
	return NULL;
}

static int bind_addr(struct http *h, const char *addr)
{
	char host[256], port_s[8];
	unsigned port;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	int e;

	if (request__parse_addr(addr, host, sizeof(host), &port))
		return -1;
	snprintf(port_s, sizeof(port_s), "%u", port);
	if ((e = getaddrinfo(host, port_s, &hints, &ai))) {
		err("cannot listen on %s: %s (give a numeric address, e.g. 127.0.0.1:%d)", addr,
		    gai_strerror(e), HTTP_DEFAULT_PORT);
		return -1;
	}
	h->listener = evconnlistener_new_bind(h->base, NULL, NULL,
					      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
					      128, ai->ai_addr, ai->ai_addrlen);
	e = errno;
	freeaddrinfo(ai);
	if (!h->listener) {
		err("cannot listen on %s: %s (is another server on that port?)", addr, log__errstr(e));
		return -1;
	}
	if (!evhttp_bind_listener(h->http, h->listener)) {
		err("cannot serve on %s: out of memory", addr);
		return -1;
	}
	return 0;
}

static void free_http(struct http *h)
{
	struct answer *a, *next;

	if (h->http)
		evhttp_free(h->http); /* frees the listener bound to it */
	else if (h->listener)
		evconnlistener_free(h->listener);
	for (size_t i = 0; i < HTTP_MAX_CONNS; i++)
		if (h->conns[i].bev)
			bufferevent_decref(h->conns[i].bev);
	if (h->wake_ev)
		event_free(h->wake_ev);
	if (h->sweep_ev)
		event_free(h->sweep_ev);
	if (h->base)
		event_base_free(h->base);
	for (a = h->answers; a; a = next) {
		next = a->next;
		free(a->body);
		free(a);
	}
	if (h->wake[0] >= 0)
		close(h->wake[0]);
	if (h->wake[1] >= 0)
		close(h->wake[1]);
	free(h->metrics);
	if (h->token)
		explicit_bzero(h->token, strlen(h->token));
	free(h->token);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

static int setup(struct http *h, const struct http_opts *o)
{
	struct timeval io = { .tv_sec = HTTP_IO_SECONDS }, tick = { .tv_usec = 100000 };

	h->base = event_base_new();
	h->http = h->base ? evhttp_new(h->base) : NULL;
	if (!h->http || pipe2(h->wake, O_CLOEXEC | O_NONBLOCK)) {
		err("cannot start the HTTP server: %s", log__errstr(errno ? errno : ENOMEM));
		return -1;
	}
	h->wake_ev = event_new(h->base, h->wake[0], EV_READ | EV_PERSIST, on_wake, h);
	h->sweep_ev = event_new(h->base, -1, EV_PERSIST, on_tick, h);
	if (!h->wake_ev || !h->sweep_ev || event_add(h->wake_ev, NULL) || event_add(h->sweep_ev, &tick)) {
		err("cannot start the HTTP server: out of memory");
		return -1;
	}
	evhttp_set_timeout_tv(h->http, &io);
	evhttp_set_max_headers_size(h->http, HTTP_MAX_HEADER_BYTES);
	evhttp_set_max_body_size(h->http, 0);
	/* every method reaches on_request, which answers 405 as text */
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
					    EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
					    EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
	evhttp_set_gencb(h->http, on_request, h);
	evhttp_set_bevcb(h->http, new_conn, h);
	if (o->token && !(h->token = strdup(o->token))) {
		err("out of memory");
		return -1;
	}
	return bind_addr(h, o->addr);
}

struct http *http__start(const struct http_opts *o)
{
	struct http *h = calloc(1, sizeof(*h));

	if (!h) {
		err("out of memory");
		return NULL;
	}
	h->wake[0] = h->wake[1] = -1;
	pthread_mutex_init(&h->lock, NULL);
	if (setup(h, o)) {
		free_http(h);
		return NULL;
	}
	if ((errno = pthread_create(&h->thread, NULL, run, h))) {
		err("cannot start the HTTP thread: %s", log__errstr(errno));
		free_http(h);
		return NULL;
	}
	return h;
}

bool http__news(struct http *h)
{
	return atomic_load(&h->news);
}

size_t http__take_jobs(struct http *h, struct http_job *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->nr_jobs < max ? h->nr_jobs : max;
	memcpy(out, h->jobs, n * sizeof(*out));
	memmove(h->jobs, h->jobs + n, (h->nr_jobs - n) * sizeof(*out));
	h->nr_jobs -= n;
	atomic_store(&h->news, h->nr_jobs || h->nr_cancels);
	pthread_mutex_unlock(&h->lock);
	return n;
}

size_t http__take_cancels(struct http *h, uint64_t *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->nr_cancels < max ? h->nr_cancels : max;
	memcpy(out, h->cancels, n * sizeof(*out));
	memmove(h->cancels, h->cancels + n, (h->nr_cancels - n) * sizeof(*out));
	h->nr_cancels -= n;
	atomic_store(&h->news, h->nr_jobs || h->nr_cancels);
	pthread_mutex_unlock(&h->lock);
	return n;
}

static void wake(struct http *h)
{
	ssize_t n = write(h->wake[1], "", 1); /* full: a wake is pending anyway */

	(void)n;
}

void http__answer(struct http *h, uint64_t id, int status, void *body, size_t len)
{
	struct answer *a = calloc(1, sizeof(*a));

	if (!a) {
		free(status == 200 ? body : NULL);
		return; /* the job's client then waits for its timeout */
	}
	*a = (struct answer){ .id = id, .status = status, .len = len };
	if (status == 200) {
		a->body = body;
	} else if ((a->body = malloc(len + 1))) {
		memcpy(a->body, body, len);
	} else {
		a->len = 0;
	}
	pthread_mutex_lock(&h->lock);
	a->next = h->answers;
	h->answers = a;
	pthread_mutex_unlock(&h->lock);
	wake(h);
}

void http__set_metrics(struct http *h, char *text)
{
	char *old;

	pthread_mutex_lock(&h->lock);
	old = h->metrics;
	h->metrics = text;
	pthread_mutex_unlock(&h->lock);
	free(old);
}

unsigned http__open_jobs(struct http *h)
{
	return atomic_load(&h->open_jobs);
}

void http__stop(struct http *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_mutex_unlock(&h->lock);
	wake(h);
	pthread_join(h->thread, NULL);
	free_http(h);
}
