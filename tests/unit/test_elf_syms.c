// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for elf_syms: lookups in this test binary (.symtab, PIE) and in
 * the C library (.dynsym only), size semantics with hand-made assembly
 * symbols (zero-size, sized with a gap after it, nested), the in-memory
 * path, and hostile inputs: empty, random, truncated at many lengths, and
 * headers with corrupted fields.  Hostile cases pass when they do not crash.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "unit.h"

/* Symbols with exact, known layouts; hidden so they stay in .symtab only. */
__asm__(".text\n"
	".p2align 4\n"
	".globl t_zs_fn\n.hidden t_zs_fn\n.type t_zs_fn,@function\n"
	"t_zs_fn:\n\tnop\n\tnop\n\tnop\n\tret\n"
	".globl t_zs_next\n.hidden t_zs_next\n.type t_zs_next,@function\n"
	"t_zs_next:\n\tret\n.size t_zs_next, 1\n"
	".p2align 4\n"
	".globl t_sized_fn\n.hidden t_sized_fn\n.type t_sized_fn,@function\n"
	"t_sized_fn:\n\tnop\n\tret\n.size t_sized_fn, 2\n"
	".skip 14, 0xcc\n"
	".globl t_outer_fn\n.hidden t_outer_fn\n.type t_outer_fn,@function\n"
	"t_outer_fn:\n\t.skip 8, 0x90\n"
	".globl t_inner_fn\n.hidden t_inner_fn\n.type t_inner_fn,@function\n"
	"t_inner_fn:\n\t.skip 4, 0x90\n.size t_inner_fn, 4\n"
	"\t.skip 20, 0x90\n\tret\n.size t_outer_fn, 33\n"
	".p2align 4\n");

extern char t_zs_fn[], t_zs_next[], t_sized_fn[], t_outer_fn[], t_inner_fn[];

__attribute__((noipa)) static int target_fn(int x)
{
	volatile int v = x;
	int i;

	for (i = 0; i < 10; i++)
		v += i * x;
	return v;
}

struct self_map {
	uint64_t start, end, pgoff;
	char path[4096];
};

static int find_self_map(uint64_t addr, struct self_map *m)
{
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0, n;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long s, e, off;

		n = 0;
		if (sscanf(line, "%lx-%lx %*4s %lx %*x:%*x %*u %n", &s, &e, &off, &n) < 3 ||
		    !n || addr < s || addr >= e)
			continue;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		line[strcspn(line, "\n")] = '\0';
		snprintf(m->path, sizeof(m->path), "%s", line + n);
		found = 1;
	}
	fclose(f);
	return found;
}

/* Opens the file mapped at addr and gives addr's offset in it. */
static struct elf_syms *open_for(const void *addr, uint64_t *off)
{
	struct self_map m;
	struct elf_syms *es;
	int fd;

