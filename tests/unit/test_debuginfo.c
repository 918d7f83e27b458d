// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for debuginfo: stripped programs built at run time (gcc, strip,
 * objcopy, xz, nm) named from their separate debug information found by
 * .gnu_debuglink (beside the file, in .debug/, under ROOT/usr/lib/debug),
 * by build ID (a plain file, a symlink resolved inside the root), and from
 * MiniDebugInfo (.gnu_debugdata); the order of those sources; debug files
 * whose sections are compressed, and one whose .symtab and .strtab are
 * (crafted here, the tools never compress them); and refusals: wrong CRC,
 * wrong build ID, no path, debuglink names that leave their directory.
 * Hostile cases (truncated and mutated debug files, compression headers
 * that lie, garbage and truncated xz streams, an xz stream that expands to
 * 320 MiB) pass when they give no extra names without crashing or hanging.
 * The unwind tables' lookup (debuginfo__open_file) stops reading a huge
 * candidate once its budget is cancelled.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "files/debuginfo.h"
#include "files/elf_syms.h"
#include "unit.h"
#include "unit_sh.h"

#define BOMB_MIB 320
#define DD_ROOM (512 << 10)

static const char prog_src[] =
	"__attribute__((noinline)) static int s_alpha(int x)\n"
	"{ volatile int v = x; return v * 3; }\n"
	"__attribute__((noinline)) static int s_beta(int x)\n"
	"{ volatile int v = x; return v + s_alpha(x); }\n"
	"__attribute__((noinline)) int g_gamma(int x)\n"
	"{ volatile int v = x; return v - s_beta(x); }\n"
	"int main(int argc, char **argv)\n"
	"{ (void)argv; return g_gamma(argc) & OTHER; }\n";

static const char *const names[] = { "s_alpha", "s_beta", "g_gamma" };
#define NR_NAMES (sizeof(names) / sizeof(names[0]))

static char dir[] = "/tmp/smolder-dbg-XXXXXX";
static int fixtures_ok;
static char build_id_rel[256]; /* usr/lib/debug/.build-id/xx/rest.debug */

/* Paths handed out by P, freed at the end. */
static struct path_buf {
	struct path_buf *next;
	char s[];
} *paths;

/* A path under the test directory, valid until the end of the run. */
static const char *P(const char *fmt, ...)
{
	struct path_buf *b = malloc(sizeof(*b) + 4096);
	va_list ap;
	int n;

	if (!b)
		abort();
	n = snprintf(b->s, 4096, "%s/", dir);
	va_start(ap, fmt);
	vsnprintf(b->s + n, 4096 - n, fmt, ap);
	va_end(ap);
	b->next = paths;
	paths = b;
	return b->s;
}

static void free_paths(void)
{
	struct path_buf *b;

	while ((b = paths)) {
		paths = b->next;
		free(b);
	}
}

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *b = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && !fstat(fd, &st) && (b = malloc(st.st_size + 1)) &&
	    pread(fd, b, st.st_size, 0) != st.st_size) {
		free(b);
		b = NULL;
	}
	if (b)
		*len = st.st_size;
	if (fd >= 0)
		close(fd);
	return b;
}

static int spill(const char *path, const void *b, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ok = fd >= 0 && write(fd, b, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* The vaddr of a .symtab symbol, read with libelf from the unstripped file. */
static uint64_t sym_vaddr(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	uint64_t v = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i;

	while (elf && !v && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize && !v; i++)
			if (gelf_getsym(d, i, &sym) &&
			    !strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), name))
				v = sym.st_value;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return v;
}

/* The file offset of vaddr in path, through its PT_LOAD headers. */
static uint64_t vaddr_off(const char *path, uint64_t vaddr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	uint64_t off = UINT64_MAX;
	size_t i, n = 0;
	GElf_Phdr ph;

	if (elf && elf_getphdrnum(elf, &n))
		n = 0;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
			off = vaddr - ph.p_vaddr + ph.p_offset;
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return off;
}

/* elf_syms__open_debug on file bin with root and path. */
static struct elf_syms *open_debug(const char *bin, const char *root,
				   const char *path)
{
	int fd = open(bin, O_RDONLY | O_CLOEXEC);
	struct elf_syms *es;

	if (fd < 0)
		return NULL;
	es = elf_syms__open_debug(fd, root, path);
	close(fd);
	return es;
}

/*
 * Which of the names (bit i for names[i]) resolve exactly to want[i], at
 * their start and one byte in, in the stripped file bin.
 */
