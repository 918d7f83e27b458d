// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Output files: formats by name, and where each goes (see outputs.h). */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/log.h"
#include "output/outfile.h"
#include "output/outputs.h"

static const struct {
	const char *name, *suffix, *suffix2;
} formats[] = {
	[FMT_AUTO] = { "auto", NULL, NULL },
	[FMT_REPORT] = { "report", NULL, NULL },
	[FMT_FOLDED] = { "folded", ".folded", ".txt" },
	[FMT_SVG] = { "svg", ".svg", NULL },
	[FMT_SPEEDSCOPE] = { "speedscope", ".speedscope.json", NULL },
	[FMT_PPROF] = { "pprof", ".pb.gz", NULL },
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = suffix ? strlen(suffix) : 0;

	return m && n > m && !strcmp(s + n - m, suffix);
}

enum out_format outputs__format_of(const char *path)
{
	for (size_t i = 0; path && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (ends_with(path, formats[i].suffix) || ends_with(path, formats[i].suffix2))
			return i;
	return FMT_AUTO;
}

int outputs__parse_format(const char *name, enum out_format *out)
{
	for (size_t i = FMT_REPORT; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(name, formats[i].name)) {
			*out = i;
			return 0;
		}
	return -1;
}

const char *outputs__format_name(enum out_format fmt)
{
	return formats[fmt].name;
}

static int write_format(FILE *out, const struct out_spec *o, const struct out_data *d)
{
	switch (o->fmt) {
	case FMT_REPORT:
		return output_report(out, d->prof, d->hottest_last);
	case FMT_FOLDED:
		return output_folded(out, d->prof);
	case FMT_SVG:
		return output_svg(out, d->prof, d->render);
	case FMT_SPEEDSCOPE:
		return output_speedscope(out, d->prof, d->render);
	case FMT_PPROF:
		return output_pprof(out, d->prof, d->render);
	default:
		errno = EINVAL;
		return -1;
	}
}

static int write_stdout(const struct out_spec *o, const struct out_data *d)
{
	if (o->fmt == FMT_PPROF && isatty(STDOUT_FILENO)) {
		err("will not write pprof's compressed data to a terminal (use -o FILE.pb.gz)");
		return -1;
	}
	if (write_format(stdout, o, d) || fflush(stdout)) {
		err("cannot write to standard output: %s", errstr(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* SIGPIPE ignored while a FIFO or device is written: a reader that goes
 * away is a write error of this output (EPIPE), not the end of the run. */
static int write_file(const struct out_spec *o, const struct out_data *d, struct outfile *of)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int e;

	if (of->in_place)
		sigaction(SIGPIPE, &ign, &old);
	errno = 0;
	e = write_format(of->f, o, d);
	e = e == -ENOMEM ? ENOMEM : e ? (errno ? errno : EIO) : 0;
	e = outfile__close(of, e);
	if (of->in_place)
		sigaction(SIGPIPE, &old, NULL);
	return e;
}

/* Regular files through a temporary file and a rename, devices and FIFOs
 * in place (outfile.h says which and why). */
int outputs__write(const struct out_spec *o, const struct out_data *d)
{
	struct outfile of;

	if (o->at) {
		if (outfile__open_at(&of, o->at, o->path))
			return -1;
	} else if (!o->path || !strcmp(o->path, "-")) {
		return write_stdout(o, d);
	} else if (outfile__open(&of, o->path)) {
		return -1;
	}
	if (o->fmt == FMT_PPROF && isatty(fileno(of.f))) {
		outfile__abort(&of);
		err("will not write pprof's compressed data to a terminal: %s (name a file .pb.gz)",
		    o->path);
		return -1;
	}
	return write_file(o, d, &of);
}

int outputs__write_all(const struct out_spec *outs, size_t nr, const struct out_data *d)
{
	int rc = 0;

	for (size_t i = 0; i < nr; i++)
		if (outputs__write(&outs[i], d))
			rc = -1;
	return rc;
}

int outputs__check(const struct out_spec *outs, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (outs[i].path && strcmp(outs[i].path, "-") && outfile__check(outs[i].path))
			return -1;
	return 0;
}
