// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The folded-stack reader (see folded_read.h).
 * Lines are split from the right: the count is the last whitespace-separated
 * field, so frame names keep their spaces.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "profile/folded_read.h"
#include "lib/grow.h"
#include "lib/log.h"

/* A trailing count in s[0..*len): "123", "123." or "12.5" after whitespace.
 * On success *len shrinks to the text before the whitespace. */
static bool trailing_count(const char *s, size_t *len, double *out)
{
	size_t end = *len, i = end;
	bool dot = false;

	while (i > 0 && (s[i - 1] == '.' || (s[i - 1] >= '0' && s[i - 1] <= '9'))) {
		if (s[i - 1] == '.') {
			if (dot)
				return false;
			dot = true;
		}
		i--;
	}
	/* digits first: ".5" is not a count in flamegraph.pl either */
	if (i == end || s[i] == '.' || i == 0 || (s[i - 1] != ' ' && s[i - 1] != '\t'))
		return false;
	*out = strtod(s + i, NULL);
	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	*len = i;
	return true;
}

/* Writes "line N of NAME: ..." into errbuf and returns rc. */
__attribute__((format(printf, 6, 7)))
static int line_error(int rc, char *errbuf, size_t errlen, const char *name, size_t lineno,
		      const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(errbuf, errlen, "line %zu of %s: ", lineno, name);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(errbuf + n, errlen - n, fmt, ap);
	va_end(ap);
	return rc;
}

/* What read_line() returns for a line that is not a stack. */
#define NOT_STACK 1

/* One line, without its newline.  kinds: 0 unknown yet, 1 or 2 counts.
 * 0, NOT_STACK (errbuf says why, for strict reading), -EINVAL for a
 * stack whose count is out of bounds, -ENOMEM. */
static int read_line(const char *line, size_t len, const char *name, size_t lineno,
		     struct profile *p, int *kinds, char *errbuf, size_t errlen)
{
	double count, before = 0;
	size_t len2;
	bool two;
	int k;

	if (memchr(line, '\0', len))
		return line_error(NOT_STACK, errbuf, errlen, name, lineno,
				  "a NUL byte (not a folded-stacks text file?)");
	if (!trailing_count(line, &len, &count))
		return line_error(NOT_STACK, errbuf, errlen, name, lineno,
				  "no sample count at the end of the line (expected \"frame;frame;... COUNT\")");
	len2 = len;
	two = trailing_count(line, &len2, &before);
	if (*kinds == 2 && !two)
		return line_error(NOT_STACK, errbuf, errlen, name, lineno,
				  "one sample count, but the first line had two (BEFORE AFTER)");
	/* with one count, a frame name may itself end in " 12"; the first
	 * stack has two only if a stack is left before them */
	k = *kinds ? *kinds : two && len2 ? 2 : 1;
	if (k == 2)
		len = len2;
	if (!len)
		return line_error(NOT_STACK, errbuf, errlen, name, lineno, "a count without a stack");
	*kinds = k;
	if (count > FOLDED_COUNT_MAX || (*kinds == 2 && before > FOLDED_COUNT_MAX))
		return line_error(-EINVAL, errbuf, errlen, name, lineno,
				  "a count over 10^18 (expected a sample count)");
	p->diff = *kinds == 2;
	return profile__add(p, line, len, count, p->diff ? before : 0);
}

/* Room in *buf for n + 1 bytes (up to FOLDED_LINE_MAX + 1); -ENOMEM. */
static int room(char **buf, size_t *cap, size_t n)
{
	return GROW_MAX(*buf, *cap, n + 1, 4096, FOLDED_LINE_MAX + 1) ? -ENOMEM : 0;
}

/* The next line of in, without its newline, NUL-terminated in *buf: its
 * length; -1 at the end of the input; -EFBIG when it is longer than
 * FOLDED_LINE_MAX (the rest of it is left unread), -ENOMEM. */
static ssize_t next_line(FILE *in, char **buf, size_t *cap)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(in)) != EOF && c != '\n') {
		if (n == FOLDED_LINE_MAX)
			return -EFBIG;
		if (room(buf, cap, n))
			return -ENOMEM;
		(*buf)[n++] = (char)c;
	}
	if (c == EOF && !n)
		return -1;
	if (room(buf, cap, n))
		return -ENOMEM;
	(*buf)[n] = '\0';
	return n;
}

/* Drops the rest of a line that next_line() found too long. */
static void skip_rest(FILE *in)
{
	int c;

	while ((c = getc_unlocked(in)) != EOF && c != '\n')
		;
}

/* Counts a skipped line; the first one is kept, printable, for the quote. */
static void note_skip(struct folded_skips *s, const char *name, size_t lineno,
		      const char *line, size_t len)
{
	size_t o = 0;

	if (s->nr++)
		return;
	s->line = lineno;
	snprintf(s->name, sizeof(s->name), "%s", name);
	for (size_t i = 0; i < len && i < FOLDED_QUOTE_MAX; i++) {
		unsigned char c = line[i];

		if (c == '"' || c == '\\')
			o += snprintf(s->text + o, sizeof(s->text) - o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			o += snprintf(s->text + o, sizeof(s->text) - o, "\\x%02x", c);
		else
			s->text[o++] = c;
	}
	if (len > FOLDED_QUOTE_MAX)
		o += snprintf(s->text + o, sizeof(s->text) - o, "...");
	s->text[o] = '\0';
}

/* "2026-11-28T10:02:00.123Z" at s: ns since the epoch, 0 when it is not one. */
static uint64_t parse_utc(const char *s)
{
	int ms = 0, n = 0;
	struct tm tm = { 0 };
	time_t t;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &n) != 7 || !n ||
	    (s[n] && s[n] != ' ') || ms < 0 || tm.tm_year < 1970 || tm.tm_year > 9999)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon--;
	t = timegm(&tm);
	return t > 0 ? (uint64_t)t * 1000000000ULL + (uint64_t)ms * 1000000ULL : 0;
}

