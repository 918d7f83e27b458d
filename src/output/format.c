// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Output formats by name and by file name (see format.h). */
#include <stdbool.h>
#include <string.h>
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
