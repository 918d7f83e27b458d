// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Opening output paths without destroying anything (see destination.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include "lib/hash.h"
#include "lib/log.h"
#include "output/destination.h"

#define MAX_HOPS 40 /* symlinks followed in one path, as the kernel does */
#define TEMP_SUFFIX ".tmp.XXXXXX"
#define TEMP_SUFFIX_LEN (sizeof(TEMP_SUFFIX) - 1)

enum kind {
	T_NEW,      /* nothing there yet: temporary file, rename */
	T_REGULAR,  /* a regular file: temporary file, rename */
	T_IN_PLACE, /* a character device or a FIFO */
	T_MAGIC,    /* through a /proc link: the kernel opens it */
};

struct target {
	enum kind kind;
	char full[PATH_MAX];     /* absolute, no symlinks (not for T_MAGIC) */
	char dir[PATH_MAX];
	char name[NAME_MAX + 1];
	struct stat st;          /* of the target, unless T_NEW */
};

static const char where_hint[] = "check the directory exists and is writable";

/* ---- resolving, one component at a time ---- */

/* Appends "/comp" to the absolute path buf ("" is the root). */
static int path_push(char *buf, const char *comp, size_t n)
{
	size_t l = strlen(buf);

	if (l + 1 + n >= PATH_MAX)
		return -1;
	buf[l] = '/';
	memcpy(buf + l + 1, comp, n);
	buf[l + 1 + n] = '\0';
	return 0;
}

static bool in_procfs(const char *dir)
{
	struct statfs sf;

	return !statfs(*dir ? dir : "/", &sf) && sf.f_type == PROC_SUPER_MAGIC;
}

/* The kernel's fs.protected_symlinks rule: in a sticky, world-writable
 * directory, a symlink is followed only if we or the directory's owner
 * own it. */
static bool planted(const char *dir, const struct stat *link)
{
	struct stat d;

	if (stat(*dir ? dir : "/", &d))
		return true;
	return (d.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH) &&
	       link->st_uid != geteuid() && link->st_uid != d.st_uid;
}

/* /proc/self and /proc/thread-self are plain symlinks; other links in
 * /proc (fd/N, cwd, root, exe) name open objects ("pipe:[123]"). */
static bool magic_link(const char *dir, const char *name, size_t n)
{
	if (!in_procfs(dir))
		return false;
	return !(!strcmp(dir, "/proc") && ((n == 4 && !memcmp(name, "self", 4)) ||
					   (n == 11 && !memcmp(name, "thread-self", 11))));
}

/* Splits t->full into t->dir and t->name. */
static int split(const char *path, struct target *t)
{
	char *slash = strrchr(t->full, '/');
	size_t dl = slash - t->full;

	if (!slash[1]) {
		err("cannot write %s: is a directory (give a file name)", path);
		return -1;
	}
	if (strlen(slash + 1) > NAME_MAX) {
		err("cannot write %s: %s (give a shorter name)", path, log__errstr(ENAMETOOLONG));
		return -1;
	}
	if (dl) {
		memcpy(t->dir, t->full, dl);
		t->dir[dl] = '\0';
	} else {
		strcpy(t->dir, "/");
	}
	strcpy(t->name, slash + 1);
	return 0;
}

/* Follows the symlink at t->full (in directory done): its target, then
 * what was left of the path, become the path to walk.  0, 1 when the
 * kernel must open it (a magic link), or -1 after printing why. */
static int follow(const char *path, struct target *t, char *done, char *todo, const char *rest,
		  const char *comp, size_t n)
{
	char link[PATH_MAX], next[PATH_MAX];
	ssize_t len;

	if (magic_link(done, comp, n))
		return 1;
	if (planted(done, &t->st)) {
		err("will not write through %s: %s is a symlink of uid %u in a sticky world-writable directory, which another user may have planted (give the real file's path)",
		    path, t->full, (unsigned)t->st.st_uid);
		return -1;
	}
	len = readlink(t->full, link, sizeof(link) - 1);
	if (len <= 0) {
		err("cannot write %s: %s (%s)", path, log__errstr(len ? errno : ENOENT), where_hint);
		return -1;
	}
	link[len] = '\0';
	if (snprintf(next, sizeof(next), "%s%s%s", link, *rest ? "/" : "", rest) >= PATH_MAX) {
		err("cannot write %s: %s (give a shorter path)", path, log__errstr(ENAMETOOLONG));
		return -1;
	}
	if (link[0] == '/')
		done[0] = '\0';
	strcpy(todo, next);
	return 0;
}