static void put_utc(FILE *out, const char *key, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	fprintf(out, " %s=%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", key, tm.tm_year + 1900,
		tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		(unsigned)(ns % 1000000000 / 1000000));
}

void folded_read__put_header(FILE *out, const struct folded_header *h)
{
	fwrite(FOLDED_HEADER, 1, strlen(FOLDED_HEADER) - 1, out); /* its space: put_utc's */
	put_utc(out, "start", h->start_ns);
	put_utc(out, "end", h->end_ns);
	fprintf(out, " host=%s samples=%" PRIu64 " lost=%" PRIu64 " rate=%gHz\n",
		*h->host ? h->host : "-", h->samples, h->lost, h->rate_hz);
}

/* The value of " key=" in line (NUL-terminated), or NULL. */
static const char *field(const char *line, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = strchr(line, ' '); s; s = strchr(s + 1, ' '))
		if (!strncmp(s + 1, key, n) && s[1 + n] == '=')
			return s + 2 + n;
	return NULL;
}

bool folded_read__header(const char *line, size_t len, struct folded_header *h)
{
	char buf[512];
	const char *v;

	*h = (struct folded_header){ 0 };
	if (len >= sizeof(buf) || len < strlen(FOLDED_HEADER) ||
	    memcmp(line, FOLDED_HEADER, strlen(FOLDED_HEADER)))
		return false;
	memcpy(buf, line, len);
	buf[len] = '\0';
	h->start_ns = (v = field(buf, "start")) ? parse_utc(v) : 0;
	h->end_ns = (v = field(buf, "end")) ? parse_utc(v) : 0;
	if (!h->start_ns || h->end_ns < h->start_ns)
		return false;
	if ((v = field(buf, "host")) && strcmp(v, "-"))
		sscanf(v, "%64[^ ]", h->host);
	if ((v = field(buf, "samples")))
		h->samples = strtoull(v, NULL, 10);
	if ((v = field(buf, "lost")))
		h->lost = strtoull(v, NULL, 10);
	if ((v = field(buf, "rate")))
		h->rate_hz = strtod(v, NULL);
	if (!(h->rate_hz >= 0 && h->rate_hz < 1e9))
		h->rate_hz = 0;
	return true;
}

/* smolder's header, which is never a stack: a line that ends in a count
 * or holds a ';' is one, whatever it starts with. */
static bool is_header(const char *line, size_t len)
{
	struct folded_header h;
	size_t n = len;
	double count;

	return !memchr(line, ';', len) && !trailing_count(line, &n, &count) &&
	       folded_read__header(line, len, &h);
}

/* A comment, when skipping: '#' first and no frame separator, as the
 * "# key: value" lines of Python profilers ("# interval: 100" would
 * otherwise be a stack of one frame). */
static bool is_comment(const char *line, size_t len)
{
	return line[0] == '#' && !memchr(line, ';', len);
}

int folded_read__skip(FILE *in, const char *name, struct profile *p, struct folded_skips *skips,
		     char *errbuf, size_t errlen)
{
	int kinds = p->nr ? (p->diff ? 2 : 1) : 0, e = 0;
	size_t cap = 0, lineno = 0;
	char *line = NULL;
	ssize_t n;

	while (!e && (n = next_line(in, &line, &cap)) != -1) {
		lineno++;
		if (n == -EFBIG && skips) {
			skip_rest(in);
			note_skip(skips, name, lineno, line, FOLDED_LINE_MAX);
			continue;
		}
		if (n < 0) {
			e = n == -EFBIG ? line_error(-EINVAL, errbuf, errlen, name, lineno,
						     "longer than %u MiB (not a folded-stacks file?)",
						     FOLDED_LINE_MAX >> 20)
					: (int)n;
			break;
		}
		while (n > 0 && line[n - 1] && strchr("\r \t", line[n - 1]))
			n--;
		if (!n)
			continue;
		if (lineno == 1 && is_header(line, n))
			continue; /* smolder's header: not a stack, and not a stray line */
		if (skips && is_comment(line, n))
			e = NOT_STACK;
		else
			e = read_line(line, n, name, lineno, p, &kinds, errbuf, errlen);
		if (e == NOT_STACK && skips) {
			note_skip(skips, name, lineno, line, n);
			e = 0;
		} else if (e == NOT_STACK) {
			e = -EINVAL;
		}
	}
	free(line);
	if (e == -ENOMEM)
		snprintf(errbuf, errlen, "out of memory reading %s", name);
	else if (!e && ferror(in)) {
		snprintf(errbuf, errlen, "cannot read %s: %s (give a folded-stacks text file)",
			 name, log__errstr(errno));
		e = -EIO;
	}
	return e;
}

int folded_read__parse(FILE *in, const char *name, struct profile *p, char *errbuf, size_t errlen)
{
	return folded_read__skip(in, name, p, NULL, errbuf, errlen);
}

void folded_skips__describe(const struct folded_skips *s, bool diff, char *buf, size_t len)
{
	if (!s->nr) {
		if (len)
			buf[0] = '\0';
		return;
	}
	snprintf(buf, len, "skipped %zu line%s that %s not \"%s\" (first: line %zu of %s: \"%s\")",
		 s->nr, s->nr == 1 ? "" : "s", s->nr == 1 ? "is" : "are",
		 diff ? "stack before after" : "stack count", s->line, s->name, s->text);
}
