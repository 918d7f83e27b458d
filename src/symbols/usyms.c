// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User-space symbolization across processes: owns the per-pid cache of
 * mappings, the per-mapping link to a symbol table (the tables themselves,
 * cached by file identity, are symcache.c's; JIT maps are usyms_jit.c's),
 * the profiler's own parse of the kernel vDSO image, the naming of frames
 * and why some stay "[unknown]", and the bounds.  Files are reached through
 * /proc/PID/map_files or /proc/PID/root, never by bare path: files in other
 * mount namespaces and deleted files are what the process really maps.
 *
 * Bounds (continuous captures, usyms__end_interval): every image and table
 * records the interval it was last used in; each mapping slot of an image
 * holds a reference on its table, so a table an image maps is never freed
 * under it, and the rest, with idle images' JIT maps, are trimmed least
 * recently used first (filecache__trim).  Bytes are tracked as entries come
 * and go, so the check is cheap.
 *
 * Bounds while reading: a new symbol table or perf map is read with what
 * is left of USYMS_MEMORY_MAX (freeing unpinned tables first, as above),
 * at most USYMS_FILE_BUDGET, and within the caller's time budget; maps of
 * an image are not read once the time budget is spent, and a frame that
 * needed them is counted as late.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "symbols/usyms_int.h"

/* Files whose symbols one maps read reads ahead (a process has a few
 * hundred; the rest are read when a frame needs them). */
#define PRELOAD_FILES 1024

/* A miss in cached maps rereads them, at most this often per process. */
#define MAPS_REFRESH_NS 1000000000ULL

static size_t pid_hash(pid_t pid, size_t buckets)
{
	return hash__mix64((uint32_t)pid) & (buckets - 1);
}

struct usyms *usyms__new(void)
{
	struct usyms *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid_buckets = INITIAL_BUCKETS;
	u->interval = 1;
	u->cache_limit = USYMS_CACHE_LIMIT;
	u->idle_limit = USYMS_IDLE_LIMIT;
	u->memory_max = USYMS_MEMORY_MAX;
	u->pids = calloc(u->pid_buckets, sizeof(*u->pids));
	u->syms = symcache__new();
	if (!u->pids || !u->syms) {
		usyms__free(u);
		return NULL;
	}
	return u;
}

/* Doubles a chained table once it averages more than one entry a bucket. */
static void grow_pids(struct usyms *u)
{
	size_t i, nb = u->pid_buckets * 2;
	struct pid_ent **nt, *e, *next;

	if (u->nr_pids <= u->pid_buckets || !(nt = calloc(nb, sizeof(*nt))))
		return;
	for (i = 0; i < u->pid_buckets; i++) {
		for (e = u->pids[i]; e; e = next) {
			next = e->next;
			e->next = nt[pid_hash(e->pid, nb)];
			nt[pid_hash(e->pid, nb)] = e;
		}
	}
	free(u->pids);
	u->pids = nt;
	u->pid_buckets = nb;
}

/*
 * Keeps the symbol tables already resolved for mappings that are unchanged
 * in a re-read, so a file parsed while the process lived stays named.
 */
static void carry_over_files(struct usyms *u, const struct pid_ent *e,
			     const struct proc_maps *pm, struct symfile **files)
{
	for (size_t i = 0; e->pm && i < pm->nr; i++) {
		const struct proc_map *n = &pm->maps[i];
		const struct proc_map *o = proc_maps__find(e->pm, n->start);

		if (o && o->start == n->start && o->end == n->end && o->pgoff == n->pgoff &&
		    o->ino == n->ino && o->dev == n->dev) {
			files[i] = e->files[o - e->pm->maps];
			symcache__hold(u->syms, files[i]);
		}
	}
}

void usyms__set_validator(struct usyms *u, usyms_validator fn, void *arg)
{
	u->validate = fn;
	u->validate_arg = arg;
}

void usyms__set_maps_hook(struct usyms *u, usyms_maps_hook fn, void *arg)
{
	u->maps_hook = fn;
	u->maps_hook_arg = arg;
}

/*
 * The start time of process pid (field 22 of /proc/PID/stat, clock ticks
 * since boot): with the PID it names one process for good.  0 when the
 * process is gone.  A zombie still counts (its leader thread may have
 * exited while other threads run on); it stays until reaped.
 */
