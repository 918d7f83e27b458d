// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel symbolization: owns the parse of /proc/kallsyms (or a file in the
 * same format) into an address-sorted table of text symbols whose names and
 * module names live in one string arena, and the lookups on that table.  The
 * file has well over 100k lines and ~5 MB, so it is streamed through one
 * 64 KiB buffer and parsed by hand without stdio: the process holds only the
 * names and 24-byte entries it keeps (on a VM every new page is a fault that
 * costs start-up time, so memory not touched is time saved too).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "symbols/ksyms.h"
#include "lib/addr_search.h"
#include "lib/log.h"

/* /proc/kallsyms is ~5 MB; anything past this is not a kallsyms file. */
#define KSYMS_MAX_FILE (1ULL << 30)
/*
 * The read buffer.  /proc/kallsyms gives at most a page per read, so a
 * bigger buffer saves nothing; a line longer than this (a symbol name is at
 * most 512 bytes) is not a kallsyms line and is skipped.
 */
#define KSYMS_CHUNK (64 << 10)

struct ksyms {
	struct ksym *syms;
	size_t nr, syms_cap; /* capacities in bytes: both are mappings */
	char *arena;
	size_t arena_cap;
	bool hidden;
};

/*
 * A symbol while parsing, in the memory that becomes its struct ksym once
 * the arena stops moving: the same 24 bytes, so the parse holds only the
 * names and entries it keeps, never the whole file nor a second array.
 */
struct kraw {
	uint64_t addr;
	uint32_t name, module; /* arena offsets; NO_MODULE for vmlinux */
	uint32_t seq;
	uint32_t global;
};
#define NO_MODULE UINT32_MAX

_Static_assert(sizeof(struct kraw) == sizeof(struct ksym), "a kraw becomes a ksym in place");

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
	char *arena;        /* names and module names, NUL-terminated */
	size_t out, arena_cap;
	struct kraw *raw;
	size_t nr, raw_cap; /* raw_cap in bytes */
	uint32_t last_mod;  /* consecutive module symbols share one string */
	size_t last_mod_len;
	uint32_t last_pfx;  /* the last name kept, when it was "__pfx_..." */
	size_t last_pfx_len; /* its length; 0: it was not */
	bool any, nonzero;
};

/*
 * Grows an anonymous mapping to hold need bytes, doubling from 1 MiB.  A
 * mapping, not the heap: growing moves page tables, never the bytes (heap
 * reallocs of the arena and the entries took turns copying each other), and
 * the pages past what is written are never touched.
 */
