// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Output formats by name and by file name, and the line that says what a
 * profile shows (see format.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "output/format.h"

static const struct {
	const char *name, *suffix, *suffix2;
} formats[] = {
	[FMT_AUTO] = { "auto", NULL, NULL },
	[FMT_REPORT] = { "report", ".report", NULL },
	[FMT_FOLDED] = { "folded", ".folded", ".txt" },
	[FMT_SVG] = { "svg", ".svg", NULL },
	[FMT_SPEEDSCOPE] = { "speedscope", ".speedscope.json", NULL },
	[FMT_PPROF] = { "pprof", ".pb.gz", NULL },
	[FMT_SUMMARY] = { "summary", ".summary", NULL },
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = suffix ? strlen(suffix) : 0;

	return m && n > m && !strcmp(s + n - m, suffix);
}

enum out_format format__of_path(const char *path)
{
	for (size_t i = 0; path && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (ends_with(path, formats[i].suffix) || ends_with(path, formats[i].suffix2))
			return i;
	return FMT_AUTO;
}

bool format__has_suffix(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	const char *dot;

	base = base ? base + 1 : path;
	dot = base ? strrchr(base, '.') : NULL;
	/* ".profile" is a name, not a suffix; "out." has none */
	return dot && dot > base && dot[1];
}

int format__parse(const char *name, enum out_format *out)
{
	for (size_t i = FMT_REPORT; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(name, formats[i].name)) {
			*out = i;
			return 0;
		}
	return -1;
}

const char *format__name(enum out_format fmt)
{
	return formats[fmt].name;
}

void format__utc(uint64_t ns, bool with_date, bool ms, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	char frac[8] = "";
	struct tm tm;

	gmtime_r(&t, &tm);
	if (ms)
		snprintf(frac, sizeof(frac), ".%03u", (unsigned)(ns % 1000000000 / 1000000));
	if (with_date)
		snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d%sZ", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	else
		snprintf(buf, len, "%02d:%02d:%02d%sZ", tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

/* Appends to buf[*at..len), as snprintf would; *at never passes len. */
__attribute__((format(printf, 4, 5)))
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at = *at + n < len ? *at + n : len - 1;
}

/* When: an interval's start and end, else a capture's start; and how long. */
static void put_when(const struct capture_info *ci, char *buf, size_t len, size_t *at)
{
	uint64_t end = ci->start_ns + ci->duration_ns;
	char from[40], to[40];

	if (ci->start_ns && ci->interval) {
		format__utc(ci->start_ns, true, true, from, sizeof(from));
		/* the end's date only when it is another day's */
		format__utc(end, ci->start_ns / 86400000000000ULL != end / 86400000000000ULL,
			    true, to, sizeof(to));
		put(buf, len, at, "%s%s to %s (%.1f s)", *at ? ", " : "", from, to,
		    ci->duration_ns / 1e9);
		return;
	}
	if (ci->start_ns) {
		format__utc(ci->start_ns, true, false, from, sizeof(from));
		put(buf, len, at, "%s%s", *at ? ", " : "", from);
	}
	if (ci->duration_ns)
		put(buf, len, at, "%s%.2f s", *at ? ", " : "", ci->duration_ns / 1e9);
}

void format__describe(const struct profile *p, char *buf, size_t len)
{
	const struct capture_info *ci = &p->info;
	size_t at = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (ci->source)
		put(buf, len, &at, "%s", ci->source);
	if (ci->targets)
		put(buf, len, &at, "%s%s", at ? ", " : "", ci->targets);
	put_when(ci, buf, len, &at);
	if (ci->rate_hz > 0)
		put(buf, len, &at, "%s%.*f Hz", at ? " at " : "", ci->rate_hz < 10 ? 2 : 0,
		    ci->rate_hz);
	if (*ci->host)
		put(buf, len, &at, "%s%s", at ? " on " : "", ci->host);
	if (*ci->release)
		put(buf, len, &at, "%sLinux %s%s", *ci->host ? " (" : at ? ", " : "", ci->release,
		    *ci->host ? ")" : "");
	if (ci->counted)
		put(buf, len, &at, "%s%" PRIu64 " samples, %" PRIu64 " lost", at ? ": " : "",
		    ci->samples, ci->lost);
	else if (ci->source && !p->time_weighted && !p->diff)
		put(buf, len, &at, "%s%.0f samples", at ? ": " : "", profile__total(p));
}

void format__subtitle(const struct profile *p, const struct render_opts *o, char *buf,
		      size_t len)
{
	if (o && o->subtitle && *o->subtitle)
		snprintf(buf, len, "%s", o->subtitle);
	else
		format__describe(p, buf, len);
}
