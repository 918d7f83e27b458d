// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process mappings: owns reading /proc/PID/maps and parsing its text into an
 * address-sorted array of mappings with their kind and path.  The parser is
 * written for hostile input (it is fuzzed): it works on a length-bounded
 * buffer, never relies on NUL termination, and skips any line it cannot
 * fully parse.  All paths of one table share a single allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/addr_search.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "files/proc_maps.h"

/* Far beyond any real process (a million mappings is ~100 MB of text). */
#define MAPS_MAX_TEXT (512ULL << 20)

static const char deleted_sfx[] = " (deleted)";

/* The public table plus the arena its paths point into. */
struct maps_priv {
	struct proc_maps pub;
	char *arena;
};

/* A cursor over one line: [p, end). */
struct cur {
	const char *p, *end;
};

static bool hex_field(struct cur *c, uint64_t *out)
{
	const char *s = c->p;
	uint64_t v = 0;
	int d;

	for (; c->p < c->end; c->p++) {
		char ch = *c->p;

		if (ch >= '0' && ch <= '9')
			d = ch - '0';
		else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
			d = (ch | 0x20) - 'a' + 10;
		else
			break;
		if (c->p - s >= 16)
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return c->p > s;
}

static bool dec_field(struct cur *c, uint64_t *out)
{
	const char *s = c->p;
	uint64_t v = 0;

	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*c->p - '0');
	}
	*out = v;
	return c->p > s;
}

static bool expect(struct cur *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return false;
	c->p++;
	return true;
}

static bool perms_field(struct cur *c, int *exec)
{
	const char *q = c->p;

	if (c->end - q < 4 || (q[0] != 'r' && q[0] != '-') ||
	    (q[1] != 'w' && q[1] != '-') || (q[2] != 'x' && q[2] != '-') ||
	    (q[3] != 'p' && q[3] != 's'))
		return false;
	*exec = q[2] == 'x';
	c->p += 4;
	return true;
}

static enum proc_map_kind bracket_kind(const char *s, size_t len)
{
	if (len == 6 && !memcmp(s, "[heap]", 6))
		return PROC_MAP_HEAP;
	/* "[stack:TID]" is how kernels before 4.5 named thread stacks. */
	if ((len == 7 && !memcmp(s, "[stack]", 7)) ||
	    (len > 7 && !memcmp(s, "[stack:", 7)))
		return PROC_MAP_STACK;
	if (len == 6 && !memcmp(s, "[vdso]", 6))
		return PROC_MAP_VDSO;
	/* Named anonymous memory (prctl PR_SET_VMA_ANON_NAME). */
	if ((len > 6 && !memcmp(s, "[anon:", 6)) ||
	    (len > 12 && !memcmp(s, "[anon_shmem:", 12)))
		return PROC_MAP_ANON;
	return PROC_MAP_SPECIAL;
}

/* Fills m from the path part of a line; the path is copied into *arena. */
static void set_path(struct proc_map *m, const char *s, size_t len, char **arena)
{
	size_t sfx = sizeof(deleted_sfx) - 1;

	if (!len) {
		m->kind = PROC_MAP_ANON;
		return;
	}
	if (len > sfx && !memcmp(s + len - sfx, deleted_sfx, sfx)) {
		m->deleted = 1;
		len -= sfx;
	}
	m->path = *arena;
	memcpy(*arena, s, len);
	(*arena)[len] = '\0';
	*arena += len + 1;
	if (s[0] == '[' && s[len - 1] == ']')
		m->kind = bracket_kind(s, len);
	else
		m->kind = PROC_MAP_FILE;
}

