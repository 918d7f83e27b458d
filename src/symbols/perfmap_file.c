// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JIT perf map files: owns deciding whether a /tmp/perf-PID.map is
 * trustworthy and reading it within a budget.  The file is written by the
 * profiled process, which may be hostile, and is read by a root tool: it is
 * opened O_PATH first (safe_open.h) so that nothing but a regular file
 * owned by the process's user or root is ever really opened.
 *
 * Reading is bounded in memory and time, whatever the file holds:
 *  - a first read goes backwards from the end, a chunk at a time, and keeps
 *    the newest lines that fit the budget's bytes (the newest lines win
 *    anyway): a 250 MB map costs its budget, not its size;
 *  - JITs only append, so a later read of the same file (same inode, grown)
 *    parses only the appended lines and merges them in; the file is read
 *    again from the end only when it was replaced or shrank, or when the
 *    appended lines would pass the budget (a first read fills 3/4 of it, so
 *    that happens once per quarter of the budget appended, not per line);
 *  - only complete lines count: the line a JIT is still writing is read
 *    with the next update;
 *  - the deadline and pending signals are checked after every chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "symbols/perfmap_int.h"
#include "files/safe_open.h"

#define CHUNK (64u << 10)

/* A window of file bytes: a chunk, and what is left of the one before. */
struct window {
	char *buf; /* CHUNK + PERFMAP_MAX_LINE + 1 bytes */
	int fd;
	const struct budget *b;
	size_t max_bytes; /* what the map may cost; 0 no limit */
};

static bool over(const struct perfmap *pm, const struct window *w, size_t line)
{
	if (pm->nr >= PERFMAP_MAX_ENTRIES)
		return true;
	return w->max_bytes && pm_cost(pm) + PM_ENTRY_COST + line + 1 > w->max_bytes;
}

