/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JIT symbol maps in perf's format, /tmp/perf-PID.map: one symbol per line,
 * "START SIZE name", START and SIZE in hex (0x optional), the name the rest
 * of the line (spaces allowed).  JITs (V8/node --perf-basic-prof, the JVM
 * with perf-map-agent, .NET, LuaJIT, ...) write them for code that no ELF
 * file describes.
 *
 * Overlaps: a JIT reuses addresses for new code and appends a new line, so
 * where entries overlap the later line wins over the part it covers; an
 * earlier entry stays visible where nothing later covers it.  Lines that
 * cannot be parsed, have SIZE 0, reach 2^64, contain a NUL byte or are
 * longer than PERFMAP_MAX_LINE bytes are skipped.  Only the last
 * PERFMAP_MAX_ENTRIES lines are read: memory stays bounded however long a
 * JIT has been appending, and the newest lines are the ones that win.
 *
 * Files are read within a budget (budget.h): the newest lines that fit its
 * bytes, complete lines only (the one a JIT is writing waits for the next
 * update), and an update of the same file reads only what was appended.
 */
#ifndef SMOLDER_PERFMAP_H
#define SMOLDER_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/budget.h"

#define PERFMAP_MAX_FILE (256ULL << 20)
#define PERFMAP_MAX_LINE 16384
#define PERFMAP_MAX_ENTRIES (2u << 20)

struct perfmap;

/*
 * Loads ROOT/tmp/perf-PID.map (root NULL means "/").  Pass root
 * "/proc/HOSTPID/root" to read the file in the process's mount namespace,
 * with pid the process's own PID there (the last NSpid field of
 * /proc/HOSTPID/status), since that is the name the JIT wrote.  The path is
 * resolved inside root (symlinks cannot lead out of it, kernels >= 5.6).
 *
 * The file is trusted only if it is a regular file (not a symlink, FIFO,
 * device or directory; a FIFO never blocks the call), owned by owner (the
 * process's uid, see perfmap__owner) or by root, and at most
 * PERFMAP_MAX_FILE bytes.  Otherwise NULL with errno set and, if why is not
 * NULL, *why a short lowercase reason for a one-line warning:
 *   ENOENT  no such file (the usual case: not a JIT; do not warn)
 *   ELOOP   "a symbolic link"
 *   EINVAL  "not a regular file"
 *   EPERM   "owned by another user"
 *   EFBIG   "larger than 256 MiB"
 *   other   log__errstr(errno)
 * No budget: the whole file's complete lines (up to PERFMAP_MAX_ENTRIES).
 */
struct perfmap *perfmap__load(pid_t pid, const char *root, uid_t owner,
			      const char **why);
/*
 * The same file, trusted by the same rules, read into *pm within budget b
 * (NULL: none): nothing when the file is unchanged since *pm was read from
 * it (same inode, size and mtime), only the appended lines when it grew,
 * else all of it anew (*pm NULL: a first read).  0, or -1 with errno (and
 * *why) as perfmap__load, ETIMEDOUT ("out of time") when b expired; *pm is
 * then as it was.
 */
int perfmap__refresh(struct perfmap **pm, pid_t pid, const char *root, uid_t owner,
		     const struct budget *b, const char **why);
/* The reading itself, on a regular file already opened and trusted (tests
 * and fuzzing use memfds): a first read, NULL with errno on failure ... */
struct perfmap *perfmap__read_fd(int fd, const struct budget *b);
/* ... and an update, as perfmap__refresh: 0, or -1 with errno. */
int perfmap__update_fd(struct perfmap **pm, int fd, const struct budget *b);
/* True when the budget's bytes left older lines of the file out. */
bool perfmap__truncated(const struct perfmap *pm);
/*
 * The uid to pass as owner for host PID pid: the effective uid of
 * /proc/PID/status, the one that owns files the process creates.  0 or -1
 * with errno set.
 */
int perfmap__owner(pid_t pid, uid_t *owner);
/* Parses map text (tests and fuzzing); garbage lines are skipped. */
struct perfmap *perfmap__parse(const char *text, size_t len);
/*
 * The name of the entry covering addr (owned by pm), with *off (if not NULL)
 * the offset of addr from that entry's START; NULL if none covers it.
 */
const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off);
/* Number of entries kept (lines parsed), overlapped ones included. */
size_t perfmap__count(const struct perfmap *pm);
/* Heap bytes pm holds (entries, segments, names), for cache budgets. */
size_t perfmap__bytes(const struct perfmap *pm);
void perfmap__free(struct perfmap *pm);

#endif