static uint64_t proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name may hold spaces and ')': skip to the last ')' */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
		   "%*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

/*
 * Roughly what an image's mappings cost: proc_maps keeps the whole text it
 * read (each line's fields before the path take about this much), the
 * parsed table, and our per-mapping file slots.
 */
#define MAPS_LINE_FIELDS 74

static size_t maps_bytes(const struct proc_maps *pm)
{
	size_t b = sizeof(*pm) + pm->nr * (MAPS_LINE_FIELDS + sizeof(*pm->maps) +
					  sizeof(struct symfile *));

	for (size_t i = 0; i < pm->nr; i++)
		if (pm->maps[i].path)
			b += strlen(pm->maps[i].path) + 1;
	return b;
}

static void drop_maps(struct usyms *u, struct pid_ent *e)
{
	for (size_t i = 0; e->pm && i < e->pm->nr; i++)
		symcache__release(u->syms, e->files[i]);
	proc_maps__free(e->pm);
	free(e->files);
	e->pm = NULL;
	e->files = NULL;
	u->image_bytes -= e->maps_bytes;
	e->maps_bytes = 0;
}

/*
 * Whether a fresh read of e->pid's maps is e's image; *start gets the
 * process's start time.  Tracked images ask the validator (exact), and a
 * re-read must come from the process read before: a reused PID is refused
 * even with no validator (start times count 10 ms ticks; PIDs wrap slower).
 */
static bool read_is_image(struct usyms *u, const struct pid_ent *e, uint64_t *start)
{
	*start = proc_start_time(e->pid);
	if (!e->gen)
		return true; /* untracked: whatever pid maps now */
	if (u->validate && !u->validate(e->pid, e->gen, u->validate_arg))
		return false;
	return !e->start_time || *start == e->start_time;
}

/*
 * Replaces e's maps with a fresh read; keeps the old ones if that fails or
 * if the process no longer runs e's image (checked after the read).  False
 * when the budget left no time to read them.
 */
static bool load_maps(struct usyms *u, struct pid_ent *e)
{
	struct proc_maps *pm;
	struct symfile **files;
	uint64_t start;

	if (budget__expired(u->budget))
		return false; /* e->maps_tried says whether it ever was */
	pm = proc_maps__load(e->pid);
	e->maps_tried = true;
	e->loaded_ns = clock__now_ns();
	if (pm && !read_is_image(u, e, &start)) {
		debug("pid %d left image %u before its maps were read", (int)e->pid, e->gen);
		proc_maps__free(pm);
		pm = NULL;
	}
	if (!pm)
		return true;
	files = calloc(pm->nr ? pm->nr : 1, sizeof(*files));
	if (!files) {
		proc_maps__free(pm);
		return true;
	}
	carry_over_files(u, e, pm, files);
	drop_maps(u, e);
	e->pm = pm;
	e->files = files;
	e->start_time = start;
	e->maps_bytes = maps_bytes(pm);
	u->image_bytes += e->maps_bytes;
	e->heavy_maps |= pm->nr > USYMS_LIGHT_MAPS;
	return true;
}

/* The image (pid, gen), created if new (its maps not read); NULL if out of memory. */
struct pid_ent *usyms_pid_find(struct usyms *u, pid_t pid, uint32_t gen, bool create)
{
	size_t b = pid_hash(pid, u->pid_buckets);
	struct pid_ent *e;

	for (e = u->pids[b]; e; e = e->next)
		if (e->pid == pid && e->gen == gen)
			return e;
	if (!create || !(e = calloc(1, sizeof(*e))))
		return NULL;
	e->pid = pid;
	e->gen = gen;
	u->image_bytes += sizeof(*e);
	e->next = u->pids[b];
	u->pids[b] = e;
	u->nr_pids++;
	grow_pids(u);
	return e;
}

/* The image (pid, gen), its maps read once if the budget allows; marked used. */
struct pid_ent *usyms_pid_get(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = usyms_pid_find(u, pid, gen, true);

	if (!e)
		return NULL;
	if (!e->maps_tried)
		load_maps(u, e);
	e->last_used = u->interval;
	return e;
}

