// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind maps (see unwind_maps.h): owns the process images whose
 * mappings are in the kernel's LPM trie ("unwind_mappings", each mapping
 * with its file's id and load bias), what one image may take of it and of
 * the files (1/SHARE_PROC; a user 1/SHARE_USER, unwind_shares.c), and the
 * housekeeping that keeps the tables within their bounds: mappings of
 * processes that are gone are swept, files no process maps forgotten and
 * evicted tables that are still mapped loaded again, at most once a
 * second (whenever the trie is full too).  The files, their tables and
 * the memory budget are unwind_files.c's.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lib/addr_search.h"
#include "lib/clock.h"
#include "lib/hash.h"
#include "files/proc_maps.h"
#include "unwind.h"
#include "unwind/unwind_maps_int.h"

#define SHARD_BITS_MIN 16 /* 512 KiB */
#define SHARD_BITS_MAX 24
#define MAX_SHARDS 256
#define SWEEP_NS 1000000000ull

struct umap {
	uint64_t start, end, bias;
	struct ufile *file; /* NULL: anonymous code */
	uint64_t pgoff, dev, ino; /* as maps said, to reuse file without an open */
	bool in_kernel;     /* its prefixes are in the trie */
};

struct uproc {
	struct uproc *next;
	pid_t pid;
	uint32_t gen;
	struct ushare *share; /* its user's */
	struct umap *maps;    /* sorted by start, as maps lists them */
	size_t nr;
	size_t prefixes;      /* its entries in the trie */
};

/* One process image's share of the files and of the trie. */
#define PROC_FILES (UNWIND_MAX_FILES / SHARE_PROC)
#define PROC_PREFIXES (UNWIND_MAX_MAPPINGS / SHARE_PROC)

void unwind_maps__layout(uint64_t budget, uint32_t *shard_bits, uint32_t *max_shards)
{
	uint32_t bits = SHARD_BITS_MIN;

	while (bits < SHARD_BITS_MAX && (budget >> (bits + 3)) > MAX_SHARDS)
		bits++;
	*shard_bits = bits;
	*max_shards = budget >> (bits + 3);
	if (!*max_shards)
		*max_shards = 1;
	if (*max_shards > MAX_SHARDS)
		*max_shards = MAX_SHARDS;
}

/* ---- mappings in the LPM trie ------------------------------------------- */

/* The row-offset bias of mapping m of uf: pc - bias is the table offset. */
static bool map_bias(const struct ufile *uf, const struct proc_map *m, uint64_t *bias)
{
	for (size_t i = 0; i < uf->nr_segs; i++) {
		const struct seg *s = &uf->segs[i];
		uint64_t page_off = s->offset & ~4095ull;

		if (m->pgoff >= page_off && m->pgoff < s->offset + s->size) {
			*bias = m->start - m->pgoff + s->offset - s->vaddr + uf->base;
			return true;
		}
	}
	return false;
}

/* An insertion or deletion of one mapping's prefixes, for process p. */
struct prefix_op {
	struct unwind_maps *um;
	struct uproc *p;
	const struct unwind_mapping *value; /* NULL: delete */
};

/*
 * Calls fn for each prefix of the smallest set covering [start, end):
 * aligned power-of-two blocks, key prefix length 32 (tgid) + address bits.
 * With fn NULL, counts them.
 */
static int for_each_prefix(uint64_t start, uint64_t end,
			   int (*fn)(struct prefix_op *, struct unwind_map_key *),
			   struct prefix_op *op)
{
	struct unwind_map_key k;
	int err, n = 0;

	while (start < end) {
		int bits = start ? __builtin_ctzll(start) : 63;

		while (bits > 0 && (start + (1ull << bits) > end || start + (1ull << bits) < start))
			bits--;
		k.prefixlen = 32 + 64 - bits;
		k.tgid = htobe32(op ? (uint32_t)op->p->pid : 0);
		k.addr = htobe64(start);
		if (fn && (err = fn(op, &k)))
			return err;
		n++;
		start += 1ull << bits;
	}
	return fn ? 0 : n;
}

static size_t prefix_count(uint64_t start, uint64_t end)
{
	return for_each_prefix(start, end, NULL, NULL);
}

