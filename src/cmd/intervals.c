// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Continuous mode's profiles read back by time (see intervals.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cmd/intervals.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "output/format.h"
#include "profile/folded_read.h"

#define NS 1000000000ULL
#define DAY_S 86400

/* "HH:MM", "HH:MM:SS" or "HH:MM:SS.fff", all of s: 0, or -1. */
static int parse_clock(const char *s, struct tm *tm, uint64_t *frac_ns)
{
	unsigned h, m, sec = 0;
	int n = 0;

	*frac_ns = 0;
	if (sscanf(s, "%2u:%2u%n", &h, &m, &n) != 2 || n != 5)
		return -1;
	s += n;
	if (*s == ':') {
		if (sscanf(s, ":%2u%n", &sec, &n) != 1 || n != 3)
			return -1;
		s += n;
		if (*s == '.') {
			uint64_t scale = NS / 10;

			for (s++; *s >= '0' && *s <= '9' && scale; s++, scale /= 10)
				*frac_ns += (uint64_t)(*s - '0') * scale;
			if (s[-1] == '.')
				return -1;
		}
	}
	if (*s || h > 23 || m > 59 || sec > 60)
		return -1;
	tm->tm_hour = h;
	tm->tm_min = m;
	tm->tm_sec = sec;
	return 0;
}

/* "-10m", "-90s", "-2h", "-1d": how many ns before now; -1 if not one. */
static int parse_age(const char *s, uint64_t now_ns, uint64_t *out)
{
	char *end;
	double v = strtod(s + 1, &end), unit;

	if (s[0] != '-' || end == s + 1 || s[1] < '0' || s[1] > '9' || !end[0] || end[1])
		return -1;
	unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : *end == 'd' ? DAY_S : 0;
	if (!unit || !(v * unit * 1e9 < (double)now_ns))
		return -1;
	*out = now_ns - (uint64_t)(v * unit * 1e9);
	return 0;
}

/* tm (a broken-down local or UTC time, normalized by it) in ns. */
static int64_t tm_ns(struct tm *tm, bool utc, uint64_t frac_ns)
{
	time_t t;

	tm->tm_isdst = -1;
	t = utc ? timegm(tm) : mktime(tm);
	return t < 0 ? -1 : (int64_t)t * (int64_t)NS + (int64_t)frac_ns;
}

/* A time of day on the day of ref (ns), moved by whole days until it is the
 * latest not after ref (after 0), or the first after `after`. */
static int time_of_day(struct tm *clock, bool utc, uint64_t frac, uint64_t ref, uint64_t after,
		       uint64_t *out)
{
	time_t r = (time_t)((after ? after : ref) / NS);
	struct tm tm;
	int64_t ns;

	if (utc)
		gmtime_r(&r, &tm);
	else
		localtime_r(&r, &tm);
	tm.tm_hour = clock->tm_hour;
	tm.tm_min = clock->tm_min;
	tm.tm_sec = clock->tm_sec;
	for (int tries = 0; tries < 3; tries++) {
		if ((ns = tm_ns(&tm, utc, frac)) < 0)
			return -1;
		if (after ? (uint64_t)ns <= after : (uint64_t)ns > ref)
			tm.tm_mday += after ? 1 : -1; /* normalized by the next tm_ns */
		else
			break;
	}
	*out = (uint64_t)ns;
	return 0;
}

int intervals__parse_time(const char *s, uint64_t now_ns, uint64_t after, uint64_t *out)
{
	char buf[64];
	size_t len = strlen(s);
	bool utc = len && s[len - 1] == 'Z';
	struct tm tm = { 0 };
	unsigned y, mo, d;
	uint64_t frac;
	int64_t ns;
	int n = 0;

	if (!strcmp(s, "now")) {
		*out = now_ns;
		return 0;
	}
	if (s[0] == '-')
		return parse_age(s, now_ns, out);
	if (len - utc >= sizeof(buf) || !len)
		return -1;
	memcpy(buf, s, len - utc);
	buf[len - utc] = '\0';
	if (sscanf(buf, "%4u-%2u-%2u%n", &y, &mo, &d, &n) == 3 && n == 10 &&
	    (buf[10] == 'T' || buf[10] == ' ')) {
		if (parse_clock(buf + 11, &tm, &frac) || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
		    d > 31)
			return -1;
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
		if ((ns = tm_ns(&tm, utc, frac)) < 0)
			return -1;
		*out = (uint64_t)ns;
		return 0;
	}
	if (parse_clock(buf, &tm, &frac))
		return -1;
	return time_of_day(&tm, utc, frac, now_ns, after, out);
}