/* "start-end perms offset major:minor inode [path]"; false to skip the line. */
static bool parse_line(const char *p, const char *end, struct proc_map *m,
		       char **arena)
{
	struct cur c = { p, end };
	uint64_t maj, min;

	memset(m, 0, sizeof(*m));
	if (!hex_field(&c, &m->start) || !expect(&c, '-') ||
	    !hex_field(&c, &m->end) || !expect(&c, ' ') ||
	    !perms_field(&c, &m->exec) || !expect(&c, ' ') ||
	    !hex_field(&c, &m->pgoff) || !expect(&c, ' ') ||
	    !hex_field(&c, &maj) || !expect(&c, ':') ||
	    !hex_field(&c, &min) || !expect(&c, ' ') ||
	    !dec_field(&c, &m->ino))
		return false;
	if (m->end <= m->start || maj > 0xfff || min > 0xfffff)
		return false;
	if (c.p < c.end && *c.p != ' ')
		return false;
	m->dev = makedev(maj, min);
	while (c.p < c.end && *c.p == ' ')
		c.p++;
	set_path(m, c.p, c.end - c.p, arena);
	return true;
}

static int map_cmp(const void *a, const void *b)
{
	const struct proc_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static void sort_maps(struct proc_maps *pm)
{
	size_t i;

	for (i = 1; i < pm->nr; i++)
		if (map_cmp(&pm->maps[i - 1], &pm->maps[i]) > 0)
			break;
	if (i < pm->nr)
		qsort(pm->maps, pm->nr, sizeof(*pm->maps), map_cmp);
}

struct proc_maps *proc_maps__parse(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	struct maps_priv *mp;
	size_t lines = 1;
	char *arena;

	if (!text)
		len = 0, p = end = "";
	for (nl = p; (nl = memchr(nl, '\n', end - nl)); nl++)
		lines++;
	mp = calloc(1, sizeof(*mp));
	if (!mp)
		return NULL;
	/* Paths are substrings of their lines, so len + lines bounds them. */
	mp->pub.maps = calloc(lines, sizeof(*mp->pub.maps));
	mp->arena = malloc(len + lines);
	if (!mp->pub.maps || !mp->arena) {
		proc_maps__free(&mp->pub);
		return NULL;
	}
	arena = mp->arena;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (parse_line(p, nl, &mp->pub.maps[mp->pub.nr], &arena))
			mp->pub.nr++;
	}
	sort_maps(&mp->pub);
	return &mp->pub;
}

/* Reads a whole /proc file; its size is unknown in advance (stat says 0). */
static char *read_proc_file(const char *path, size_t *lenp)
{
	size_t cap = 0, len = 0;
	char *buf = NULL;
	int fd, e = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (len == cap) {
			e = GROW_MAX(buf, cap, len + 1, 16384, MAPS_MAX_TEXT);
			if (e) {
				e = e == -E2BIG ? EFBIG : ENOMEM;
				break;
			}
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n ? errno : 0;
			break;
		}
		len += n;
	}
	close(fd);
	if (e) {
		free(buf);
		errno = e;
		return NULL;
	}
	*lenp = len;
	return buf;
}

struct proc_maps *proc_maps__load(pid_t pid)
{
	struct proc_maps *pm;
	char path[64];
	size_t len;
	char *text;

	if (pid < 0) {
		errno = ESRCH;
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	text = read_proc_file(path, &len);
	if (!text)
		return NULL;
	pm = proc_maps__parse(text, len);
	free(text);
	if (!pm)
		errno = ENOMEM;
	return pm;
}

const struct proc_map *proc_maps__find(const struct proc_maps *pm, uint64_t addr)
{
	long i = pm ? ADDR_SEARCH(pm->maps, pm->nr, start, addr) : -1;

	return i >= 0 && addr < pm->maps[i].end ? &pm->maps[i] : NULL;
}

void proc_maps__free(struct proc_maps *pm)
{
	struct maps_priv *mp = (struct maps_priv *)pm;

	if (!pm)
		return;
	free(mp->arena);
	free(pm->maps);
	free(mp);
}

uid_t proc_maps__real_uid(pid_t pid)
{
	char path[64], line[256];
	unsigned long uid;
	uid_t out = (uid_t)-1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return out;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu", &uid) == 1) {
			out = uid;
			break;
		}
	fclose(f);
	return out;
}
