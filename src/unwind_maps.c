// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind maps (see unwind_maps.h): owns the files the unwinder knows (by
 * identity, each with a kernel id, its table's place in the shards and its
 * executable segments), the process images whose mappings are in the
 * kernel, and the loading, eviction and sweeping that keep both within
 * their bounds.
 *
 * A file's table goes into the kernel as its page index and its rows
 * (include/unwind.h).  The page size is the file's: 4 KiB of code unless a
 * page would hold more rows than a walk's binary search covers (dense code:
 * smaller pages) or the index would not fit a shard (huge code: larger
 * pages).  On Debian 12, libc's 28,274 rows over 1.6 MB of code make 403
 * pages of at most a few hundred rows: a frame costs one page lookup and
 * 6 to 9 search steps.  Tables are built on the thread that reads image
 * events, as soon as a process image's maps are read (before its symbols),
 * and freed once loaded: user memory is one table at a time.
 *
 * Memory: the shards take at most the budget.  When a table does not fit,
 * the least recently used files are evicted (those no live process maps
 * first), their slots reused after a grace period; a table that does not
 * fit even then is counted (too_big) and its frames fall back to frame
 * pointers.  Mappings of processes that are gone are swept from the LPM
 * trie at most once a second, and whenever it is full.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "debuginfo.h"
#include "elf_syms.h"
#include "log.h"
#include "proc_maps.h"
#include "safe_open.h"
#include "unwind.h"
#include "unwind_maps.h"
#include "unwind_shards.h"
#include "unwind_table.h"

#define SHARD_BITS_MIN 16 /* 512 KiB */
#define SHARD_BITS_MAX 24
#define MAX_SHARDS 256
#define FILE_BUCKETS 1024
#define PROC_BUCKETS 1024
#define MAX_SEGS 4
#define PAGE_SHIFT_DEFAULT 12
#define PAGE_SHIFT_MIN 4
#define PAGE_SHIFT_MAX 28
#define SWEEP_NS 1000000000ull
/* Builds waiting for the builder thread, each holding its file open. */
#define MAX_JOBS 256
/* A table whose gaps cover more than 1/GAP_SHARE of the code is missing
 * CFI (built without unwind tables): its debug file may have it. */
#define GAP_SHARE 8

struct file_key {
	uint64_t dev, ino, size, mtime_sec, mtime_nsec;
};

enum file_state {
	F_UNLOADED, /* not in the kernel: never loaded, evicted, or no room */
	F_LOADED,   /* its table is in the shards */
	F_NO_TABLE, /* no CFI: known to the kernel as such */
};

struct seg {
	uint64_t offset, vaddr, size; /* an executable PT_LOAD */
};

struct ufile {
	struct ufile *next;
	struct file_key key;
	uint32_t id;
	enum file_state state;
	bool inspected;     /* segs and base read */
	bool failed;        /* could not be loaded: not retried */
	bool queued;        /* its build is queued or running */
	struct seg segs[MAX_SEGS];
	size_t nr_segs;
	uint64_t base;      /* the table's base vaddr */
	struct unwind_extent *ext; /* where the table is */
	size_t nr_ext;
	uint64_t slots;
	uint64_t last_used; /* tick of the last update that mapped it */
	uint32_t refs;      /* mappings of held process images */
};

struct job;

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

struct unwind_maps {
	struct unwind_maps_opts o;
	struct unwind_shards *shards;
	struct ufile *files[FILE_BUCKETS];
	struct uproc *procs[PROC_BUCKETS];
	size_t nr_procs, nr_mappings;
	uint32_t next_id;
	uint64_t tick;
	uint64_t last_sweep;
	bool stopped;
	struct ufile *vdso;       /* our own vDSO, which every native process maps */
	uint64_t vdso_size;
	bool vdso_tried;
	struct unwind_maps_stats st;
	/* The builder thread, and what it shares with the thread that reads
	 * image events: everything above, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t builder;
	bool builder_started, quit, building;
	struct job *jobs;
	size_t nr_jobs;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

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

/* ---- files ----------------------------------------------------------- */

static size_t file_bucket(const struct file_key *k)
{
	return mix64(k->dev ^ mix64(k->ino ^ mix64(k->size ^ mix64(k->mtime_sec ^
		     mix64(k->mtime_nsec))))) % FILE_BUCKETS;
}

static struct ufile *file_get(struct unwind_maps *um, const struct file_key *k)
{
	size_t b = file_bucket(k);
	struct ufile *f;

