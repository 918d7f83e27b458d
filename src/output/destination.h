/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Opening an output path without destroying what is there.  smolder runs
 * as root and is often told to write into directories other users share,
 * so the path is resolved by hand, one component at a time, and each
 * symbolic link is judged before it is followed:
 *
 * - a regular file (or a new one) is written to a temporary file beside
 *   it, NAME.tmp.XXXXXX, then renamed over it: readers never see half a
 *   file, and a failed write keeps the old one.  A symlink to a regular
 *   file writes the file it points to (the link stays).  A new file gets
 *   0666 less the umask; an existing one keeps its mode (and, for root,
 *   its owner);
 * - a character device, a terminal or a FIFO is written in place: never
 *   renamed over, never truncated.  A FIFO is opened without blocking
 *   first, so one without a reader is an error, not a hang;
 * - a path through a /proc "magic" link (/dev/stdout, /proc/self/fd/1) is
 *   opened by the kernel and written in place: our own standard output or
 *   error through a duplicate of it, other files from their start;
 * - a block device, a socket or a directory is refused, and so is a
 *   symlink in a sticky, world-writable directory (/tmp) owned by neither
 *   us nor the directory's owner: the kernel's fs.protected_symlinks rule,
 *   applied whether the sysctl is on or not.
 *
 * A file in a directory already open (continuous mode's profiles and their
 * index, struct destination_dir) is written to a new temporary file there too,
 * but its name is then taken without opening, following or (for a
 * profile) replacing whatever stands at it: a FIFO, a symlink or a
 * directory another user planted at a name smolder will choose stays as
 * it is, and the profile takes another name beside it.  The directory is
 * opened once (destination__open_dir), judging the symlinks on its path as
 * above, and everything after is relative to it.
 *
 * Temporary files left by a killed run are removed by destination__sweep: a
 * temporary file is stale when it is ours (same owner), nobody holds its
 * lock (a writer keeps an flock on it while it writes), no other name links
 * to it, and it was last written OUTFILE_STALE_SECONDS ago or more, so a
 * concurrent smolder's file is never taken.
 */
#ifndef SMOLDER_OUTFILE_H
#define SMOLDER_OUTFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#define OUTFILE_STALE_SECONDS 60
#define OUTFILE_SWEEP_ENTRIES (1 << 17) /* a sweep reads at most these */
#define OUTFILE_TAG_LEN 7 /* "-XXXXXX": what destination_dir inserts in a taken name */

/* Where a file in an open directory goes, and then what it became. */
struct destination_dir {
	int dirfd;              /* the directory (destination__open_dir) */
	const char *name;       /* the name wanted */
	/* !replace: the name is taken only when nothing stands there, else a
	 * tag "-XXXXXX" (random letters and digits) goes at name[tag_at];
	 * replace: renamed over our own regular file there, never over
	 * another user's file or another kind of node */
	bool replace;
	size_t tag_at;
	bool quiet;             /* failures are not printed: errno says why */
	/* Filled by destination__close when the file was written: */
	char given[256];        /* the name it has */
	struct stat st;         /* the file */
};

struct destination {
	FILE *f;
	const char *path;  /* as given, for messages */
	int dirfd;         /* the target's directory (temporary file), or -1 */
	bool in_place;     /* a device, FIFO, terminal or magic link */
	char name[256];    /* the target's name in dirfd */
	char tmp[256];     /* the temporary file's name in dirfd, or "" */
	struct destination_dir *at; /* or NULL: name is replaced */
};

/* At start: path can be written (the same checks as destination__open, and the
 * directory must take a new file), and stale temporary files beside it are
 * removed.  0, or -1 after printing why. */
int destination__check(const char *path);
/* Opens path for writing.  0, or -1 after printing why. */
int destination__open(struct destination *of, const char *path);
/* Ends a write: err is 0 when every byte was handed to of->f, else the
 * errno of the failure.  Flushes, closes and renames the temporary file
 * into place (or removes it).  0, or -1 after printing why. */
int destination__close(struct destination *of, int err);
/* Closes without writing: the temporary file goes, nothing is printed. */
void destination__abort(struct destination *of);

/* Opens the directory path for reading (its files are then opened
 * relative to it), creating it (0755) when only its last component is
 * missing; symlinks on the way are judged as destination__open judges them, and
 * none is followed once it is open.  The descriptor, or -1 after printing
 * why. */
int destination__open_dir(const char *path);
/* Opens a new temporary file in at->dirfd for the file at->name; path
 * names it in messages.  destination__close gives it its name (see struct
 * destination_dir) and fills at->given and at->st.  0, or -1 after printing
 * why. */
int destination__open_at(struct destination *of, struct destination_dir *at, const char *path);

/* The length of BASE when name is "BASE.tmp.XXXXXX" (six letters or
 * digits), else 0. */
size_t destination__temp_base(const char *name);
/*
 * Removes the stale temporary files in the directory dirfd (opened for
 * reading) whose BASE is_target accepts; the size of those that stay is
 * added to *live_bytes (may be NULL).  Only the first OUTFILE_SWEEP_ENTRIES
 * entries are read.  Returns how many were removed.
 */
int destination__sweep(int dirfd, bool (*is_target)(const char *base, size_t len, void *arg),
		   void *arg, uint64_t *live_bytes);

#endif
