// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind files, inside the unwind maps: owns the files the unwinder knows
 * (in the file-identity cache, filecache.h, each with a kernel id, its
 * table's place in the shards and its executable segments), building
 * their tables (unwind_table.c) on a builder thread, loading them into the
 * shards (unwind_shards.c) and the "unwind_files" map, and evicting them.
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
 * others are evicted, in the order unwind_shares.c gives (files no process
 * maps first, then those of users over their share), their slots reused
 * after a grace period; a table that does not fit even then is counted
 * (too_big) and its frames fall back to frame pointers.  A table evicted
 * while a process maps it is loaded again when room returns (the maps'
 * housekeeping asks).  Files no process maps are kept, KEEP_UNMAPPED of
 * them, for the next process that does; older ones are freed, in the
 * kernel and here.  Files are opened as usyms opens them
 * (safe_open__mapped).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "files/debuginfo.h"
#include "files/elf_syms.h"
#include "lib/log.h"
#include "files/safe_open.h"
#include "unwind.h"
#include "unwind/unwind_maps_int.h"
#include "unwind/unwind_table.h"

#define PAGE_SHIFT_DEFAULT 12
#define PAGE_SHIFT_MIN 4
#define PAGE_SHIFT_MAX 28
/* A table whose gaps cover more than 1/GAP_SHARE of the code is missing
 * CFI (built without unwind tables): its debug file may have it. */
#define GAP_SHARE 8
/* What libelf may hold of one file besides the CFI it reads (section
 * headers: 64 Ki of them; an inflated .debug_frame, which the table's own
 * budget halves): with that budget and the table's, a build stays under
 * 128 MiB whatever the file holds. */
#define FILE_BYTES (16u << 20)

/* ---- files ----------------------------------------------------------- */

static void unpublish(struct unwind_maps *um, struct ufile *uf);

/* Frees a file the cache lets go of (arg: um), out of the kernel first
 * unless all of it is being torn down. */
static void ufile_free(struct filecache_ent *e, void *arg)
{
	struct ufile *uf = (struct ufile *)e;
	struct unwind_maps *um = arg;

	if (um && !um->quit)
		unpublish(um, uf);
	if (uf->share)
		uf->share->files--;
	free(uf->ext);
	free(uf);
}

int unwind_files_init(struct unwind_maps *um)
{
	um->files = filecache__new(ufile_free, um);
	return um->files ? 0 : -ENOMEM;
}

void unwind_files_free(struct unwind_maps *um)
{
	um->quit = true;
	filecache__free(um->files);
	if (um->vdso)
		ufile_free(&um->vdso->ent, NULL);
}

/* The least recently mapped file no process maps of share sh, if any. */
struct own_pick {
	const struct ushare *sh;
	struct ufile *best;
};

static void pick_own_unmapped(struct filecache_ent *e, void *arg)
{
	struct own_pick *p = arg;
	struct ufile *uf = (struct ufile *)e;

	if (uf->share == p->sh && !e->refs && !uf->queued &&
	    (!p->best || e->last_used < p->best->ent.last_used))
		p->best = uf;
}

/* sh knows its share of files: frees the oldest it no longer maps. */
static bool forget_own(struct unwind_maps *um, const struct ushare *sh)
{
	struct own_pick p = { .sh = sh };

	filecache__for_each(um->files, pick_own_unmapped, &p);
	if (!p.best)
		return false;
	filecache__evict(um->files, &p.best->ent);
	um->n.forgotten++;
	return true;
}

/* The file of identity id, known for a process of share sh (NULL: not
 * charged, as our own libraries): NULL when sh has its share of files
 * and maps them all, or out of memory. */
static struct ufile *file_get(struct unwind_maps *um, const struct file_id *id,
			      struct ushare *sh)
{
	struct ufile *f = (struct ufile *)filecache__find(um->files, id);

	if (f)
		return f;
	if (sh && sh->files >= unwind_shares_files() && !forget_own(um, sh)) {
		um->over_now = true;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->ent.id = *id;
	f->id = um->next_id++;
	f->share = sh;
	if (sh)
		sh->files++;
	filecache__add(um->files, &f->ent);
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
	struct budget b = { .max_bytes = FILE_BYTES };
	struct elf_file *ef = elf_file__open_fd_within(fd, &b);

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
 * without unwind tables, stripped, with its CFI in the debug file).  Builds
 * end soon after unwind_maps__stop, whatever the file holds.
 */
static struct unwind_table *build_table(struct unwind_maps *um, const struct ufile *uf,
					int fd, pid_t pid, const char *path)
{
	struct budget b = { .max_bytes = FILE_BYTES, .cancel = &um->cancel };
	struct unwind_build_opts o = { .cancel = &um->cancel, .host_arch_only = true };
	struct elf_file *ef = elf_file__open_fd_within(fd, &b), *dbg;
	struct unwind_table *t, *t2;
	char root[64];
	int dfd = -1;

	if (!ef)
		return NULL;
	t = unwind_table__build(ef, NULL, &o);
	if (((!t && errno == ENOENT) || (t && mostly_gaps(t, uf))) &&
	    !atomic_load(&um->cancel)) {
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		dbg = debuginfo__open_file(fd, root, path, &b, &dfd);
		debug("unwind table of inode %" PRIu64 ": %s CFI, %s debug file", uf->ent.id.ino,
		      t ? "partial" : "no", dbg ? "with its" : "no");
		if (dbg) {
			t2 = unwind_table__build(ef, dbg, &o);
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
	uf->want_slots = uf->slots;
	if (uf->share)
		uf->share->slots += uf->slots;
	um->st.files_loaded++;
	um->st.table_bytes += uf->slots * 8;
	return 0;
}

/* Takes uf out of the kernel: its "unwind_files" entry and its table. */
static void unpublish(struct unwind_maps *um, struct ufile *uf)
{
	if (uf->state == F_UNLOADED)
		return;
	bpf_map_delete_elem(um->o.files_fd, &uf->id);
	if (uf->state == F_LOADED) {
		um->st.table_bytes -= uf->slots * 8;
		if (uf->share)
			uf->share->slots -= uf->slots;
		drop_extents(um, uf, true);
		um->st.files_loaded--;
	} else {
		um->st.files_no_table -= uf->no_cfi;
	}
	uf->state = F_UNLOADED;
}

/* Unloads uf for another file.  The file stays known (its id, its
 * segments); while a process maps it, it waits for room to come back. */
static void evict(struct unwind_maps *um, struct ufile *uf)
{
	if (uf->state == F_LOADED)
		um->st.evicted++;
	unpublish(um, uf);
	uf->waiting = uf->ent.refs > 0 && !uf->failed;
	debug("unwind table of inode %" PRIu64 " evicted", uf->ent.id.ino);
}

/* Evicts what unwind_shares_victim picks for a file of share sh; false if
 * nothing may go. */
static bool evict_for(struct unwind_maps *um, const struct ushare *sh, enum victims which)
{
	struct ufile *v = unwind_shares_victim(um, sh, which);

	if (!v)
		return false;
	evict(um, v);
	return true;
}

/*
 * Known to the kernel as a file without a table (also one whose table did
 * not fit: failed), the files map made room in if full; false if not
 * (its frames count as not loaded).
 */
static bool publish_no_table(struct unwind_maps *um, struct ufile *uf)
{
	struct unwind_file ent = { 0 };
	int err;

	while ((err = bpf_map_update_elem(um->o.files_fd, &uf->id, &ent, BPF_ANY) ? -errno : 0) ==
		       -E2BIG && evict_for(um, uf->share, VICTIM_ENTRY))
		;
	if (err)
		return false;
	uf->state = F_NO_TABLE;
	uf->no_cfi = !uf->failed && !uf->waiting;
	um->st.files_no_table += uf->no_cfi;
	return true;
}

/* Loads a table built for uf (or publishes that it has none), evicting
 * others for room.  name is for messages; t0 when its build began. */
static void load_built(struct unwind_maps *um, struct ufile *uf, struct unwind_table *t,
		       const char *name, uint64_t t0)
{
	bool back = uf->waiting; /* evicted while mapped, or did not fit */
	int err;

	if (!t) {
		uf->waiting = false;
		if (!publish_no_table(um, uf))
			uf->waiting = true; /* the files map is full: when room returns */
		um->st.build_ms += (clock__now_ns() - t0) / 1e6;
		return;
	}
	/* -E2BIG from the files map: full, as the shards can be */
	while (((err = load_table(um, uf, t)) == -ENOSPC || err == -E2BIG) &&
	       evict_for(um, uf->share, err == -E2BIG ? VICTIM_ENTRY :
					back ? VICTIM_SLOTS_RELOAD : VICTIM_SLOTS))
		;
	debug("unwind table of %s: %zu KiB, built and loaded in %.1f ms%s%s", name,
	      unwind_table__bytes(t) / 1024, (clock__now_ns() - t0) / 1e6, back ? " again" : "",
	      err ? ", did not fit" : "");
	um->st.build_ms += (clock__now_ns() - t0) / 1e6;
	if (!err) {
		um->n.reloaded += back;
		uf->waiting = false;
		return;
	}
	/* known to the kernel as without a table (frame pointers) until room
	 * returns, or for good when the table is larger than the budget */
	uf->failed = unwind_table__bytes(t) > um->st.budget;
	uf->waiting = !uf->failed;
	publish_no_table(um, uf);
	if (!back && !um->st.too_big++)
		warn("unwind table of %s (%zu KiB) does not fit in --unwind-memory (%" PRIu64
		     " MiB): its frames fall back to frame pointers%s (raise --unwind-memory)",
		     name, unwind_table__bytes(t) / 1024, um->st.budget >> 20,
		     uf->failed ? "" : " until room returns");
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

/* Queues uf's build, taking fd; false if the queue is full (fd kept).  The
 * job holds uf, so that forgetting unmapped files cannot free it. */
static bool enqueue(struct unwind_maps *um, struct ufile *uf, int fd, pid_t pid,
		    const char *path)
{
	struct job *j;

	if (um->nr_jobs >= MAX_JOBS ||
	    (uf->share && uf->share->jobs >= MAX_JOBS / SHARE_USER) ||
	    !(j = calloc(1, sizeof(*j))))
		return false;
	*j = (struct job){ .next = um->jobs, .uf = uf, .fd = fd, .pid = pid,
			   .path = path ? strdup(path) : NULL };
	um->jobs = j;
	um->nr_jobs++;
	uf->queued = true;
	filecache__hold(&uf->ent);
	if (uf->share)
		uf->share->jobs++;
	pthread_cond_signal(&um->wake);
	return true;
}

static uint64_t served(const struct job *j)
{
	return j->uf->share ? j->uf->share->built : 0;
}

/* Whether job a goes before b: the user served least first (one user's
 * thousand files do not hold up another's one), then the smallest file
 * (small programs' tables come first). */
static bool before(const struct job *a, const struct job *b)
{
	if (served(a) != served(b))
		return served(a) < served(b);
	return a->uf->ent.id.size < b->uf->ent.id.size;
}

static struct job *dequeue(struct unwind_maps *um)
{
	struct job **best = NULL, *j;

	for (struct job **pp = &um->jobs; *pp; pp = &(*pp)->next)
		if (!best || before(*pp, *best))
			best = pp;
	if (!best)
		return NULL;
	j = *best;
	*best = j->next;
	um->nr_jobs--;
	if (j->uf->share)
		j->uf->share->built++;
	return j;
}

static void job_free(struct job *j)
{
	j->uf->queued = false;
	if (j->uf->share)
		j->uf->share->jobs--;
	filecache__release(&j->uf->ent);
	close(j->fd);
	free(j->path);
	free(j);
}

/* One at a time, so at most one table is in memory; the lock is released
 * while it builds. */
void *unwind_files_builder(void *arg)
{
	struct unwind_maps *um = arg;
	struct unwind_table *t;
	struct job *j;
	uint64_t t0;

	pthread_mutex_lock(&um->lock);
	while (!um->quit) {
		/* here, not where maps are read: its time is nobody's maps' */
		if (!um->stopped)
			unwind_maps_housekeep(um);
		j = dequeue(um);
		if (!j) {
			struct timespec at;

			clock_gettime(CLOCK_MONOTONIC, &at);
			at.tv_sec++;
			pthread_cond_timedwait(&um->wake, &um->lock, &at);
			continue;
		}
		um->building = true;
		pthread_mutex_unlock(&um->lock);
		t0 = clock__now_ns();
		t = build_table(um, j->uf, j->fd, j->pid, j->path);
		pthread_mutex_lock(&um->lock);
		um->building = false;
		if (!um->quit && !um->stopped)
			load_built(um, j->uf, t, j->path ? j->path : "(deleted)", t0);
		unwind_table__free(t);
		job_free(j);
	}
	pthread_mutex_unlock(&um->lock);
	return NULL;
}

struct ufile *unwind_files_resolve(struct unwind_maps *um, pid_t pid, const struct proc_map *m,
				   struct ushare *sh, bool sync)
{
	const char *path = m->deleted ? NULL : m->path;
	struct ufile *uf = NULL;
	struct file_id id;
	struct stat st;
	int fd = safe_open__mapped(pid, m, &st);

	if (fd < 0)
		return NULL;
	id = file_id__of(fd, &st);
	uf = file_get(um, &id, sh);
	if (uf && !uf->inspected)
		inspect(uf, fd);
	if (uf && (uf->state == F_UNLOADED || uf->waiting) && !uf->failed && !uf->queued) {
		if (sync) {
			uint64_t t0 = clock__now_ns();
			struct unwind_table *t = build_table(um, uf, fd, pid, path);

			load_built(um, uf, t, path ? path : "(deleted)", t0);
			unwind_table__free(t);
		} else if (enqueue(um, uf, fd, pid, path)) {
			return uf; /* the job has fd now */
		}
	}
	close(fd);
	return uf;
}

/* The kernel maps the same vDSO image into every native process. */
struct ufile *unwind_files_vdso(struct unwind_maps *um, const struct proc_map *m)
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
			t = unwind_table__build(ef, NULL, &(struct unwind_build_opts){ .vdso = true });
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

void unwind_files_drop_jobs(struct unwind_maps *um)
{
	struct job *j;

	while ((j = dequeue(um)))
		job_free(j);
}

/* ---- files no process maps, and tables waiting for room ------------------ */

struct unmapped {
	struct ufile **v;
	size_t n, cap;
	size_t waiting;
};

static void collect_unmapped(struct filecache_ent *e, void *arg)
{
	struct unmapped *u = arg;
	struct ufile *uf = (struct ufile *)e;

	if (e->refs && !uf->failed && !uf->queued && (uf->state == F_UNLOADED || uf->waiting))
		u->waiting++;
	if (!e->refs && u->n < u->cap)
		u->v[u->n++] = uf;
}

static int older_first(const void *a, const void *b)
{
	const struct ufile *x = *(struct ufile *const *)a, *y = *(struct ufile *const *)b;

	return x->ent.last_used < y->ent.last_used ? -1 : x->ent.last_used > y->ent.last_used;
}

void unwind_files_forget(struct unwind_maps *um)
{
	struct filecache_stats fs;
	struct unmapped u = { 0 };

	filecache__stats(um->files, &fs);
	u.cap = fs.entries;
	u.v = malloc((u.cap ? u.cap : 1) * sizeof(*u.v));
	if (!u.v)
		return;
	filecache__for_each(um->files, collect_unmapped, &u);
	um->n.waiting = u.waiting;
	if (u.n > KEEP_UNMAPPED) {
		qsort(u.v, u.n, sizeof(*u.v), older_first);
		for (size_t i = 0; i < u.n - KEEP_UNMAPPED; i++)
			filecache__evict(um->files, &u.v[i]->ent);
		um->n.forgotten += u.n - KEEP_UNMAPPED;
	}
	free(u.v);
}

struct room {
	struct unwind_maps *um;
	const struct ushare *sh;
	uint64_t slots; /* that evicting could free for it */
};

static void add_room(struct filecache_ent *e, void *arg)
{
	struct room *r = arg;
	struct ufile *uf = (struct ufile *)e;

	if (uf->state == F_LOADED && !uf->queued && e->last_used != r->um->tick &&
	    (!e->refs || (uf->share && uf->share != r->sh &&
			  uf->share->slots > unwind_shares_slots(r->um))))
		r->slots += uf->slots;
}

bool unwind_files_room_for(struct unwind_maps *um, const struct ufile *uf)
{
	struct unwind_shards_stats ss;
	struct room r = { .um = um, .sh = uf->share };
	uint64_t total = um->st.budget / 8;

	unwind_shards__stats(um->shards, &ss);
	if (ss.slots_used + uf->want_slots <= total)
		return true;
	filecache__for_each(um->files, add_room, &r);
	return ss.slots_used + uf->want_slots <= total + r.slots;
}
