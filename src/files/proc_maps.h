/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The memory mappings of one process, parsed from /proc/PID/maps. */
#ifndef SMOLDER_PROC_MAPS_H
#define SMOLDER_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum proc_map_kind {
	PROC_MAP_FILE,    /* backed by a file: path is its name */
	PROC_MAP_ANON,    /* anonymous, no name */
	PROC_MAP_HEAP,    /* [heap] */
	PROC_MAP_STACK,   /* [stack] */
	PROC_MAP_VDSO,    /* [vdso] */
	PROC_MAP_SPECIAL, /* other [names]: [vvar], [vsyscall], ... */
};

struct proc_map {
	uint64_t start, end, pgoff;
	uint64_t dev; /* makedev(major, minor) */
	uint64_t ino;
	int exec;     /* 'x' permission */
	enum proc_map_kind kind;
	char *path;   /* as printed in maps, " (deleted)" stripped; NULL if anon */
	int deleted;  /* the file was deleted */
};

struct proc_maps {
	struct proc_map *maps; /* sorted by start */
	size_t nr;
};

/* Reads /proc/PID/maps; NULL with errno set (ENOENT: process gone). */
struct proc_maps *proc_maps__load(pid_t pid);
/* Parses maps text (tests and fuzzing); never fails on garbage lines: skips. */
struct proc_maps *proc_maps__parse(const char *text, size_t len);
const struct proc_map *proc_maps__find(const struct proc_maps *pm, uint64_t addr);
void proc_maps__free(struct proc_maps *pm);
/*
 * The real uid of process pid, from /proc/PID/status; (uid_t)-1 when it
 * cannot be read.  Who started a process: it changes only with privileges,
 * while the owner of /proc/PID follows PR_SET_DUMPABLE.
 */
uid_t proc_maps__real_uid(pid_t pid);

#endif