static void pid_ent_free(struct usyms *u, struct pid_ent *e)
{
	usyms_jit_set(u, e, NULL);
	drop_maps(u, e);
	u->image_bytes -= sizeof(*e);
	free(e);
}

void usyms__forget_pid(struct usyms *u, pid_t pid)
{
	struct pid_ent **pp, *e;

	if (!u)
		return;
	for (pp = &u->pids[pid_hash(pid, u->pid_buckets)]; (e = *pp);) {
		if (e->pid == pid) {
			*pp = e->next;
			pid_ent_free(u, e);
			u->nr_pids--;
		} else {
			pp = &e->next;
		}
	}
}

/* A trim frees an idle image's JIT map: it is read again if sampled again. */
static void drop_jit(void *item, void *arg)
{
	struct pid_ent *e = item;
	struct usyms *u = arg;

	usyms_jit_set(u, e, NULL);
	e->jit_read_phase = 0;
	u->jit_evicted++;
}

/*
 * Frees the tables no held image maps, and JIT maps of images idle this
 * interval (re-read if they are sampled again), least recently used
 * first, until the cache is within limit.
 */
static void trim_to(struct usyms *u, size_t limit)
{
	struct filecache_trim t = { .limit = limit, .other_bytes = &u->jit_bytes,
				    .drop_other = drop_jit, .arg = u };
	struct filecache_other *jits;

	if (symcache__bytes(u->syms) + u->jit_bytes <= limit)
		return;
	jits = malloc((u->nr_pids + 1) * sizeof(*jits));
	if (!jits)
		return; /* tried again at the next interval */
	for (size_t b = 0; b < u->pid_buckets; b++)
		for (struct pid_ent *e = u->pids[b]; e; e = e->next)
			if (e->jit && e->last_used != u->interval)
				jits[t.nr_others++] = (struct filecache_other){ e->last_used, e };
	t.others = jits;
	symcache__trim(u->syms, &t);
	free(jits);
}

/*
 * The bytes a new table or perf map may take: what is left of the memory
 * maximum once releasing bytes are given back (the map being replaced),
 * after freeing unpinned tables if that leaves less than a file's budget;
 * at most USYMS_FILE_BUDGET.
 */
static size_t usyms_allowance(struct usyms *u, size_t releasing)
{
	size_t used = symcache__bytes(u->syms) + u->jit_bytes - releasing;

	if (used + USYMS_FILE_BUDGET > u->memory_max) {
		trim_to(u, u->memory_max > USYMS_FILE_BUDGET + releasing ?
				   u->memory_max - USYMS_FILE_BUDGET + releasing : 0);
		used = symcache__bytes(u->syms) + u->jit_bytes - releasing;
	}
	if (used >= u->memory_max)
		return 0;
	return u->memory_max - used < USYMS_FILE_BUDGET ? u->memory_max - used : USYMS_FILE_BUDGET;
}

size_t usyms_allowance_cb(void *u)
{
	return usyms_allowance(u, 0);
}

/*
 * The symbol table of mapping slot i (resolved if not yet); one given up
 * for time in an earlier budget is resolved again.
 */
static struct symfile *slot_file(struct usyms *u, struct pid_ent *e, size_t i)
{
	struct symfile **slot = &e->files[i];
	struct symcache_read rd = { .budget = u->budget, .phase = u->phase,
				    .allowance = usyms_allowance_cb, .arg = u };

	if (*slot && symfile__retry(*slot, u->phase)) {
		symcache__release(u->syms, *slot);
		*slot = NULL;
	}
	if (!*slot) {
		*slot = symcache__resolve(u->syms, e->pid, &e->pm->maps[i], &rd);
		symcache__hold(u->syms, *slot);
	}
	symfile__touch(*slot, u->interval);
	return *slot;
}

size_t usyms_put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!len)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	return (size_t)n < len ? (size_t)n : len - 1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

void usyms__set_demangle(struct usyms *u, bool on)
{
	symcache__set_demangle(u->syms, on);
}

void usyms__set_func_reader(struct usyms *u, func_ranges_reader fn)
{
	symcache__set_func_reader(u->syms, fn);
}