static void count_prefix(struct prefix_op *op, int d)
{
	op->um->nr_mappings += d;
	op->p->prefixes += d;
	if (op->p->share)
		op->p->share->prefixes += d;
}

static int insert_prefix(struct prefix_op *op, struct unwind_map_key *k)
{
	int fd = op->um->o.mappings_fd;

	if (bpf_map_update_elem(fd, k, op->value, BPF_NOEXIST)) {
		if (errno != EEXIST)
			return -errno;
		if (bpf_map_update_elem(fd, k, op->value, BPF_ANY))
			return -errno;
		return 0;
	}
	count_prefix(op, 1);
	return 0;
}

static int delete_prefix(struct prefix_op *op, struct unwind_map_key *k)
{
	if (!bpf_map_delete_elem(op->um->o.mappings_fd, k))
		count_prefix(op, -1);
	return 0;
}

static int insert_map(struct unwind_maps *um, struct uproc *p, uint32_t gen, const struct umap *m)
{
	struct unwind_mapping v = {
		.start = m->start, .end = m->end, .bias = m->bias,
		.file = m->file ? m->file->id : 0, .gen = gen,
		.flags = m->file ? 0 : UNWIND_MAP_ANON,
	};
	struct prefix_op op = { um, p, &v };

	return for_each_prefix(m->start, m->end, insert_prefix, &op);
}

static void delete_map(struct unwind_maps *um, struct uproc *p, const struct umap *m)
{
	struct prefix_op op = { um, p, NULL };

	for_each_prefix(m->start, m->end, delete_prefix, &op);
}

/* ---- process images -------------------------------------------------------- */

static struct uproc **proc_slot(struct unwind_maps *um, pid_t pid)
{
	struct uproc **pp = &um->procs[hash__mix64((uint32_t)pid) % PROC_BUCKETS];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

static void release_maps(struct unwind_maps *um, struct uproc *p, bool in_kernel)
{
	for (size_t i = 0; i < p->nr; i++) {
		if (in_kernel)
			delete_map(um, p, &p->maps[i]);
		if (p->maps[i].file)
			filecache__release(&p->maps[i].file->ent);
	}
	free(p->maps);
	p->maps = NULL;
	p->nr = 0;
}

static void proc_drop(struct unwind_maps *um, struct uproc **pp)
{
	struct uproc *p = *pp;

	release_maps(um, p, true);
	*pp = p->next;
	free(p);
	um->nr_procs--;
}

static bool proc_alive(struct unwind_maps *um, const struct uproc *p)
{
	if (p->gen && um->o.image_current)
		return um->o.image_current(p->pid, p->gen, um->o.arg);
	return !kill(p->pid, 0) || errno == EPERM;
}

/* Drops the mappings of images that are gone (but keep's, being updated). */
static void sweep(struct unwind_maps *um, const struct uproc *keep)
{
	um->last_sweep = clock__now_ns();
	for (size_t b = 0; b < PROC_BUCKETS; b++)
		for (struct uproc **pp = &um->procs[b]; *pp;) {
			if (*pp == keep || proc_alive(um, *pp))
				pp = &(*pp)->next;
			else
				proc_drop(um, pp);
		}
}

/* The same mapping of the same file in the old list (sorted): its file,
 * no open. */
static struct ufile *known_file(const struct uproc *p, const struct proc_map *m)
{
	long i = ADDR_SEARCH(p->maps, p->nr, start, m->start);
	const struct umap *o = i >= 0 ? &p->maps[i] : NULL;

