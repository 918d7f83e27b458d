// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Continuous mode's output directory: names and pruning (see profile_dir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "grow.h"
#include "outfile.h"
#include "profile_dir.h"



const char *profile_dir__ext(enum out_format fmt)
{
	switch (fmt) {
	case FMT_SVG: return ".svg";
	case FMT_SPEEDSCOPE: return ".speedscope.json";
	case FMT_PPROF: return ".pb.gz";
	case FMT_REPORT: return ".report";
	default: return ".folded";
	}
}

int profile_dir__name(char *buf, size_t len, const char *dir, const struct timespec *start,
		      enum out_format fmt)
{
	struct tm tm;
	int n;

	gmtime_r(&start->tv_sec, &tm);
	n = snprintf(buf, len, "%s/smolder-%04d%02d%02dT%02d%02d%02d.%03ldZ%s", dir,
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec, start->tv_nsec / 1000000, profile_dir__ext(fmt));
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* name[0..len) is "smolder-" + stamp + ext, digits where the stamp has
 * digits. */
static bool is_profile_name(const char *name, size_t len, const char *ext)
{
	static const char shape[] = "dddddddd" "T" "dddddd" "." "ddd" "Z";
	const char *s = name + 8;
	size_t el = strlen(ext);

	if (len != 8 + sizeof(shape) - 1 + el || strncmp(name, "smolder-", 8))
		return false;
	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != shape[i])
			return false;
	return !memcmp(s + sizeof(shape) - 1, ext, el);
}

/* A temporary file of one of our profiles ("smolder-...Z.folded.tmp.XXXXXX"). */
static bool is_profile_base(const char *base, size_t len, void *ext)
{
	return is_profile_name(base, len, ext);
}

struct entry {
	char *name;
	uint64_t bytes;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* The directory's regular profile files of one format, oldest first. */
static int list_profiles(int dfd, const char *ext, struct entry **out, size_t *nr)
{
	DIR *d = fdopendir(dup(dfd));
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!is_profile_name(de->d_name, strlen(de->d_name), ext) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (GROW(v, cap, n + 1, 64))
			break;
		if (!(v[n].name = strdup(de->d_name)))
			break;
		v[n++].bytes = st.st_size;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), by_name);
	*out = v;
	*nr = n;
	return 0;
}

int profile_dir__prune(const char *dir, enum out_format fmt, uint64_t keep, uint64_t max_bytes)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), removed = 0, e;
	uint64_t total = 0;
	struct entry *v = NULL;
	size_t n = 0, first = 0;

	if (dfd < 0)
		return -errno;
	e = list_profiles(dfd, profile_dir__ext(fmt), &v, &n);
	if (e) {
		close(dfd);
		return e;
	}
	/* temporary files a killed run left; those still being written count */
	removed = outfile__sweep(dfd, is_profile_base, (void *)profile_dir__ext(fmt), &total);
	for (size_t i = 0; i < n; i++)
		total += v[i].bytes;
	while (n - first > 1 && (n - first > keep || (max_bytes && total > max_bytes))) {
		if (!unlinkat(dfd, v[first].name, 0))
			removed++;
		total -= v[first++].bytes;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	close(dfd);
	return removed;
}