	if (!find_self_map((uintptr_t)addr, &m))
		return NULL;
	*off = (uintptr_t)addr - m.start + m.pgoff;
	fd = open(m.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	es = elf_syms__open_fd(fd);
	close(fd);
	return es;
}

static const char *lookup(const struct elf_syms *es, const void *base,
			  const void *addr, uint64_t base_off, uint64_t *sym_off)
{
	uint64_t off = base_off + ((uintptr_t)addr - (uintptr_t)base);

	return elf_syms__map_offset(es, off, sym_off, NULL);
}

TEST(self_static_function)
{
	uint64_t off, sym_off = 99, vaddr = 0;
	struct elf_syms *es;
	Dl_info info;

	CHECK(target_fn(2) > 0);
	es = open_for((void *)target_fn, &off);
	CHECK(es != NULL);
	if (!es)
		return;
	CHECK(elf_syms__count(es) > 10);
	CHECK_STR(elf_syms__map_offset(es, off, &sym_off, &vaddr), "target_fn");
	CHECK(sym_off == 0);
	/* A PIE's virtual addresses are relative to its load base. */
	if (dladdr((void *)target_fn, &info) && info.dli_fbase)
		CHECK(vaddr == (uintptr_t)target_fn - (uintptr_t)info.dli_fbase);
	CHECK_STR(elf_syms__map_offset(es, off + 5, &sym_off, NULL), "target_fn");
	CHECK(sym_off == 5);
	elf_syms__free(es);
}

TEST(size_semantics)
{
	uint64_t off, so = 0;
	struct elf_syms *es = open_for(t_zs_fn, &off);

	CHECK(es != NULL);
	if (!es)
		return;
	/* zero size: covers up to the next symbol */
	CHECK_STR(lookup(es, t_zs_fn, t_zs_fn, off, &so), "t_zs_fn");
	CHECK_STR(lookup(es, t_zs_fn, t_zs_fn + 3, off, &so), "t_zs_fn");
	CHECK(so == 3);
	CHECK_STR(lookup(es, t_zs_fn, t_zs_next, off, &so), "t_zs_next");
	CHECK(so == 0);
	/* sized: nothing after its end, up to the next symbol */
	CHECK_STR(lookup(es, t_zs_fn, t_sized_fn + 1, off, NULL), "t_sized_fn");
	CHECK(lookup(es, t_zs_fn, t_sized_fn + 2, off, NULL) == NULL);
	CHECK(lookup(es, t_zs_fn, t_sized_fn + 15, off, NULL) == NULL);
	/* nested: the inner symbol, then the outer one again past it */
	CHECK_STR(lookup(es, t_zs_fn, t_outer_fn + 7, off, NULL), "t_outer_fn");
	CHECK_STR(lookup(es, t_zs_fn, t_inner_fn + 1, off, &so), "t_inner_fn");
	CHECK(so == 1);
	CHECK_STR(lookup(es, t_zs_fn, t_outer_fn + 20, off, &so), "t_outer_fn");
	CHECK(so == 20);
	CHECK_STR(lookup(es, t_zs_fn, t_outer_fn + 32, off, NULL), "t_outer_fn");
	elf_syms__free(es);
}

TEST(libc_dynsym)
{
	/* libc's own definitions, not a sanitizer's interceptors */
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *qs = libc ? dlsym(libc, "qsort") : NULL;
	void *gp = libc ? dlsym(libc, "getppid") : NULL;
	void *pid = libc ? dlsym(libc, "getpid") : NULL;
	struct elf_syms *es;
	uint64_t off, so;
	const char *n;

	CHECK(qs && gp && pid);
	if (libc)
		dlclose(libc);
	if (!qs || !gp || !pid)
		return;
	es = open_for(qs, &off);
	CHECK(es != NULL);
	if (!es)
		return;
	CHECK(elf_syms__count(es) > 500);
	CHECK_STR(lookup(es, qs, qs, off, &so), "qsort");
	CHECK(so == 0);
	CHECK_STR(lookup(es, qs, gp, off, NULL), "getppid");
	/* getpid is a weak alias of the global __getpid: the global wins */
	n = lookup(es, qs, pid, off, NULL);
	CHECK_STR(n, "__getpid");
	elf_syms__free(es);
}

static unsigned char *read_self(size_t *len)
{
	struct stat st;
	unsigned char *buf;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc(st.st_size))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*len = pread(fd, buf, st.st_size, 0);
	close(fd);
	return buf;
}

TEST(in_memory)
{
	uint64_t off;
	struct elf_syms *fes = open_for((void *)target_fn, &off), *mes;
	unsigned char *img;
	size_t len = 0;

	img = read_self(&len);
	CHECK(img && fes);
	if (!img || !fes)
		goto out;
	mes = elf_syms__open_mem(img, len);
	CHECK(mes != NULL);
	CHECK(elf_syms__count(mes) == elf_syms__count(fes));
	CHECK_STR(elf_syms__map_offset(mes, off, NULL, NULL), "target_fn");
	elf_syms__free(mes);
	CHECK(elf_syms__open_mem(NULL, 100) == NULL);
	CHECK(elf_syms__open_mem(img, 10) == NULL);
out:
	free(img);
	elf_syms__free(fes);
}

static int tmp_fd(void)
{
	char path[] = "/tmp/smolder-elf-XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Exercises a possibly hostile table: any answer is fine, a crash is not. */
static int poke(struct elf_syms *es)
{
	uint64_t probes[] = { 0, 1, 0x1000, 0x1234, 0x10000, UINT64_MAX, 1ULL << 63 };
	size_t i;
	int got = 0;

	if (!es)
		return 0;
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const char *n = elf_syms__map_offset(es, probes[i], NULL, NULL);

		got += n && strlen(n) < (1 << 20);
	}
	elf_syms__free(es);
	return 1 + got;
}

static int try_both(int fd, const unsigned char *buf, size_t len)
{
	int r = 0;

	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
		return -1;
	r += poke(elf_syms__open_fd(fd));
	r += poke(elf_syms__open_mem(buf, len));
	return r;
}