/* A regular file, a character device or a FIFO may be written: 0, else
 * -1 after printing why not. */
static int refuse_kind(const char *path, mode_t m)
{
	if (S_ISREG(m) || S_ISCHR(m) || S_ISFIFO(m))
		return 0;
	if (S_ISDIR(m))
		err("cannot write %s: is a directory (give a file name)", path);
	else
		err("will not write %s: it is a %s (give a file, a FIFO or a character device)", path,
		    S_ISBLK(m) ? "block device" : "socket");
	return -1;
}

/* Where the kind of file at t->st leads; -1 after printing why not. */
static int classify(const char *path, struct target *t)
{
	if (refuse_kind(path, t->st.st_mode))
		return -1;
	t->kind = S_ISREG(t->st.st_mode) ? T_REGULAR : T_IN_PLACE;
	return split(path, t);
}

/* One walk step over todo's next component; 1 when the walk is over. */
static int step(const char *path, struct target *t, char *done, char *todo, const char **p,
		int *hops)
{
	const char *comp = *p + strspn(*p, "/");
	size_t n = strcspn(comp, "/");
	bool last;
	int r;

	*p = comp + n;
	last = !(*p)[strspn(*p, "/")];
	if (!n)
		return 1;
	if ((n == 1 && *comp == '.') || (n == 2 && !memcmp(comp, "..", 2))) {
		if (n == 2 && strrchr(done, '/'))
			*strrchr(done, '/') = '\0';
		return 0;
	}
	strcpy(t->full, done);
	if (path_push(t->full, comp, n)) {
		err("cannot write %s: %s (give a shorter path)", path, log__errstr(ENAMETOOLONG));
		return -1;
	}
	if (lstat(t->full, &t->st)) {
		if (errno == ENOENT && last) {
			t->kind = T_NEW;
			return split(path, t) ? -1 : 2;
		}
		err("cannot write %s: %s (%s)", path, log__errstr(errno), where_hint);
		return -1;
	}
	if (S_ISLNK(t->st.st_mode)) {
		if (++*hops > MAX_HOPS) {
			err("cannot write %s: %s (%s)", path, log__errstr(ELOOP), where_hint);
			return -1;
		}
		r = follow(path, t, done, todo, *p, comp, n);
		if (r == 1)
			t->kind = T_MAGIC;
		if (!r)
			*p = todo;
		return r ? (r < 0 ? -1 : 2) : 0;
	}
	if (!last && !S_ISDIR(t->st.st_mode)) {
		err("cannot write %s: %s (%s)", path, log__errstr(ENOTDIR), where_hint);
		return -1;
	}
	strcpy(done, t->full);
	return 0;
}

/* Walks path, judging every symlink on the way: 2 when its last component
 * is missing (t->kind T_NEW) or a magic link (T_MAGIC), 1 when every
 * component was walked (t->full is then the path without symlinks, "" for
 * the root), -1 after printing why it must not be written. */
static int walk(const char *path, struct target *t)
{
	char done[PATH_MAX] = "", todo[PATH_MAX];
	const char *p = todo;
	int hops = 0, r;

	if (strlen(path) >= PATH_MAX) {
		err("cannot write %s: %s (give a shorter path)", path, log__errstr(ENAMETOOLONG));
		return -1;
	}
	if (path[0] != '/' && !getcwd(done, sizeof(done))) {
		err("cannot write %s: the current directory: %s (give an absolute path)", path,
		    log__errstr(errno));
		return -1;
	}
	if (!strcmp(done, "/"))
		done[0] = '\0';
	strcpy(todo, path);
	while (!(r = step(path, t, done, todo, &p, &hops)))
		;
	if (r == 1)
		strcpy(t->full, done);
	return r;
}