static int grow_map(void *pp, size_t *cap, size_t need)
{
	void **p = pp, *grown;
	size_t ncap = *cap ? *cap : 1 << 20;

	while (ncap < need)
		ncap *= 2;
	if (ncap == *cap)
		return 0;
	if (ncap > KSYMS_MAX_FILE)
		return -EFBIG;
	grown = *p ? mremap(*p, *cap, ncap, MREMAP_MAYMOVE)
		   : mmap(NULL, ncap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (grown == MAP_FAILED)
		return -ENOMEM;
	*p = grown;
	*cap = ncap;
	return 0;
}

/* The arena offset of a copy of s, or -ENOMEM / -EFBIG. */
static int64_t arena_put(struct kparse *kp, const char *s, size_t len)
{
	size_t off = kp->out;
	int e = grow_map(&kp->arena, &kp->arena_cap, off + len + 1);

	if (e)
		return e;
	memcpy(kp->arena + off, s, len);
	kp->arena[off + len] = '\0';
	kp->out += len + 1;
	return off;
}

/*
 * A symbol's name in the arena.  Kernels with function padding (6.2+,
 * CONFIG_FUNCTION_PADDING_ALIGNMENT) list "__pfx_NAME" just before NAME,
 * for nearly half their text symbols: NAME is then the tail of the string
 * kept for "__pfx_NAME" (1.3 MB less on 6.18).
 */
static int64_t put_name(struct kparse *kp, const char *name, size_t len)
{
	static const char pfx[] = "__pfx_";
	const size_t plen = sizeof(pfx) - 1;
	int64_t off;

	if (kp->last_pfx_len == plen + len &&
	    !memcmp(kp->arena + kp->last_pfx + plen, name, len)) {
		kp->last_pfx_len = 0;
		return kp->last_pfx + plen;
	}
	off = arena_put(kp, name, len);
	kp->last_pfx_len = off >= 0 && len > plen && !memcmp(name, pfx, plen) ? len : 0;
	kp->last_pfx = off;
	return off;
}

static int keep(struct kparse *kp, uint64_t addr, char type, const char *name,
		size_t nlen, const char *mod, size_t mlen)
{
	struct kraw *r;
	int64_t off;

	if (kp->nr == UINT32_MAX)
		return -EFBIG;
	if ((off = grow_map(&kp->raw, &kp->raw_cap, (kp->nr + 1) * sizeof(*r))))
		return off;
	if ((off = put_name(kp, name, nlen)) < 0)
		return off;
	r = &kp->raw[kp->nr];
	*r = (struct kraw){ .addr = addr, .name = off, .module = NO_MODULE, .seq = kp->nr,
			    .global = type == 'T' || type == 'W' };
	kp->nr++;
	if (mod) {
		if (kp->last_mod == NO_MODULE || kp->last_mod_len != mlen ||
		    memcmp(kp->arena + kp->last_mod, mod, mlen)) {
			if ((off = arena_put(kp, mod, mlen)) < 0)
				return off;
			kp->last_mod = off;
			kp->last_mod_len = mlen;
		}
		r->module = kp->last_mod;
	}
	return 0;
}

/* One line, without its newline. */
static int parse_one(struct kparse *kp, char *p, char *end)
{
	char *name, *mod, type;
	size_t nlen, mlen;
	uint64_t addr;

	if (!parse_line(p, end, &addr, &type, &name, &nlen, &mod, &mlen))
		return 0;
	kp->any = true;
	kp->nonzero |= addr != 0;
	return is_text(type) ? keep(kp, addr, type, name, nlen, mod, mlen) : 0;
}

/*
 * The file a chunk at a time: whole lines are parsed where they lie, the
 * unfinished last one moves to the front for the next read.
 */
static int parse_fd(struct kparse *kp, int fd, char *buf)
{
	size_t have = 0, total = 0;
	bool skipping = false; /* inside a line too long to be kallsyms */
	char *p, *nl, *end;
	ssize_t n;
	int ret;

	for (;;) {
		n = read(fd, buf + have, KSYMS_CHUNK - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if ((total += n) > KSYMS_MAX_FILE)
			return -EFBIG;
		end = buf + have + n;
		for (p = buf; (nl = memchr(p, '\n', end - p)); p = nl + 1) {
			if (!skipping && (ret = parse_one(kp, p, nl)))
				return ret;
			skipping = false;
		}
		if (n == 0) /* the last line may lack its newline */
			return skipping || p == end ? 0 : parse_one(kp, p, end);
		have = end - p;
		if (have == KSYMS_CHUNK) {
			skipping = true;
			have = 0;
		} else {
			memmove(buf, p, have);
		}
	}
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
/*
 * Sorts raw[mid..nr) and merges it into the sorted raw[0..mid).  kallsyms
 * is sorted but for its last few lines (BPF programs, ftrace trampolines):
 * sorting all of it took a 3 MB copy and most of the parse's time.
 */
static void sort_tail(struct kraw *raw, size_t nr, size_t mid)
{
	size_t a = mid, b = nr - mid, out = nr;
	struct kraw *tail = malloc(b * sizeof(*tail));

	if (!tail) {
		qsort(raw, nr, sizeof(*raw), kraw_cmp);
		return;
	}
	memcpy(tail, raw + mid, b * sizeof(*tail));
	qsort(tail, b, sizeof(*tail), kraw_cmp);
	while (b > 0)
		raw[--out] = a > 0 && kraw_cmp(&raw[a - 1], &tail[b - 1]) > 0 ? raw[--a] : tail[--b];
	free(tail);
}

static void sort_raw(struct kraw *raw, size_t nr)
{
	size_t i, j, run;
	struct kraw t;

	for (i = 1; i < nr; i++)
		if (raw[i - 1].addr > raw[i].addr)
			break;
	if (i < nr)
		sort_tail(raw, nr, i);
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

/* Every kraw turned into its ksym, now that the arena stays put. */
static void finish(struct ksyms *ks, struct kparse *kp)
{
	struct kraw r;

	ks->arena = kp->arena;
	ks->arena_cap = kp->arena_cap;
	kp->arena = NULL;
	sort_raw(kp->raw, kp->nr);
	ks->syms = (struct ksym *)kp->raw;
	ks->syms_cap = kp->raw_cap;
	kp->raw = NULL;
	for (size_t i = 0; i < kp->nr; i++) {
		memcpy(&r, &ks->syms[i], sizeof(r));
		ks->syms[i] = (struct ksym){
			.addr = r.addr,
			.name = ks->arena + r.name,
			.module = r.module == NO_MODULE ? NULL : ks->arena + r.module,
		};
	}
	ks->nr = kp->nr;
	ks->hidden = kp->any && !kp->nonzero;
}

struct ksyms *ksyms__load_file(const char *path)
{
	struct kparse kp = { .last_mod = NO_MODULE };
	struct ksyms *ks = calloc(1, sizeof(*ks));
	char *buf = malloc(KSYMS_CHUNK);
	int fd = -1, ret;

	if (!ks || !buf)
		ret = -ENOMEM;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		ret = -errno;
	else
		ret = parse_fd(&kp, fd, buf);
	if (fd >= 0)
		close(fd);
	free(buf);
	if (!ret)
		finish(ks, &kp);
	if (kp.raw)
		munmap(kp.raw, kp.raw_cap);
	if (kp.arena)
		munmap(kp.arena, kp.arena_cap);
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
	if (ks->syms)
		munmap(ks->syms, ks->syms_cap);
	if (ks->arena)
		munmap(ks->arena, ks->arena_cap);
	free(ks);
}