TEST(hostile_empty_random_special)
{
	unsigned char buf[8192];
	int fd = tmp_fd(), i;
	char dir[] = "/tmp/smolder-elfdir-XXXXXX", fifo[64];

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(try_both(fd, buf, 0) == 0);
	srandom(1);
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = random();
	CHECK(try_both(fd, buf, sizeof(buf)) == 0);
	/* random bytes behind a valid ELF identification */
	memcpy(buf, ELFMAG "\2\1\1", 7);
	for (i = 0; i < 200; i++) {
		memset(buf + 7, 0, 9);
		*(uint16_t *)(buf + 16) = random() % 4;
		CHECK(try_both(fd, buf, 64 + random() % (sizeof(buf) - 64)) >= 0);
		buf[100 + random() % 8000] = random();
	}
	close(fd);
	/* a FIFO must not block, a directory must not parse */
	CHECK(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0 && elf_syms__open_fd(fd) == NULL);
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && elf_syms__open_fd(fd) == NULL);
	close(fd);
	CHECK(elf_syms__open_fd(-1) == NULL);
	unlink(fifo);
	rmdir(dir);
}

/*
 * The body cut at many lengths but the section headers kept (moved to the
 * cut), so that libelf sees tables whose data lies past the end of the file.
 */
static size_t truncated_sections(int fd, const unsigned char *img, size_t len)
{
	Elf64_Ehdr eh;
	size_t shsz, l, opened = 0;
	unsigned char *buf;
	int r;

	memcpy(&eh, img, sizeof(eh));
	shsz = (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
	if (eh.e_shoff + shsz > len || !(buf = malloc(len + shsz)))
		return 0;
	for (l = sizeof(eh); l < eh.e_shoff; l += l < 8192 ? 61 : 4093) {
		memcpy(buf, img, l);
		memcpy(buf + l, img + eh.e_shoff, shsz);
		((Elf64_Ehdr *)buf)->e_shoff = l;
		r = try_both(fd, buf, l + shsz);
		CHECK(r >= 0);
		opened += r > 0;
	}
	free(buf);
	return opened;
}

TEST(hostile_truncated)
{
	static const size_t odd[] = { 1, 4, 15, 16, 51, 52, 63, 64, 65, 100,
				      1000, 4095, 4097, 12345, 65537 };
	size_t len = 0, l, i, opened = 0;
	unsigned char *img = read_self(&len);
	int fd = tmp_fd(), r;

	CHECK(img && fd >= 0 && len > 4096);
	if (!img || fd < 0)
		goto out;
	for (l = 0; l < len; l += 4096) {
		r = try_both(fd, img, l);
		CHECK(r >= 0);
		opened += r > 0;
	}
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		CHECK(try_both(fd, img, odd[i] < len ? odd[i] : len) >= 0);
		CHECK(try_both(fd, img, len - (odd[i] < len ? odd[i] : 0)) >= 0);
	}
	printf("  %zu of %zu page-multiple truncations opened\n", opened,
	       (len + 4095) / 4096);
	opened = truncated_sections(fd, img, len);
	CHECK(opened > 0);
	printf("  %zu truncations with headers kept opened\n", opened);
out:
	if (fd >= 0)
		close(fd);
	free(img);
}

static const uint64_t evil[] = {
	0, 1, 2, 0x40, 0x1000, 0x7fff, 0xffff, 0x10000, 0x7fffffff, 0xffffffff,
	0x100000000ULL, 0x7fffffffffffffffULL, 0xffffffffffffffffULL,
	0xfffffffffffff000ULL,
};

/* Puts v (truncated to n bytes) at img[at], tries it, restores the bytes. */
static int mutate(int fd, unsigned char *img, size_t len, size_t at, int n,
		  uint64_t v)
{
	unsigned char save[8];
	int r;

	if (at + n > len)
		return 0;
	memcpy(save, img + at, n);
	memcpy(img + at, &v, n);
	r = pwrite(fd, img + at, n, at) == n ? 0 : -1;
	r += poke(elf_syms__open_fd(fd)) >= 0;
	r += poke(elf_syms__open_mem(img, len)) >= 0;
	memcpy(img + at, save, n);
	if (pwrite(fd, img + at, n, at) != n)
		return -1;
	return r;
}

#define FIELD(type, f) offsetof(type, f), (int)sizeof(((type *)0)->f)

