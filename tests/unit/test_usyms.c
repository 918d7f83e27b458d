// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for usyms, run against this very process and its children:
 * functions of the test binary and of the C library by exact name, heap,
 * stack, anonymous and special mappings, the vDSO, a mapped non-ELF file
 * (live and deleted), a deleted copy of this binary (only reachable through
 * map_files), unmapped addresses, vanished processes, forked children, the
 * cache drop of usyms__forget_pid, and truncation of the output buffer.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "symbols/usyms.h"

#define PAGE 4096

__attribute__((noipa)) int usyms_target_fn(int x)
{
	volatile int v = x;
	int i;

	for (i = 0; i < 10; i++)
		v += i * x;
	return v;
}

static char name_buf[512];

static const char *name_of(struct usyms *u, pid_t pid, const void *addr)
{
	usyms__name(u, pid, 0, (uintptr_t)addr, name_buf, sizeof(name_buf), NULL);
	return name_buf;
}

struct self_map {
	uint64_t start, end, pgoff;
	char path[256];
};

/* Our mapping named exactly want, or (want NULL) the one holding addr. */
static int self_map(uint64_t addr, const char *want, struct self_map *m)
{
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0, n;

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long s, e, off;

		n = 0;
		if (sscanf(line, "%lx-%lx %*4s %lx %*x:%*x %*u %n", &s, &e, &off, &n) < 3 || !n)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (want ? strcmp(line + n, want) : (addr < s || addr >= e))
			continue;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		snprintf(m->path, sizeof(m->path), "%s", line + n);
		found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

static int under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
}

TEST(own_functions)
{
	struct usyms *u = usyms__new();
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	char *fn = (char *)(uintptr_t)usyms_target_fn;

	CHECK(u && libc);
	if (!u || !libc)
		goto out;
	CHECK(usyms_target_fn(3) > 0);
	CHECK_STR(name_of(u, getpid(), fn), "usyms_target_fn");
	CHECK_STR(name_of(u, getpid(), fn + 3), "usyms_target_fn");
	/* libc's own definitions, not a sanitizer's interceptors */
	CHECK_STR(name_of(u, getpid(), dlsym(libc, "qsort")), "qsort");
	CHECK_STR(name_of(u, getpid(), dlsym(libc, "getppid")), "getppid");
	CHECK_STR(name_of(u, getpid(), (char *)dlsym(libc, "getppid") + 2), "getppid");
out:
	if (libc)
		dlclose(libc);
	usyms__free(u);
}

TEST(memory_kinds)
{
	struct usyms *u;
	struct self_map m;
	char *anon;

	free(malloc(100)); /* makes sure the brk heap exists */
	anon = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(anon != MAP_FAILED);
	u = usyms__new();
	CHECK(u != NULL);
	if (!u || anon == MAP_FAILED)
		goto out;
	CHECK_STR(name_of(u, getpid(), anon), "[anon]");
	CHECK_STR(name_of(u, getpid(), anon + 3 * PAGE - 1), "[anon]");
	if (!under_valgrind())
		CHECK_STR(name_of(u, getpid(), __builtin_frame_address(0)), "[stack]");
	if (self_map(0, "[heap]", &m)) {
		CHECK_STR(name_of(u, getpid(), (void *)m.start), "[heap]");
		CHECK_STR(name_of(u, getpid(), (void *)(m.end - 1)), "[heap]");
	} else {
		printf("  no [heap] mapping (sanitizer or valgrind allocator)\n");
	}
	if (self_map(0, "[vvar]", &m))
		CHECK_STR(name_of(u, getpid(), (void *)m.start), "[vvar]");
out:
	usyms__free(u);
	if (anon != MAP_FAILED)
		munmap(anon, 3 * PAGE);
}

TEST(vdso)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct usyms *u;
	void *h, *fn;

	if (!base) {
		printf("  skipped: no vDSO\n");
		return;
	}
	u = usyms__new();
	CHECK(u != NULL);
	if (!u)
		return;
	/* the ELF header is not inside any function */
	CHECK_STR(name_of(u, getpid(), (void *)base), "[vdso+0x0]");
	CHECK_STR(name_of(u, getpid(), (void *)(base + 0x10)), "[vdso+0x10]");
	h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	fn = h ? dlsym(h, "__vdso_clock_gettime") : NULL;
	CHECK(fn != NULL);
	if (fn) {
		const char *n = name_of(u, getpid(), fn);

		CHECK(!strcmp(n, "__vdso_clock_gettime") || !strcmp(n, "clock_gettime"));
	}
	if (h)
		dlclose(h);
	usyms__free(u);
}

static int make_file(char *path, size_t size)
{
	char page[PAGE];
	size_t i;
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	memset(page, 'x', sizeof(page));
	memcpy(page, "not an ELF file", 15);
	for (i = 0; i < size; i += PAGE)
		if (write(fd, page, PAGE) != PAGE)
			return -1;
	return fd;
}

TEST(non_elf_file)
{
	char path[] = "/tmp/smolder-usyms-XXXXXX", want[128];
	struct usyms *u = NULL;
	char *p = MAP_FAILED;
	int fd = make_file(path, 3 * PAGE);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE, fd, PAGE);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		goto out;
	snprintf(want, sizeof(want), "[%s+0x1123]", path + 5);
	u = usyms__new();
	CHECK_STR(name_of(u, getpid(), p + 0x123), want);
	snprintf(want, sizeof(want), "[%s+0x2fff]", path + 5);
	CHECK_STR(name_of(u, getpid(), p + 2 * PAGE - 1), want);
	usyms__free(u);

	/* deleted: the name loses " (deleted)", the offset stays right */
	unlink(path);
	u = usyms__new();
	snprintf(want, sizeof(want), "[%s+0x1000]", path + 5);
	CHECK_STR(name_of(u, getpid(), p), want);
