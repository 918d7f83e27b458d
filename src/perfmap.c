// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JIT perf maps: owns deciding whether a /tmp/perf-PID.map is trustworthy,
 * reading it, parsing its lines and answering address lookups.  The file is
 * written by the profiled process, which may be hostile, and is read by a
 * root tool: it is opened as O_PATH first so that nothing but a regular
 * file owned by the process's user or root is ever really opened (opening a
 * FIFO would block, opening a device can have side effects), and the parser
 * works on a length-bounded buffer with every size capped.
 *
 * Overlapping entries are flattened once at load into disjoint segments,
 * each naming the latest line that covers it (see perfmap.h), so that a
 * lookup is one binary search.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "addr_search.h"
#include "log.h"
#include "perfmap.h"

/* One parsed line. */
struct pm_entry {
	uint64_t start, end;
	uint32_t name; /* offset in the name arena */
	uint32_t seq;  /* line order: a higher seq wins overlaps */
};

/* A piece of the address space that one entry owns. */
struct pm_seg {
	uint64_t start, end;
	uint32_t entry;
};

struct perfmap {
	struct pm_entry *entries; /* sorted by start */
	size_t nr;
	struct pm_seg *segs;      /* sorted, disjoint */
	size_t nr_segs;
	char *names;
	size_t names_len; /* bytes of the name arena, for perfmap__bytes */
};

/* Growable parse state. */
struct pm_build {
	struct pm_entry *e;
	size_t nr, cap;
	char *names;
	size_t used, ncap;
};

static bool hex_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp, *digits;
	uint64_t v = 0;
	int d;

	if (end - p > 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
		p += 2;
	for (digits = p; p < end; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (*p | 0x20) - 'a' + 10;
		else
			break;
		if (v >> 60)
			return false;
		v = v << 4 | d;
	}
	*pp = p;
	*out = v;
	return p > digits;
}

/* At least one blank, then skips all of them. */
static bool blanks(const char **pp, const char *end)
{
	const char *p = *pp;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == *pp)
		return false;
	*pp = p;
	return true;
}

static int push_entry(struct pm_build *b, uint64_t start, uint64_t end,
		      const char *name, size_t len)
{
	if (b->nr == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;
		struct pm_entry *e = realloc(b->e, ncap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		b->e = e;
		b->cap = ncap;
	}
	if (b->ncap - b->used < len + 1) {
		size_t ncap = b->ncap ? b->ncap : 4096;
		char *n;

		while (ncap - b->used < len + 1)
			ncap *= 2;
		n = realloc(b->names, ncap);
		if (!n)
			return -ENOMEM;
		b->names = n;
		b->ncap = ncap;
	}
	memcpy(b->names + b->used, name, len);
	b->names[b->used + len] = '\0';
	b->e[b->nr] = (struct pm_entry){ start, end, b->used, b->nr };
	b->nr++;
	b->used += len + 1;
	return 0;
}

/* "START SIZE name" in [p, end) without the newline; 0 also when skipped. */
static int parse_line(struct pm_build *b, const char *p, const char *end)
{
	uint64_t start, size;

	if (end - p > PERFMAP_MAX_LINE)
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!hex_u64(&p, end, &start) || !blanks(&p, end) ||
	    !hex_u64(&p, end, &size) || !blanks(&p, end))
		return 0;
	/* CRLF files and trailing blanks: not part of any JIT's names. */
	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end || !size || start + size < start || memchr(p, '\0', end - p))
		return 0;
	return push_entry(b, start, start + size, p, end - p);
}

/* Where the last PERFMAP_MAX_ENTRIES lines begin. */
static const char *last_lines(const char *text, size_t len)
{
	const char *p = text + len;
	size_t n = 0;

	if (len && p[-1] == '\n')
		p--;
	while (p > text) {
		const char *nl = memrchr(text, '\n', p - text);

		if (!nl)
			break;
		if (++n == PERFMAP_MAX_ENTRIES)
			return nl + 1;
		p = nl;
	}
	return text;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A max-heap of entry indices by seq: the latest covering line on top. */
struct pm_heap {
	uint32_t *h;
	size_t n;
	const struct pm_entry *e;
};

static void heap_push(struct pm_heap *hp, uint32_t idx)
{
	size_t i = hp->n++, parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (hp->e[hp->h[parent]].seq >= hp->e[idx].seq)
			break;
		hp->h[i] = hp->h[parent];
		i = parent;
	}
	hp->h[i] = idx;
}

static void heap_pop(struct pm_heap *hp)
{
	uint32_t last = hp->h[--hp->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < hp->n) {
		if (c + 1 < hp->n && hp->e[hp->h[c + 1]].seq > hp->e[hp->h[c]].seq)
			c++;
		if (hp->e[hp->h[c]].seq <= hp->e[last].seq)
			break;
		hp->h[i] = hp->h[c];
		i = c;
	}
	if (hp->n)
		hp->h[i] = last;
}

static void add_seg(struct perfmap *pm, uint64_t start, uint64_t end, uint32_t idx)
{
	struct pm_seg *last = pm->nr_segs ? &pm->segs[pm->nr_segs - 1] : NULL;

	if (last && last->entry == idx && last->end == start) {
		last->end = end;
		return;
	}
	pm->segs[pm->nr_segs++] = (struct pm_seg){ start, end, idx };
}

