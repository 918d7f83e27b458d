// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel symbolization: owns the parse of /proc/kallsyms (or a file in the
 * same format) into an address-sorted table of text symbols whose names and
 * module names live in one string arena, and the lookups on that table.  The
 * file has well over 100k lines, so it is read in large chunks, parsed by
 * hand without stdio, and compacted in place into the arena.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"
#include "addr_search.h"
#include "log.h"

/* /proc/kallsyms is ~5 MB; anything past this is not a kallsyms file. */
#define KSYMS_MAX_FILE (1ULL << 30)

struct ksyms {
	struct ksym *syms;
	size_t nr;
	char *arena;
	bool hidden;
};

/* A symbol while parsing: arena offsets, since the arena moves on shrink. */
struct kraw {
	uint64_t addr;
	size_t name, module; /* offsets; module is SIZE_MAX for vmlinux */
	uint32_t seq;
	bool global;
};

static int read_all(const char *path, char **bufp, size_t *lenp)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = NULL, *nbuf;
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!buf || cap - len < 4096) {
			if (cap >= KSYMS_MAX_FILE) {
				e = EFBIG;
				goto fail;
			}
			cap = buf ? cap * 2 : cap;
			nbuf = realloc(buf, cap + 1);
			if (!nbuf) {
				e = ENOMEM;
				goto fail;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return -e;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parses "ADDR TYPE NAME[\t[MODULE]]" in [p, end); false if malformed. */
static bool parse_line(char *p, char *end, uint64_t *addr, char *type,
		       char **name, size_t *name_len, char **mod, size_t *mod_len)
{
	uint64_t a = 0;
	char *q = p;
	int v;

	while (q < end && (v = hexval(*q)) >= 0 && q - p < 16)
		a = a << 4 | v, q++;
	if (q == p || q + 3 > end || *q != ' ' || q[2] != ' ')
		return false;
	*addr = a;
	*type = q[1];
	p = q += 3;
	while (q < end && *q != '\t' && *q != ' ' && *q != '\r')
		q++;
	if (q == p)
		return false;
	*name = p;
	*name_len = q - p;
	*mod = NULL;
	*mod_len = 0;
	while (q < end && (*q == '\t' || *q == ' '))
		q++;
	if (q < end && *q == '[') {
		p = ++q;
		while (q < end && *q != ']')
			q++;
		if (q == end || q == p)
			return false;
		*mod = p;
		*mod_len = q - p;
	}
	return true;
}

static bool is_text(char type)
{
	/* kallsyms marks weak functions W/w; they are text like t/T. */
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

struct kparse {
	char *buf;          /* the file, compacted in place into the arena */
	size_t out;         /* arena write position, never past the read one */
	struct kraw *raw;
	size_t nr, cap;
	size_t last_mod;    /* consecutive module symbols share one string */
	size_t last_mod_len;
	bool any, nonzero;
};

static size_t arena_put(struct kparse *kp, const char *s, size_t len)
{
	size_t off = kp->out;

	memmove(kp->buf + off, s, len);
	kp->buf[off + len] = '\0';
	kp->out += len + 1;
	return off;
}

static int keep(struct kparse *kp, uint64_t addr, char type, char *name,
		size_t nlen, char *mod, size_t mlen)
{
	struct kraw *r;

	if (kp->nr == kp->cap) {
		size_t ncap = kp->cap ? kp->cap * 2 : 65536;

		r = realloc(kp->raw, ncap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		kp->raw = r;
		kp->cap = ncap;
	}
	r = &kp->raw[kp->nr];
	r->addr = addr;
	r->seq = kp->nr++;
	r->global = type == 'T' || type == 'W';
	r->name = arena_put(kp, name, nlen);
	r->module = SIZE_MAX;
	if (mod) {
		if (kp->last_mod == SIZE_MAX || kp->last_mod_len != mlen ||
		    memcmp(kp->buf + kp->last_mod, mod, mlen)) {
			kp->last_mod = arena_put(kp, mod, mlen);
			kp->last_mod_len = mlen;
		}
		r->module = kp->last_mod;
	}
	return 0;
}

static int parse_all(struct kparse *kp, size_t len)
{
	char *p = kp->buf, *end = kp->buf + len, *nl, *name, *mod, type;
	size_t nlen, mlen;
	uint64_t addr;
	int ret;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (!parse_line(p, nl, &addr, &type, &name, &nlen, &mod, &mlen))
			continue;
		kp->any = true;
		kp->nonzero |= addr != 0;
		if (!is_text(type))
			continue;
		/* The name precedes the module: both writes stay behind p. */
		ret = keep(kp, addr, type, name, nlen, mod, mlen);
		if (ret)
			return ret;
	}
	return 0;
}

static int kraw_cmp(const void *a, const void *b)
{
	const struct kraw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sorts by address (kallsyms usually is already: then this is one pass),
 * and moves the first global alias to the front of each equal-address run,
 * since that is the one lookups report.
 */
static void sort_raw(struct kraw *raw, size_t nr)
{
	size_t i, j, run;
	struct kraw t;

	for (i = 1; i < nr; i++)
		if (raw[i - 1].addr > raw[i].addr)
			break;
	if (i < nr)
		qsort(raw, nr, sizeof(*raw), kraw_cmp);
	for (run = 0; run < nr; run = j) {
		for (j = run + 1; j < nr && raw[j].addr == raw[run].addr; j++)
			;
		for (i = run; i < j && !raw[i].global; i++)
			;
		if (i == run || i == j)
			continue;
		t = raw[i];
		memmove(&raw[run + 1], &raw[run], (i - run) * sizeof(t));
		raw[run] = t;
	}
}

static int finish(struct ksyms *ks, struct kparse *kp)
{
	char *arena;
	size_t i;

	arena = realloc(kp->buf, kp->out ? kp->out : 1);
	if (arena)
		kp->buf = arena;
	ks->arena = kp->buf;
	kp->buf = NULL;
	sort_raw(kp->raw, kp->nr);
	ks->syms = calloc(kp->nr ? kp->nr : 1, sizeof(*ks->syms));
	if (!ks->syms)
		return -ENOMEM;
	for (i = 0; i < kp->nr; i++) {
		ks->syms[i].addr = kp->raw[i].addr;
		ks->syms[i].name = ks->arena + kp->raw[i].name;
		ks->syms[i].module = kp->raw[i].module == SIZE_MAX ?
				     NULL : ks->arena + kp->raw[i].module;
	}
	ks->nr = kp->nr;
	ks->hidden = kp->any && !kp->nonzero;
	return 0;
}

struct ksyms *ksyms__load_file(const char *path)
{
	struct kparse kp = { .last_mod = SIZE_MAX };
	struct ksyms *ks;
	size_t len = 0;
	int ret;

	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	ret = read_all(path, &kp.buf, &len);
	if (!ret)
		ret = parse_all(&kp, len);
	if (!ret)
		ret = finish(ks, &kp);
	free(kp.raw);
	free(kp.buf);
	if (ret) {
		ksyms__free(ks);
		errno = -ret;
		return NULL;
	}
	debug("%zu kernel text symbols from %s", ks->nr, path);
	return ks;
}

struct ksyms *ksyms__load(void)
{
	return ksyms__load_file("/proc/kallsyms");
}

const struct ksym *ksyms__map_addr(const struct ksyms *ks, uint64_t addr)
{
	long lo;

	/* With hidden addresses every symbol sits at 0: no answer is right. */
	if (!ks || ks->hidden || (lo = ADDR_SEARCH(ks->syms, ks->nr, addr, addr)) < 0)
		return NULL;
	/* The sort put the preferred alias first among equal addresses. */
	while (lo > 0 && ks->syms[lo - 1].addr == ks->syms[lo].addr)
		lo--;
	return &ks->syms[lo];
}

const struct ksym *ksyms__get_symbol(const struct ksyms *ks, const char *name)
{
	size_t i;

	if (!ks || !name)
		return NULL;
	for (i = 0; i < ks->nr; i++)
		if (!strcmp(ks->syms[i].name, name))
			return &ks->syms[i];
	return NULL;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

int ksyms__addresses_hidden(const struct ksyms *ks)
{
	return ks && ks->hidden;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->arena);
	free(ks);
}
