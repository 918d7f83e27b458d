// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind maps (see unwind_maps.h): owns the process images whose
 * mappings are in the kernel's LPM trie ("unwind_mappings", each mapping
 * with its file's id and load bias) and the sweeping that keeps the trie
 * within its bounds: mappings of processes that are gone are swept at most
 * once a second, and whenever it is full.  The files, their tables and
 * the memory budget are unwind_files.c's.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "hash.h"
#include "proc_maps.h"
#include "unwind.h"
#include "unwind_maps_int.h"

#define SHARD_BITS_MIN 16 /* 512 KiB */
#define SHARD_BITS_MAX 24
#define MAX_SHARDS 256
#define SWEEP_NS 1000000000ull

struct umap {
	uint64_t start, end, bias;
	struct ufile *file; /* NULL: anonymous code */
	uint64_t pgoff, dev, ino; /* as maps said, to reuse file without an open */
};

struct uproc {
	struct uproc *next;
	pid_t pid;
	uint32_t gen;
	struct umap *maps;
	size_t nr;
};

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

/*
 * Calls fn for each prefix of the smallest set covering [start, end):
 * aligned power-of-two blocks, key prefix length 32 (tgid) + address bits.
 */
static int for_each_prefix(uint64_t start, uint64_t end,
			   int (*fn)(struct unwind_maps *, struct unwind_map_key *, void *),
			   struct unwind_maps *um, pid_t pid, void *arg)
{
	struct unwind_map_key k;
	int err;

	while (start < end) {
		int bits = start ? __builtin_ctzll(start) : 63;

		while (bits > 0 && (start + (1ull << bits) > end || start + (1ull << bits) < start))
			bits--;
		k.prefixlen = 32 + 64 - bits;
		k.tgid = htobe32((uint32_t)pid);
		k.addr = htobe64(start);
		err = fn(um, &k, arg);
		if (err)
			return err;
		start += 1ull << bits;
	}
	return 0;
}

static int insert_prefix(struct unwind_maps *um, struct unwind_map_key *k, void *value)
{
	if (bpf_map_update_elem(um->o.mappings_fd, k, value, BPF_NOEXIST)) {
		if (errno != EEXIST)
			return -errno;
		if (bpf_map_update_elem(um->o.mappings_fd, k, value, BPF_ANY))
			return -errno;
		return 0;
	}
	um->nr_mappings++;
	return 0;
}

static int delete_prefix(struct unwind_maps *um, struct unwind_map_key *k, void *unused)
{
	(void)unused;
	if (!bpf_map_delete_elem(um->o.mappings_fd, k))
		um->nr_mappings--;
	return 0;
}

static int insert_map(struct unwind_maps *um, pid_t pid, uint32_t gen, const struct umap *m)
{
	struct unwind_mapping v = {
		.start = m->start, .end = m->end, .bias = m->bias,
		.file = m->file ? m->file->id : 0, .gen = gen,
		.flags = m->file ? 0 : UNWIND_MAP_ANON,
	};

	return for_each_prefix(m->start, m->end, insert_prefix, um, pid, &v);
}

static void delete_map(struct unwind_maps *um, pid_t pid, const struct umap *m)
{
	for_each_prefix(m->start, m->end, delete_prefix, um, pid, NULL);
}

/* ---- process images -------------------------------------------------------- */

