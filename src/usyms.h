/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User-space symbolization across processes: finds the mapping of an
 * address, opens the mapped file through /proc/PID/map_files or
 * /proc/PID/root (so files inside containers and deleted files resolve), and
 * caches symbol tables by file identity (dev, inode, size, mtime) so that a
 * binary shared by many processes is parsed once.
 */
#ifndef SMOLDER_USYMS_H
#define SMOLDER_USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
 * Reads the mappings of image (pid, gen) now (again, if read before) and
 * parses the symbols of its executable file mappings, so they outlive the
 * process.  0, or -errno.
 */
int usyms__preload(struct usyms *u, pid_t pid, uint32_t gen);
/*
 * Writes the name of the frame at addr in process pid into buf (always NUL
 * terminated, truncated to len): "function", "[file+0xOFFSET]" for a mapped
 * file without a covering symbol (file is the base name, OFFSET the file
 * offset), "[anon]", "[heap]", "[stack]", "[vdso+0x..]" likewise, and
 * "[unknown]" when no mapping covers addr or the process is gone.  Anonymous
 * memory is named from the process's trusted /tmp/perf-PID.map if it has
 * one, and *jit (if not NULL) then says so.  Returns the length written.
 */
size_t usyms__name(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr, char *buf,
		   size_t len, bool *jit);
/* Demangle C++ and Rust names (off by default; smolder turns it on). */
void usyms__set_demangle(struct usyms *u, bool on);
/* Drops what is cached for pid (all its images), keeping shared symbol tables. */
void usyms__forget_pid(struct usyms *u, pid_t pid);
void usyms__free(struct usyms *u);

#endif