size_t usyms_name_file(struct usyms *u, struct pid_ent *e,
			const struct proc_map *m, uint64_t addr, char *buf,
			size_t len, struct usyms_frame *out)
{
	struct symfile *f = slot_file(u, e, m - e->pm->maps);
	uint64_t off = addr - m->start + m->pgoff;
	uint64_t vaddr = UINT64_MAX;
	const char *name = symcache__name(u->syms, f, off, &vaddr);

	*out = (struct usyms_frame){ .file = m->path, .build_id = symcache__build_id(f),
				     .dev = m->dev, .ino = m->ino, .map_start = m->start,
				     .map_end = m->end, .map_pgoff = m->pgoff, .off = off,
				     .vaddr = vaddr, .unsymbolized = !name };

	if (name) {
		usyms_name_chain(u, f, out);
		/* "memcpy@@GLIBC_2.14" names the same function as "memcpy" */
		return usyms_put(buf, len, "%.*s", (int)strcspn(name, "@"), name);
	}
	symcache__func_start(f, off, &off); /* its instructions make one frame */
	return usyms_put(buf, len, "[%s+0x%" PRIx64 "]",
		   m->path ? base_name(m->path) : "unknown", off);
}

static size_t name_anon(struct usyms *u, struct pid_ent *e, const struct proc_map *m,
			uint64_t addr, char *buf, size_t len, bool *jit)
{
	const char *name;

	/* once per budget: lines a JIT appended since are named too */
	if (!usyms_jit_fresh(u, e))
		usyms_jit_refresh(u, e, usyms_allowance);
	name = usyms_jit_name(e, addr);
	if (name) {
		*jit = true;
		return usyms_put(buf, len, "%s", name);
	}
	if (m->kind == PROC_MAP_HEAP)
		return usyms_put(buf, len, "[heap]");
	return usyms_put(buf, len, "[anon]");
}

/* Re-reads e may make now: a token bucket refilled one per interval. */
static double reread_tokens(const struct pid_ent *e, double now)
{
	double t;

	if (!e->preloaded)
		return USYMS_REREAD_BURST;
	t = e->reread_tokens + (now - e->preloaded_at) / USYMS_REREAD_INTERVAL;
	return t < USYMS_REREAD_BURST ? t : USYMS_REREAD_BURST;
}

static void reread_spend(struct pid_ent *e)
{
	double now = clock__now();

	e->reread_tokens = reread_tokens(e, now) - 1;
	e->preloaded_at = now;
}

/*
 * The symbol tables of e's executable file mappings, each file resolved
 * once: a file a process maps cannot be deleted, so while the mapping
 * stands its device and inode are no other file's, and 65,000 mappings of
 * one file cost one open, not 65,000.  (The maps text is not read at one
 * instant: a process that swaps a file for another under the same inode
 * during the read misnames only its own frames.)  At most PRELOAD_FILES
 * files a read: the others are read when a frame needs them.
 */
static void preload_files(struct usyms *u, struct pid_ent *e)
{
	size_t cap = 16, *seen, distinct = 0;

	while (cap < 2 * e->pm->nr)
		cap *= 2;
	seen = malloc(cap * sizeof(*seen)); /* index + 1 of a mapping; 0: empty */
	if (seen)
		memset(seen, 0, cap * sizeof(*seen));
	for (size_t i = 0; i < e->pm->nr; i++) {
		const struct proc_map *m = &e->pm->maps[i], *o;
		size_t h = hash__mix64(m->dev ^ hash__mix64(m->ino)) & (cap - 1);

		if (!m->exec || m->kind != PROC_MAP_FILE)
			continue;
		while (seen && seen[h] && ((o = &e->pm->maps[seen[h] - 1])->dev != m->dev ||
					   o->ino != m->ino))
			h = (h + 1) & (cap - 1);
		if (seen && seen[h] && !e->files[i] && e->files[seen[h] - 1]) {
			e->files[i] = e->files[seen[h] - 1];
			symcache__hold(u->syms, e->files[i]);
			continue;
		}
		if (distinct++ >= PRELOAD_FILES)
			break;
		slot_file(u, e, i);
		if (seen && !seen[h])
			seen[h] = i + 1;
	}
	free(seen);
}

