// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel symbolization: owns the parse of /proc/kallsyms (or a file in the
 * same format) into the table of its text symbols, and the lookups on it.
 * The file has well over 100k lines and ~5 MB, so it is streamed through
 * one 64 KiB buffer and parsed by hand without stdio, each symbol going
 * straight into the table's compact parts: its address into the sorted
 * gap-coded blocks (kaddrs.h), its name into the coded names (knames.h), in
 * the file's order, a bit for whether it is global, its module as a run.
 * The table is ~0.9 MB where plain entries and names were 4.8 MB (6.18).
 *
 * kallsyms is sorted but for its tail (modules, BPF programs, ftrace
 * trampolines): symbols from the first lower address on are held aside,
 * sorted at the end and merged in, and the table keeps, for those alone,
 * where each went, so that a sorted index finds its name in file order.
 *
 * A name is decoded when a lookup first returns its symbol, and kept with
 * it for the table's life, so that a lookup's answer stays valid.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/ksyms.h"
#include "symbols/kaddrs.h"
#include "symbols/kbuf.h"
#include "symbols/knames.h"
#include "lib/hash.h"
#include "lib/log.h"

/* /proc/kallsyms is ~5 MB; anything past this is not a kallsyms file. */
#define KSYMS_MAX_FILE (1ULL << 30)
/*
 * The read buffer.  /proc/kallsyms gives at most a page per read, so a
 * bigger buffer saves nothing; a line longer than this (a symbol name is at
 * most 512 bytes) is not a kallsyms line and is skipped.
 */
#define KSYMS_CHUNK (64 << 10)
#define NO_MODULE UINT32_MAX
#define NO_TAIL UINT32_MAX

/* Symbols first..the next run's first (file order) are of one module. */
struct mod_run {
	uint32_t first;
	uint32_t name; /* offset in mods, or NO_MODULE for vmlinux */
};

/* A symbol a lookup returned, with its name: kept for the table's life. */
struct knamed {
	struct ksym sym;
	char name[];
};

/* The symbols named so far, by sorted index (open addressing; the index
 * in the slot, so that a probe reads no symbol). */
struct kcache {
	struct kslot {
		uint32_t idx;
		struct knamed *named; /* NULL: a free slot */
	} *slots;
	size_t cap, nr;
};

struct ksyms {
	struct kaddrs addrs;   /* sorted */
	struct knames *names;  /* file order */
	struct kbuf global;    /* a bit a symbol, file order: T or W */
	struct kbuf runs;      /* struct mod_run */
	struct kbuf mods;      /* module names, each NUL-terminated */
	struct kbuf tail_pos;  /* uint32_t: each tail symbol's sorted index, ascending */
	struct kbuf tail_file; /* uint32_t: its file index */
	uint32_t tail_first;   /* the first tail symbol's file index, or NO_TAIL */
	size_t nr;
	bool hidden;
	struct kcache *cache;  /* a lookup on a const table fills it */
};

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
	struct ksyms *ks;
	struct kbuf tail;   /* uint64_t: the tail symbols' addresses */
	uint64_t last_addr;
	uint32_t last_mod;  /* consecutive module symbols share one string */
	size_t last_mod_len;
	bool any, nonzero;
};

static void set_bit(struct kbuf *b, size_t i)
{
	b->p[i / 8] |= 1 << (i % 8);
}

static bool bit(const struct kbuf *b, size_t i)
{
	return b->p[i / 8] >> (i % 8) & 1;
}

/* Symbol f's module: a new run when it is not the previous symbol's. */
static int note_module(struct kparse *kp, uint32_t f, const char *mod, size_t mlen)
{
	struct ksyms *ks = kp->ks;
	struct mod_run run = { .first = f, .name = NO_MODULE };
	size_t nruns = ks->runs.len / sizeof(run);
	int e;

	if (mod && (kp->last_mod == NO_MODULE || kp->last_mod_len != mlen ||
		    memcmp(ks->mods.p + kp->last_mod, mod, mlen))) {
		kp->last_mod = ks->mods.len;
		kp->last_mod_len = mlen;
		if ((e = kbuf__append(&ks->mods, mod, mlen)) || (e = kbuf__append(&ks->mods, "", 1)))
			return e;
	}
	if (mod)
		run.name = kp->last_mod;
	if (nruns && ((struct mod_run *)ks->runs.p)[nruns - 1].name == run.name)
		return 0;
	return kbuf__append(&ks->runs, &run, sizeof(run));
}

/* Into the sorted blocks while the file is sorted, else into the tail. */
static int put_addr(struct kparse *kp, uint32_t f, uint64_t addr)
{
	struct ksyms *ks = kp->ks;
	bool sorted = f == 0 || addr >= kp->last_addr;

	kp->last_addr = addr;
	if (ks->tail_first == NO_TAIL && sorted)
		return kaddrs__push(&ks->addrs, addr);
	if (ks->tail_first == NO_TAIL)
		ks->tail_first = f;
	return kbuf__append(&kp->tail, &addr, sizeof(addr));
}