	for (f = um->files[b]; f; f = f->next)
		if (!memcmp(&f->key, k, sizeof(*k)))
			return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->key = *k;
	f->id = um->next_id++;
	f->next = um->files[b];
	um->files[b] = f;
	return f;
}

/*
 * The executable PT_LOADs, to find each mapping's load bias, and the base
 * of the file's table: the lowest of them, as unwind_table.c takes it.
 */
static void read_segments(struct ufile *uf, struct elf_file *ef)
{
	Elf *elf = elf_file__elf(ef);
	GElf_Phdr ph;
	size_t n;

	uf->inspected = true;
	uf->base = UINT64_MAX;
	if (!elf || elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n && i < 4096; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    !ph.p_memsz)
			continue;
		if (ph.p_vaddr < uf->base)
			uf->base = ph.p_vaddr;
		if (ph.p_filesz && uf->nr_segs < MAX_SEGS)
			uf->segs[uf->nr_segs++] = (struct seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
}

/* Reads uf's segments from the file open on fd. */
static void inspect(struct ufile *uf, int fd)
{
	struct elf_file *ef = elf_file__open_fd(fd);

	uf->inspected = true;
	if (ef) {
		read_segments(uf, ef);
		elf_file__close(ef);
	}
}

/* Bytes of code in segments the table has no row for but gaps. */
static bool mostly_gaps(const struct unwind_table *t, const struct ufile *uf)
{
	size_t nr;
	const struct unwind_row *r = unwind_table__rows(t, &nr);
	uint64_t gaps = 0, code = 0, end = 0, base = unwind_table__base(t);

	for (size_t i = 0; i < uf->nr_segs; i++) {
		code += uf->segs[i].size;
		if (uf->segs[i].vaddr + uf->segs[i].size - base > end)
			end = uf->segs[i].vaddr + uf->segs[i].size - base;
	}
	/* the last row, a gap, runs to the end of the code */
	for (size_t i = 0; i < nr; i++)
		if (r[i].kind == UNWIND_GAP)
			gaps += (i + 1 < nr ? r[i + 1].pc : end > r[i].pc ? end : r[i].pc) - r[i].pc;
	return gaps > code / GAP_SHARE;
}

/*
 * The table of the file open on fd; its debug file's .debug_frame joins in
 * when the file's own CFI leaves most of its code uncovered (a program built
 * without unwind tables, stripped, with its CFI in the debug file).
 */
static struct unwind_table *build_table(const struct ufile *uf, int fd, pid_t pid,
					const char *path)
{
	struct elf_file *ef = elf_file__open_fd(fd), *dbg;
	struct unwind_table *t, *t2;
	char root[64];
	int dfd = -1;

	if (!ef)
		return NULL;
	t = unwind_table__build(ef, NULL, NULL);
	if ((!t && errno == ENOENT) || (t && mostly_gaps(t, uf))) {
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		dbg = debuginfo__open_file(fd, root, path, &dfd);
		debug("unwind table of inode %" PRIu64 ": %s CFI, %s debug file", uf->key.ino,
		      t ? "partial" : "no", dbg ? "with its" : "no");
		if (dbg) {
			t2 = unwind_table__build(ef, dbg, NULL);
			if (t2) {
				unwind_table__free(t);
				t = t2;
			}
			elf_file__close(dbg);
			close(dfd);
		}
	}
	elf_file__close(ef); /* libelf keeps the CFI it read until here */
	return t;
}

/*
 * The page size of a table: the smallest whose index fits max_pages slots,
 * then smaller (down to PAGE_SHIFT_DEFAULT, or below it for dense code)
 * while a page holds more rows than a search covers.  -1 if none fits.
 */
static int page_shift(const struct unwind_row *r, size_t nr, uint32_t max_pages)
{
	uint32_t last = r[nr - 1].pc;
	int lo = PAGE_SHIFT_MIN, shift = PAGE_SHIFT_DEFAULT;

	while (lo < PAGE_SHIFT_MAX && ((uint64_t)last >> lo) + 1 > max_pages)
		lo++;
	if (shift < lo)
		shift = lo;
	for (;; shift--) {
		uint32_t most = 0, run = 0, page = UINT32_MAX;

		/* rows starting in a page, plus the one covering its start */
		for (size_t i = 0; i < nr; i++) {
			if (r[i].pc >> shift != page) {
				page = r[i].pc >> shift;
				run = 1;
			}
			if (++run > most)
				most = run;
		}
		if (most <= UNWIND_MAX_PAGE_ROWS)
			return shift;
		if (shift <= lo)
			return -1;
	}
}

static int add_extent(struct ufile *uf, struct unwind_extent e)
{
	struct unwind_extent *n = realloc(uf->ext, (uf->nr_ext + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	uf->ext = n;
	uf->ext[uf->nr_ext++] = e;
	uf->slots += e.len;
	return 0;
}

static void drop_extents(struct unwind_maps *um, struct ufile *uf, bool published)
{
	for (size_t i = 0; i < uf->nr_ext; i++) {
		if (published)
			unwind_shards__put(um->shards, uf->ext[i]);
		else
			unwind_shards__put_now(um->shards, uf->ext[i]);
	}
	free(uf->ext);
	uf->ext = NULL;
	uf->nr_ext = 0;
	uf->slots = 0;
}

/*
 * Writes the rows of t into extents, page by page: a page's rows stay in
 * one extent, a new extent starting at the page's first row when they
 * would not.  pg gets each page's entry.
 */
static int place_rows(struct unwind_maps *um, struct ufile *uf, const struct unwind_row *r,
		      size_t nr, int shift, struct unwind_page *pg, uint32_t n_pages)
{
	struct unwind_extent e = { 0 };
	size_t lo = 0, hi, first = 0;
	int err;

	for (uint32_t p = 0; p < n_pages; p++) {
		uint64_t start = (uint64_t)p << shift, end = start + (1ull << shift);

		while (lo + 1 < nr && r[lo + 1].pc <= start)
			lo++;
		for (hi = lo; hi + 1 < nr && r[hi + 1].pc < end; hi++)
			;
		if (!e.len || hi >= first + e.len) {
			err = unwind_shards__alloc(um->shards, nr - lo, hi - lo + 1, &e);
			if (!err && (err = add_extent(uf, e)))
				unwind_shards__put_now(um->shards, e);
			if (!err)
				err = unwind_shards__write(um->shards, e.slot, &r[lo],
							   nr - lo < e.len ? nr - lo : e.len);
			if (err)
				return err;
			first = lo;
		}
		pg[p] = (struct unwind_page){ .row = e.slot + (lo - first), .count = hi - lo + 1 };
	}
	return 0;
}

/* Loads t into the shards and publishes it: 0, -ENOSPC (no room in the
 * shards), -E2BIG (the files map is full), -EFBIG (too dense and too large
 * for a page index) or another -errno.  Nothing is left on failure. */
static int load_table(struct unwind_maps *um, struct ufile *uf, const struct unwind_table *t)
{
	uint32_t max_pages = (1u << um->o.shard_bits) / 2, n_pages;
	size_t nr;
	const struct unwind_row *r = unwind_table__rows(t, &nr);
	struct unwind_file ent = { 0 };
	struct unwind_page *pg;
	struct unwind_extent pe;
	int shift, err;

	if (unwind_table__base(t) != uf->base)
		return -EINVAL; /* the mappings' bias assumed another base: never */
	shift = nr ? page_shift(r, nr, max_pages) : -1;
	if (shift < 0)
		return -EFBIG;
	n_pages = (r[nr - 1].pc >> shift) + 1;
	pg = calloc(n_pages, sizeof(*pg));
	if (!pg)
		return -ENOMEM;
	err = unwind_shards__alloc(um->shards, n_pages, n_pages, &pe);
	if (!err && (err = add_extent(uf, pe)))
		unwind_shards__put_now(um->shards, pe);
	if (!err)
		err = place_rows(um, uf, r, nr, shift, pg, n_pages);
	if (!err)
		err = unwind_shards__write(um->shards, pe.slot, pg, n_pages);
	free(pg);
	ent = (struct unwind_file){ .pages = pe.slot, .n_pages = n_pages, .shift = shift };
	if (!err && bpf_map_update_elem(um->o.files_fd, &uf->id, &ent, BPF_ANY))
		err = -errno;
	if (err) {
		drop_extents(um, uf, false);
		return err;
	}
	uf->state = F_LOADED;
	um->st.files_loaded++;
	um->st.table_bytes += uf->slots * 8;
	return 0;
}

static void evict(struct unwind_maps *um, struct ufile *uf)
{
	bpf_map_delete_elem(um->o.files_fd, &uf->id);
	um->st.table_bytes -= uf->slots * 8;
	drop_extents(um, uf, true);
	uf->state = F_UNLOADED;
	um->st.files_loaded--;
	um->st.evicted++;
	debug("unwind table of inode %" PRIu64 " evicted", uf->key.ino);
}

/* The least recently used loaded table not mapped in this update, files
 * no held image maps first; false if there is none. */
static bool evict_lru(struct unwind_maps *um)
{
	struct ufile *best = NULL;

	for (size_t b = 0; b < FILE_BUCKETS; b++)
		for (struct ufile *f = um->files[b]; f; f = f->next) {
			if (f->state != F_LOADED || f->last_used == um->tick)
				continue;
			if (!best || (!f->refs && best->refs) ||
			    (!f->refs == !best->refs && f->last_used < best->last_used))
				best = f;
		}
	if (!best)
		return false;
	evict(um, best);
	return true;
}

/* Known to the kernel as a file without a table. */
static void publish_no_table(struct unwind_maps *um, struct ufile *uf)
{
	struct unwind_file ent = { 0 };

	if (!bpf_map_update_elem(um->o.files_fd, &uf->id, &ent, BPF_ANY)) {
		uf->state = F_NO_TABLE;
		um->st.files_no_table++;
	} else {
		uf->failed = true; /* its frames count as not loaded; not retried */
	}
}

/* Loads a table built for uf (or publishes that it has none), evicting
 * others for room.  name is for messages; t0 when its build began. */
static void load_built(struct unwind_maps *um, struct ufile *uf, struct unwind_table *t,
		       const char *name, uint64_t t0)
{
	int err;

	if (!t) {
		publish_no_table(um, uf);
		um->st.build_ms += (now_ns() - t0) / 1e6;
		return;
	}
	/* -E2BIG from the files map: full, as the shards can be */
	while (((err = load_table(um, uf, t)) == -ENOSPC || err == -E2BIG) && evict_lru(um))
		;
	debug("unwind table of %s: %zu KiB, built and loaded in %.1f ms%s", name,
	      unwind_table__bytes(t) / 1024, (now_ns() - t0) / 1e6, err ? ", did not fit" : "");
	if (err) {
		struct unwind_file none = { 0 };

		/* known to the kernel as without a table: frame pointers */
		uf->failed = true;
		bpf_map_update_elem(um->o.files_fd, &uf->id, &none, BPF_ANY);
		if (!um->st.too_big++)
			warn("unwind table of %s (%zu KiB) does not fit in --unwind-memory (%" PRIu64
			     " MiB): its frames fall back to frame pointers (raise --unwind-memory)",
			     name, unwind_table__bytes(t) / 1024, um->st.budget >> 20);
	}
	um->st.build_ms += (now_ns() - t0) / 1e6;
}

/* ---- the builder thread ------------------------------------------------- */

/* A table to build: the file stays open on fd, whatever its process does. */
struct job {
	struct job *next;
	struct ufile *uf;
	int fd;
	pid_t pid;  /* whose root debug files are looked up in */
	char *path; /* as the process sees it, or NULL */
};

/* Queues uf's build, taking fd; false if the queue is full (fd kept). */
static bool enqueue(struct unwind_maps *um, struct ufile *uf, int fd, pid_t pid,
		    const char *path)
{
	struct job *j;

	if (um->nr_jobs >= MAX_JOBS || !(j = calloc(1, sizeof(*j))))
		return false;
	*j = (struct job){ .next = um->jobs, .uf = uf, .fd = fd, .pid = pid,
			   .path = path ? strdup(path) : NULL };
	um->jobs = j;
	um->nr_jobs++;
	uf->queued = true;
	pthread_cond_signal(&um->wake);
	return true;
}

/* The queued job of the smallest file: small programs' tables come first. */
static struct job *dequeue(struct unwind_maps *um)
{
	struct job **best = NULL, *j;

	for (struct job **pp = &um->jobs; *pp; pp = &(*pp)->next)
		if (!best || (*pp)->uf->key.size < (*best)->uf->key.size)
			best = pp;
	if (!best)
		return NULL;
	j = *best;
	*best = j->next;
	um->nr_jobs--;
	return j;
}

static void job_free(struct job *j)
{
	close(j->fd);
	free(j->path);
	free(j);
}

/* Builds queued tables one at a time (so at most one is in memory), the
 * lock released while it builds. */
static void *builder(void *arg)
{
	struct unwind_maps *um = arg;
	struct unwind_table *t;
	struct job *j;
	uint64_t t0;

	pthread_mutex_lock(&um->lock);
	while (!um->quit) {
		j = dequeue(um);
		if (!j) {
			pthread_cond_wait(&um->wake, &um->lock);
			continue;
		}
		um->building = true;
		pthread_mutex_unlock(&um->lock);
		t0 = now_ns();
		t = build_table(j->uf, j->fd, j->pid, j->path);
		pthread_mutex_lock(&um->lock);
		um->building = false;
		if (!um->quit && !um->stopped)
			load_built(um, j->uf, t, j->path ? j->path : "(deleted)", t0);
		j->uf->queued = false;
		unwind_table__free(t);
		job_free(j);
	}
	pthread_mutex_unlock(&um->lock);
	return NULL;
}

/*
 * The file mapped at m, NULL if unreadable.  A table it needs is built now
 * (sync) or queued for the builder thread; until it is loaded, its frames
 * count as not loaded.
 */
static struct ufile *resolve_file(struct unwind_maps *um, pid_t pid, const struct proc_map *m,
				  bool sync)
{
	const char *path = m->deleted ? NULL : m->path;
	struct ufile *uf = NULL;
	struct file_key k;
	struct stat st;
	int fd = safe_open__mapped(pid, m, &st);

	if (fd < 0)
		return NULL;
	k = (struct file_key){ .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
			       .mtime_sec = st.st_mtim.tv_sec, .mtime_nsec = st.st_mtim.tv_nsec };
	uf = file_get(um, &k);
	if (uf && !uf->inspected)
		inspect(uf, fd);
	if (uf && uf->state == F_UNLOADED && !uf->failed && !uf->queued) {
		if (sync) {
			uint64_t t0 = now_ns();
			struct unwind_table *t = build_table(uf, fd, pid, path);

			load_built(um, uf, t, path ? path : "(deleted)", t0);
			unwind_table__free(t);
		} else if (enqueue(um, uf, fd, pid, path)) {
			return uf; /* the job has fd now */
		}
	}
	close(fd);
	return uf;
}

/* Our own vDSO: the kernel maps the same image into every native process. */
static struct ufile *vdso_file(struct unwind_maps *um, const struct proc_map *m)
{
	unsigned long base;
	struct elf_file *ef;
	struct unwind_table *t;
	void *img;
	int err;

	if (!um->vdso_tried) {
		um->vdso_tried = true;
		base = getauxval(AT_SYSINFO_EHDR);
		um->vdso = base ? calloc(1, sizeof(*um->vdso)) : NULL;
		img = NULL;
		if (um->vdso) {
			struct proc_maps *self = proc_maps__load(getpid());
			const struct proc_map *v = self ? proc_maps__find(self, base) : NULL;

			if (v && v->kind == PROC_MAP_VDSO && v->start == base &&
			    (img = malloc(v->end - v->start))) {
				um->vdso_size = v->end - v->start;
				memcpy(img, (void *)base, um->vdso_size);
			}
			proc_maps__free(self);
		}
		ef = img ? elf_file__open_mem(img, um->vdso_size) : NULL;
		if (ef) {
			um->vdso->id = um->next_id++;
			read_segments(um->vdso, ef);
			t = unwind_table__build(ef, NULL, NULL);
			elf_file__close(ef);
			err = t ? load_table(um, um->vdso, t) : -ENOENT;
			if (err)
				publish_no_table(um, um->vdso);
			unwind_table__free(t);
		} else {
			free(um->vdso);
			um->vdso = NULL;
		}
	}
	/* A different size means another image (a 32-bit process's). */
	return um->vdso && m->end - m->start == um->vdso_size ? um->vdso : NULL;
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
	struct uproc **pp = &um->procs[mix64((uint32_t)pid) % PROC_BUCKETS];

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
			p->maps[i].file->refs--;
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
	um->last_sweep = now_ns();
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
				uf = resolve_file(um, pid, m, false);
		} else if (m->kind == PROC_MAP_VDSO) {
			uf = vdso_file(um, m);
		}
		/* no file (a JIT's anonymous or heap code, a file that would not
		 * open) or no segment for it: frame pointers, as "no table" */
		/* tables come later: the mapping points at its file already */
		if (uf && !map_bias(uf, m, &u.bias))
			uf = NULL; /* maps no executable segment of its file */
		u.file = uf;
		if (uf) {
			uf->refs++;
			uf->last_used = um->tick;
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
	if (now_ns() - um->last_sweep >= SWEEP_NS)
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
					maps[i].file->refs--;
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
	if (!um->shards) {
		free(um);
		return NULL;
	}
	um->st.budget = (uint64_t)o->max_shards << (o->shard_bits + 3);
	pthread_mutex_init(&um->lock, NULL);
	pthread_cond_init(&um->wake, NULL);
	um->builder_started = !pthread_create(&um->builder, NULL, builder, um);
	if (!um->builder_started) {
		unwind_maps__free(um);
		return NULL;
	}
	return um;
}

void unwind_maps__stop(struct unwind_maps *um)
{
	struct job *j;

	if (!um)
		return;
	pthread_mutex_lock(&um->lock);
	um->stopped = true;
	while ((j = dequeue(um))) {
		j->uf->queued = false;
		job_free(j);
	}
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
			resolve_file(um, getpid(), m, true);
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
	for (size_t b = 0; b < FILE_BUCKETS; b++)
		for (struct ufile *f = um->files[b], *n; f; f = n) {
			n = f->next;
			free(f->ext);
			free(f);
		}
	if (um->vdso) {
		free(um->vdso->ext);
		free(um->vdso);
	}
	unwind_shards__free(um->shards);
	free(um);
}
