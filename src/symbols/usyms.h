/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User-space symbolization across processes: finds the mapping of an
 * address, opens the mapped file through /proc/PID/map_files or
 * /proc/PID/root (so files inside containers and deleted files resolve), and
 * caches symbol tables by file identity (dev, inode, size, mtime) so that a
 * binary shared by many processes is parsed once.
 *
 * Memory: a one-shot capture keeps everything until usyms__free.  A
 * continuous capture calls usyms__end_interval after each interval's
 * profile is written; only then are images of exited (or exec'd) processes
 * dropped, images idle for usyms__set_idle_limit intervals dropped (re-read
 * on demand while their process lives), and cached symbol tables, their
 * demangled names and JIT maps trimmed, least recently used first, to
 * usyms__set_cache_limit bytes.  What a held image maps is never evicted.
 *
 * Bounds while reading, whatever other users' files hold: one file's
 * symbol table (or one perf map) is read within USYMS_FILE_BUDGET bytes,
 * all of them together within USYMS_MEMORY_MAX (least recently used ones
 * that no held image maps are freed first to make room), and all work
 * within the time budget set by usyms__set_budget.  A file too big gets
 * no symbols (frames "[file+0xOFFSET]") and a note; one that runs out of
 * time is read again in a later budget.
 */
#ifndef SMOLDER_USYMS_H
#define SMOLDER_USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/budget.h"
#include "symbols/symcache.h"


struct usyms;

/*
 * A process image is (pid, gen): gen numbers the image between exec/exit
 * and the next, as BPF assigns them; gen 0 means "not tracked": whatever
 * pid maps when asked.  The validator, if set, is asked after every read of
 * /proc/PID/maps whether pid still runs image gen; a read it rejects is
 * thrown away, so that an exec or a reused PID never lends its mappings to
 * an older image's samples.
 */
typedef bool (*usyms_validator)(pid_t pid, uint32_t gen, void *arg);

struct usyms *usyms__new(void);
void usyms__set_validator(struct usyms *u, usyms_validator fn, void *arg);
/*
 * Work from here on (preloads, names) runs within b's deadline and stops
 * early when one of b's signals is pending (b->max_bytes is ignored: the
 * byte budgets are usyms's own); NULL: no time limit.  b stays the
 * caller's and must outlive its use.  Each call starts a new budget: a file
 * that ran out of time before is tried again once in it.
 */
void usyms__set_budget(struct usyms *u, const struct budget *b);
#define USYMS_FILE_BUDGET SYMCACHE_FILE_BUDGET
#define USYMS_MEMORY_MAX (128u << 20)
/* What all symbol tables and perf maps may hold at once (default USYMS_MEMORY_MAX). */
void usyms__set_memory_max(struct usyms *u, size_t bytes);
/*
 * Called by usyms__preload with every read of an image's maps that the
 * validator accepted, before the image's symbols are parsed (the unwind
 * tables, unwind_maps.c, want them as soon as possible).
 */
struct proc_maps;
typedef void (*usyms_maps_hook)(pid_t pid, uint32_t gen, const struct proc_maps *pm, void *arg);
void usyms__set_maps_hook(struct usyms *u, usyms_maps_hook fn, void *arg);
/*
 * Reads the mappings of image (pid, gen) now (again, if read before) and
 * parses the symbols of its executable file mappings, so they outlive the
 * process.  0, or -errno: -ETIMEDOUT when the time budget left no time to
 * read the maps (files it had no time for are read when named).
 */
int usyms__preload(struct usyms *u, pid_t pid, uint32_t gen);
/* Only the first part of it: reads the maps and hands them to the maps
 * hook (unwind tables, interpreters), which a new image needs before its
 * next samples; its files are read by the usyms__preload that follows. */
int usyms__preload_maps(struct usyms *u, pid_t pid, uint32_t gen);
/*
 * When image (pid, gen) may be preloaded again (CLOCK_MONOTONIC s; 0: now):
 * an image's maps are read again at once up to USYMS_REREAD_BURST times in
 * a row (a starting process maps its libraries, each a change worth a
 * read while it may soon exit), then once per USYMS_REREAD_INTERVAL (a
 * process that maps and unmaps in a loop changes at every sample).
 * usyms__preload itself never refuses; its caller asks this first.
 */
#define USYMS_REREAD_BURST 8
#define USYMS_REREAD_INTERVAL 0.5
double usyms__preload_due(struct usyms *u, pid_t pid, uint32_t gen);
/* How long the last usyms__preload took to read the maps and hand them
 * to the maps hook (what the process's mappings cost, not its files). */
double usyms__maps_read_s(const struct usyms *u);
/* Whether image (pid, gen)'s maps were read before. */
bool usyms__preloaded(struct usyms *u, pid_t pid, uint32_t gen);
/*
 * Whether image (pid, gen)'s maps were read and never held more than
 * USYMS_LIGHT_MAPS mappings: reading them again is cheap whatever else
 * its user runs (a process starting as another of its user's maps and
 * unmaps 65,000 mappings in a loop).
 */
#define USYMS_LIGHT_MAPS 4096
bool usyms__light_maps(struct usyms *u, pid_t pid, uint32_t gen);
/*
 * Image (pid, gen) was announced but its preload is waiting (or was
 * dropped): if its process is gone when its samples are named, they are
 * counted as late, not as exited.  Cheap: its maps are not read.
 */
void usyms__mark_late(struct usyms *u, pid_t pid, uint32_t gen);
/*
 * Writes the name of the frame at addr in process pid into buf (always NUL
 * terminated, truncated to len): "function", "[file+0xOFFSET]" for a mapped
 * file without a covering symbol (file is the base name, OFFSET the file
 * offset where the function starts, from the file's FDEs, else addr's own
 * offset when no FDE covers it), "[anon]", "[heap]", "[stack]",
 * "[vdso+0x..]" likewise, and "[unknown]" when no mapping covers addr or
 * the process is gone.  Anonymous memory is named from the process's
 * trusted /tmp/perf-PID.map if it has one, and *jit (if not NULL) then says
 * so.  Returns the length written.
 */
size_t usyms__name(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr, char *buf,
		   size_t len, bool *jit);

/* Why a frame is "[unknown]". */
enum usyms_miss {
	USYMS_NAMED,          /* it is not */
	USYMS_MISS_EXITED,    /* the process exited (or exec'd) before its maps were read */
	USYMS_MISS_LATE,      /* its maps were due, but the time budget ran out first */
	USYMS_MISS_UNSEEN,    /* never announced (process events lost), gone at the end */
	USYMS_MISS_UNTRACKED, /* an untracked image (BPF's table was full), gone at the end */
	USYMS_MISS_UNMAPPED,  /* maps read, but no mapping covers the address */
	USYMS_MISS_FOREIGN,   /* not usyms's: the caller's, for tasks outside our PID namespace */
	USYMS_MISS__MAX
};

/* What usyms__name_frame says of a frame besides its name. */
struct usyms_frame {
	bool jit;             /* named from a perf map */
	enum usyms_miss miss; /* why it is "[unknown]" */
	/*
	 * A frame in a mapped file (else file is NULL): the file's path as its
	 * process maps it and its build id (hex, "" when none), both valid
	 * until the next usyms call; the mapping; addr's file offset and its
	 * ELF virtual address (UINT64_MAX when the file's table was not read).
	 */
	const char *file, *build_id;
	uint64_t dev, ino, map_start, map_end, map_pgoff, off, vaddr;
	/* Named "[file+0x...]": no symbol covers it (the offset is its
	 * function's start when an FDE covers it, else off). */
	bool unsymbolized;
	/* With inline frames, the functions at addr from its file's DWARF,
	 * outermost (the one named) first; NULL when none.  Valid until the
	 * next usyms call. */
	const struct dwarf_chain *chain;
};

/* usyms__name, telling why a frame is "[unknown]". */
size_t usyms__name_frame(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr, char *buf,
			 size_t len, struct usyms_frame *out);
/* A few words for a reason ("process gone before its maps were read"). */
const char *usyms__miss_name(enum usyms_miss m);
/* How stripped code is named by its function's start (symcache.h). */
void usyms__set_func_reader(struct usyms *u, func_ranges_reader fn);
/* Name frames' inline chains from their files' DWARF (usyms_frame.chain;
 * off by default, smolder turns it on unless --no-inline), with source
 * files and lines when lines (an output shows them: symcache.h). */
void usyms__set_inline(struct usyms *u, bool on, bool lines);
/* Whether frames get inline chains (usyms__set_inline). */
bool usyms__inline_frames(const struct usyms *u);
/*
 * Names ahead the frame at addr of (pid, gen) if it lies in a file: its
 * symbol and inline chain, which the file's caches keep (session/warm.h),
 * within b (NULL: u's own budget).  With mark, the chain is only marked
 * to be read (symcache__mark): a pass marks its frames, then names them.
 * Frames in JIT code, the vDSO or mappings not read yet are left to the
 * naming.  false when the budget had expired.
 */
bool usyms__warm_frame(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr,
		       const struct budget *b, bool mark);
/* Demangle C++ and Rust names (off by default; smolder turns it on). */
void usyms__set_demangle(struct usyms *u, bool on);
/* Drops what is cached for pid (all its images), keeping shared symbol tables. */
void usyms__forget_pid(struct usyms *u, pid_t pid);

/*
 * Ends an interval of a continuous capture: call it after the interval's
 * samples are named (its profile written), while the validator still
 * answers.  An image neither preloaded nor named during the interval is
 * dropped when its process is gone or runs another image (the validator
 * for tracked images, else /proc/PID/stat's start time), or when it has
 * been idle for the idle limit.  Then symbol tables no held image maps, and
 * JIT maps of images idle this interval, are freed least recently used
 * first until the cache is within its limit.  Anything dropped is read
 * again if asked for later (a live process's maps, a file mapped again).
 */
void usyms__end_interval(struct usyms *u);
/*
 * Bytes kept by the cache of symbol tables (with their demangled names) and
 * JIT maps after each usyms__end_interval; default USYMS_CACHE_LIMIT.  The
 * tables that held images map stay even beyond it.
 */
#define USYMS_CACHE_LIMIT (64u << 20)
void usyms__set_cache_limit(struct usyms *u, size_t bytes);
/*
 * Intervals an image of a live process may go unused before it is dropped
 * (its maps re-read if it is sampled again); default USYMS_IDLE_LIMIT,
 * 0 keeps it as long as its process runs it.
 */
#define USYMS_IDLE_LIMIT 10
void usyms__set_idle_limit(struct usyms *u, unsigned intervals);

struct usyms_stats {
	size_t images;        /* process images held */
	size_t files;         /* files held, each with its symbols or none */
	size_t files_pinned;  /* of those, mapped by held images */
	size_t jit_maps;      /* perf maps held */
	size_t cache_bytes;   /* symbol tables, demangled names, perf maps */
	size_t cache_limit;   /* what cache_bytes is trimmed to */
	size_t image_bytes;   /* mappings of the held images */
	size_t bytes;         /* all of it, hash tables and the vDSO included */
	uint64_t intervals;   /* usyms__end_interval calls */
	uint64_t images_dropped, files_evicted, jit_maps_evicted; /* totals */
	uint64_t files_too_big;   /* files left without symbols for their size */
	uint64_t files_late;      /* reads given up for time (tried again later) */
	uint64_t jit_maps_cut;    /* perf maps read only in part for their size */
	/* inline frames: files with DWARF, without, over the budget, failed */
	uint64_t dwarf_files, dwarf_none, dwarf_too_big, dwarf_failed;
	uint64_t dwarf_ready; /* of dwarf_files: read for frames named in them */
	uint64_t dwarf_mini; /* of dwarf_none: only MiniDebugInfo (no DWARF in it) */
};

/* Sizes for a status line; cheap enough to call every interval. */
void usyms__stats(const struct usyms *u, struct usyms_stats *out);
void usyms__free(struct usyms *u);

#endif
