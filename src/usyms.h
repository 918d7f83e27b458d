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

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct usyms;

struct usyms *usyms__new(void);
/*
 * Writes the name of the frame at addr in process pid into buf (always NUL
 * terminated, truncated to len): "function", "[file+0xOFFSET]" for a mapped
 * file without a covering symbol (file is the base name, OFFSET the file
 * offset), "[anon]", "[heap]", "[stack]", "[vdso+0x..]" likewise, and
 * "[unknown]" when no mapping covers addr or the process is gone.
 * Returns the length written.
 */
size_t usyms__name(struct usyms *u, pid_t pid, uint64_t addr, char *buf, size_t len);
/* Drops what is cached for pid (its maps), keeping shared symbol tables. */
void usyms__forget_pid(struct usyms *u, pid_t pid);
void usyms__free(struct usyms *u);

#endif
