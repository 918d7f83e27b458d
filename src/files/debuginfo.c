// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Separate debug information: owns elf_syms__open_debug, the search for the
 * symbols a stripped file keeps elsewhere.  Sources are tried in order and
 * the first whose .symtab has functions is merged with the file's own:
 *  1. .gnu_debugdata, an xz-compressed ELF inside the file (MiniDebugInfo);
 *  2. ROOT/usr/lib/debug/.build-id/xx/rest.debug, if its build ID matches;
 *  3. the .gnu_debuglink name in the file's directory, in its .debug/ and
 *     under ROOT/usr/lib/debug, if the CRC-32 of the whole candidate matches.
 * Every other file is the process's own: it is opened through ROOT (its
 * /proc/PID/root), resolved with openat2's RESOLVE_IN_ROOT where the kernel
 * has it so that absolute symlinks stay inside a container too, first
 * O_PATH and only read when it is a regular file (safe_open.h: a symlink
 * to a device or FIFO is never opened).  Inputs are hostile: decompression
 * is capped (and, under a budget, kept within its bytes), names that could
 * leave the directories searched are refused, a debug-link candidate over
 * MAX_CRC_FILE is not read for its CRC (a note says so), and a bad
 * candidate is only "no extra symbols".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#include "files/debuginfo.h"
#include "files/elf_syms.h"
#include "lib/log.h"
#include "files/safe_open.h"

/* .gnu_debugdata: stored and decoded sizes, and xz decoder memory. */
#define MAX_XZ_IN (64u << 20)
#define MAX_XZ_OUT (256u << 20)
#define XZ_MEMLIMIT (80u << 20)
#define XZ_MIN_BUF (64u << 10)
/* A .gnu_debuglink section: a name, padding and a CRC. */
#define MAX_DEBUGLINK 4096
/* A debug file checked by CRC is read whole: no bigger than this. */
#define MAX_CRC_FILE (512ULL << 20)
#define CRC_CHUNK (128u << 10)
#define MAX_BUILD_ID 64
#define DEBUG_DIR "/usr/lib/debug"

struct search {
	struct elf_file *f; /* the mapped file */
	struct stat st;     /* its identity, so it is never its own debug file */
	const char *root;
	int root_fd;        /* root opened O_PATH, for openat2; -1 if not yet */
	bool root_tried;
	const struct budget *b; /* NULL: none */
	int error;          /* E2BIG or ETIMEDOUT once a source hit the budget */
	/* debuginfo__open_file: the debug file found, kept instead of merged */
	bool keep;
	struct elf_file *kept;
	int kept_fd;
};

/* Grows the output of a running decode; false once it would pass max. */
static bool xz_grow(lzma_stream *strm, unsigned char **out, size_t *cap,
		    size_t max)
{
	size_t ncap = *cap < XZ_MIN_BUF / 2 ? XZ_MIN_BUF : *cap * 2;
	unsigned char *p;

	/* max + 1 bytes: a stream that fills them is over the limit. */
	if (*cap > max)
		return false;
	if (ncap > max + 1)
		ncap = max + 1;
	p = realloc(*out, ncap);
	if (!p)
		return false;
	*out = p;
	strm->next_out = p + strm->total_out;
	strm->avail_out = ncap - strm->total_out;
	*cap = ncap;
	return true;
}

void *debuginfo__xz_decode(const void *in, size_t len, size_t max,
			   size_t *out_len)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	unsigned char *out = NULL;
	lzma_ret ret = LZMA_OK;
	size_t cap = 0;

	if (!in || !len || !max || max >= SIZE_MAX / 2 ||
	    lzma_stream_decoder(&strm, XZ_MEMLIMIT, 0) != LZMA_OK)
		return NULL;
	strm.next_in = in;
	strm.avail_in = len;
	while (ret == LZMA_OK) {
		if (!strm.avail_out && !xz_grow(&strm, &out, &cap, max))
			break;
		ret = lzma_code(&strm, LZMA_FINISH);
	}
	lzma_end(&strm);
	if (ret != LZMA_STREAM_END || strm.total_out > max) {
		free(out);
		return NULL;
	}
	*out_len = strm.total_out;
	return out;
}