/* What path leads to, judging every symlink on the way.  0, or -1 after
 * printing why it must not be written. */
static int resolve(const char *path, struct target *t)
{
	int r;

	if (*path && path[strlen(path) - 1] == '/') {
		err("cannot write %s: is a directory (give a file name)", path);
		return -1;
	}
	r = walk(path, t);
	if (r < 0)
		return -1;
	if (r == 2)
		return 0; /* new, or magic */
	/* every component walked: t->full is an existing file */
	if (!*t->full) {
		err("cannot write %s: is a directory (give a file name)", path);
		return -1;
	}
	if (stat(t->full, &t->st)) {
		err("cannot write %s: %s (%s)", path, log__errstr(errno), where_hint);
		return -1;
	}
	return classify(path, t);
}

/* ---- opening ---- */

/* The directory, which has no symlinks: none may appear in it meanwhile.
 * flags: O_PATH, or O_RDONLY to read it. */
static int open_dir(const char *dir, int flags)
{
	struct open_how how = {
		.flags = flags | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	int fd = syscall(SYS_openat2, AT_FDCWD, *dir ? dir : "/", &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS) /* before 5.6 */
		fd = open(*dir ? dir : "/", flags | O_DIRECTORY | O_CLOEXEC);
	return fd;
}

/* n random letters and digits into out (not terminated). */
static void random_alnum(char *out, size_t n)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned counter;
	unsigned char r[16];

	if (n > sizeof(r))
		n = sizeof(r);
	if (getrandom(r, n, GRND_NONBLOCK) != (ssize_t)n) {
		uint64_t v = hash__mix64((uint64_t)time(NULL) ^ (uint64_t)getpid() << 32 ^ ++counter);

		for (size_t i = 0; i < n; i++, v >>= 5)
			r[i] = v;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = alnum[r[i] % (sizeof(alnum) - 1)];
}

/* NAME.tmp.XXXXXX, created new in dirfd with 0666 less the umask. */
static int create_temp(int dirfd, const char *name, char *tmp)
{
	size_t n = strlen(name);
	int fd = -1;

	if (n + TEMP_SUFFIX_LEN > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		memcpy(tmp, name, n);
		memcpy(tmp + n, ".tmp.", 5);
		random_alnum(tmp + n + 5, 6);
		tmp[n + TEMP_SUFFIX_LEN] = '\0';
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

/* The file being replaced keeps its mode, and its owner when we can. */
static void keep_mode(int fd, int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return;
	if (geteuid() == 0 && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(fd, st.st_uid, st.st_gid))
		debug("cannot give %s back to uid %u: %s", name, (unsigned)st.st_uid, log__errstr(errno));
	if (fchmod(fd, st.st_mode & 07777))
		debug("cannot keep the mode of %s: %s", name, log__errstr(errno));
}

static bool quiet(const struct destination *of)
{
	return of->at && of->at->quiet;
}

/* A new temporary file for name in of->dirfd (-1: it could not be
 * opened), as of->f; keep: it takes the mode of the file at name. */
static int open_temp(struct destination *of, const char *name, bool keep)
{
	int fd = of->dirfd >= 0 ? create_temp(of->dirfd, name, of->tmp) : -1;

	if (fd < 0) {
		if (!quiet(of))
			err("cannot write %s: %s (%s)", of->path, log__errstr(errno), where_hint);
		of->tmp[0] = '\0';
		return -1;
	}
	strcpy(of->name, name);
	if (keep)
		keep_mode(fd, of->dirfd, name);
	/* held while we write: destination__sweep leaves locked files alone */
	flock(fd, LOCK_EX | LOCK_NB);
	of->f = fdopen(fd, "w");
	if (!of->f) {
		close(fd);
		unlinkat(of->dirfd, of->tmp, 0);
		of->tmp[0] = '\0';
		if (!quiet(of))
			err("out of memory");
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* STDOUT_FILENO or STDERR_FILENO when st is that file, else -1. */
static int stdio_of(const struct stat *st)
{
	struct stat s;

	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
		if (!fstat(fd, &s) && same_file(&s, st))
			return fd;
	return -1;
}

/* Opens for writing the file behind an O_PATH descriptor, through its
 * /proc/self/fd link, without blocking (a FIFO without a reader fails),
 * then makes writes block.  -1 after printing why. */
static int reopen_write(int pfd, const struct stat *st, const char *path)
{
	char link[64];
	struct stat st2;
	int fd, flags;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", pfd);
	fd = open(link, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENXIO && S_ISFIFO(st->st_mode))
			err("cannot write %s: a FIFO with no reader (start its reader first)", path);
		else
			err("cannot write %s: %s (check its permissions)", path, log__errstr(errno));
		return -1;
	}
	flags = fcntl(fd, F_GETFL);
	if (fstat(fd, &st2) || !same_file(&st2, st) || flags < 0 ||
	    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
		err("cannot write %s: it changed while being opened (try again)", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* An O_PATH descriptor of an in-place target, and what it is now. */
static int pin(struct destination *of, const struct target *t, struct stat *st)
{
	int pfd = -1;

	if (t->kind == T_MAGIC) {
		pfd = open(of->path, O_PATH | O_CLOEXEC);
	} else {
		of->dirfd = open_dir(t->dir, O_PATH);
		if (of->dirfd >= 0)
			pfd = openat(of->dirfd, t->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (pfd < 0 || fstat(pfd, st)) {
		err("cannot write %s: %s (%s)", of->path, log__errstr(errno), where_hint);
		if (pfd >= 0)
			close(pfd);
		return -1;
	}
	return pfd;
}

/*
 * A device or FIFO (T_IN_PLACE), or what a /proc link leads to (T_MAGIC):
 * written where it is.  Through a link, our own stdout or stderr is
 * written through a duplicate, so that a shell's >> and offsets hold (as
 * bash does for /dev/stdout); another regular file from its start.
 */
static int open_in_place(struct destination *of, const struct target *t)
{
	struct stat st;
	int pfd = pin(of, t, &st), fd = -1, own;

	if (pfd < 0)
		return -1;
	own = t->kind == T_MAGIC ? stdio_of(&st) : -1;
	if (own >= 0)
		fd = fcntl(own, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 && !refuse_kind(of->path, st.st_mode)) {
		if (S_ISREG(st.st_mode) && t->kind != T_MAGIC)
			err("cannot write %s: it changed while being opened (try again)", of->path);
		else if ((fd = reopen_write(pfd, &st, of->path)) >= 0 && S_ISREG(st.st_mode) &&
			 ftruncate(fd, 0))
			debug("cannot truncate %s: %s", of->path, log__errstr(errno));
	}
	close(pfd);
	if (fd < 0)
		return -1;
	of->in_place = true;
	of->f = fdopen(fd, "w");
	if (!of->f) {
		close(fd);
		err("out of memory");
		return -1;
	}
	return 0;
}

/* -1, the directory closed: an open that failed. */
static int close_dir(struct destination *of)
{
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	return -1;
}

int destination__open(struct destination *of, const char *path)
{
	struct target t;
	int rc;

	memset(of, 0, sizeof(*of));
	of->dirfd = -1;
	of->path = path;
	if (resolve(path, &t))
		return -1;
	if (t.kind == T_NEW || t.kind == T_REGULAR) {
		of->dirfd = open_dir(t.dir, O_PATH);
		rc = open_temp(of, t.name, t.kind == T_REGULAR);
	} else {
		rc = open_in_place(of, &t);
	}
	return rc ? close_dir(of) : 0;
}

int destination__open_at(struct destination *of, struct destination_dir *at, const char *path)
{
	memset(of, 0, sizeof(*of));
	of->path = path;
	of->at = at;
	at->given[0] = '\0';
	of->dirfd = fcntl(at->dirfd, F_DUPFD_CLOEXEC, 3);
	return open_temp(of, at->name, false) ? close_dir(of) : 0;
}

/* Creates the missing last component t->name of a directory path in
 * t->dir, and opens it; -1 after printing why. */
static int make_dir(const char *path, const struct target *t)
{
	int pfd = open_dir(t->dir, O_PATH), fd = -1;

	if (pfd >= 0 && (!mkdirat(pfd, t->name, 0755) || errno == EEXIST))
		fd = openat(pfd, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		err("cannot create %s: %s (check the parent directory)", path, log__errstr(errno));
	if (pfd >= 0)
		close(pfd);
	return fd;
}

int destination__open_dir(const char *path)
{
	struct target t;
	int r = walk(path, &t), fd;

	if (r < 0)
		return -1;
	if (r == 2 && t.kind == T_MAGIC) {
		err("will not write in %s: it leads through a /proc link (give the directory's own path)",
		    path);
		return -1;
	}
	if (r == 2)
		return make_dir(path, &t);
	fd = open_dir(t.full, O_RDONLY);
	if (fd < 0)
		err("cannot write in %s: %s (give a writable directory)", path, log__errstr(errno));
	return fd;
}

static const char *close_hint(int e)
{
	switch (e) {
	case ENOSPC:
	case EDQUOT:
	case EFBIG: return "check free space";
	case EPIPE: return "its reader went away";
	case EEXIST: return "another user's files stand at the names tried: remove them, or write where only you can";
	default: return "check the file system";
	}
}

static const char *kind_name(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISDIR(m) ? "directory" : S_ISLNK(m) ? "symlink" :
	       S_ISFIFO(m) ? "fifo" : S_ISSOCK(m) ? "socket" : "device";
}

/* Links the file from to the name to in dirfd, where nothing may stand:
 * 0, or an errno (EEXIST: the name is taken). */
static int link_new(int dirfd, const char *from, const char *to)
{
	if (!renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return errno;
	/* a file system without RENAME_NOREPLACE: a link is refused alike */
	if (linkat(dirfd, from, dirfd, to, 0))
		return errno;
	unlinkat(dirfd, from, 0);
	return 0;
}

/* The index's way: over our own regular file or nothing, never over
 * another user's node (in a sticky directory root could, and would
 * delete it). */
static int replace_own(struct destination *of)
{
	struct stat st;

	if (!fstatat(of->dirfd, of->at->name, &st, AT_SYMLINK_NOFOLLOW) &&
	    (!S_ISREG(st.st_mode) || st.st_uid != geteuid()))
		return EEXIST;
	if (renameat(of->dirfd, of->tmp, of->dirfd, of->at->name))
		return errno;
	strcpy(of->at->given, of->at->name);
	return 0;
}

#define TAG_TRIES 8 /* random tags, when a profile's name is taken */

/* Gives the written temporary file its name (struct destination_dir): 0, or an
 * errno. */
static int place(struct destination *of)
{
	struct destination_dir *at = of->at;
	size_t n = strlen(at->name);
	struct stat st;
	int e;

	if (at->replace)
		return replace_own(of);
	if (n + OUTFILE_TAG_LEN >= sizeof(at->given) || at->tag_at > n)
		return ENAMETOOLONG;
	e = link_new(of->dirfd, of->tmp, at->name);
	if (e != EEXIST) {
		if (!e)
			strcpy(at->given, at->name);
		return e;
	}
	for (int tries = 0; e == EEXIST && tries < TAG_TRIES; tries++) {
		memcpy(at->given, at->name, at->tag_at);
		at->given[at->tag_at] = '-';
		random_alnum(at->given + at->tag_at + 1, OUTFILE_TAG_LEN - 1);
		strcpy(at->given + at->tag_at + OUTFILE_TAG_LEN, at->name + at->tag_at);
		e = link_new(of->dirfd, of->tmp, at->given);
	}
	if (e) {
		at->given[0] = '\0';
		return e;
	}
	if (!fstatat(of->dirfd, at->name, &st, AT_SYMLINK_NOFOLLOW))
		warn("%s is taken by a %s of uid %u, which another user may have planted: written as %s",
		     of->path, kind_name(st.st_mode), (unsigned)st.st_uid, at->given);
	return 0;
}

int destination__close(struct destination *of, int e)
{
	errno = 0;
	if (!e && fflush(of->f))
		e = errno ? errno : EIO;
	if (!e && of->at && fstat(fileno(of->f), &of->at->st))
		e = errno;
	errno = 0;
	if (fclose(of->f) && !e)
		e = errno ? errno : EIO;
	of->f = NULL;
	if (!e && of->at)
		e = place(of);
	else if (!e && of->tmp[0] && renameat(of->dirfd, of->tmp, of->dirfd, of->name))
		e = errno;
	if (e && of->tmp[0])
		unlinkat(of->dirfd, of->tmp, 0);
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	if (e && !quiet(of))
		err("cannot write %s: %s (%s)", of->path, log__errstr(e), close_hint(e));
	errno = e;
	return e ? -1 : 0;
}

void destination__abort(struct destination *of)
{
	if (of->f)
		fclose(of->f);
	of->f = NULL;
	if (of->tmp[0])
		unlinkat(of->dirfd, of->tmp, 0);
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
}

/* ---- checking at start, and stale temporary files ---- */

size_t destination__temp_base(const char *name)
{
	size_t n = strlen(name);

	if (n <= TEMP_SUFFIX_LEN || memcmp(name + n - TEMP_SUFFIX_LEN, ".tmp.", 5))
		return 0;
	for (size_t i = n - 6; i < n; i++)
		if (!isalnum((unsigned char)name[i]))
			return 0;
	return n - TEMP_SUFFIX_LEN;
}

/* Nobody writes it: no lock held, and untouched for a while. */
static bool stale(int dirfd, const char *name, const struct stat *st)
{
	struct stat st2;
	bool free_ = false;
	int fd;

	if (time(NULL) - st->st_mtime < OUTFILE_STALE_SECONDS)
		return false;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (!fstat(fd, &st2) && same_file(&st2, st))
		free_ = !flock(fd, LOCK_EX | LOCK_NB);
	close(fd);
	return free_;
}

int destination__sweep(int dirfd, bool (*is_target)(const char *base, size_t len, void *arg),
		   void *arg, uint64_t *live_bytes)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *de;
	struct stat st;
	int removed = 0;
	size_t base, seen = 0;

	if (!d)
		return 0;
	rewinddir(d); /* the duplicate shares dirfd's offset */
	/* bounded: other users may fill a shared directory with names; and
	 * only a file of ours that no other name links to is taken */
	while (seen++ < OUTFILE_SWEEP_ENTRIES && (de = readdir(d))) {
		base = destination__temp_base(de->d_name);
		if (!base || !is_target(de->d_name, base, arg) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid() || st.st_nlink != 1)
			continue;
		if (stale(dirfd, de->d_name, &st) && !unlinkat(dirfd, de->d_name, 0))
			removed++;
		else if (live_bytes)
			*live_bytes += st.st_size;
	}
	closedir(d);
	return removed;
}

static bool same_name(const char *base, size_t len, void *name)
{
	return strlen(name) == len && !memcmp(base, name, len);
}

int destination__check(const char *path)
{
	struct target t;
	int dfd, n;

	if (resolve(path, &t))
		return -1;
	if (t.kind == T_MAGIC) {
		struct destination of = { .path = path, .dirfd = -1 };
		struct stat st;
		int pfd = pin(&of, &t, &st);

		if (pfd < 0)
			return -1;
		close(pfd);
		return stdio_of(&st) >= 0 ? 0 : refuse_kind(path, st.st_mode);
	}
	if (access(t.kind == T_IN_PLACE ? t.full : t.dir, t.kind == T_IN_PLACE ? W_OK : W_OK | X_OK)) {
		err("cannot write %s: %s (%s)", path, log__errstr(errno),
		    t.kind == T_IN_PLACE ? "check its permissions" : where_hint);
		return -1;
	}
	if (t.kind == T_IN_PLACE)
		return 0;
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	n = dfd < 0 ? 0 : destination__sweep(dfd, same_name, t.name, NULL);
	if (n)
		info("removed %d stale temporary file%s beside %s", n, n == 1 ? "" : "s", t.full);
	if (dfd >= 0)
		close(dfd);
	return 0;
}