static unsigned int found(const struct elf_syms *es, const char *bin,
			  const char *const want[])
{
	static const char *full;
	unsigned int i, hits = 0;

	if (!full)
		full = P("prog.full");
	for (i = 0; i < NR_NAMES; i++) {
		uint64_t va = sym_vaddr(full, names[i]), got = 0, so = 9;
		uint64_t off = vaddr_off(bin, va);
		const char *n = elf_syms__map_offset(es, off, &so, &got);

		if (!va || off == UINT64_MAX || !n || strcmp(n, want[i]) ||
		    so || got != va)
			continue;
		n = elf_syms__map_offset(es, off + 1, &so, NULL);
		if (n && !strcmp(n, want[i]) && so == 1)
			hits |= 1u << i;
	}
	return hits;
}

/* All three names: the static ones need debug information. */
#define ALL 7u
/* Only g_gamma, which -rdynamic put in .dynsym. */
#define DYNAMIC_ONLY 4u

/* The names found in bin (root, path): ALL, or DYNAMIC_ONLY if all is 0. */
static void expect(const char *bin, const char *root, const char *path,
		   int all)
{
	struct elf_syms *es = open_debug(bin, root, path);

	CHECK(es != NULL);
	CHECK(found(es, bin, names) == (all ? ALL : DYNAMIC_ONLY));
	elf_syms__free(es);
}

static int build_fixtures(void)
{
	/* other.*: another build, so another CRC and build ID */
	if (spill(P("prog.c"), prog_src, sizeof(prog_src) - 1) ||
	    sh("gcc -O1 -g -rdynamic -Wl,--build-id=sha1 -DOTHER=1 prog.c -o prog.full") ||
	    sh("gcc -O1 -g -rdynamic -Wl,--build-id=sha1 -DOTHER=3 prog.c -o other.full") ||
	    sh("objcopy --only-keep-debug prog.full prog.debug") ||
	    sh("objcopy --only-keep-debug other.full other.debug") ||
	    sh("strip -o prog.stripped prog.full"))
		return -1;
	/* MiniDebugInfo as Fedora makes it: functions not already dynamic */
	if (sh("nm -D prog.full --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms && "
	       "nm prog.debug --format=sysv --defined-only | awk -F '|' '{ if ($4 ~ \"FUNC\") print $1 }' | "
	       "sed 's/ *$//' | sort > funcsyms && comm -13 dynsyms funcsyms > keep && "
	       "objcopy -S --remove-section .gdb_index --remove-section .comment "
	       "--keep-symbols=keep prog.debug mini && xz -k mini") ||
	    sh("head -c %d /dev/zero > room && objcopy --add-section .gnu_debugdata=room "
	       "prog.stripped prog.room", DD_ROOM) ||
	    sh("head -c %dM /dev/zero | xz -T1 --lzma2=preset=0,mf=hc3,nice=273,mode=fast > bomb.xz",
	       BOMB_MIB))
		return -1;
	return 0;
}