TEST(hostile_headers)
{
	static const struct { size_t off; int n; } eh[] = {
		{ FIELD(Elf64_Ehdr, e_phoff) }, { FIELD(Elf64_Ehdr, e_shoff) },
		{ FIELD(Elf64_Ehdr, e_phentsize) }, { FIELD(Elf64_Ehdr, e_phnum) },
		{ FIELD(Elf64_Ehdr, e_shentsize) }, { FIELD(Elf64_Ehdr, e_shnum) },
		{ FIELD(Elf64_Ehdr, e_shstrndx) },
	}, sh[] = {
		{ FIELD(Elf64_Shdr, sh_type) }, { FIELD(Elf64_Shdr, sh_flags) },
		{ FIELD(Elf64_Shdr, sh_offset) }, { FIELD(Elf64_Shdr, sh_size) },
		{ FIELD(Elf64_Shdr, sh_link) }, { FIELD(Elf64_Shdr, sh_entsize) },
		{ FIELD(Elf64_Shdr, sh_name) },
	}, ph[] = {
		{ FIELD(Elf64_Phdr, p_type) }, { FIELD(Elf64_Phdr, p_offset) },
		{ FIELD(Elf64_Phdr, p_vaddr) }, { FIELD(Elf64_Phdr, p_filesz) },
		{ FIELD(Elf64_Phdr, p_memsz) },
	};
	size_t len = 0, i, f, v, runs = 0;
	unsigned char *img = read_self(&len);
	Elf64_Ehdr ehdr;
	int fd = tmp_fd();

	CHECK(img && fd >= 0 && len > sizeof(ehdr));
	if (!img || fd < 0 || pwrite(fd, img, len, 0) != (ssize_t)len)
		goto out;
	memcpy(&ehdr, img, sizeof(ehdr));
	for (f = 0; f < sizeof(eh) / sizeof(eh[0]); f++)
		for (v = 0; v < sizeof(evil) / sizeof(evil[0]); v++, runs++)
			CHECK(mutate(fd, img, len, eh[f].off, eh[f].n, evil[v]) == 2);
	for (i = 0; i < ehdr.e_shnum; i++) {
		size_t base = ehdr.e_shoff + i * sizeof(Elf64_Shdr);

		for (f = 0; f < sizeof(sh) / sizeof(sh[0]); f++)
			for (v = 0; v < sizeof(evil) / sizeof(evil[0]); v++, runs++)
				CHECK(mutate(fd, img, len, base + sh[f].off,
					     sh[f].n, evil[v]) == 2);
	}
	for (i = 0; i < ehdr.e_phnum; i++) {
		size_t base = ehdr.e_phoff + i * sizeof(Elf64_Phdr);

		for (f = 0; f < sizeof(ph) / sizeof(ph[0]); f++)
			for (v = 0; v < sizeof(evil) / sizeof(evil[0]); v++, runs++)
				CHECK(mutate(fd, img, len, base + ph[f].off,
					     ph[f].n, evil[v]) == 2);
	}
	/* random byte flips in the headers */
	srandom(7);
	for (i = 0; i < 400; i++, runs++) {
		size_t at = random() % 64;

		if (i % 2)
			at = ehdr.e_shoff + random() % (ehdr.e_shnum * sizeof(Elf64_Shdr));
		CHECK(mutate(fd, img, len, at, 1, random() & 0xff) == 2);
	}
	printf("  %zu corrupted variants tried\n", runs);
out:
	if (fd >= 0)
		close(fd);
	free(img);
}

/* The few-reads build id (for file identity) is libelf's, on real files,
 * and none for a file that is not ELF. */
TEST(build_id_fd_matches_libelf)
{
	const char *files[] = { "/proc/self/exe", "/lib/x86_64-linux-gnu/libc.so.6",
				"/usr/bin/python3.11", "/etc/hostname" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		unsigned char a[20] = { 0 }, b[20] = { 0 };
		int fd = open(files[i], O_RDONLY);
		struct elf_file *ef;
		size_t na, nb;

		if (fd < 0)
			continue; /* another architecture's path */
		ef = elf_file__open_fd(fd);
		na = ef ? elf_file__build_id(ef, a, sizeof(a)) : 0;
		nb = elf_file__build_id_fd(fd, b, sizeof(b));
		elf_file__close(ef);
		close(fd);
		CHECK(na == nb);
		CHECK(!memcmp(a, b, sizeof(a)));
		CHECK(i == 3 ? nb == 0 : nb == 20);
	}
}

int main(void)
{
	RUN(self_static_function);
	RUN(build_id_fd_matches_libelf);
	RUN(size_semantics);
	RUN(libc_dynsym);
	RUN(in_memory);
	RUN(hostile_empty_random_special);
	RUN(hostile_truncated);
	RUN(hostile_headers);
	UNIT_EXIT();
}