int usyms__preload_maps(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = usyms_pid_find(u, pid, gen, true);

	if (!e)
		return -ENOMEM;
	e->last_used = u->interval;
	if (!load_maps(u, e)) /* again if read before: its mappings changed */
		return -ETIMEDOUT;
	if (u->maps_hook && e->pm)
		u->maps_hook(pid, gen, e->pm, u->maps_hook_arg);
	return e->pm ? 0 : -ESRCH;
}

int usyms__preload(struct usyms *u, pid_t pid, uint32_t gen)
{
	double t0 = clock__now();
	int err = usyms__preload_maps(u, pid, gen);
	struct pid_ent *e = usyms_pid_find(u, pid, gen, false);

	if (err == -ENOMEM || err == -ETIMEDOUT)
		return err;
	e->late = false;
	reread_spend(e);
	e->preloaded = true;
	u->maps_read_s = clock__now() - t0;
	usyms_jit_refresh(u, e, usyms_allowance); /* a JIT appends as it maps code */
	if (!e->pm)
		return -ESRCH;
	preload_files(u, e);
	return 0; /* files out of time are read again when named */
}

double usyms__preload_due(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = usyms_pid_find(u, pid, gen, false);

	if (!e || reread_tokens(e, clock__now()) >= 1)
		return 0;
	return e->preloaded_at + (1 - e->reread_tokens) * USYMS_REREAD_INTERVAL;
}

double usyms__maps_read_s(const struct usyms *u)
{
	return u->maps_read_s;
}

bool usyms__preloaded(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = usyms_pid_find(u, pid, gen, false);

	return e && e->preloaded;
}

bool usyms__light_maps(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = usyms_pid_find(u, pid, gen, false);

	return e && e->pm && !e->heavy_maps;
}

void usyms__mark_late(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct pid_ent *e = usyms_pid_find(u, pid, gen, true);

	if (e)
		e->late = true;
}

/* Why a frame of image e (NULL: none) found no mapping. */
static enum usyms_miss miss_of(const struct pid_ent *e)
{
	if (!e)
		return USYMS_MISS_EXITED;
	if (e->pm)
		return USYMS_MISS_UNMAPPED;
	if (!e->maps_tried || e->late)
		return USYMS_MISS_LATE;
	if (e->preloaded)
		return USYMS_MISS_EXITED;
	return e->gen ? USYMS_MISS_UNSEEN : USYMS_MISS_UNTRACKED;
}

const char *usyms__miss_name(enum usyms_miss m)
{
	static const char *const names[USYMS_MISS__MAX] = {
		[USYMS_NAMED] = "named",
		[USYMS_MISS_EXITED] = "process gone before its maps were read",
		[USYMS_MISS_LATE] = "maps not read in time",
		[USYMS_MISS_UNSEEN] = "process events lost",
		[USYMS_MISS_UNTRACKED] = "untracked process",
		[USYMS_MISS_UNMAPPED] = "no mapping at the address",
		[USYMS_MISS_FOREIGN] = "outside our pid namespace",
	};

	return m < USYMS_MISS__MAX ? names[m] : "?";
}

size_t usyms__name_frame(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr, char *buf,
			 size_t len, struct usyms_frame *out)
{
	const struct proc_map *m = NULL;
	struct pid_ent *e;

	*out = (struct usyms_frame){ .miss = USYMS_NAMED };
	e = u ? usyms_pid_get(u, pid, gen) : NULL;
	if (e && e->pm) {
		m = proc_maps__find(e->pm, addr);
		if (!m && clock__now_ns() - e->loaded_ns >= MAPS_REFRESH_NS) {
			load_maps(u, e);
			m = proc_maps__find(e->pm, addr);
		}
	}
	if (!m) {
		out->miss = miss_of(e);
		return usyms_put(buf, len, "[unknown]");
	}
	switch (m->kind) {
	case PROC_MAP_FILE:
		return usyms_name_file(u, e, m, addr, buf, len, out);
	case PROC_MAP_VDSO:
		return usyms_vdso_name(u, m, addr, buf, len);
	case PROC_MAP_STACK:
		return usyms_put(buf, len, "[stack]");
	case PROC_MAP_SPECIAL:
		return usyms_put(buf, len, "%s", m->path ? m->path : "[unknown]");
	case PROC_MAP_HEAP:
	case PROC_MAP_ANON:
	default:
		return name_anon(u, e, m, addr, buf, len, &out->jit);
	}
}

