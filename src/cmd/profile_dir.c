// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Continuous mode's output directory: names, the record of what smolder
 * wrote there, and pruning (see profile_dir.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/grow.h"
#include "lib/log.h"
#include "output/emit.h"
#include "cmd/profile_dir.h"

#define INDEX_HEADER "smolder profile index 1\n"

/* One profile smolder wrote: what it must still be to be removed. */
struct record {
	char name[64];
	uint64_t ino, size;
	int64_t mtime_s, mtime_ns;
};

struct profile_dir {
	int dirfd;
	char path[PATH_MAX];   /* as given, for messages */
	enum out_format fmt;
	dev_t dev;
	char index_name[64];   /* .smolder-FORMAT.index */
	struct record *v;      /* oldest first; the live ones are v[first..n) */
	size_t first, n, cap;
	uint64_t bytes;        /* of the live ones */
	int index_fd;          /* the index, open to append; -1: rewrite it */
	size_t index_lines;    /* records in it, live or not */
	bool index_failing;    /* said once until it works again */
};

const char *profile_dir__ext(enum out_format fmt)
{
	switch (fmt) {
	case FMT_SVG: return ".svg";
	case FMT_SPEEDSCOPE: return ".speedscope.json";
	case FMT_PPROF: return ".pb.gz";
	case FMT_REPORT: return ".report";
	case FMT_SUMMARY: return ".summary";
	default: return ".folded";
	}
}

int profile_dir__name(char *buf, size_t len, const struct timespec *start, enum out_format fmt)
{
	struct tm tm;
	int n;

	gmtime_r(&start->tv_sec, &tm);
	n = snprintf(buf, len, "smolder-%04d%02d%02dT%02d%02d%02d.%03ldZ%s", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     start->tv_nsec / 1000000, profile_dir__ext(fmt));
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* name[0..len) is "smolder-" + stamp + ["-" + tag] + ext, digits where the
 * stamp has digits: a name smolder gives (and never a path). */
static bool is_profile_name(const char *name, size_t len, const char *ext)
{
	static const char shape[] = "dddddddd" "T" "dddddd" "." "ddd" "Z";
	const size_t sl = sizeof(shape) - 1, el = strlen(ext);
	const char *s = name + 8;
	size_t tag;

	if (len < 8 + sl + el || strncmp(name, "smolder-", 8))
		return false;
	for (size_t i = 0; i < sl; i++)
		if (shape[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != shape[i])
			return false;
	tag = len - 8 - sl - el;
	if (tag && tag != OUTFILE_TAG_LEN)
		return false;
	for (size_t i = 1; i < tag; i++)
		if (!alnum(s[sl + i]))
			return false;
	return (!tag || s[sl] == '-') && !memcmp(s + sl + tag, ext, el);
}

/* ---- the record ---- */

static bool same_record(const struct record *r, const struct stat *st)
{
	return r->ino == st->st_ino && r->size == (uint64_t)st->st_size &&
	       r->mtime_s == st->st_mtim.tv_sec && r->mtime_ns == st->st_mtim.tv_nsec;
}

/* r's file is still the one smolder wrote: a regular file of ours, the
 * same inode, size and mtime. */
static bool still_ours(const struct profile_dir *pd, const struct record *r)
{
	struct stat st;

	return !fstatat(pd->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() && st.st_dev == pd->dev && same_record(r, &st);
}

static int push(struct profile_dir *pd, const struct record *r)
{
	if (pd->first && pd->first >= pd->n / 2) { /* reuse what pruning freed */
		memmove(pd->v, pd->v + pd->first, (pd->n - pd->first) * sizeof(*pd->v));
		pd->n -= pd->first;
		pd->first = 0;
	}
	if (GROW(pd->v, pd->cap, pd->n + 1, 64))
		return -ENOMEM;
	pd->v[pd->n++] = *r;
	pd->bytes += r->size;
	return 0;
}

static int format_record(char *buf, size_t len, const struct record *r)
{
	return snprintf(buf, len, "%s %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 "\n", r->name,
			r->ino, r->size, r->mtime_s, r->mtime_ns);
}

static int parse_record(const char *line, const char *ext, struct record *r)
{
	int end = 0;

	if (sscanf(line, "%63s %" SCNu64 " %" SCNu64 " %" SCNd64 " %" SCNd64 "%n", r->name, &r->ino,
		   &r->size, &r->mtime_s, &r->mtime_ns, &end) != 5 || line[end] != '\n')
		return -1;
	return is_profile_name(r->name, strlen(r->name), ext) ? 0 : -1;
}

/* ---- the index ---- */

/* What stands at the index's name, when it is not ours: "a fifo of uid
 * 65534", for messages. */
static const char *index_squatter(const struct profile_dir *pd, char *buf, size_t len)
{
	struct stat st;

	if (fstatat(pd->dirfd, pd->index_name, &st, AT_SYMLINK_NOFOLLOW))
		snprintf(buf, len, "gone");
	else
		snprintf(buf, len, "a %s of uid %u",
			 S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "directory" :
			 S_ISLNK(st.st_mode) ? "symlink" : S_ISFIFO(st.st_mode) ? "fifo" : "node",
			 (unsigned)st.st_uid);
	return buf;
}

/* A failure to keep the index, said once until it works again. */
static void index_failed(struct profile_dir *pd, int e)
{
	char what[64];

	if (pd->index_failing)
		return;
	pd->index_failing = true;
	if (e == EEXIST)
		warn("cannot keep smolder's index in %s: %s is %s, not smolder's (remove it); until then a restart leaves this run's profiles alone",
		     pd->path, pd->index_name, index_squatter(pd, what, sizeof(what)));
	else
		warn("cannot keep smolder's index in %s: %s (check free space); until then a restart leaves this run's profiles alone",
		     pd->path, log__errstr(e));
}

/* The index written anew with the live records, through a temporary file
 * renamed over our own (destination_dir), then opened to append to: 0 or an
 * errno. */
static int write_index(struct profile_dir *pd)
{
	struct destination_dir at = { .dirfd = pd->dirfd, .name = pd->index_name, .replace = true,
				 .quiet = true };
	char line[160], path[PATH_MAX + 64];
	struct destination of;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pd->path, pd->index_name);
	if (destination__open_at(&of, &at, path))
		return errno;
	fputs(INDEX_HEADER, of.f);
	for (size_t i = pd->first; i < pd->n; i++) {
		format_record(line, sizeof(line), &pd->v[i]);
		fputs(line, of.f);
	}
	if (destination__close(&of, ferror(of.f) ? EIO : 0))
		return errno;
	fd = openat(pd->dirfd, pd->index_name,
		    O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st) || st.st_ino != at.st.st_ino || st.st_dev != at.st.st_dev) {
		close(fd);
		return EEXIST; /* replaced meanwhile */
	}
	pd->index_fd = fd;
	pd->index_lines = pd->n - pd->first;
	return 0;
}

/* Rewrites the index when it is gone or mostly stale lines. */
static void keep_index(struct profile_dir *pd)
{
	size_t live = pd->n - pd->first;
	int e;

	if (pd->index_fd >= 0 && pd->index_lines <= 2 * live + 64)
		return;
	if (pd->index_fd >= 0)
		close(pd->index_fd);
	pd->index_fd = -1;
	e = write_index(pd);
	if (e)
		index_failed(pd, e);
	else if (pd->index_failing)
		info("smolder's index in %s is kept again", pd->path);
	if (!e)
		pd->index_failing = false;
}

static void append_index(struct profile_dir *pd, const struct record *r)
{
	char line[160];
	int n = format_record(line, sizeof(line), r);

	if (pd->index_fd < 0)
		return; /* rewritten whole at the next prune */
	if (write(pd->index_fd, line, n) == n) {
		pd->index_lines++;
		return;
	}
	index_failed(pd, errno ? errno : ENOSPC);
	close(pd->index_fd);
	pd->index_fd = -1;
}

/* The records of earlier runs whose files are still the ones they wrote. */
static void read_index(struct profile_dir *pd)
{
	int fd = openat(pd->dirfd, pd->index_name,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	const char *ext = profile_dir__ext(pd->fmt);
	size_t lines = 0, kept;
	char line[160], what[64];
	struct record r;
	struct stat st;
	FILE *f;

	if (fd < 0 && errno == ENOENT)
		return;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		warn("will not read %s/%s: it is %s, not smolder's index (remove it); profiles of earlier runs are left alone",
		     pd->path, pd->index_name, index_squatter(pd, what, sizeof(what)));
		if (fd >= 0)
			close(fd);
		return;
	}
	f = fdopen(fd, "r");
	if (!f || !fgets(line, sizeof(line), f) || strcmp(line, INDEX_HEADER)) {
		warn("cannot read %s/%s: not an index smolder wrote (remove it); profiles of earlier runs are left alone",
		     pd->path, pd->index_name);
	} else {
		for (; fgets(line, sizeof(line), f); lines++) {
			if (parse_record(line, ext, &r) || !still_ours(pd, &r))
				continue;
			if (push(pd, &r)) {
				warn("out of memory: profiles of earlier runs are left alone");
				break;
			}
		}
	}
	if (f)
		fclose(f);
	else
		close(fd);
	kept = pd->n - pd->first;
	info("%s: %zu profiles of earlier runs (%" PRIu64 " KiB) kept, %zu records gone", pd->path,
	     kept, pd->bytes / 1024, lines - kept);
}

/* ---- the directory ---- */

static bool is_ours(const char *base, size_t len, void *arg)
{
	const struct profile_dir *pd = arg;

	return is_profile_name(base, len, profile_dir__ext(pd->fmt)) ||
	       (len == strlen(pd->index_name) && !memcmp(base, pd->index_name, len));
}

/* Others may write in it only under the sticky bit, and we can. */
static int check_dir(struct profile_dir *pd)
{
	struct stat st;

	if (fstat(pd->dirfd, &st)) {
		err("cannot write in %s: %s (give a writable directory)", pd->path, log__errstr(errno));
		return -1;
	}
	pd->dev = st.st_dev;
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		err("will not write in %s: other users may write in it and, without the sticky bit, rename or replace smolder's files (chmod +t or chmod go-w it)",
		    pd->path);
		return -1;
	}
	if (faccessat(pd->dirfd, ".", W_OK | X_OK, AT_EACCESS)) {
		err("cannot write in %s: %s (give a writable directory)", pd->path, log__errstr(errno));
		return -1;
	}
	return 0;
}

struct profile_dir *profile_dir__open(const char *path, enum out_format fmt)
{
	struct profile_dir *pd = calloc(1, sizeof(*pd));
	int swept;

	if (!pd) {
		err("out of memory");
		return NULL;
	}
	pd->fmt = fmt;
	pd->index_fd = -1;
	snprintf(pd->path, sizeof(pd->path), "%s", path);
	snprintf(pd->index_name, sizeof(pd->index_name), ".smolder-%s.index",
		 format__name(fmt));
	pd->dirfd = destination__open_dir(path);
	if (pd->dirfd < 0 || check_dir(pd)) {
		profile_dir__free(pd);
		return NULL;
	}
	read_index(pd);
	swept = destination__sweep(pd->dirfd, is_ours, pd, NULL);
	if (swept)
		info("removed %d stale temporary file%s from %s", swept, swept == 1 ? "" : "s", path);
	return pd;
}

void profile_dir__free(struct profile_dir *pd)
{
	if (!pd)
		return;
	if (pd->index_fd >= 0)
		close(pd->index_fd);
	if (pd->dirfd >= 0)
		close(pd->dirfd);
	free(pd->v);
	free(pd);
}

void profile_dir__target(const struct profile_dir *pd, const struct timespec *start,
			 struct profile_target *t)
{
	memset(t, 0, sizeof(*t));
	profile_dir__name(t->name, sizeof(t->name), start, pd->fmt);
	t->at.dirfd = pd->dirfd;
	t->at.name = t->name;
	t->at.tag_at = strlen(t->name) - strlen(profile_dir__ext(pd->fmt));
	snprintf(t->path, sizeof(t->path), "%s/%s", pd->path, t->name);
}

void profile_dir__add(struct profile_dir *pd, const struct profile_target *t)
{
	struct record r = {
		.ino = t->at.st.st_ino,
		.size = t->at.st.st_size,
		.mtime_s = t->at.st.st_mtim.tv_sec,
		.mtime_ns = t->at.st.st_mtim.tv_nsec,
	};

	size_t len = strlen(t->at.given);

	memcpy(r.name, t->at.given, len < sizeof(r.name) ? len + 1 : 0);
	if (len >= sizeof(r.name) || push(pd, &r)) {
		warn("out of memory: %s will not be pruned", t->at.given);
		return;
	}
	append_index(pd, &r);
}

unsigned profile_dir__prune(struct profile_dir *pd, uint64_t keep, uint64_t max_bytes)
{
	unsigned removed = 0;

	while (pd->n - pd->first > 1 &&
	       (pd->n - pd->first > keep || (max_bytes && pd->bytes > max_bytes))) {
		const struct record *r = &pd->v[pd->first++];
		bool over_keep = pd->n - pd->first + 1 > keep;

		pd->bytes -= r->size;
		if (!still_ours(pd, r))
			info("%s is no longer the file smolder wrote: left alone", r->name);
		else if (unlinkat(pd->dirfd, r->name, 0))
			warn("cannot remove %s/%s: %s (remove it by hand)", pd->path, r->name,
			     log__errstr(errno));
		else if (++removed)
			info("removed %s (%s)", r->name,
			     over_keep ? "beyond --keep" : "over --max-size");
	}
	keep_index(pd);
	return removed;
}

size_t profile_dir__count(const struct profile_dir *pd, uint64_t *bytes)
{
	if (bytes)
		*bytes = pd->bytes;
	return pd->n - pd->first;
}