static struct uproc **proc_slot(struct unwind_maps *um, pid_t pid)
{
	struct uproc **pp = &um->procs[hash_mix64((uint32_t)pid) % PROC_BUCKETS];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

static void release_maps(struct unwind_maps *um, struct uproc *p, bool in_kernel)
{
	for (size_t i = 0; i < p->nr; i++) {
		if (in_kernel)
			delete_map(um, p->pid, &p->maps[i]);
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

/* The same mapping of the same file in the old list: its file, no open. */
static struct ufile *known_file(const struct uproc *p, const struct proc_map *m)
{
	for (size_t i = 0; i < p->nr; i++) {
		const struct umap *o = &p->maps[i];

		if (o->start == m->start && o->end == m->end && o->pgoff == m->pgoff &&
		    o->dev == m->dev && o->ino == m->ino)
			return o->file;
	}
	return NULL;
}

/* The executable mappings of pm, their files resolved and loaded. */
static size_t collect_maps(struct unwind_maps *um, pid_t pid, const struct uproc *old,
			   const struct proc_maps *pm, struct umap *out)
{
	size_t n = 0;

	for (size_t i = 0; i < pm->nr; i++) {
		const struct proc_map *m = &pm->maps[i];
		struct umap u = { .start = m->start, .end = m->end, .pgoff = m->pgoff,
				  .dev = m->dev, .ino = m->ino };
		struct ufile *uf = NULL;

		if (!m->exec || m->kind == PROC_MAP_SPECIAL || m->kind == PROC_MAP_STACK)
			continue;
		if (m->kind == PROC_MAP_FILE) {
			uf = old ? known_file(old, m) : NULL;
			if (!uf || (uf->state == F_UNLOADED && !uf->failed))
				uf = unwind_files_resolve(um, pid, m, false);
		} else if (m->kind == PROC_MAP_VDSO) {
			uf = unwind_files_vdso(um, m);
		}
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
	return n;
}

static bool same_map(const struct umap *a, const struct umap *b)
{
	return a->start == b->start && a->end == b->end && a->bias == b->bias && a->file == b->file;
}

static bool has_map(const struct umap *maps, size_t nr, const struct umap *m)
{
	for (size_t i = 0; i < nr; i++)
		if (same_map(&maps[i], m))
			return true;
	return false;
}

/* Makes the kernel's entries of p those of maps[nr] for image gen. */
static void apply_maps(struct unwind_maps *um, struct uproc *p, uint32_t gen, struct umap *maps,
		       size_t nr)
{
	bool regen = gen != p->gen;
	int err;

	/* deletions first: a new mapping may take a prefix an old one had */
	for (size_t i = 0; i < p->nr; i++)
		if (regen || !has_map(maps, nr, &p->maps[i]))
			delete_map(um, p->pid, &p->maps[i]);
	for (size_t i = 0; i < nr; i++) {
		if (!regen && has_map(p->maps, p->nr, &maps[i]))
			continue;
		err = insert_map(um, p->pid, gen, &maps[i]);
		if (err == -E2BIG || err == -ENOSPC || err == -ENOMEM) {
			sweep(um, p);
			err = insert_map(um, p->pid, gen, &maps[i]);
		}
		if (err) {
			delete_map(um, p->pid, &maps[i]);
			um->st.mappings_dropped++;
		}
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
	struct umap *maps;
	size_t nr;

	um->tick++;
	if (clock__now_ns() - um->last_sweep >= SWEEP_NS)
		sweep(um, NULL);
	pp = proc_slot(um, pid);
	p = *pp;
	maps = calloc(pm->nr ? pm->nr : 1, sizeof(*maps));
	if (!maps)
		return;
	nr = collect_maps(um, pid, p && p->gen == gen ? p : NULL, pm, maps);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			for (size_t i = 0; i < nr; i++)
				if (maps[i].file)
					filecache__release(&maps[i].file->ent);
			free(maps);
			return;
		}
		p->pid = pid;
		p->gen = gen;
		*pp = p;
		um->nr_procs++;
	}
	apply_maps(um, p, gen, maps, nr);
}

struct unwind_maps *unwind_maps__new(const struct unwind_maps_opts *o)
{
	struct unwind_maps *um = calloc(1, sizeof(*um));

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
	pthread_cond_init(&um->wake, NULL);
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
			unwind_files_resolve(um, getpid(), m, true);
	}
	pthread_mutex_unlock(&um->lock);
	proc_maps__free(pm);
}

void unwind_maps__stats(const struct unwind_maps *um, struct unwind_maps_stats *out)
{
	struct unwind_shards_stats ss;

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
	unwind_shards__free(um->shards);
	free(um);
}