	if (o && o->start == m->start && o->end == m->end && o->pgoff == m->pgoff &&
	    o->dev == m->dev && o->ino == m->ino)
		return o->file;
	return NULL;
}

/*
 * The files of one maps read by device and inode: a file a process maps
 * cannot be deleted, so its inode number is not another file's while the
 * mapping stands, and 65,000 mappings of one file cost one open.
 */
struct seen {
	struct { uint64_t dev, ino; struct ufile *uf; } *e;
	size_t mask, distinct;
};

static bool seen_init(struct seen *s, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	s->e = calloc(cap, sizeof(*s->e));
	s->mask = cap - 1;
	s->distinct = 0;
	return s->e != NULL;
}

/* The slot of (dev, ino): its file, or empty (uf NULL, ino set on fill). */
static size_t seen_slot(const struct seen *s, uint64_t dev, uint64_t ino)
{
	size_t i = hash__mix64(dev ^ hash__mix64(ino)) & s->mask;

	while (s->e[i].uf && (s->e[i].dev != dev || s->e[i].ino != ino))
		i = (i + 1) & s->mask;
	return i;
}

/* The file of mapping m for process pid of share sh (its old list: old),
 * resolved at most once per file in a read and within a process's share
 * of files. */
static struct ufile *map_file(struct unwind_maps *um, pid_t pid, struct ushare *sh,
			      const struct uproc *old, const struct proc_map *m, struct seen *seen)
{
	size_t slot = seen_slot(seen, m->dev, m->ino);
	struct ufile *uf = seen->e[slot].uf;

	if (uf)
		return uf;
	uf = old ? known_file(old, m) : NULL;
	if (!uf || ((uf->state == F_UNLOADED || uf->waiting) && !uf->failed && !uf->queued)) {
		if (seen->distinct >= PROC_FILES) {
			um->over_now = true;
			return NULL; /* frame pointers */
		}
		uf = unwind_files_resolve(um, pid, m, sh, false);
	}
	if (uf) {
		seen->e[slot].dev = m->dev;
		seen->e[slot].ino = m->ino;
		seen->e[slot].uf = uf;
		seen->distinct++;
	}
	return uf;
}

/* The executable mappings of pm, their files resolved and loaded, as many
 * as a process's share of the trie holds. */
static size_t collect_maps(struct unwind_maps *um, pid_t pid, struct ushare *sh,
			   const struct uproc *old, const struct proc_maps *pm, struct umap *out)
{
	size_t n = 0, prefixes = 0;
	struct seen seen;

	if (!seen_init(&seen, pm->nr))
		return 0;
	for (size_t i = 0; i < pm->nr; i++) {
		const struct proc_map *m = &pm->maps[i];
		struct umap u = { .start = m->start, .end = m->end, .pgoff = m->pgoff,
				  .dev = m->dev, .ino = m->ino };
		struct ufile *uf = NULL;

		if (!m->exec || m->kind == PROC_MAP_SPECIAL || m->kind == PROC_MAP_STACK)
			continue;
		prefixes += prefix_count(m->start, m->end);
		if (prefixes > PROC_PREFIXES) {
			um->over_now = true; /* the rest are not in the trie */
			continue;
		}
		if (m->kind == PROC_MAP_FILE)
			uf = map_file(um, pid, sh, old, m, &seen);
		else if (m->kind == PROC_MAP_VDSO)
			uf = unwind_files_vdso(um, m);
		/* no file (a JIT's anonymous or heap code, a file that would not
		 * open) or no segment for it: frame pointers, as "no table" */
		/* tables come later: the mapping points at its file already */
		if (uf && !map_bias(uf, m, &u.bias))
			uf = NULL; /* maps no executable segment of its file */
		u.file = uf;
		if (uf) {
			filecache__hold(&uf->ent);
			uf->ent.last_used = um->tick;
		}
		out[n++] = u;
	}
	free(seen.e);
	return n;
}

static bool same_map(const struct umap *a, const struct umap *b)
{
	return a->start == b->start && a->end == b->end && a->bias == b->bias && a->file == b->file;
}

/* The same mapping in maps[nr] (sorted by start), or NULL. */
static struct umap *find_map(struct umap *maps, size_t nr, const struct umap *m)
{
	long i = ADDR_SEARCH(maps, nr, start, m->start);

	return i >= 0 && same_map(&maps[i], m) ? &maps[i] : NULL;
}

/* Puts m in the trie, if p's user has room for it there. */
static void insert_within_share(struct unwind_maps *um, struct uproc *p, uint32_t gen,
				struct umap *m)
{
	int err;