/* ROOT/usr/lib/debug/.build-id/xx/rest.debug for prog, from readelf. */
static int read_build_id(void)
{
	char cmd[4200], id[200] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s/prog.full' | awk '/Build ID:/ { print $3 }'", dir);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(id, sizeof(id), f))
		id[0] = '\0';
	pclose(f);
	id[strcspn(id, "\n")] = '\0';
	if (strlen(id) != 40)
		return -1;
	snprintf(build_id_rel, sizeof(build_id_rel),
		 "usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	return 0;
}

/* Puts debug file src (a fixture name) at build ID path of fresh root r. */
static const char *root_with(const char *r, const char *src)
{
	if (sh("rm -rf %s && mkdir -p %s/$(dirname %s) && cp %s %s/%s", r, r,
	       build_id_rel, src, r, build_id_rel))
		return NULL;
	return P("%s", r);
}

TEST(fixtures_built)
{
	CHECK(fixtures_ok);
	CHECK(sym_vaddr(P("prog.full"), "s_alpha") != 0);
	/* stripped: no names without debug information */
	expect(P("prog.stripped"), "", NULL, 0);
}

TEST(debuglink_beside_file)
{
	CHECK(!sh("mkdir -p t1 && cp prog.debug t1/ && "
		  "objcopy --add-gnu-debuglink=t1/prog.debug prog.stripped t1/prog"));
	expect(P("t1/prog"), "", P("t1/prog"), 1);
	expect(P("t1/prog"), NULL, P("t1/prog"), 1);
	/* path NULL: only sources inside the file and by build ID */
	expect(P("t1/prog"), "", NULL, 0);
}

TEST(debuglink_dot_debug)
{
	CHECK(!sh("mkdir -p t2/.debug && cp prog.debug t2/.debug/ && "
		  "objcopy --add-gnu-debuglink=t2/.debug/prog.debug prog.stripped t2/prog"));
	expect(P("t2/prog"), "", P("t2/prog"), 1);
}

TEST(debuglink_usr_lib_debug)
{
	const char *root = P("t3/root");

	CHECK(!sh("mkdir -p t3/root/opt/app t3/root/usr/lib/debug/opt/app "
		  "t3/root/opt/x t3/root/usr/lib/debug/opt/x && "
		  "cp prog.debug t3/root/usr/lib/debug/opt/app/ && "
		  "objcopy --add-gnu-debuglink=prog.debug prog.stripped t3/root/opt/app/prog"));
	expect(P("t3/root/opt/app/prog"), root, "/opt/app/prog", 1);
	/* the same path outside the root is not searched */
	expect(P("t3/root/opt/app/prog"), "", "/opt/app/prog", 0);
	/* a path with a "." or ".." component is refused (x exists) */
	expect(P("t3/root/opt/app/prog"), root, "/opt/x/../app/prog", 0);
	expect(P("t3/root/opt/app/prog"), root, "/opt/./app/prog", 0);
}

TEST(debuglink_crc_mismatch)
{
	CHECK(!sh("mkdir -p t4 && cp prog.debug t4/ && "
		  "objcopy --add-gnu-debuglink=t4/prog.debug prog.stripped t4/prog"));
	expect(P("t4/prog"), "", P("t4/prog"), 1);
	/* another build's debug file under the linked name */
	CHECK(!sh("cp other.debug t4/prog.debug"));
	expect(P("t4/prog"), "", P("t4/prog"), 0);
	/* the right one with a byte more */
	CHECK(!sh("cp prog.debug t4/prog.debug && printf x >> t4/prog.debug"));
	expect(P("t4/prog"), "", P("t4/prog"), 0);
	/* not a regular file: a FIFO must not block, a directory not parse */
	CHECK(!sh("rm t4/prog.debug && mkfifo t4/prog.debug && mkdir -p t4/.debug/prog.debug"));
	expect(P("t4/prog"), "", P("t4/prog"), 0);
}

/* Writes a .gnu_debuglink section naming name with prog.debug's CRC. */
static int link_named(const char *bin, const char *name)
{
	unsigned char sec[256] = { 0 }, *dbg;
	size_t len, at = (strlen(name) + 4) & ~(size_t)3;
	uint32_t crc;

	dbg = slurp(P("prog.debug"), &len);
	if (!dbg || at + 4 > sizeof(sec))
		return -1;
	crc = crc32(0, dbg, len);
	free(dbg);
	memcpy(sec, name, strlen(name));
	memcpy(sec + at, &crc, 4); /* the file's byte order: little endian */
	if (spill(P("t5/link"), sec, at + 4))
		return -1;
	return sh("objcopy --add-section .gnu_debuglink=t5/link prog.stripped %s", bin);
}

TEST(debuglink_names_stay_in_directory)
{
	CHECK(!sh("mkdir -p t5/sub/d && cp prog.debug t5/ && cp prog.debug t5/sub/d/"));
	/* sanity: the crafted section works with a plain name */
	CHECK(!sh("cp prog.debug t5/sub/"));
	CHECK(!link_named(P("t5/sub/plain"), "prog.debug"));
	expect(P("t5/sub/plain"), "", P("t5/sub/plain"), 1);
	CHECK(!sh("rm t5/sub/prog.debug"));
	CHECK(!link_named(P("t5/sub/up"), "../prog.debug"));
	expect(P("t5/sub/up"), "", P("t5/sub/up"), 0);
	CHECK(!link_named(P("t5/sub/down"), "d/prog.debug"));
	expect(P("t5/sub/down"), "", P("t5/sub/down"), 0);
	CHECK(!link_named(P("t5/sub/dots"), ".."));
	expect(P("t5/sub/dots"), "", P("t5/sub/dots"), 0);
	CHECK(!link_named(P("t5/sub/abs"), "/tmp/prog.debug"));
	expect(P("t5/sub/abs"), "", P("t5/sub/abs"), 0);
}

/* Copies in to out without section headers, as sstrip leaves files. */
static int drop_section_headers(const char *in, const char *out)
{
	size_t len = 0;
	unsigned char *img = slurp(in, &len);
	Elf64_Ehdr eh;
	int ret = -1;

	if (img && len > sizeof(eh)) {
		memcpy(&eh, img, sizeof(eh));
		eh.e_shoff = 0;
		eh.e_shnum = 0;
		eh.e_shstrndx = 0;
		memcpy(img, &eh, sizeof(eh));
		ret = spill(out, img, len);
	}
	free(img);
	return ret;
}

TEST(build_id)
{
	unsigned char id[64] = { 0 };
	const char *root = root_with("t6", "prog.debug");
	struct elf_file *f;
	char hex[3];
	int fd;

	CHECK(root != NULL);
	expect(P("prog.stripped"), root, NULL, 1);
	expect(P("prog.stripped"), root, "/usr/bin/prog", 1);
	/* our reading of the note agrees with readelf's */
	fd = open(P("prog.stripped"), O_RDONLY | O_CLOEXEC);
	f = elf_file__open_fd(fd);
	CHECK(f && elf_file__build_id(f, id, sizeof(id)) == 20);
	snprintf(hex, sizeof(hex), "%02x", id[0]);
	CHECK(!strncmp(build_id_rel + strlen("usr/lib/debug/.build-id/"), hex, 2));
	elf_file__close(f);
	close(fd);
	/* not under another root */
	expect(P("prog.stripped"), P("t6/usr"), NULL, 0);
	/* no section headers at all: the note comes from PT_NOTE */
	CHECK(!drop_section_headers(P("prog.stripped"), P("t6/noshdr")));
	expect(P("t6/noshdr"), root, NULL, 1);
}

TEST(build_id_mismatch)
{
	const char *root = root_with("t7", "other.debug");

	CHECK(root != NULL);
	expect(P("prog.stripped"), root, NULL, 0);
	/* a directory or a FIFO at the build ID path */
	CHECK(!sh("rm t7/%s && mkfifo t7/%s", build_id_rel, build_id_rel));
	expect(P("prog.stripped"), root, NULL, 0);
	CHECK(!sh("rm t7/%s && mkdir t7/%s", build_id_rel, build_id_rel));
	expect(P("prog.stripped"), root, NULL, 0);
}

static int have_openat2(void)
{
#ifdef SYS_openat2
	long r = syscall(SYS_openat2, -1, "", NULL, 0);

	return !(r < 0 && errno == ENOSYS);
#else
	return 0;
#endif
}

TEST(build_id_symlinks_inside_root)
{
	const char *root = root_with("t8", "prog.debug");

	CHECK(root != NULL);
	/* relative, as Fedora links .build-id to the named debug file */
	CHECK(!sh("mkdir -p t8/usr/lib/debug/opt && mv t8/%s t8/usr/lib/debug/opt/prog.debug && "
		  "ln -s ../../opt/prog.debug t8/%s", build_id_rel, build_id_rel));
	expect(P("prog.stripped"), root, NULL, 1);
	/* absolute: resolved inside the root, where the host has no such file */
	CHECK(!sh("rm t8/%s && ln -s /usr/lib/debug/opt/prog.debug t8/%s",
		  build_id_rel, build_id_rel));
	if (have_openat2())
		expect(P("prog.stripped"), root, NULL, 1);
	else
		printf("  no openat2: absolute symlinks not followed in root\n");
}

TEST(minidebuginfo)
{
	static const char *const mini_names[] = { "s_alpha", "s_beta", "g_gamma" };
	struct elf_syms *es;

	CHECK(!sh("mkdir -p t9 && objcopy --add-section .gnu_debugdata=mini.xz "
		  "prog.stripped t9/prog"));
	/* g_gamma is dynamic (-rdynamic): it comes from .dynsym, not the mini */
	CHECK(!sh("nm mini | grep -q ' s_alpha$' && ! nm mini | grep -q g_gamma"));
	expect(P("t9/prog"), "", NULL, 1);
	es = open_debug(P("t9/prog"), "", NULL);
	CHECK(found(es, P("t9/prog"), mini_names) == ALL);
	elf_syms__free(es);
	/* elf_syms__open_fd alone reads only the file's own tables */
	es = elf_syms__open_fd(open(P("t9/prog"), O_RDONLY | O_CLOEXEC));
	CHECK(es && found(es, P("t9/prog"), mini_names) == DYNAMIC_ONLY);
	elf_syms__free(es);
}

TEST(source_order)
{
	static const char *const mini[] = { "s_alpha_mini", "s_beta", "g_gamma" };
	static const char *const bid[] = { "s_alpha_bid", "s_beta", "g_gamma" };
	static const char *const link[] = { "s_alpha_link", "s_beta", "g_gamma" };
	const char *root = P("t10/root");
	struct elf_syms *es;

	/* each source names s_alpha its own way */
	CHECK(!sh("mkdir -p t10/root/bin && "
		  "objcopy --redefine-sym s_alpha=s_alpha_mini mini t10/mini && xz t10/mini && "
		  "objcopy --redefine-sym s_alpha=s_alpha_link prog.debug t10/root/bin/prog.debug && "
		  "objcopy --add-gnu-debuglink=t10/root/bin/prog.debug prog.stripped t10/link && "
		  "objcopy --add-section .gnu_debugdata=t10/mini.xz t10/link t10/root/bin/prog"));
	CHECK(!sh("objcopy --redefine-sym s_alpha=s_alpha_bid prog.debug t10/bid.debug && "
		  "mkdir -p t10/root/$(dirname %s) && cp t10/bid.debug t10/root/%s",
		  build_id_rel, build_id_rel));
	es = open_debug(P("t10/root/bin/prog"), root, "/bin/prog");
	CHECK(found(es, P("t10/root/bin/prog"), mini) == ALL);
	elf_syms__free(es);
	/* without the embedded one, build ID comes before the link */
	es = open_debug(P("t10/link"), root, "/bin/prog");
	CHECK(found(es, P("t10/link"), bid) == ALL);
	elf_syms__free(es);
	CHECK(!sh("rm t10/root/%s", build_id_rel));
	es = open_debug(P("t10/link"), root, "/bin/prog");
	CHECK(found(es, P("t10/link"), link) == ALL);
	elf_syms__free(es);
}

static int count_compressed(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (elf && (scn = elf_nextscn(elf, scn)))
		n += gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n;
}

TEST(compressed_debug_sections)
{
	size_t zlen = 0, plen = 0;
	void *zinfo = NULL, *pinfo = NULL;
	struct elf_file *zf, *pf;
	const char *root;
	int zfd, pfd;

	CHECK(!sh("objcopy --only-keep-debug --compress-debug-sections=zlib prog.full prog.zdebug"));
	CHECK(count_compressed(P("prog.zdebug")) > 0);
	root = root_with("t11", "prog.zdebug");
	expect(P("prog.stripped"), root, NULL, 1);
	/* elf_compress under ELF_C_READ: inflated .debug_info equals the plain one */
	zfd = open(P("prog.zdebug"), O_RDONLY | O_CLOEXEC);
	pfd = open(P("prog.debug"), O_RDONLY | O_CLOEXEC);
	zf = elf_file__open_fd(zfd);
	pf = elf_file__open_fd(pfd);
	if (zf && pf) {
		zinfo = elf_file__section(zf, ".debug_info", 1 << 20, &zlen);
		pinfo = elf_file__section(pf, ".debug_info", 1 << 20, &plen);
	}
	CHECK(zinfo && pinfo && zlen == plen && !memcmp(zinfo, pinfo, plen));
	/* over the caller's cap once inflated */
	CHECK(!zf || elf_file__section(zf, ".debug_info", zlen - 1, &plen) == NULL);
	free(zinfo);
	free(pinfo);
	elf_file__close(zf);
	elf_file__close(pf);
	close(zfd);
	close(pfd);
}

struct zsec {
	uint64_t ch_size; /* 0: the true size */
	int garbage;      /* corrupt the zlib stream */
	uint32_t ch_type;
};

/*
 * Copies prog.debug to out with .symtab and .strtab stored SHF_COMPRESSED
 * (an Elf64_Chdr and a zlib stream appended to the file), which is legal
 * ELF that objcopy and ld never produce for these two sections.
 */
static int compress_symtab(const char *out, const struct zsec *z)
{
	unsigned char *img, *grown;
	Elf64_Shdr sh, str;
	const char *name;
	Elf64_Ehdr eh;
	Elf64_Chdr ch;
	size_t len, i, at;
	uLongf zl;
	int ret = -1;

	img = slurp(P("prog.debug"), &len);
	if (!img || len < sizeof(eh))
		goto out;
	memcpy(&eh, img, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(sh) > len)
		goto out;
	memcpy(&str, img + eh.e_shoff + eh.e_shstrndx * sizeof(sh), sizeof(str));
	for (i = 0; i < eh.e_shnum; i++) {
		memcpy(&sh, img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		name = (const char *)img + str.sh_offset + sh.sh_name;
		if (strcmp(name, ".symtab") && strcmp(name, ".strtab"))
			continue;
		zl = compressBound(sh.sh_size);
		at = (len + 7) & ~(size_t)7;
		grown = realloc(img, at + sizeof(ch) + zl);
		if (!grown)
			goto out;
		img = grown;
		memset(img + len, 0, at - len);
		if (compress2(img + at + sizeof(ch), &zl, img + sh.sh_offset,
			      sh.sh_size, 9) != Z_OK)
			goto out;
		ch = (Elf64_Chdr){ .ch_type = z->ch_type,
				   .ch_size = z->ch_size ? z->ch_size : sh.sh_size,
				   .ch_addralign = sh.sh_addralign ? sh.sh_addralign : 1 };
		memcpy(img + at, &ch, sizeof(ch));
		if (z->garbage)
			memset(img + at + sizeof(ch) + zl / 2, 0x5a, zl - zl / 2);
		sh.sh_offset = at;
		sh.sh_size = sizeof(ch) + zl;
		sh.sh_flags |= SHF_COMPRESSED;
		sh.sh_addralign = 8;
		memcpy(img + eh.e_shoff + i * sizeof(sh), &sh, sizeof(sh));
		len = at + sizeof(ch) + zl;
	}
	ret = spill(out, img, len);
out:
	free(img);
	return ret;
}

TEST(compressed_symtab)
{
	static const struct zsec bad[] = {
		{ .ch_size = 1ULL << 40, .ch_type = ELFCOMPRESS_ZLIB },
		{ .ch_size = 200 << 20, .ch_type = ELFCOMPRESS_ZLIB },
		{ .ch_size = 16, .ch_type = ELFCOMPRESS_ZLIB },
		{ .garbage = 1, .ch_type = ELFCOMPRESS_ZLIB },
		{ .ch_type = 2 /* zstd */ },
		{ .ch_type = 77 },
	};
	const struct zsec good = { .ch_type = ELFCOMPRESS_ZLIB };
	const char *root = root_with("t12", "prog.debug");
	const char *dbg = P("t12/%s", build_id_rel);
	size_t i;

	CHECK(root && !compress_symtab(dbg, &good));
	CHECK(!sh("readelf -SW t12/%s | grep -E ' \\.(symtab|strtab) ' | grep -c ' C ' | grep -qx 2",
		  build_id_rel));
	expect(P("prog.stripped"), root, NULL, 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(!compress_symtab(dbg, &bad[i]));
		expect(P("prog.stripped"), root, NULL, 0);
	}
}

/* Exercises a possibly hostile table: any answer is fine, a crash is not. */
static void poke(struct elf_syms *es)
{
	uint64_t probes[] = { 0, 1, 0x1000, 0x1129, 0x1140, 0x10000, UINT64_MAX };
	size_t i;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const char *n = elf_syms__map_offset(es, probes[i], NULL, NULL);

		CHECK(!n || strlen(n) < 4096);
	}
	elf_syms__free(es);
}

/* Puts the debug file image at t13's build ID path and opens against it. */
static void try_debug_image(const unsigned char *img, size_t len)
{
	if (spill(P("t13/%s", build_id_rel), img, len)) {
		CHECK(0);
		return;
	}
	poke(open_debug(P("prog.stripped"), P("t13"), NULL));
}

TEST(hostile_debug_files)
{
	unsigned char *img, *cut;
	size_t len = 0, l, i, shsz;
	Elf64_Ehdr eh;

	img = slurp(P("prog.debug"), &len);
	CHECK(img && root_with("t13", "prog.debug") && len > sizeof(eh));
	if (!img || len <= sizeof(eh))
		goto out;
	for (l = 0; l < len; l += 13)
		try_debug_image(img, l);
	/* cut bodies with the section headers kept: tables past the end */
	memcpy(&eh, img, sizeof(eh));
	shsz = (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
	cut = malloc(len + shsz);
	for (l = sizeof(eh); cut && eh.e_shoff + shsz <= len && l < eh.e_shoff; l += 29) {
		memcpy(cut, img, l);
		memcpy(cut + l, img + eh.e_shoff, shsz);
		((Elf64_Ehdr *)cut)->e_shoff = l;
		try_debug_image(cut, l + shsz);
	}
	/* a few bytes flipped, many times over */
	srandom(7);
	for (i = 0; cut && i < 1500; i++) {
		int k, flips = 1 + random() % 4;

		memcpy(cut, img, len);
		for (k = 0; k < flips; k++)
			cut[random() % len] = random();
		try_debug_image(cut, len);
	}
	free(cut);
out:
	free(img);
}

/*
 * prog.room is the stripped program with a .gnu_debugdata section of
 * DD_ROOM bytes; this writes payload there, sets the section's size, and
 * opens the result.
 */
static struct elf_syms *open_with_debugdata(const void *payload, size_t plen)
{
	static unsigned char *img;
	static size_t len, sec_at;
	const char *name;
	Elf64_Shdr sh, str;
	Elf64_Ehdr eh;
	size_t i;

	if (!img && (img = slurp(P("prog.room"), &len)) && len > sizeof(eh)) {
		memcpy(&eh, img, sizeof(eh));
		memcpy(&str, img + eh.e_shoff + eh.e_shstrndx * sizeof(sh), sizeof(str));
		for (i = 0; i < eh.e_shnum && !sec_at; i++) {
			memcpy(&sh, img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
			name = (const char *)img + str.sh_offset + sh.sh_name;
			if (!strcmp(name, ".gnu_debugdata") && sh.sh_size == DD_ROOM)
				sec_at = eh.e_shoff + i * sizeof(sh);
		}
	}
	if (!img || !sec_at || plen > DD_ROOM)
		return NULL;
	memcpy(&sh, img + sec_at, sizeof(sh));
	memset(img + sh.sh_offset, 0, DD_ROOM);
	memcpy(img + sh.sh_offset, payload, plen);
	sh.sh_size = plen;
	memcpy(img + sec_at, &sh, sizeof(sh));
	sh.sh_size = DD_ROOM;
	if (spill(P("t14/prog"), img, len))
		return NULL;
	memcpy(img + sec_at, &sh, sizeof(sh));
	return open_debug(P("t14/prog"), "", NULL);
}

static unsigned char *xz_encode(const void *in, size_t len, size_t *out_len)
{
	size_t cap = len + len / 2 + 4096, pos = 0;
	unsigned char *out = malloc(cap);

	if (out && lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, in, len,
					   out, &pos, cap) != LZMA_OK) {
		free(out);
		return NULL;
	}
	*out_len = pos;
	return out;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(hostile_debugdata)
{
	size_t xz_len = 0, mini_len = 0, bomb_len = 0, l, i, zl;
	unsigned char *xz, *mini, *bomb, *tmp, *z;
	struct elf_syms *es;
	double t;

	xz = slurp(P("mini.xz"), &xz_len);
	mini = slurp(P("mini"), &mini_len);
	bomb = slurp(P("bomb.xz"), &bomb_len);
	tmp = malloc(mini_len > xz_len ? mini_len : xz_len);
	CHECK(xz && mini && bomb && tmp && !sh("mkdir -p t14"));
	if (!xz || !mini || !bomb || !tmp)
		goto out;
	/* sanity: the patched section works with the real payload */
	es = open_with_debugdata(xz, xz_len);
	CHECK(es && found(es, P("t14/prog"), names) == ALL);
	elf_syms__free(es);
	/* garbage; xz truncated, xz with bytes flipped */
	srandom(11);
	for (i = 0; i < xz_len; i++)
		tmp[i] = random();
	poke(open_with_debugdata(tmp, xz_len));
	for (l = 1; l < xz_len; l += 7)
		poke(open_with_debugdata(xz, l));
	for (i = 0; i < 300; i++) {
		memcpy(tmp, xz, xz_len);
		tmp[random() % xz_len] ^= 1 << (random() % 8);
		poke(open_with_debugdata(tmp, xz_len));
	}
	/* valid xz around a hostile ELF: random, truncated, mutated */
	for (i = 0; i < 300; i++) {
		memcpy(tmp, mini, mini_len);
		l = i < 100 ? mini_len : 1 + random() % mini_len;
		if (i < 100)
			for (zl = 0; zl < mini_len; zl++)
				tmp[zl] = i < 20 ? (unsigned char)random() : tmp[zl];
		if (i >= 20)
			tmp[random() % l] = random();
		z = xz_encode(tmp, l, &zl);
		CHECK(z != NULL);
		if (z)
			poke(open_with_debugdata(z, zl));
		free(z);
	}
	/* 320 MiB of zeros in ~50 KiB: stopped at the cap, quickly */
	t = now_s();
	es = open_with_debugdata(bomb, bomb_len);
	t = now_s() - t;
	printf("  %u MiB xz stream refused in %.2f s\n", BOMB_MIB, t);
	CHECK(es != NULL && found(es, P("t14/prog"), names) == DYNAMIC_ONLY);
	CHECK(t < 30);
	elf_syms__free(es);
out:
	free(xz);
	free(mini);
	free(bomb);
	free(tmp);
}

TEST(xz_decode_limits)
{
	size_t mini_len = 0, xz_len = 0, bomb_len = 0, out_len = 0;
	unsigned char *mini = slurp(P("mini"), &mini_len);
	unsigned char *xz = slurp(P("mini.xz"), &xz_len);
	unsigned char *bomb = slurp(P("bomb.xz"), &bomb_len);
	unsigned char *out;
	double t;

	CHECK(mini && xz && bomb);
	if (!mini || !xz || !bomb)
		goto out;
	out = debuginfo__xz_decode(xz, xz_len, mini_len, &out_len);
	CHECK(out && out_len == mini_len && !memcmp(out, mini, mini_len));
	free(out);
	/* one byte over the limit */
	CHECK(debuginfo__xz_decode(xz, xz_len, mini_len - 1, &out_len) == NULL);
	CHECK(debuginfo__xz_decode(xz, xz_len - 1, 1 << 20, &out_len) == NULL);
	CHECK(debuginfo__xz_decode(xz, 0, 1 << 20, &out_len) == NULL);
	CHECK(debuginfo__xz_decode(NULL, 10, 1 << 20, &out_len) == NULL);
	CHECK(debuginfo__xz_decode(mini, mini_len, 1 << 20, &out_len) == NULL);
	t = now_s();
	CHECK(debuginfo__xz_decode(bomb, bomb_len, 1 << 20, &out_len) == NULL);
	CHECK(now_s() - t < 5);
out:
	free(mini);
	free(xz);
	free(bomb);
}

TEST(file_crc)
{
	size_t len = 0;
	unsigned char *dbg = slurp(P("prog.debug"), &len);
	uint32_t crc = 0;
	int fd;

	fd = open(P("prog.debug"), O_RDONLY | O_CLOEXEC);
	CHECK(dbg && fd >= 0 && !debuginfo__file_crc(fd, &crc));
	CHECK(dbg && crc == crc32(0, dbg, len));
	close(fd);
	free(dbg);
	CHECK(!sh("mkfifo crc.fifo"));
	fd = open(P("crc.fifo"), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	CHECK(fd >= 0 && debuginfo__file_crc(fd, &crc) == -EINVAL);
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0 && debuginfo__file_crc(fd, &crc) == -EINVAL);
	close(fd);
	CHECK(debuginfo__file_crc(-1, &crc) < 0);
}

/* Bytes this process has read so far (read(2), pread(2): /proc/self/io). */
static unsigned long long bytes_read(void)
{
	unsigned long long n = 0;
	char line[64];
	FILE *f = fopen("/proc/self/io", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %llu", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/*
 * debuginfo__open_file (the unwind tables' lookup) within a budget another
 * thread cancels: a debuglink candidate of 256 MiB (sparse, the wrong CRC,
 * which takes reading it whole to know) is read whole without the cancel,
 * a chunk or two of it with.  Counted in bytes read, not time.
 */
TEST(open_file_cancelled)
{
	atomic_bool cancel = false;
	struct budget b = { .cancel = &cancel };
	unsigned long long before, took;
	struct elf_file *dbg;
	int fd, dfd = -1;

	CHECK(!sh("mkdir -p t9 && cp prog.debug t9/ && "
		  "objcopy --add-gnu-debuglink=t9/prog.debug prog.stripped t9/prog"));
	fd = open(P("t9/prog"), O_RDONLY | O_CLOEXEC);
	dbg = debuginfo__open_file(fd, "", P("t9/prog"), &b, &dfd);
	CHECK(dbg && dfd >= 0); /* found within a budget not cancelled */
	elf_file__close(dbg);
	if (dfd >= 0)
		close(dfd);
	CHECK(!sh("rm t9/prog.debug && truncate -s 256M t9/prog.debug"));
	before = bytes_read();
	CHECK(!debuginfo__open_file(fd, "", P("t9/prog"), &b, &dfd));
	took = bytes_read() - before;
	printf("  not cancelled: %llu KiB read\n", took >> 10);
	CHECK(took >= 256ull << 20);
	cancel = true;
	before = bytes_read();
	CHECK(!debuginfo__open_file(fd, "", P("t9/prog"), &b, &dfd));
	took = bytes_read() - before;
	printf("  cancelled: %llu KiB read\n", took >> 10);
	CHECK(took < 1ull << 20);
	close(fd);
	CHECK(!sh("rm -rf t9"));
}

TEST(bad_arguments)
{
	CHECK(elf_syms__open_debug(-1, "", "/x") == NULL);
	CHECK(elf_syms__open_files(NULL, NULL) == NULL);
	CHECK(elf_file__open_fd(-1) == NULL);
	CHECK(elf_file__open_mem(NULL, 100) == NULL);
	CHECK(elf_file__build_id(NULL, NULL, 0) == 0);
	elf_file__close(NULL);
	/* relative and odd paths, a missing root: no debuglink, no crash */
	expect(P("prog.stripped"), "/nonexistent-root", "prog", 0);
	expect(P("prog.stripped"), "", "", 0);
	expect(P("prog.stripped"), "", "/", 0);
}

int main(void)
{
	elf_version(EV_CURRENT);
	if (!mkdtemp(dir)) {
		printf("FAIL fixtures: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	sh_dir = dir;
	fixtures_ok = !build_fixtures() && !read_build_id();
	RUN(fixtures_built);
	if (fixtures_ok) {
		RUN(debuglink_beside_file);
		RUN(debuglink_dot_debug);
		RUN(debuglink_usr_lib_debug);
		RUN(debuglink_crc_mismatch);
		RUN(debuglink_names_stay_in_directory);
		RUN(build_id);
		RUN(build_id_mismatch);
		RUN(build_id_symlinks_inside_root);
		RUN(minidebuginfo);
		RUN(source_order);
		RUN(compressed_debug_sections);
		RUN(compressed_symtab);
		RUN(hostile_debug_files);
		RUN(hostile_debugdata);
		RUN(xz_decode_limits);
		RUN(file_crc);
		RUN(open_file_cancelled);
		RUN(bad_arguments);
	}
	if (!getenv("SMOLDER_KEEP_TMP"))
		sh("cd / && rm -rf '%s'", dir);
	else
		printf("  fixtures kept in %s\n", dir);
	free_paths();
	UNIT_EXIT();
}