out:
	usyms__free(u);
	if (p != MAP_FAILED)
		munmap(p, 2 * PAGE);
	unlink(path);
	close(fd);
}

/* A deleted copy of this binary: only /proc/PID/map_files still reaches it. */
TEST(deleted_elf_copy)
{
	char path[] = "/tmp/smolder-usyms-elf-XXXXXX", buf[65536];
	uintptr_t fn = (uintptr_t)usyms_target_fn;
	int in = open("/proc/self/exe", O_RDONLY), out = mkstemp(path);
	struct usyms *u = NULL;
	uint64_t off, aligned;
	char *p = MAP_FAILED;
	struct self_map m;
	ssize_t n;

	CHECK(in >= 0 && out >= 0 && self_map(fn, NULL, &m));
	if (in < 0 || out < 0 || !self_map(fn, NULL, &m))
		goto out;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CHECK(write(out, buf, n) == n);
	off = fn - m.start + m.pgoff;
	aligned = off & ~(uint64_t)(PAGE - 1);
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE, out, aligned);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		goto out;
	unlink(path);
	snprintf(buf, sizeof(buf), "/proc/self/map_files/%lx-%lx",
		 (unsigned long)p, (unsigned long)(p + 2 * PAGE));
	n = open(buf, O_RDONLY);
	if (n < 0) {
		printf("  skipped: no access to map_files (needs CAP_SYS_ADMIN)\n");
		goto out;
	}
	close(n);
	u = usyms__new();
	CHECK_STR(name_of(u, getpid(), p + (off - aligned)), "usyms_target_fn");
out:
	usyms__free(u);
	if (p != MAP_FAILED)
		munmap(p, 2 * PAGE);
	unlink(path);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

TEST(unknown_and_gone)
{
	struct usyms *u = usyms__new();
	size_t n;

	CHECK(u != NULL);
	if (!u)
		return;
	CHECK_STR(name_of(u, getpid(), (void *)0x10), "[unknown]");
	CHECK_STR(name_of(u, 2147483640, (void *)(uintptr_t)usyms_target_fn), "[unknown]");
	CHECK_STR(name_of(u, 2147483640, (void *)0x10), "[unknown]");
	CHECK_STR(name_of(u, -1, (void *)0x10), "[unknown]");
	usyms__forget_pid(u, 2147483640);
	usyms__forget_pid(u, 12345678);

	/* the output is truncated, NUL-terminated, and its length returned */
	memset(name_buf, '#', sizeof(name_buf));
	n = usyms__name(u, getpid(), 0, 0x10, name_buf, 5, NULL);
	CHECK(n == 4);
	CHECK_STR(name_buf, "[unk");
	n = usyms__name(u, getpid(), 0, 0x10, name_buf, 1, NULL);
	CHECK(n == 0 && name_buf[0] == '\0');
	name_buf[0] = '#';
	CHECK(usyms__name(u, getpid(), 0, 0x10, name_buf, 0, NULL) == 0 && name_buf[0] == '#');
	n = usyms__name(u, getpid(), 0, 0x10, name_buf, sizeof(name_buf), NULL);
	CHECK(n == 9);
	usyms__free(u);
	usyms__free(NULL);
}

/* Other processes: forked children share our binary (one cached parse). */
TEST(children_and_forget)
{
	char *fn = (char *)(uintptr_t)usyms_target_fn;
	struct usyms *u = usyms__new();
	pid_t kids[3];
	int i, nkids = 0;

	CHECK(u != NULL);
	for (i = 0; u && i < 3; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			pause();
			_exit(0);
		}
		if (kids[i] > 0)
			nkids++;
	}
	CHECK(nkids == 3);
	for (i = 0; i < nkids; i++)
		CHECK_STR(name_of(u, kids[i], fn + 1), "usyms_target_fn");
	for (i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	/* cached maps and symbols outlive the process, until forgotten */
	for (i = 0; i < nkids; i++) {
		CHECK_STR(name_of(u, kids[i], fn), "usyms_target_fn");
		usyms__forget_pid(u, kids[i]);
		CHECK_STR(name_of(u, kids[i], fn), "[unknown]");
	}
	usyms__free(u);
}

TEST(forget_reloads_maps)
{
	struct usyms *u = usyms__new();
	char *anon;

	CHECK(u != NULL);
	if (!u)
		return;
	CHECK_STR(name_of(u, getpid(), (void *)(uintptr_t)usyms_target_fn),
		  "usyms_target_fn");
	anon = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(anon != MAP_FAILED);
	if (anon != MAP_FAILED) {
		usyms__forget_pid(u, getpid());
		CHECK_STR(name_of(u, getpid(), anon), "[anon]");
		munmap(anon, PAGE);
	}
	usyms__free(u);
}

int main(void)
{
	RUN(own_functions);
	RUN(memory_kinds);
	RUN(vdso);
	RUN(non_elf_file);
	RUN(deleted_elf_copy);
	RUN(unknown_and_gone);
	RUN(children_and_forget);
	RUN(forget_reloads_maps);
	UNIT_EXIT();
}