	if (p->share && p->share->prefixes + prefix_count(m->start, m->end) >
				unwind_shares_prefixes()) {
		um->over_now = true;
		return;
	}
	err = insert_map(um, p, gen, m);
	if (err == -E2BIG || err == -ENOSPC || err == -ENOMEM) {
		sweep(um, p);
		err = insert_map(um, p, gen, m);
	}
	if (err) {
		delete_map(um, p, m);
		um->st.mappings_dropped++;
		return;
	}
	m->in_kernel = true;
}

/* Makes the kernel's entries of p those of maps[nr] for image gen, whose
 * user's share is sh. */
static void apply_maps(struct unwind_maps *um, struct uproc *p, uint32_t gen,
		       struct ushare *sh, struct umap *maps, size_t nr)
{
	bool regen = gen != p->gen;
	struct umap *o;

	/* deletions first: a new mapping may take a prefix an old one had */
	for (size_t i = 0; i < p->nr; i++)
		if (p->maps[i].in_kernel && (regen || !find_map(maps, nr, &p->maps[i])))
			delete_map(um, p, &p->maps[i]);
	p->share = sh;
	for (size_t i = 0; i < nr; i++) {
		if (!regen && (o = find_map(p->maps, p->nr, &maps[i])) && o->in_kernel)
			maps[i].in_kernel = true;
		else
			insert_within_share(um, p, gen, &maps[i]);
	}
	release_maps(um, p, false);
	p->maps = maps;
	p->nr = nr;
	p->gen = gen;
}

static void update(struct unwind_maps *um, pid_t pid, uint32_t gen, const struct proc_maps *pm);

void unwind_maps__update(pid_t pid, uint32_t gen, const struct proc_maps *pm, void *arg)
{
	struct unwind_maps *um = arg;

	if (!um || !pm)
		return;
	pthread_mutex_lock(&um->lock);
	if (!um->stopped)
		update(um, pid, gen, pm);
	pthread_mutex_unlock(&um->lock);
}

static void update(struct unwind_maps *um, pid_t pid, uint32_t gen, const struct proc_maps *pm)
{
	struct uproc **pp, *p;
	struct ushare *sh;
	struct umap *maps;
	size_t nr;

	um->tick++;
	pp = proc_slot(um, pid);
	p = *pp;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return;
		p->pid = pid;
		p->gen = gen;
		*pp = p;
		um->nr_procs++;
	}
	/* a new image may run as another user (a setuid exec does not) */
	sh = p->share && p->gen == gen ? p->share : unwind_shares_of(um, pid);
	maps = calloc(pm->nr ? pm->nr : 1, sizeof(*maps));
	if (!maps)
		return;
	um->over_now = false;
	nr = collect_maps(um, pid, sh, p->nr && p->gen == gen ? p : NULL, pm, maps);
	apply_maps(um, p, gen, sh, maps, nr);
	um->n.over_share += um->over_now;
}

/* Tables that processes map but are not loaded (evicted, or their build
 * found the queue full): built and loaded where they fit now, through a
 * mapping of a process that maps them. */
static void load_waiting(struct unwind_maps *um)
{
	for (size_t b = 0; b < PROC_BUCKETS; b++)
		for (struct uproc *p = um->procs[b]; p; p = p->next)
			for (size_t i = 0; i < p->nr; i++) {
				struct umap *m = &p->maps[i];
				struct ufile *uf = m->file;
				struct proc_map pm = { .start = m->start, .end = m->end,
						       .pgoff = m->pgoff, .dev = m->dev,
						       .ino = m->ino, .exec = 1,
						       .kind = PROC_MAP_FILE, .deleted = 1 };

				if (um->nr_jobs >= MAX_JOBS)
					return;
				if (!uf || (uf->state != F_UNLOADED && !uf->waiting) || uf->queued ||
				    uf->failed ||
				    (uf->share && uf->share->jobs >= MAX_JOBS / SHARE_USER) ||
				    !unwind_files_room_for(um, uf))
					continue;
				/* the same identity, or another file: then a miss */
				unwind_files_resolve(um, p->pid, &pm, p->share, false);
			}
}

void unwind_maps_housekeep(struct unwind_maps *um)
{
	if (clock__now_ns() - um->last_sweep < SWEEP_NS)
		return;
	sweep(um, NULL);
	unwind_files_forget(um);
	if (um->n.waiting)
		load_waiting(um);
}