size_t usyms__name(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr, char *buf,
		   size_t len, bool *jit)
{
	struct usyms_frame fr;
	size_t n = usyms__name_frame(u, pid, gen, addr, buf, len, &fr);

	if (jit)
		*jit = fr.jit;
	return n;
}

/*
 * Whether e is kept past the interval that just ended: used in it, or its
 * process still runs it and it has not been idle for the idle limit.
 */
static bool keep_image(struct usyms *u, const struct pid_ent *e)
{
	if (e->last_used == u->interval)
		return true;
	if (!e->pm)
		return false; /* the process was gone when asked: nothing to keep */
	if (u->idle_limit && u->interval - e->last_used >= u->idle_limit)
		return false;
	if (e->gen && u->validate)
		return u->validate(e->pid, e->gen, u->validate_arg);
	/* untracked, or no validator: the same process, still running */
	return e->start_time && proc_start_time(e->pid) == e->start_time;
}

static void drop_images(struct usyms *u)
{
	struct pid_ent **pp, *e;

	for (size_t b = 0; b < u->pid_buckets; b++) {
		for (pp = &u->pids[b]; (e = *pp);) {
			if (keep_image(u, e)) {
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			pid_ent_free(u, e);
			u->nr_pids--;
			u->images_dropped++;
		}
	}
}

void usyms__end_interval(struct usyms *u)
{
	if (!u)
		return;
	/* images first: dropping them releases the files they pinned */
	drop_images(u);
	trim_to(u, u->cache_limit);
	u->interval++;
}

void usyms__set_cache_limit(struct usyms *u, size_t bytes)
{
	u->cache_limit = bytes;
}

void usyms__set_memory_max(struct usyms *u, size_t bytes)
{
	u->memory_max = bytes;
}

void usyms__set_budget(struct usyms *u, const struct budget *b)
{
	u->budget = b;
	u->phase++;
}

void usyms__set_idle_limit(struct usyms *u, unsigned intervals)
{
	u->idle_limit = intervals;
}

void usyms__stats(const struct usyms *u, struct usyms_stats *out)
{
	struct symcache_stats ss;

	memset(out, 0, sizeof(*out));
	if (!u)
		return;
	symcache__stats(u->syms, &ss);
	for (size_t b = 0; b < u->pid_buckets; b++)
		for (const struct pid_ent *e = u->pids[b]; e; e = e->next)
			out->jit_maps += e->jit != NULL;
	out->images = u->nr_pids;
	out->files = ss.files.entries;
	out->files_pinned = ss.files.held;
	out->cache_bytes = ss.files.bytes + u->jit_bytes;
	out->cache_limit = u->cache_limit;
	out->image_bytes = u->image_bytes;
	out->bytes = sizeof(*u) + out->cache_bytes + out->image_bytes +
		     u->pid_buckets * sizeof(*u->pids) + ss.files.table_bytes +
		     elf_syms__bytes(u->vdso);
	out->intervals = u->interval - 1;
	out->images_dropped = u->images_dropped;
	out->files_evicted = ss.files.evicted;
	out->jit_maps_evicted = u->jit_evicted;
	out->files_too_big = ss.too_big;
	out->files_late = ss.late;
	out->dwarf_files = ss.dw_read;
	out->dwarf_ready = ss.dw_ready;
	out->dwarf_none = ss.dw_none;
	out->dwarf_mini = ss.dw_mini;
	out->dwarf_too_big = ss.dw_too_big;
	out->dwarf_failed = ss.dw_failed;
	out->jit_maps_cut = u->jit_cut;
}

void usyms__free(struct usyms *u)
{
	struct pid_ent *pe, *pn;
	size_t i;

	if (!u)
		return;
	/* images first: they release their files */
	for (i = 0; u->pids && i < u->pid_buckets; i++)
		for (pe = u->pids[i]; pe; pe = pn) {
			pn = pe->next;
			pid_ent_free(u, pe);
		}
	symcache__free(u->syms);
	free(u->pids);
	elf_syms__free(u->vdso);
	free(u);
}