static int pread_all(int fd, char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO; /* shrank under us */
		buf += n;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * Adds the lines of [s, e) (e just past a newline) from the last one back,
 * each with the next seq from *seq, stopping before the first line (it may
 * be partial) unless whole is set.  *head gets where the unparsed first
 * line ends (s when all was parsed).  1 when the map is full, 0, -ENOMEM.
 */
static int lines_backwards(struct perfmap *pm, const struct window *w, const char *s,
			   const char *e, bool whole, uint32_t *seq, const char **head)
{
	const char *le = e - 1, *nl, *ls;
	int r;

	*head = s;
	for (; le >= s; le = nl) {
		nl = le > s ? memrchr(s, '\n', le - s) : NULL;
		if (!nl && !whole) {
			*head = le + 1;
			return 0;
		}
		ls = nl ? nl + 1 : s;
		if (over(pm, w, le - ls))
			return 1;
		r = pm_add_line(pm, ls, le, *seq);
		if (r < 0)
			return r;
		*seq += r;
		if (!nl)
			break;
	}
	return 0;
}

/* Gives the seqs of lines read backwards (0 = the last line) line order. */
static void renumber(struct perfmap *pm, uint32_t n)
{
	for (size_t i = 0; i < pm->nr; i++)
		pm->entries[i].seq = n - 1 - pm->entries[i].seq;
	pm->next_seq = n;
}

/*
 * Reads the complete lines of [0, end) into the empty pm, newest first,
 * until the budget's bytes are used: -errno (ETIMEDOUT when out of time).
 * The window is [mid - c, mid + keep): a chunk, then the unparsed first
 * line of the chunk after it.  A line too long to be valid is skipped
 * whole: from the chunk before, only what precedes its newline is read.
 */
static int read_tail(struct perfmap *pm, struct window *w, uint64_t end)
{
	char *const mid = w->buf + CHUNK;
	uint64_t pos = end;
	size_t keep = 0;
	bool skipping = false;
	uint32_t seq = 0;
	const char *head, *e;
	int r;

	while (pos > 0) {
		size_t c = pos < CHUNK ? pos : CHUNK;

		if ((r = pread_all(w->fd, mid - c, c, pos - c)))
			return r;
		pos -= c;
		e = mid + keep;
		if (skipping && (e = memrchr(mid - c, '\n', c)))
			e++;
		skipping = !e;
		r = e ? lines_backwards(pm, w, mid - c, e, pos == 0, &seq, &head) : 0;
		if (r < 0)
			return r;
		if (r > 0) {
			pm->truncated = true;
			break;
		}
		keep = e ? (size_t)(head - (mid - c)) : 0;
		if (keep > PERFMAP_MAX_LINE + 1) {
			keep = 0;
			skipping = true;
		}
		memmove(mid, mid - c, keep);
		if (budget__expired(w->b))
			return -ETIMEDOUT;
	}
	renumber(pm, seq);
	return 0;
}

/*
 * Adds the complete lines of [from, to) (from a line start) with the next
 * seqs; *done gets where the last complete line ended.  -E2BIG when they
 * would pass the budget, -ETIMEDOUT when out of time.
 */
static int read_forward(struct perfmap *pm, struct window *w, uint64_t from, uint64_t to,
			uint64_t *done)
{
	size_t keep = 0;
	bool skipping = false;
	int r;

	*done = from;
	while (from < to) {
		size_t c = to - from < CHUNK ? to - from : CHUNK;
		char *p = w->buf, *end = w->buf + keep + c, *nl;

		if ((r = pread_all(w->fd, w->buf + keep, c, from)))
			return r;
		from += c;
		for (; (nl = memchr(p, '\n', end - p)); p = nl + 1) {
			*done = from - (end - nl) + 1;
			if (skipping) {
				skipping = false;
				continue;
			}
			if (over(pm, w, nl - p))
				return -E2BIG;
			r = pm_add_line(pm, p, nl, pm->next_seq);
			if (r < 0)
				return r;
			pm->next_seq += r;
		}
		keep = end - p;
		if (keep > PERFMAP_MAX_LINE) {
			keep = 0;
			skipping = true;
		}
		memmove(w->buf, p, keep);
		if (budget__expired(w->b))
			return -ETIMEDOUT;
	}
	return 0;
}

static void set_identity(struct perfmap *pm, const struct stat *st, uint64_t consumed)
{
	pm->dev = st->st_dev;
	pm->ino = st->st_ino;
	pm->size = st->st_size;
	pm->mtime_sec = st->st_mtim.tv_sec;
	pm->mtime_nsec = st->st_mtim.tv_nsec;
	pm->ctime_sec = st->st_ctim.tv_sec;
	pm->ctime_nsec = st->st_ctim.tv_nsec;
	pm->consumed = consumed;
}

/* Where the last complete line of fd's first size bytes ends. */
static int complete_end(int fd, uint64_t size, char *buf, uint64_t *end)
{
	uint64_t pos = size;
	int e;

	while (pos > 0) {
		size_t c = pos < CHUNK ? pos : CHUNK;
		const char *nl;

		if ((e = pread_all(fd, buf, c, pos - c)))
			return e;
		nl = memrchr(buf, '\n', c);
		if (nl) {
			*end = pos - c + (nl - buf) + 1;
			return 0;
		}
		pos -= c;
	}
	*end = 0;
	return 0;
}

static struct perfmap *read_fresh(struct window *w, const struct stat *st)
{
	struct perfmap *pm = pm_new();
	uint64_t end;
	int e = pm ? complete_end(w->fd, st->st_size, w->buf, &end) : -ENOMEM;

	if (!e) {
		/* three quarters: room to append before a read anew */
		w->max_bytes = w->b ? w->b->max_bytes / 4 * 3 : 0;
		e = read_tail(pm, w, end);
	}
	/* the sort and flattening cannot stop halfway: about 0.3 us a line */
	if (!e && !budget__affords(w->b, pm->nr * 3e-7))
		e = -ETIMEDOUT;
	if (!e)
		e = pm_commit(pm);
	if (e) {
		perfmap__free(pm);
		errno = -e;
		return NULL;
	}
	set_identity(pm, st, end);
	return pm;
}

static int open_window(struct window *w, int fd, const struct budget *b)
{
	w->fd = fd;
	w->b = b;
	w->max_bytes = b ? b->max_bytes : 0;
	w->buf = malloc(CHUNK + PERFMAP_MAX_LINE + 1);
	return w->buf ? 0 : -1;
}

struct perfmap *perfmap__read_fd(int fd, const struct budget *b)
{
	struct perfmap *pm = NULL;
	struct window w;
	struct stat st;

	if (fstat(fd, &st))
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return NULL;
	}
	if (!open_window(&w, fd, b))
		pm = read_fresh(&w, &st);
	free(w.buf);
	return pm;
}

static bool same_file(const struct perfmap *pm, const struct stat *st)
{
	return pm->dev == (uint64_t)st->st_dev && pm->ino == (uint64_t)st->st_ino;
}

static bool unchanged(const struct perfmap *pm, const struct stat *st)
{
	return same_file(pm, st) && pm->size == (uint64_t)st->st_size &&
	       pm->mtime_sec == (uint64_t)st->st_mtim.tv_sec &&
	       pm->mtime_nsec == (uint64_t)st->st_mtim.tv_nsec &&
	       pm->ctime_sec == (uint64_t)st->st_ctim.tv_sec &&
	       pm->ctime_nsec == (uint64_t)st->st_ctim.tv_nsec;
}