struct unwind_maps *unwind_maps__new(const struct unwind_maps_opts *o)
{
	struct unwind_maps *um = calloc(1, sizeof(*um));
	pthread_condattr_t ca;

	if (!um)
		return NULL;
	um->o = *o;
	um->next_id = 1;
	um->shards = unwind_shards__new(o->shards_fd, o->shard_bits, o->max_shards);
	if (!um->shards || unwind_files_init(um)) {
		unwind_shards__free(um->shards);
		free(um);
		return NULL;
	}
	um->st.budget = (uint64_t)o->max_shards << (o->shard_bits + 3);
	pthread_mutex_init(&um->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&um->wake, &ca);
	pthread_condattr_destroy(&ca);
	um->builder_started = !pthread_create(&um->builder, NULL, unwind_files_builder, um);
	if (!um->builder_started) {
		unwind_maps__free(um);
		return NULL;
	}
	return um;
}

void unwind_maps__stop(struct unwind_maps *um)
{
	if (!um)
		return;
	atomic_store(&um->cancel, true); /* the builder may be mid-build, unlocked */
	pthread_mutex_lock(&um->lock);
	um->stopped = true;
	unwind_files_drop_jobs(um);
	pthread_mutex_unlock(&um->lock);
}

int unwind_maps__settle(struct unwind_maps *um, double until)
{
	struct timespec nap = { .tv_nsec = 2 * 1000 * 1000 };
	size_t queued;

	for (;;) {
		pthread_mutex_lock(&um->lock);
		queued = um->nr_jobs + um->building;
		pthread_mutex_unlock(&um->lock);
		if (!queued)
			return 0;
		if (clock__now() >= until)
			return -ETIMEDOUT;
		nanosleep(&nap, NULL);
	}
}

void unwind_maps__preload_self(struct unwind_maps *um)
{
	struct proc_maps *pm = proc_maps__load(getpid());

	struct stat exe;
	bool have_exe = !stat("/proc/self/exe", &exe);

	pthread_mutex_lock(&um->lock);
	for (size_t i = 0; pm && i < pm->nr; i++) {
		const struct proc_map *m = &pm->maps[i];

		/* libraries only: smolder's own program is rarely profiled */
		if (m->exec && m->kind == PROC_MAP_FILE &&
		    !(have_exe && m->dev == exe.st_dev && m->ino == exe.st_ino))
			unwind_files_resolve(um, getpid(), m, NULL, true);
	}
	pthread_mutex_unlock(&um->lock);
	proc_maps__free(pm);
}

void unwind_maps__stats(const struct unwind_maps *um, struct unwind_maps_stats *out)
{
	struct unwind_shards_stats ss;
	struct filecache_stats fs;
	struct unwind_maps *w = (struct unwind_maps *)um; /* for the lock */

	memset(out, 0, sizeof(*out));
	if (!um)
		return;
	pthread_mutex_lock(&w->lock);
	*out = um->st;
	unwind_shards__stats(um->shards, &ss);
	out->kernel_bytes = ss.shards * ss.shard_bytes;
	out->processes = um->nr_procs;
	out->mappings = um->nr_mappings;
	out->over_share = um->n.over_share;
	out->waiting = um->n.waiting;
	out->reloaded = um->n.reloaded;
	out->forgotten = um->n.forgotten;
	filecache__stats(um->files, &fs);
	out->files_known = fs.entries;
	out->queued = um->nr_jobs + um->building;
	pthread_mutex_unlock(&w->lock);
}

void unwind_maps__free(struct unwind_maps *um)
{
	if (!um)
		return;
	if (um->builder_started) {
		unwind_maps__stop(um);
		pthread_mutex_lock(&um->lock);
		um->quit = true;
		pthread_cond_signal(&um->wake);
		pthread_mutex_unlock(&um->lock);
		pthread_join(um->builder, NULL);
	}
	pthread_mutex_destroy(&um->lock);
	pthread_cond_destroy(&um->wake);
	for (size_t b = 0; b < PROC_BUCKETS; b++)
		for (struct uproc *p = um->procs[b], *n; p; p = n) {
			n = p->next;
			free(p->maps);
			free(p);
		}
	unwind_files_free(um);
	unwind_shares_free(um);
	unwind_shards__free(um->shards);
	free(um);
}

