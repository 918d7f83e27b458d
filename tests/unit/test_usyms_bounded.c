// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the bounds of usyms in a continuous capture
 * (usyms__end_interval): real child processes, each this binary exec'd
 * again ("child" mode: it says when it is loaded, then waits), are
 * preloaded and named, killed and reaped; images of dead processes must go,
 * live ones stay until idle too long, the symbol cache stays within its
 * limit and re-reads what it evicted, a reused PID never gets another
 * process's names, and memory stays flat over thousands of processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/sched.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "symbols/usyms.h"

#define MAX_GEN_PIDS 8

__attribute__((noipa)) int bounded_target_fn(int x)
{
	volatile int v = x;

	for (int i = 0; i < 10; i++)
		v += i * x;
	return v;
}

static char self_exe[4096];
static uint64_t fn_off; /* file offset of bounded_target_fn in this binary */
static char name_buf[512];

/* The file offset of our own address addr, and the file it is in. */
static int own_offset(uintptr_t addr, uint64_t *off, char *path, size_t len)
{
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0, n;

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long s, e, pgoff;

		n = 0;
		if (sscanf(line, "%lx-%lx %*4s %lx %*x:%*x %*u %n", &s, &e, &pgoff, &n) < 3 ||
		    !n || addr < s || addr >= e)
			continue;
		line[strcspn(line, "\n")] = '\0';
		*off = addr - s + pgoff;
		if (path)
			snprintf(path, len, "%s", line + n);
		found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

/* Where process pid maps file offset off of path (executable mapping), or 0. */
static uint64_t child_addr(pid_t pid, const char *path, uint64_t off)
{
	char line[4352], maps[64];
	uint64_t addr = 0;
	FILE *f;
	int n;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	while (f && !addr && fgets(line, sizeof(line), f)) {
		unsigned long s, e, pgoff;
		char perm[5];

		n = 0;
		if (sscanf(line, "%lx-%lx %4s %lx %*x:%*x %*u %n", &s, &e, perm, &pgoff, &n) < 4 ||
		    !n || perm[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line + n, path) && off >= pgoff && off - pgoff < e - s)
			addr = s + (off - pgoff);
	}
	if (f)
		fclose(f);
	return addr;
}

static const char *name_at(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr)
{
	usyms__name(u, pid, gen, addr, name_buf, sizeof(name_buf), NULL);
	return name_buf;
}

/* Child mode: tell the parent we are loaded (ld.so done), then wait. */
static void child_main(const char *fd)
{
	if (write(atoi(fd), "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/*
 * In a fork()ed or clone3()d child: exec exe in child mode, reporting on
 * the pipe's write end.
 */
static void exec_child(const char *exe, int wfd)
{
	char fdarg[16];

	snprintf(fdarg, sizeof(fdarg), "%d", wfd);
	execl(exe, exe, "child", fdarg, (char *)NULL);
	_exit(127);
}

/* Waits until the child is loaded; its pid, or -1 (reaped) if it failed. */
static pid_t await_child(pid_t pid, int p[2])
{
	char c;

	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/*
 * Starts exe in child mode: its pid once it runs, or -1.  posix_spawn, not
 * fork: memory_flat starts 2,000 children, and a fork's copy of this
 * process's page tables, dropped at once by the exec, was most of its time.
 */
static pid_t spawn(const char *exe)
{
	posix_spawn_file_actions_t fa;
	char fdarg[16];
	char *argv[] = { (char *)exe, "child", fdarg, NULL };
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	if (posix_spawn(&pid, exe, &fa, NULL, argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return await_child(pid, p);
}

/* Same, as PID want (clone3 with set_tid, root only); -1 if not possible. */
static pid_t spawn_as(const char *exe, pid_t want)
{
	pid_t tid = want;
	struct clone_args ca = {
		.exit_signal = SIGCHLD,
		.set_tid = (uintptr_t)&tid,
		.set_tid_size = 1,
	};
	int p[2];
	long pid;

	if (pipe(p))
		return -1;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0) {
		close(p[0]);
		exec_child(exe, p[1]);
	}
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	return await_child((pid_t)pid, p);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A validator as capture's: the current generation of each pid. */
static struct {
	pid_t pid;
	uint32_t gen;
} cur_gen[MAX_GEN_PIDS];

static void set_gen(pid_t pid, uint32_t gen)
{
	int i, free_slot = -1;

	for (i = 0; i < MAX_GEN_PIDS; i++) {
		if (cur_gen[i].pid == pid) {
			cur_gen[i].gen = gen;
			return;
		}
		if (!cur_gen[i].pid && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0)
		cur_gen[free_slot].pid = pid, cur_gen[free_slot].gen = gen;
}

static bool gen_current(pid_t pid, uint32_t gen, void *arg)
{
	(void)arg;
	for (int i = 0; i < MAX_GEN_PIDS; i++)
		if (cur_gen[i].pid == pid)
			return cur_gen[i].gen == gen;
	return false;
}

static struct usyms_stats stats_of(struct usyms *u)
{
	struct usyms_stats s;

	usyms__stats(u, &s);
	return s;
}

/* Dead processes' images go one interval after their last use. */
TEST(dead_images_dropped)
{
	struct usyms *u = usyms__new();
	uint32_t gen = 0;

	CHECK(u != NULL);
	for (int iv = 0; u && iv < 5; iv++) {
		pid_t kids[20];
		int n = 0;

		for (int i = 0; i < 20; i++) {
			pid_t pid = spawn(self_exe);

			if (pid < 0)
				continue;
			kids[n++] = pid;
			CHECK(!usyms__preload(u, pid, ++gen));
			CHECK_STR(name_at(u, pid, gen, child_addr(pid, self_exe, fn_off)),
				  "bounded_target_fn");
		}
		CHECK(n == 20);
		for (int i = 0; i < n; i++)
			reap(kids[i]);
		usyms__end_interval(u);
		/* used this interval: kept, though dead; last interval's: gone */
		CHECK(stats_of(u).images == (size_t)n);
	}
	usyms__set_cache_limit(u, 0);
	usyms__end_interval(u);
	CHECK(stats_of(u).images == 0);
	CHECK(stats_of(u).images_dropped == 100);
	CHECK(stats_of(u).intervals == 6);
	/* with nothing held, the accounting is back to zero */
	CHECK(stats_of(u).image_bytes == 0);
	CHECK(stats_of(u).files == 0 && stats_of(u).files_pinned == 0);
	CHECK(stats_of(u).cache_bytes == 0);
	usyms__free(u);
}

/* Live images stay while used, and idle ones until the idle limit. */
TEST(live_images_idle_limit)
{
	struct usyms *u = usyms__new();
	pid_t pid = spawn(self_exe);
	uint64_t addr = pid > 0 ? child_addr(pid, self_exe, fn_off) : 0;

	CHECK(u && pid > 0 && addr);
	if (!u || pid <= 0)
		goto out;
	usyms__set_idle_limit(u, 3);
	CHECK(!usyms__preload(u, pid, 7));
	CHECK(!usyms__preload(u, pid, 0)); /* untracked: checked by start time */
	for (int i = 0; i < 3; i++) {
		usyms__end_interval(u);
		CHECK(stats_of(u).images == 2);
	}
	usyms__end_interval(u); /* idle for 3 intervals */
	CHECK(stats_of(u).images == 0);
	/* read again on demand, while the process lives */
	CHECK_STR(name_at(u, pid, 7, addr), "bounded_target_fn");
	usyms__set_idle_limit(u, 0);
	for (int i = 0; i < 20; i++)
		usyms__end_interval(u);
	CHECK(stats_of(u).images == 1);
	reap(pid);
	pid = -1;
	usyms__end_interval(u);
	CHECK(stats_of(u).images == 0);
out:
	if (pid > 0)
		reap(pid);
	usyms__free(u);
}

/* With a validator, an image its process left by exec goes though it lives. */
TEST(exec_drops_old_image)
{
	struct usyms *u = usyms__new();
	pid_t pid = spawn(self_exe);
	uint64_t addr = pid > 0 ? child_addr(pid, self_exe, fn_off) : 0;

	CHECK(u && pid > 0 && addr);
	if (!u || pid <= 0)
		goto out;
	memset(cur_gen, 0, sizeof(cur_gen));
	usyms__set_validator(u, gen_current, NULL);
	set_gen(pid, 1);
	CHECK(!usyms__preload(u, pid, 1));
	usyms__end_interval(u);
	set_gen(pid, 2); /* as if it exec'd: BPF numbers the new image */
	CHECK(!usyms__preload(u, pid, 2));
	usyms__end_interval(u);
	CHECK(stats_of(u).images == 1);
	CHECK_STR(name_at(u, pid, 2, addr), "bounded_target_fn");
	/* asked again, the old image is not lent the new one's maps */
	CHECK_STR(name_at(u, pid, 1, addr), "[unknown]");
out:
	if (pid > 0)
		reap(pid);
	usyms__free(u);
}

/* A copy of this binary at path (a distinct file: its own symbol table). */
static int copy_self(const char *path)
{
	char buf[65536];
	int in = open(self_exe, O_RDONLY), out;
	ssize_t n;

	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	return out >= 0 && !close(out) ? 0 : -1;
}

/* A reused PID never gets the names of the process that had it before. */
TEST(pid_reuse_not_confused)
{
	char copy[] = "/tmp/smolder-bounded-reuse";
	struct usyms *u = usyms__new(), *plain = usyms__new();
	pid_t a = spawn(self_exe), b = -1;
	uint64_t a_fn = a > 0 ? child_addr(a, self_exe, fn_off) : 0, b_fn = 0;

	CHECK(u && plain && a > 0 && a_fn && !copy_self(copy));
	if (!u || !plain || a <= 0)
		goto out;
	memset(cur_gen, 0, sizeof(cur_gen));
	usyms__set_validator(u, gen_current, NULL);
	set_gen(a, 1);
	CHECK(!usyms__preload(u, a, 1));
	CHECK(!usyms__preload(plain, a, 1)); /* no validator: start times guard */
	reap(a);
	/*
	 * Start times count clock ticks (10 ms): a PID is never reused within
	 * one unless forced, as here, where B is given A's PID at once.
	 */
	usleep(30 * 1000);
	b = spawn_as(copy, a);
	if (b < 0) {
		printf("  skipped: cannot start a process as pid %d (%s)\n", (int)a,
		       strerror(errno));
		goto out;
	}
	b_fn = child_addr(b, copy, fn_off);
	set_gen(b, 2);
	CHECK(!usyms__preload(u, b, 2));
	CHECK(usyms__preload(plain, b, 1) == 0); /* a stale event: B's maps refused */
	CHECK_STR(name_at(u, b, 2, b_fn), "bounded_target_fn");
	CHECK_STR(name_at(u, a, 1, a_fn), "bounded_target_fn");
	CHECK_STR(name_at(plain, a, 1, a_fn), "bounded_target_fn");
	if (a_fn != b_fn) {
		CHECK(strcmp(name_at(u, a, 1, b_fn), "bounded_target_fn"));
		CHECK(strcmp(name_at(plain, a, 1, b_fn), "bounded_target_fn"));
	}
	usyms__end_interval(u);
	usyms__end_interval(plain);
	CHECK(name_at(u, b, 2, b_fn) && stats_of(u).images == 2);
	usyms__end_interval(u); /* (a, 1) unused and not current: dropped */
	usyms__end_interval(plain); /* another start time at that pid: dropped */
	CHECK(stats_of(u).images == 1 && stats_of(plain).images == 0);
	/* asked again after the drop: the validator refuses B's maps */
	CHECK_STR(name_at(u, a, 1, a_fn), "[unknown]");
out:
	if (b > 0)
		reap(b);
	unlink(copy);
	usyms__free(u);
	usyms__free(plain);
}

/* Copies of this binary are distinct files: one symbol table each. */
TEST(cache_limit_evicts_and_reloads)
{
	char copies[6][64];
	struct usyms *u = usyms__new();
	size_t one_image = 0, limit = 0;
	int i, made = 0;

	for (i = 0; i < 6; i++) {
		snprintf(copies[i], sizeof(copies[i]), "/tmp/smolder-bounded-%d-%d", (int)getpid(), i);
		made += !copy_self(copies[i]);
	}
	CHECK(u && made == 6);
	for (i = 0; u && made == 6 && i < 8; i++) {
		const char *exe = copies[i % 6];
		pid_t pid = spawn(exe);

		CHECK(pid > 0);
		if (pid <= 0)
			break;
		CHECK(!usyms__preload(u, pid, i + 1));
		CHECK_STR(name_at(u, pid, i + 1, child_addr(pid, exe, fn_off)), "bounded_target_fn");
		if (!i) {
			/* room for the first image's files and one more table */
			one_image = stats_of(u).cache_bytes;
			limit = one_image / 2;
			usyms__set_cache_limit(u, limit);
		}
		reap(pid);
		usyms__end_interval(u);
		/* all but what the one held image maps is trimmed to the limit */
		CHECK(stats_of(u).cache_bytes <= limit + one_image);
	}
	usyms__end_interval(u); /* no image held: within the limit */
	CHECK(stats_of(u).images == 0 && stats_of(u).cache_bytes <= limit);
	CHECK(stats_of(u).files_evicted >= 6);
	printf("  one image's files %zu bytes, limit %zu, %" PRIu64 " files evicted\n",
	       one_image, limit, stats_of(u).files_evicted);
	for (i = 0; i < 6; i++)
		unlink(copies[i]);
	usyms__free(u);
}

/* The first anonymous mapping of pid, or 0. */
static uint64_t child_anon(pid_t pid)
{
	char line[4352], maps[64];
	uint64_t addr = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	while (f && !addr && fgets(line, sizeof(line), f)) {
		unsigned long s, ino;
		int n = 0;

		if (sscanf(line, "%lx-%*x %*4s %*x %*x:%*x %lu %n", &s, &ino, &n) == 2 && n &&
		    !ino && (line[n] == '\n' || !line[n]))
			addr = s;
	}
	if (f)
		fclose(f);
	return addr;
}

/* A JIT map of an idle image is evicted and read again when asked. */
TEST(jit_map_evicted_and_reloaded)
{
	char path[64];
	struct usyms *u = usyms__new();
	pid_t pid = spawn(self_exe);
	uint64_t anon = pid > 0 ? child_anon(pid) : 0;
	bool jit = false;
	FILE *f;

	CHECK(u && pid > 0 && anon);
	if (!u || pid <= 0 || !anon)
		goto out;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		goto out;
	fprintf(f, "%" PRIx64 " 40 jitted_fn\n", anon);
	fclose(f);
	CHECK(!usyms__preload(u, pid, 1));
	CHECK(stats_of(u).jit_maps == 1);
	usyms__set_cache_limit(u, 0); /* everything not in use goes */
	usyms__end_interval(u);
	CHECK(stats_of(u).jit_maps == 1); /* used this interval */
	usyms__end_interval(u);
	CHECK(stats_of(u).jit_maps == 0 && stats_of(u).jit_maps_evicted == 1);
	CHECK(stats_of(u).images == 1); /* the live image stays, with its files */
	CHECK(stats_of(u).files_pinned > 0 && stats_of(u).files == stats_of(u).files_pinned);
	CHECK_STR(name_at(u, pid, 1, child_addr(pid, self_exe, fn_off)), "bounded_target_fn");
	usyms__name(u, pid, 1, anon + 8, name_buf, sizeof(name_buf), &jit);
	CHECK_STR(name_buf, "jitted_fn");
	CHECK(jit);
	unlink(path);
out:
	if (pid > 0)
		reap(pid);
	usyms__free(u);
}

static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static size_t rss_bytes(void)
{
	unsigned long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f && fscanf(f, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	if (f)
		fclose(f);
	return resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* One interval of the memory test: n children started, named, reaped. */
static int churn(struct usyms *u, int n, uint32_t *gen, uint64_t libc_off, const char *libc)
{
	pid_t kids[100];
	int i, ok = 0;

	for (i = 0; i < n; i++) {
		kids[i] = spawn(self_exe);
		if (kids[i] <= 0 || usyms__preload(u, kids[i], ++*gen))
			continue;
		ok += !strcmp(name_at(u, kids[i], *gen, child_addr(kids[i], self_exe, fn_off)),
			      "bounded_target_fn") &&
		      !strcmp(name_at(u, kids[i], *gen, child_addr(kids[i], libc, libc_off)),
			      "getppid");
	}
	for (i = 0; i < n; i++)
		if (kids[i] > 0)
			reap(kids[i]);
	usyms__end_interval(u);
	return ok;
}

/* 2,000 short processes over 20 intervals: memory stays flat. */
TEST(memory_flat)
{
	size_t heap[20], rss[20], held[20], images[20];
	struct usyms *u = usyms__new();
	uint64_t libc_off = 0;
	char libc[4096];
	uint32_t gen = 0;
	int iv, named = 0;

	CHECK(u && own_offset((uintptr_t)getppid, &libc_off, libc, sizeof(libc)));
	for (iv = 0; u && iv < 20; iv++) {
		named += churn(u, 100, &gen, libc_off, libc);
		heap[iv] = heap_bytes();
		rss[iv] = rss_bytes();
		held[iv] = stats_of(u).bytes;
		images[iv] = stats_of(u).images;
	}
	CHECK(named == 2000);
	for (iv = 4; u && iv < 20; iv++) {
		CHECK(held[iv] < held[3] + (1u << 20));
		CHECK(images[iv] <= 100);
#ifndef __SANITIZE_ADDRESS__ /* its quarantine holds freed memory */
		CHECK(heap[iv] < heap[3] + (1u << 20));
		CHECK(rss[iv] < rss[3] + (1u << 20));
#endif
	}
	for (iv = 0; u && iv < 20; iv += iv == 18 ? 1 : 3)
		printf("  after interval %2d: heap %zu KiB, RSS %zu KiB, usyms %zu KiB, %zu images\n",
		       iv + 1, heap[iv] / 1024, rss[iv] / 1024, held[iv] / 1024, images[iv]);
	usyms__free(u);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "child"))
		child_main(argv[2]);
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) <= 0 ||
	    !own_offset((uintptr_t)bounded_target_fn, &fn_off, NULL, 0)) {
		printf("FAIL setup: cannot find this binary\n");
		return 1;
	}
	RUN(dead_images_dropped);
	RUN(live_images_idle_limit);
	RUN(exec_drops_old_image);
	RUN(pid_reuse_not_confused);
	RUN(cache_limit_evicts_and_reloads);
	RUN(jit_map_evicted_and_reloaded);
	RUN(memory_flat);
	UNIT_EXIT();
}