/* The CRC of fd's st_size bytes, checking b after every chunk. */
static int crc_within(int fd, uint64_t size, uint32_t *crc, const struct budget *b)
{
	unsigned char *buf = malloc(CRC_CHUNK);
	uLong c = crc32(0, NULL, 0);
	uint64_t off = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	while (off < size) {
		n = pread(fd, buf, size - off < CRC_CHUNK ? size - off : CRC_CHUNK, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		c = crc32(c, buf, n);
		off += n;
		if (budget__expired(b)) {
			free(buf);
			return -ETIMEDOUT;
		}
	}
	free(buf);
	if (off != size)
		return -EIO;
	*crc = c;
	return 0;
}

int debuginfo__file_crc(int fd, uint32_t *crc)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > MAX_CRC_FILE)
		return -EFBIG;
	return crc_within(fd, st.st_size, crc, NULL);
}

/* An O_PATH descriptor of the absolute path rel as the process sees it. */
static int candidate_path(struct search *s, const char *rel)
{
	char full[PATH_MAX];
	int pfd = -1, n;

	if (!s->root[0])
		return open(rel, O_PATH | O_CLOEXEC);
	if (!s->root_tried) {
		s->root_tried = true;
		s->root_fd = open(s->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (s->root_fd >= 0)
		pfd = safe_open__in_root(s->root_fd, rel, true);
	if (pfd >= 0 || (s->root_fd >= 0 && errno != EPERM))
		return pfd;
	/*
	 * openat2 refused (a seccomp filter): ".." components were refused
	 * already, but an absolute symlink under root now resolves in our
	 * own namespace.
	 */
	n = snprintf(full, sizeof(full), "%s%s", s->root, rel);
	if (n < 0 || (size_t)n >= sizeof(full))
		return -1;
	return open(full, O_PATH | O_CLOEXEC);
}

/* The regular file at rel, other than the mapped one, opened for reading; -1 if not. */
static int open_candidate(struct search *s, const char *rel, struct stat *st)
{
	int pfd = candidate_path(s, rel), fd;

	if (pfd < 0)
		return -1;
	fd = safe_open__reopen(pfd, st);
	close(pfd);
	if (fd >= 0 && st->st_dev == s->st.st_dev && st->st_ino == s->st.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether the search must stop: out of time, or a signal to act on. */
static bool late(struct search *s)
{
	if (s->error != ETIMEDOUT && budget__expired(s->b))
		s->error = ETIMEDOUT;
	return s->error == ETIMEDOUT;
}

/* Notes why a source failed, when the budget was the reason. */
static struct elf_syms *noted(struct search *s, struct elf_syms *es)
{
	if (!es && (errno == E2BIG || errno == ETIMEDOUT) && s->error != ETIMEDOUT)
		s->error = errno;
	return es;
}

/* Source 1: the xz-compressed ELF image in .gnu_debugdata. */
static struct elf_syms *try_debugdata(struct search *s)
{
	size_t xz_len, len, in_max = MAX_XZ_IN, out_max = MAX_XZ_OUT;
	struct budget rest = s->b ? *s->b : (struct budget){ 0 };
	struct elf_file *mini;
	struct elf_syms *es;
	void *xz, *img;

	/* the image is held while it is read: half the budget each */
	if (rest.max_bytes && rest.max_bytes / 2 < out_max)
		out_max = rest.max_bytes / 2;
	if (out_max < in_max)
		in_max = out_max;
	xz = elf_file__section(s->f, ".gnu_debugdata", in_max, &xz_len);
	if (!xz)
		return NULL;
	img = debuginfo__xz_decode(xz, xz_len, out_max, &len);
	free(xz);
	if (!img) {
		debug("bad .gnu_debugdata in inode %lu", (unsigned long)s->st.st_ino);
		return NULL;
	}
	rest.max_bytes -= rest.max_bytes ? len : 0;
	mini = elf_file__open_mem_within(img, len, s->b ? &rest : NULL);
	if (!mini)
		return noted(s, NULL);
	elf_file__set_budget(s->f, s->b ? &rest : NULL);
	es = noted(s, elf_syms__open_files(s->f, mini));
	elf_file__set_budget(s->f, s->b);
	elf_file__close(mini);
	return es;
}

/*
 * The symbols of the debug file on fd (closed here) merged with the mapped
 * file's, if it adds functions and, when id_len is not 0, has build ID id.
 */
static struct elf_syms *use_file(struct search *s, int fd, const char *rel,
				 const unsigned char *id, size_t id_len)
{
	unsigned char got[MAX_BUILD_ID];
	struct elf_syms *es = NULL;
	struct elf_file *dbg;

	dbg = elf_file__open_fd_within(fd, s->b);
	if (!dbg)
		noted(s, NULL);
	if (dbg && (!id_len || (elf_file__build_id(dbg, got, sizeof(got)) == id_len &&
				!memcmp(got, id, id_len)))) {
		if (s->keep) {
			s->kept = dbg;
			s->kept_fd = fd;
			return NULL;
		}
		es = noted(s, elf_syms__open_files(s->f, dbg));
	}
	elf_file__close(dbg);
	close(fd);
	if (es)
		debug("symbols of inode %lu from %s%s", (unsigned long)s->st.st_ino,
		      s->root, rel);
	return es;
}

/* Source 2: ROOT/usr/lib/debug/.build-id/xx/rest.debug. */
static struct elf_syms *try_build_id(struct search *s)
{
	char rel[sizeof(DEBUG_DIR "/.build-id/xx/.debug") + 2 * MAX_BUILD_ID];
	unsigned char id[MAX_BUILD_ID];
	struct stat st;
	size_t n, i, at;
	int fd;

	n = elf_file__build_id(s->f, id, sizeof(id));
	if (n < 2 || n > sizeof(id))
		return NULL;
	at = snprintf(rel, sizeof(rel), DEBUG_DIR "/.build-id/%02x/", id[0]);
	for (i = 1; i < n; i++)
		at += snprintf(rel + at, sizeof(rel) - at, "%02x", id[i]);
	snprintf(rel + at, sizeof(rel) - at, ".debug");
	fd = open_candidate(s, rel, &st);
	if (fd < 0)
		return NULL;
	return use_file(s, fd, rel, id, n);
}

/* A name that stays in the directory it is looked up in. */
static bool name_safe(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..");
}

/* An absolute path with no "." or ".." component. */
static bool path_safe(const char *path)
{
	const char *p;

	if (path[0] != '/')
		return false;
	for (p = path; (p = strchr(p, '/')); p++) {
		if (p[1] == '.' && (p[2] == '/' || !p[2]))
			return false;
		if (p[1] == '.' && p[2] == '.' && (p[3] == '/' || !p[3]))
			return false;
	}
	return true;
}

/* .gnu_debuglink: a file name, NUL, padding to 4 bytes, the file's CRC-32. */
static bool read_debuglink(struct search *s, char *name, size_t size,
			   uint32_t *crc)
{
	unsigned char *sec, *c;
	size_t len, nlen, at;
	bool ok = false;

	sec = elf_file__section(s->f, ".gnu_debuglink", MAX_DEBUGLINK, &len);
	if (!sec)
		return false;
	nlen = strnlen((char *)sec, len);
	at = (nlen + 4) & ~(size_t)3;
	if (nlen < size && len >= 4 && at <= len - 4 && name_safe((char *)sec)) {
		memcpy(name, sec, nlen + 1);
		c = sec + at;
		if (elf_file__big_endian(s->f))
			*crc = (uint32_t)c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3];
		else
			*crc = (uint32_t)c[3] << 24 | c[2] << 16 | c[1] << 8 | c[0];
		ok = true;
	}
	free(sec);
	return ok;
}

/*
 * Whether the candidate on fd has CRC want, read whole but within limits:
 * one over MAX_CRC_FILE is passed over with a note, and the budget's
 * deadline and signals stop the read.
 */
static bool crc_matches(struct search *s, int fd, const struct stat *st, const char *rel,
			uint32_t want)
{
	uint32_t got;
	int e;

	if ((uint64_t)st->st_size > MAX_CRC_FILE) {
		warn("note: debug file %s%s not used: larger than %llu MiB, too big to check its CRC",
		     s->root, rel, MAX_CRC_FILE >> 20);
		return false;
	}
	e = crc_within(fd, st->st_size, &got, s->b);
	if (e == -ETIMEDOUT)
		s->error = ETIMEDOUT;
	return !e && got == want;
}

/* Source 3: the .gnu_debuglink name beside path, in .debug/, under DEBUG_DIR. */
static struct elf_syms *try_debuglink(struct search *s, const char *path)
{
	static const char *const fmt[] = {
		"%.*s/%s", "%.*s/.debug/%s", DEBUG_DIR "%.*s/%s",
	};
	char name[NAME_MAX + 1], rel[PATH_MAX];
	struct elf_syms *es;
	struct stat st;
	uint32_t want;
	int dir_len, fd, n;
	size_t i;

	if (!path_safe(path) || !read_debuglink(s, name, sizeof(name), &want))
		return NULL;
	dir_len = strrchr(path, '/') - path;
	for (i = 0; i < sizeof(fmt) / sizeof(fmt[0]) && !late(s); i++) {
		n = snprintf(rel, sizeof(rel), fmt[i], dir_len, path, name);
		if (n < 0 || (size_t)n >= sizeof(rel))
			continue;
		fd = open_candidate(s, rel, &st);
		if (fd < 0)
			continue;
		if (!crc_matches(s, fd, &st, rel, want)) {
			close(fd);
			continue;
		}
		/* A CRC match needs no build ID check; use_file closes fd. */
		es = use_file(s, fd, rel, NULL, 0);
		if (es || s->kept)
			return es;
	}
	return NULL;
}

struct elf_syms *elf_syms__open_debug(int fd, const char *root, const char *path)
{
	return elf_syms__open_debug_within(fd, root, path, NULL);
}

struct elf_syms *elf_syms__open_debug_within(int fd, const char *root, const char *path,
					     const struct budget *b)
{
	struct search s = { .root = root ? root : "", .root_fd = -1, .b = b };
	struct elf_syms *es;

	if (fstat(fd, &s.st))
		return NULL;
	s.f = elf_file__open_fd_within(fd, b);
	if (!s.f)
		return NULL;
	es = try_debugdata(&s);
	if (!es && !late(&s))
		es = try_build_id(&s);
	if (!es && path && !late(&s))
		es = try_debuglink(&s, path);
	/* a debug source over the budget: the file's own tables may fit */
	if (!es && !late(&s))
		es = noted(&s, elf_syms__open_files(s.f, NULL));
	if (s.root_fd >= 0)
		close(s.root_fd);
	elf_file__close(s.f);
	if (!es && s.error == ETIMEDOUT)
		errno = ETIMEDOUT;
	return es;
}

struct elf_file *debuginfo__open_file(int fd, const char *root, const char *path,
				      const struct budget *b, int *dbg_fd)
{
	struct search s = { .root = root ? root : "", .root_fd = -1, .keep = true,
			    .kept_fd = -1, .b = b };

	if (fstat(fd, &s.st) || !(s.f = elf_file__open_fd_within(fd, b)))
		return NULL;
	try_build_id(&s);
	if (!s.kept && path && !late(&s))
		try_debuglink(&s, path);
	if (s.root_fd >= 0)
		close(s.root_fd);
	elf_file__close(s.f);
	*dbg_fd = s.kept_fd;
	return s.kept;
}
