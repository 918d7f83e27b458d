// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Emitting a run's outputs, each where it goes (see emit.h). */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/log.h"
#include "output/destination.h"
#include "output/emit.h"
#include "output/folded.h"
#include "output/pprof.h"
#include "output/report.h"
#include "output/speedscope.h"
#include "output/summary.h"
#include "output/svg.h"

static int write_format(FILE *out, const struct out_spec *o, const struct out_data *d)
{
	switch (o->fmt) {
	case FMT_REPORT:
		return report__write(out, d->prof, d->hottest_last);
	case FMT_FOLDED:
		return folded__write(out, d->prof);
	case FMT_SVG:
		return svg__write(out, d->prof, d->render);
	case FMT_SPEEDSCOPE:
		return speedscope__write(out, d->prof, d->render);
	case FMT_PPROF:
		return pprof__write(out, d->prof, d->render);
	case FMT_SUMMARY:
		return summary__write(out, d->prof);
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
		err("cannot write to standard output: %s", log__errstr(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* SIGPIPE ignored while a FIFO or device is written: a reader that goes
 * away is a write error of this output (EPIPE), not the end of the run. */
static int write_file(const struct out_spec *o, const struct out_data *d, struct destination *of)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int e;

	if (of->in_place)
		sigaction(SIGPIPE, &ign, &old);
	errno = 0;
	e = write_format(of->f, o, d);
	e = e == -ENOMEM ? ENOMEM : e ? (errno ? errno : EIO) : 0;
	e = destination__close(of, e);
	if (of->in_place)
		sigaction(SIGPIPE, &old, NULL);
	return e;
}

/* Regular files through a temporary file and a rename, devices and FIFOs
 * in place (destination.h says which and why). */
int emit__one(const struct out_spec *o, const struct out_data *d)
{
	struct destination of;

	if (o->stream) {
		errno = 0;
		if (!write_format(o->stream, o, d))
			return 0;
		err("cannot write %s: %s", o->path, log__errstr(errno ? errno : EIO));
		return -1;
	}
	if (o->at) {
		if (destination__open_at(&of, o->at, o->path))
			return -1;
	} else if (!o->path || !strcmp(o->path, "-")) {
		return write_stdout(o, d);
	} else if (destination__open(&of, o->path)) {
		return -1;
	}
	if (o->fmt == FMT_PPROF && isatty(fileno(of.f))) {
		destination__abort(&of);
		err("will not write pprof's compressed data to a terminal: %s (name a file .pb.gz)",
		    o->path);
		return -1;
	}
	return write_file(o, d, &of);
}

int emit__all(const struct out_spec *outs, size_t nr, const struct out_data *d)
{
	int rc = 0;

	for (size_t i = 0; i < nr; i++)
		if (emit__one(&outs[i], d))
			rc = -1;
	return rc;
}

int emit__check(const struct out_spec *outs, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (outs[i].path && strcmp(outs[i].path, "-") && destination__check(outs[i].path))
			return -1;
	return 0;
}