/* The lines appended to pm's file since it was read; -E2BIG: read it anew. */
static int append(struct perfmap *pm, struct window *w, const struct stat *st)
{
	uint64_t done;
	int e;

	if (pm->next_seq > UINT32_MAX - (st->st_size - pm->consumed))
		return -E2BIG; /* seqs could wrap: renumber by reading anew */
	e = read_forward(pm, w, pm->consumed, st->st_size, &done);
	if (!e && !budget__affords(w->b, pm->nr * 1e-7))
		e = -ETIMEDOUT; /* a merge and a flattening: linear */
	if (!e)
		e = pm_commit(pm);
	if (e) {
		pm_rollback(pm);
		return e;
	}
	set_identity(pm, st, done);
	return 0;
}

int perfmap__update_fd(struct perfmap **pmp, int fd, const struct budget *b)
{
	struct perfmap *pm = *pmp;
	struct window w;
	struct stat st;
	int e = -E2BIG;

	if (fstat(fd, &st))
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if (pm && unchanged(pm, &st))
		return 0;
	if (open_window(&w, fd, b))
		return -1;
	if (pm && same_file(pm, &st) && (uint64_t)st.st_size >= pm->size)
		e = append(pm, &w, &st);
	if (e == -E2BIG) {
		pm = read_fresh(&w, &st);
		e = pm ? 0 : -errno;
	}
	free(w.buf);
	if (e) {
		errno = -e;
		return -1;
	}
	if (pm != *pmp) {
		perfmap__free(*pmp);
		*pmp = pm;
	}
	return 0;
}

/* Why a file with this stat is not to be read (errno set), or NULL. */
static const char *untrusted(const struct stat *st, uid_t owner)
{
	if (S_ISLNK(st->st_mode)) {
		errno = ELOOP;
		return "a symbolic link";
	}
	if (!S_ISREG(st->st_mode)) {
		errno = EINVAL;
		return "not a regular file";
	}
	if (st->st_uid != owner && st->st_uid != 0) {
		errno = EPERM;
		return "owned by another user";
	}
	if ((uint64_t)st->st_size > PERFMAP_MAX_FILE) {
		errno = EFBIG;
		return "larger than 256 MiB";
	}
	return NULL;
}

/*
 * Opens ROOT/tmp/perf-PID.map for reading if it is to be trusted; -1 with
 * errno and *bad (if a rule refused it) set.  The O_PATH descriptor is
 * opened without following a last symlink, within root.
 */
static int open_trusted(pid_t pid, const char *root, uid_t owner, const char **bad)
{
	char rel[64];
	struct stat st;
	int dfd, pfd, fd = -1, e;

	snprintf(rel, sizeof(rel), "tmp/perf-%d.map", (int)pid);
	dfd = open(root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	pfd = safe_open__in_root(dfd, rel, false);
	e = errno;
	close(dfd);
	if (pfd < 0) {
		errno = e;
		return -1;
	}
	if (!fstat(pfd, &st) && !(*bad = untrusted(&st, owner)))
		fd = safe_open__reopen(pfd, &st);
	e = errno;
	close(pfd);
	errno = e;
	return fd;
}

int perfmap__refresh(struct perfmap **pm, pid_t pid, const char *root, uid_t owner,
		     const struct budget *b, const char **why)
{
	const char *bad = NULL;
	int fd = open_trusted(pid, root, owner, &bad), rc = -1, e;

	if (fd >= 0)
		rc = perfmap__update_fd(pm, fd, b);
	e = errno;
	if (rc && why)
		*why = bad ? bad : e == ETIMEDOUT ? "out of time" : log__errstr(e);
	if (fd >= 0)
		close(fd);
	errno = e;
	return rc;
}

struct perfmap *perfmap__load(pid_t pid, const char *root, uid_t owner, const char **why)
{
	struct perfmap *pm = NULL;

	if (perfmap__refresh(&pm, pid, root, owner, NULL, why))
		return NULL;
	return pm;
}

int perfmap__owner(pid_t pid, uid_t *owner)
{
	char path[64], buf[4096], *p;
	unsigned long ruid, euid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* "Uid:" comes in the first few hundred bytes, long before "Groups:". */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%lu %lu", &ruid, &euid) != 2) {
		errno = EIO;
		return -1;
	}
	*owner = euid;
	return 0;
}