/* "smolder-20261128T100200.123Z" at the start of name: its time, else 0. */
static uint64_t name_start(const char *name)
{
	struct tm tm = { 0 };
	unsigned ms;
	int n = 0;
	time_t t;

	if (sscanf(name, "smolder-%4d%2d%2dT%2d%2d%2d.%3uZ%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &n) != 7 || n != 28)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon--;
	t = timegm(&tm);
	return t > 0 ? (uint64_t)t * NS + (uint64_t)ms * 1000000ULL : 0;
}

/* A name continuous mode gives a folded profile: smolder-<start>[-XXXXXX].folded
 * (or .txt). */
static bool interval_name(const char *name)
{
	size_t n = strlen(name);

	return n < sizeof(((struct interval_file *)0)->name) && name_start(name) &&
	       ((n > 7 && !strcmp(name + n - 7, ".folded")) || (n > 4 && !strcmp(name + n - 4, ".txt")));
}

/* Opens name of the directory for reading: a regular file, never followed
 * nor blocked on.  The fd, or -1 (errno). */
static int open_regular(int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Reads what file f says of itself: its header, else its name. */
static void read_times(int fd, struct interval_file *f)
{
	struct folded_header h;
	char line[512];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	char *nl;

	f->start_ns = f->end_ns = name_start(f->name);
	if (n <= 0)
		return;
	line[n] = '\0';
	nl = strchr(line, '\n');
	if (!nl || !folded_read__header(line, nl - line, &h))
		return;
	f->header = true;
	f->start_ns = h.start_ns;
	f->end_ns = h.end_ns;
	f->samples = h.samples;
	f->lost = h.lost;
	f->rate_hz = h.rate_hz;
	memcpy(f->host, h.host, sizeof(f->host));
}

static int by_start(const void *a, const void *b)
{
	const struct interval_file *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns ? 1 : strcmp(x->name, y->name);
}

/* Whose files may be read: the directory's owner's, and ours. */
struct owners {
	uid_t dir, self;
	size_t skipped;
	size_t not_files;     /* names of ours that are FIFOs, symlinks, ... */
	char first[72];
	uid_t first_uid;
};

/* Considers one entry: an interval file of ours, picked if in [from, to). */
static int consider(struct intervals *iv, struct owners *ow, const char *name, uint64_t from,
		    uint64_t to)
{
	struct interval_file f = { 0 };
	struct stat st;
	uint64_t middle;
	int fd;

	if (!interval_name(name))
		return 0;
	if ((fd = open_regular(iv->dfd, name, &st)) < 0) {
		ow->not_files++;
		return 0;
	}
	if (st.st_uid != ow->dir && st.st_uid != ow->self) {
		if (!ow->skipped++) {
			snprintf(ow->first, sizeof(ow->first), "%s", name);
			ow->first_uid = st.st_uid;
		}
		close(fd);
		return 0;
	}
	snprintf(f.name, sizeof(f.name), "%s", name);
	read_times(fd, &f);
	close(fd);
	iv->seen++;
	if (!iv->first_ns || f.start_ns < iv->first_ns)
		iv->first_ns = f.start_ns;
	if (f.end_ns > iv->last_ns)
		iv->last_ns = f.end_ns;
	middle = f.start_ns + (f.end_ns - f.start_ns) / 2;
	if (middle < from || middle >= to)
		return 0;
	if (GROW(iv->files, iv->cap, iv->nr + 1, 64))
		return -ENOMEM;
	iv->files[iv->nr++] = f;
	return 0;
}

/* "10:02:00Z" of ns (or "the start", "now" for the open ends). */
static const char *when(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		return "the start";
	if (ns == UINT64_MAX)
		return "now";
	format__utc(ns, true, false, buf, len);
	return buf;
}

static int no_interval(const struct intervals *iv, uint64_t from, uint64_t to)
{
	char a[40], b[40], c[40], d[40];

	if (!iv->seen)
		err("no interval profiles in %s (expected continuous mode's smolder-*.folded files)",
		    iv->path);
	else
		err("no interval of %s lies in %s to %s (its %zu intervals span %s to %s; an "
		    "interval is in the range when its middle is)", iv->path, when(from, a, sizeof(a)),
		    when(to, b, sizeof(b)), iv->seen, when(iv->first_ns, c, sizeof(c)),
		    when(iv->last_ns, d, sizeof(d)));
	return 2;
}

int intervals__pick(struct intervals *iv, const char *dir, uint64_t from, uint64_t to)
{
	struct owners ow = { .self = geteuid() };
	struct dirent *de;
	struct stat st;
	size_t entries = 0;
	DIR *d;
	int e = 0;

	*iv = (struct intervals){ .dfd = -1 };
	snprintf(iv->path, sizeof(iv->path), "%s", dir);
	iv->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (iv->dfd < 0 || fstat(iv->dfd, &st) || !(d = fdopendir(dup(iv->dfd)))) {
		err("cannot read the directory %s: %s (give continuous mode's --output-dir)", dir,
		    log__errstr(errno));
		return 1;
	}
	ow.dir = st.st_uid;
	while (!e && (de = readdir(d)) && entries++ < INTERVALS_MAX)
		e = consider(iv, &ow, de->d_name, from, to);
	closedir(d);
	if (e) {
		err("out of memory");
		return 1;
	}
	if (entries > INTERVALS_MAX)
		warn("%s holds more than %d entries: only the first were read (split it)", dir,
		     INTERVALS_MAX);
	if (ow.skipped)
		warn("left out %zu file%s of other users in %s (first: %s, uid %u): anyone may have"
		     " put them there", ow.skipped, ow.skipped == 1 ? "" : "s", dir, ow.first,
		     (unsigned)ow.first_uid);
	if (ow.not_files)
		warn("left out %zu name%s in %s that %s not a regular file (a FIFO, a symlink, a"
		     " directory)", ow.not_files, ow.not_files == 1 ? "" : "s", dir,
		     ow.not_files == 1 ? "is" : "are");
	if (!iv->nr)
		return no_interval(iv, from, to);
	qsort(iv->files, iv->nr, sizeof(*iv->files), by_start);
	return 0;
}

FILE *intervals__open(const struct intervals *iv, size_t i)
{
	struct stat st;
	int fd = open_regular(iv->dfd, iv->files[i].name, &st);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f) {
		err("cannot read %s/%s: %s (it changed while read?)", iv->path, iv->files[i].name,
		    log__errstr(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

void intervals__describe(const struct intervals *iv, const char *source, struct capture_info *out)
{
	const struct interval_file *f = iv->files;
	uint64_t end = 0;

	out->source = source;
	out->interval = true;
	out->counted = true;
	out->start_ns = f[0].start_ns;
	out->rate_hz = f[0].rate_hz;
	snprintf(out->host, sizeof(out->host), "%s", f[0].host);
	for (size_t i = 0; i < iv->nr; i++) {
		if (f[i].end_ns > end)
			end = f[i].end_ns;
		if (f[i].rate_hz != out->rate_hz)
			out->rate_hz = 0;
		if (strcmp(f[i].host, out->host))
			out->host[0] = '\0';
		out->counted &= f[i].header;
		out->samples += f[i].samples;
		out->lost += f[i].lost;
	}
	out->duration_ns = end - out->start_ns;
}

void intervals__free(struct intervals *iv)
{
	if (iv->dfd >= 0)
		close(iv->dfd);
	free(iv->files);
	*iv = (struct intervals){ .dfd = -1 };
}