/*
 * Sweeps the entries in start order keeping the ones covering the current
 * position in a heap; the winner can only change where an entry starts or
 * where the current winner ends.  Entries that ended under the top are
 * dropped lazily when they surface.  At most 2 * nr segments come out.
 */
static int flatten(struct perfmap *pm)
{
	struct pm_heap hp = { .e = pm->entries };
	const struct pm_entry *e = pm->entries;
	size_t i = 0;
	uint64_t pos = 0, next;

	hp.h = malloc((pm->nr ? pm->nr : 1) * sizeof(*hp.h));
	pm->segs = malloc((pm->nr ? 2 * pm->nr : 1) * sizeof(*pm->segs));
	if (!hp.h || !pm->segs) {
		free(hp.h);
		return -ENOMEM;
	}
	while (i < pm->nr || hp.n) {
		if (!hp.n)
			pos = e[i].start;
		while (i < pm->nr && e[i].start == pos)
			heap_push(&hp, i++);
		while (hp.n && e[hp.h[0]].end <= pos)
			heap_pop(&hp);
		if (!hp.n)
			continue;
		next = e[hp.h[0]].end;
		if (i < pm->nr && e[i].start < next)
			next = e[i].start;
		add_seg(pm, pos, next, hp.h[0]);
		pos = next;
	}
	free(hp.h);
	return 0;
}

static struct perfmap *finish(struct pm_build *b)
{
	struct perfmap *pm = calloc(1, sizeof(*pm));

	if (!pm) {
		free(b->e);
		free(b->names);
		return NULL;
	}
	pm->entries = b->e;
	pm->nr = b->nr;
	pm->names = b->names;
	pm->names_len = b->ncap;
	if (pm->nr > 1)
		qsort(pm->entries, pm->nr, sizeof(*pm->entries), entry_cmp);
	if (flatten(pm)) {
		perfmap__free(pm);
		errno = ENOMEM;
		return NULL;
	}
	return pm;
}

struct perfmap *perfmap__parse(const char *text, size_t len)
{
	struct pm_build b = { 0 };
	const char *p, *end, *nl;

	if (!text)
		len = 0, text = "";
	if (len > PERFMAP_MAX_FILE) {
		errno = EFBIG;
		return NULL;
	}
	end = text + len;
	for (p = last_lines(text, len); p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (parse_line(&b, p, nl)) {
			free(b.e);
			free(b.names);
			errno = ENOMEM;
			return NULL;
		}
	}
	return finish(&b);
}

/*
 * An O_PATH descriptor of ROOT/rel that cannot escape root: RESOLVE_IN_ROOT
 * makes ".." and absolute symlinks inside a container stay inside it (a
 * plain open through /proc/PID/root would follow them on the host).  Kernels
 * before 5.6 lack openat2: only the last component is then guarded.
 */
static int open_in_root(const char *root, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int dfd, fd, e;

	dfd = open(root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	fd = syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(dfd, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	close(dfd);
	errno = e;
	return fd;
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

/* Reads all of fd (it may still grow: the JIT appends) up to the cap. */
static char *read_all(int fd, size_t hint, size_t *len)
{
	size_t cap = hint + 4096, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;

	while (buf) {
		if (n == cap) {
			if (cap > PERFMAP_MAX_FILE) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0) {
			*len = n;
			return buf;
		}
		n += r;
	}
	free(buf);
	return NULL;
}

/*
 * Opens for reading the file behind an O_PATH descriptor, through its
 * /proc/self/fd link: the checks were made on this very inode, and it is
 * checked again in case the link is not what we think.
 */
static int reopen(int pfd, const struct stat *st)
{
	char path[64];
	struct stat st2;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st2) || st2.st_dev != st->st_dev || st2.st_ino != st->st_ino ||
	    !S_ISREG(st2.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

struct perfmap *perfmap__load(pid_t pid, const char *root, uid_t owner,
			      const char **why)
{
	struct perfmap *pm = NULL;
	const char *bad = NULL;
	char rel[64], *text = NULL;
	struct stat st;
	size_t len = 0;
	int pfd, fd = -1, e;

	snprintf(rel, sizeof(rel), "tmp/perf-%d.map", (int)pid);
	pfd = open_in_root(root, rel);
	if (pfd < 0)
		goto out;
	if (fstat(pfd, &st) || (bad = untrusted(&st, owner)))
		goto out;
	fd = reopen(pfd, &st);
	if (fd < 0)
		goto out;
	text = read_all(fd, st.st_size, &len);
	if (text)
		pm = perfmap__parse(text, len);
out:
	e = errno;
	if (!pm && why)
		*why = bad ? bad : errstr(e);
	free(text);
	if (fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	errno = e;
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

const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off)
{
	const struct pm_entry *e;
	long lo = pm ? ADDR_SEARCH(pm->segs, pm->nr_segs, start, addr) : -1;

	if (lo < 0 || addr >= pm->segs[lo].end)
		return NULL;
	e = &pm->entries[pm->segs[lo].entry];
	if (off)
		*off = addr - e->start;
	return pm->names + e->name;
}

size_t perfmap__count(const struct perfmap *pm)
{
	return pm ? pm->nr : 0;
}

size_t perfmap__bytes(const struct perfmap *pm)
{
	if (!pm)
		return 0;
	/* flatten() allocates room for 2 * nr segments */
	return sizeof(*pm) + pm->nr * (sizeof(*pm->entries) + 2 * sizeof(*pm->segs)) +
	       pm->names_len;
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->entries);
	free(pm->segs);
	free(pm->names);
	free(pm);
}