static int keep(struct kparse *kp, uint64_t addr, char type, const char *name,
		size_t nlen, const char *mod, size_t mlen)
{
	struct ksyms *ks = kp->ks;
	uint32_t f = ks->nr;
	int e;

	if (ks->nr == UINT32_MAX - 1)
		return -EFBIG;
	if ((e = knames__add(ks->names, name, nlen)) ||
	    (e = kbuf__reserve(&ks->global, f / 8 + 1)) ||
	    (e = note_module(kp, f, mod, mlen)) ||
	    (e = put_addr(kp, f, addr)))
		return e;
	ks->global.len = f / 8 + 1;
	if (type == 'T' || type == 'W')
		set_bit(&ks->global, f);
	ks->nr++;
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

/* The tail symbols in address order, equal addresses in file order. */
static int tail_cmp(const void *a, const void *b, void *addrs)
{
	const uint64_t *addr = addrs;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (addr[x] != addr[y])
		return addr[x] < addr[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The tail sorted and merged with the sorted blocks into new ones; an
 * address in both comes first from the blocks, which the file listed
 * first.  tail_pos and tail_file keep where each tail symbol went.
 */
static int merge_tail(struct ksyms *ks, struct kbuf *tail)
{
	size_t t = tail->len / sizeof(uint64_t), mid = ks->tail_first, p = 0, k = 0;
	size_t loaded = SIZE_MAX; /* the sorted block in blk */
	const uint64_t *taddr = (const uint64_t *)tail->p;
	uint64_t blk[KADDRS_BLOCK];
	struct kaddrs merged = { 0 };
	uint32_t *perm, *pos;
	int e;

	if ((e = kbuf__reserve(&ks->tail_file, t * sizeof(*perm))) ||
	    (e = kbuf__reserve(&ks->tail_pos, t * sizeof(*pos))))
		return e;
	perm = (uint32_t *)ks->tail_file.p;
	pos = (uint32_t *)ks->tail_pos.p;
	ks->tail_file.len = ks->tail_pos.len = t * sizeof(*perm);
	for (size_t i = 0; i < t; i++)
		perm[i] = i;
	qsort_r(perm, t, sizeof(*perm), tail_cmp, tail->p);
	while (p < mid || k < t) {
		uint64_t a = 0;

		if (p < mid && p / KADDRS_BLOCK != loaded)
			kaddrs__block(&ks->addrs, loaded = p / KADDRS_BLOCK, blk);
		if (p < mid)
			a = blk[p % KADDRS_BLOCK];
		if (k < t && (p == mid || taddr[perm[k]] < a)) {
			a = taddr[perm[k]];
			pos[k] = p + k;
			perm[k++] += mid;
		} else {
			p++;
		}
		if ((e = kaddrs__push(&merged, a))) {
			kaddrs__release(&merged);
			return e;
		}
	}
	kaddrs__release(&ks->addrs);
	ks->addrs = merged;
	return kaddrs__seal(&ks->addrs);
}

static int finish(struct kparse *kp)
{
	struct ksyms *ks = kp->ks;
	int e;

	if ((e = knames__seal(ks->names)) || (e = kaddrs__seal(&ks->addrs)))
		return e;
	if (ks->tail_first != NO_TAIL && (e = merge_tail(ks, &kp->tail)))
		return e;
	ks->hidden = kp->any && !kp->nonzero;
	return 0;
}

static struct ksyms *ksyms_new(void)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (ks && (!(ks->names = knames__new()) || !(ks->cache = calloc(1, sizeof(*ks->cache))))) {
		knames__free(ks->names);
		free(ks);
		return NULL;
	}
	if (ks)
		ks->tail_first = NO_TAIL;
	return ks;
}

static size_t addrs_bytes(const struct ksyms *ks)
{
	return ks->addrs.base.len + ks->addrs.off.len + ks->addrs.gaps.len + ks->tail_pos.len +
	       ks->tail_file.len;
}

struct ksyms *ksyms__load_file(const char *path)
{
	struct ksyms *ks = ksyms_new();
	struct kparse kp = { .ks = ks, .last_mod = NO_MODULE };
	struct kbuf buf = { 0 }; /* mapped: freed, its pages leave the process */
	int fd = -1, ret;

	if (!ks || (ret = kbuf__reserve(&buf, KSYMS_CHUNK)))
		ret = -ENOMEM;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		ret = -errno;
	else
		ret = parse_fd(&kp, fd, buf.p);
	if (fd >= 0)
		close(fd);
	kbuf__release(&buf);
	if (!ret)
		ret = finish(&kp);
	kbuf__release(&kp.tail);
	if (ret) {
		ksyms__free(ks);
		errno = -ret;
		return NULL;
	}
	debug("%zu kernel text symbols from %s: addresses %zu KiB, names %zu KiB, modules %zu KiB",
	      ks->nr, path, addrs_bytes(ks) >> 10, knames__bytes(ks->names) >> 10,
	      (ks->global.len + ks->runs.len + ks->mods.len) >> 10);
	return ks;
}

struct ksyms *ksyms__load(void)
{
	return ksyms__load_file("/proc/kallsyms");
}

/* The file index of sorted index i. */
static uint32_t file_of(const struct ksyms *ks, size_t i)
{
	const uint32_t *pos = (const uint32_t *)ks->tail_pos.p;
	size_t lo = 0, hi = ks->tail_pos.len / sizeof(*pos);

	while (lo < hi) { /* lo: the tail symbols sorted before i */
		size_t mid = lo + (hi - lo) / 2;

		if (pos[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ks->tail_pos.len / sizeof(*pos) && pos[lo] == i)
		return ((const uint32_t *)ks->tail_file.p)[lo];
	return i - lo;
}

/* The sorted index of file index f. */
static size_t sorted_of(const struct ksyms *ks, uint32_t f)
{
	const uint32_t *pos = (const uint32_t *)ks->tail_pos.p;
	const uint32_t *file = (const uint32_t *)ks->tail_file.p;
	size_t t = ks->tail_pos.len / sizeof(*pos), lo = 0, hi = t;

	if (f >= ks->tail_first) {
		for (size_t k = 0; k < t; k++)
			if (file[k] == f)
				return pos[k];
	}
	/* tail symbol k is before f when fewer of the others (pos[k] - k) are */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pos[mid] - mid <= f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return f + lo;
}

static const char *module_of(const struct ksyms *ks, uint32_t f)
{
	const struct mod_run *runs = (const struct mod_run *)ks->runs.p;
	size_t lo = 0, hi = ks->runs.len / sizeof(*runs);

	while (hi - lo > 1) { /* the first run starts at symbol 0 */
		size_t mid = lo + (hi - lo) / 2;

		if (runs[mid].first <= f)
			lo = mid;
		else
			hi = mid;
	}
	return hi && runs[lo].name != NO_MODULE ? ks->mods.p + runs[lo].name : NULL;
}

static struct kslot *cache_slot(const struct kcache *c, uint32_t idx)
{
	size_t h = hash__mix64(idx) & (c->cap - 1);

	while (c->slots[h].named && c->slots[h].idx != idx)
		h = (h + 1) & (c->cap - 1);
	return &c->slots[h];
}

static int cache_grow(struct kcache *c)
{
	struct kcache big = { .cap = c->cap ? c->cap * 2 : 256, .nr = c->nr };

	if (!(big.slots = calloc(big.cap, sizeof(*big.slots))))
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].named)
			*cache_slot(&big, c->slots[i].idx) = c->slots[i];
	free(c->slots);
	*c = big;
	return 0;
}

/* Sorted index i, at addr, as a struct ksym that stays; NULL without memory. */
static const struct ksym *named(const struct ksyms *ks, size_t i, uint64_t addr)
{
	struct kcache *c = ks->cache;
	struct kslot *slot;
	struct knamed *n;
	uint32_t f;
	const char *name;
	size_t len;

	if (c->cap && (slot = cache_slot(c, i))->named)
		return &slot->named->sym;
	if ((c->nr + 1) * 2 > c->cap && cache_grow(c))
		return NULL;
	f = file_of(ks, i);
	if (!(name = knames__name(ks->names, f)) || !(n = malloc(sizeof(*n) + (len = strlen(name)) + 1)))
		return NULL;
	memcpy(n->name, name, len + 1);
	n->sym = (struct ksym){ .addr = addr, .name = n->name,
				.module = module_of(ks, f) };
	*cache_slot(c, i) = (struct kslot){ .idx = i, .named = n };
	c->nr++;
	return &n->sym;
}

const struct ksym *ksyms__map_addr(const struct ksyms *ks, uint64_t addr)
{
	size_t run, j;
	uint64_t at;
	long i;

	/* With hidden addresses every symbol sits at 0: no answer is right. */
	if (!ks || ks->hidden || (i = kaddrs__search(&ks->addrs, addr, &at, &run)) < 0)
		return NULL;
	/* Of aliases (equal addresses), the first global one, else the first. */
	for (j = run; j <= (size_t)i && !bit(&ks->global, file_of(ks, j)); j++)
		;
	return named(ks, j <= (size_t)i ? j : run, at);
}

const struct ksym *ksyms__get_symbol(const struct ksyms *ks, const char *name)
{
	size_t i, best = SIZE_MAX;
	const char *n;

	if (!ks || !name)
		return NULL;
	for (uint32_t f = 0; f < ks->nr; f++)
		if ((n = knames__name(ks->names, f)) && !strcmp(n, name) && (i = sorted_of(ks, f)) < best)
			best = i;
	return best == SIZE_MAX ? NULL : named(ks, best, kaddrs__at(&ks->addrs, best));
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
	for (size_t i = 0; ks->cache && i < ks->cache->cap; i++)
		free(ks->cache->slots[i].named);
	if (ks->cache)
		free(ks->cache->slots);
	free(ks->cache);
	kaddrs__release(&ks->addrs);
	knames__free(ks->names);
	kbuf__release(&ks->global);
	kbuf__release(&ks->runs);
	kbuf__release(&ks->mods);
	kbuf__release(&ks->tail_pos);
	kbuf__release(&ks->tail_file);
	free(ks);
}
