// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for proc_maps: a fixture covering every kind of line the
 * kernel prints (paths with spaces, deleted files, [heap], [stack], [vdso],
 * other bracketed names, named and plain anonymous memory), garbage and
 * truncated lines, unsorted input, empty input, lookups at mapping
 * boundaries, this process's real maps, a vanished process, and a cheap
 * random fuzz of the parser.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "files/proc_maps.h"
#include "unit.h"

static const char fixture[] =
	"55d4a0000000-55d4a0001000 r--p 00000000 08:01 1234                       /usr/bin/prog\n"
	"55d4a0001000-55d4a0005000 r-xp 00001000 08:01 1234                       /usr/bin/prog\n"
	"55d4a1000000-55d4a1021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f0000000000-7f0000010000 r-xp 00002000 fd:02 98765                      /opt/my app/lib  two spaces.so\n"
	"7f0000010000-7f0000020000 r-xp 00000000 08:01 555                        /tmp/gone (deleted)\n"
	"7f0000020000-7f0000030000 rw-p 00000000 00:00 0 \n"
	"7f0000030000-7f0000031000 rw-s 00000000 00:05 777                        /dev/zero (deleted)\n"
	"this is garbage\n"
	"7f0000040000-7f0000030000 r-xp 00000000 08:01 1 /bad/end-before-start\n"
	"zzzz-7f0000050000 r-xp 00000000 08:01 1 /bad/hex\n"
	"7f0000050000-7f0000060000 rwxq 00000000 08:01 1 /bad/perms\n"
	"7f0000060000-7f0000070000 r-xp 00000000 08:01 /bad/no-inode\n"
	"7f0000070000-7f0000071000 r-xp 00000000 08:01 12x /bad/inode\n"
	"11111111111111111-7f0000050000 r-xp 00000000 08:01 1 /bad/too-long\n"
	"\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffd000f0000-7ffd000f2000 r-xp 00000000 00:00 0                          [vdso]\n"
	"7ffd000ec000-7ffd000f0000 r--p 00000000 00:00 0                          [vvar]\n"
	"7f0000080000-7f0000090000 rw-p 00000000 00:00 0                          [anon:jit code]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n"
	"7f00000b0000-7f00000b1";

static const struct proc_map *at(const struct proc_maps *pm, uint64_t addr)
{
	return proc_maps__find(pm, addr);
}

TEST(fixture_parse)
{
	struct proc_maps *pm = proc_maps__parse(fixture, sizeof(fixture) - 1);
	const struct proc_map *m;
	size_t i;

	CHECK(pm != NULL);
	if (!pm)
		return;
	CHECK(pm->nr == 12);
	for (i = 1; i < pm->nr; i++)
		CHECK(pm->maps[i - 1].start < pm->maps[i].start);

	m = at(pm, 0x55d4a0001000);
	CHECK(m && m->kind == PROC_MAP_FILE && m->exec && m->pgoff == 0x1000 &&
	      m->ino == 1234 && m->dev == makedev(8, 1) && !m->deleted);
	CHECK_STR(m ? m->path : NULL, "/usr/bin/prog");
	m = at(pm, 0x55d4a0000fff);
	CHECK(m && !m->exec && m->start == 0x55d4a0000000);

	m = at(pm, 0x55d4a1000000);
	CHECK(m && m->kind == PROC_MAP_HEAP);
	m = at(pm, 0x7f0000000010);
	CHECK(m && m->kind == PROC_MAP_FILE && m->dev == makedev(0xfd, 2) &&
	      m->pgoff == 0x2000);
	CHECK_STR(m ? m->path : NULL, "/opt/my app/lib  two spaces.so");
	m = at(pm, 0x7f0000010000);
	CHECK(m && m->kind == PROC_MAP_FILE && m->deleted);
	CHECK_STR(m ? m->path : NULL, "/tmp/gone");
	m = at(pm, 0x7f0000020000);
	CHECK(m && m->kind == PROC_MAP_ANON && m->path == NULL && !m->exec);
	m = at(pm, 0x7f0000030000);
	CHECK(m && m->kind == PROC_MAP_FILE && m->deleted);
	CHECK_STR(m ? m->path : NULL, "/dev/zero");
	m = at(pm, 0x7ffd00000000);
	CHECK(m && m->kind == PROC_MAP_STACK);
	m = at(pm, 0x7ffd000f1000);
	CHECK(m && m->kind == PROC_MAP_VDSO && m->exec);
	m = at(pm, 0x7ffd000ec000);
	CHECK(m && m->kind == PROC_MAP_SPECIAL);
	CHECK_STR(m ? m->path : NULL, "[vvar]");
	m = at(pm, 0x7f0000080000);
	CHECK(m && m->kind == PROC_MAP_ANON);
	m = at(pm, 0xffffffffff600123);
	CHECK(m && m->kind == PROC_MAP_SPECIAL && m->exec);
	CHECK_STR(m ? m->path : NULL, "[vsyscall]");
	proc_maps__free(pm);
}

TEST(find_boundaries)
{
	struct proc_maps *pm = proc_maps__parse(fixture, sizeof(fixture) - 1);

	CHECK(pm != NULL);
	if (!pm)
		return;
	CHECK(at(pm, 0) == NULL);
	CHECK(at(pm, 0x55d4a0000000 - 1) == NULL);
	CHECK(at(pm, 0x55d4a0000000) == &pm->maps[0]);
	CHECK(at(pm, 0x55d4a0004fff) == &pm->maps[1]);
	CHECK(at(pm, 0x55d4a0005000) == NULL); /* end is exclusive, then a gap */
	CHECK(at(pm, 0x55d4a1021000) == NULL);
	CHECK(at(pm, 0x7f0000040000) == NULL); /* the garbage lines left holes */
	CHECK(at(pm, 0x7f0000050000) == NULL);
	CHECK(at(pm, 0x7f00000b0000) == NULL); /* truncated last line */
	/* adjacent mappings: the end of one is the start of the next */
	CHECK(at(pm, 0x7ffd000effff) && at(pm, 0x7ffd000effff)->kind == PROC_MAP_SPECIAL);
	CHECK(at(pm, 0x7ffd000f0000) && at(pm, 0x7ffd000f0000)->kind == PROC_MAP_VDSO);
	CHECK(at(pm, 0xffffffffff600fff) != NULL);
	CHECK(at(pm, 0xffffffffff601000) == NULL);
	CHECK(at(pm, UINT64_MAX) == NULL);
	proc_maps__free(pm);
}

TEST(empty_and_odd_inputs)
{
	static const char no_nl[] = "1000-2000 r-xp 00000000 08:01 7 /bin/x";
	static const char nul[] = "1000-2000 r-xp 00000000 08:01 7 /bin/\0y\n"
				  "3000-4000 r--p 00000000 00:00 0\n";
	struct proc_maps *pm;

	pm = proc_maps__parse("", 0);
	CHECK(pm && pm->nr == 0 && at(pm, 0x1000) == NULL);
	proc_maps__free(pm);
	pm = proc_maps__parse(NULL, 0);
	CHECK(pm && pm->nr == 0);
	proc_maps__free(pm);
	pm = proc_maps__parse("\n\n\n", 3);
	CHECK(pm && pm->nr == 0);
	proc_maps__free(pm);

	/* a complete last line without its newline still counts */
	pm = proc_maps__parse(no_nl, sizeof(no_nl) - 1);
	CHECK(pm && pm->nr == 1);
	CHECK_STR(pm && pm->nr ? pm->maps[0].path : NULL, "/bin/x");
	proc_maps__free(pm);
	/* the length bounds the parse, not a NUL */
	pm = proc_maps__parse(no_nl, 20);
	CHECK(pm && pm->nr == 0);
	proc_maps__free(pm);
	pm = proc_maps__parse(nul, sizeof(nul) - 1);
	CHECK(pm && pm->nr == 2);
	proc_maps__free(pm);
	proc_maps__free(NULL);
	CHECK(proc_maps__find(NULL, 1) == NULL);
}

static int under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
}

TEST(own_process)
{
	struct proc_maps *pm = proc_maps__load(getpid());
	const struct proc_map *m;
	int local;

	CHECK(pm != NULL && pm->nr > 5);
	if (!pm)
		return;
	m = at(pm, (uintptr_t)(void *)own_process);
	CHECK(m && m->kind == PROC_MAP_FILE && m->exec && m->path && m->ino);
	m = at(pm, (uintptr_t)&local);
	/* valgrind runs us on a stack of its own, in anonymous memory */
	CHECK(m && (m->kind == PROC_MAP_STACK || under_valgrind()));
	proc_maps__free(pm);
}

TEST(gone_process)
{
	struct proc_maps *pm;

	errno = 0;
	/* above any pid_max (at most 2^22) */
	pm = proc_maps__load(2147483640);
	CHECK(pm == NULL && (errno == ENOENT || errno == ESRCH));
	pm = proc_maps__load(-5);
	CHECK(pm == NULL);
}

TEST(fuzz_no_crash)
{
	static const char alpha[] = "0123456789abcdef-: rwxps/[]()\n deleted";
	char buf[512];
	size_t n, i, k, total = 0;
	struct proc_maps *pm;

	srandom(42);
	for (i = 0; i < 3000; i++) {
		n = random() % sizeof(buf);
		if (i % 2) {
			/* mutations of the real fixture */
			n = n < sizeof(fixture) ? n : sizeof(fixture) - 1;
			memcpy(buf, fixture + (sizeof(fixture) - 1 - n), n);
			for (k = 0; k < 4 && n; k++)
				buf[random() % n] = alpha[random() % (sizeof(alpha) - 1)];
		} else {
			for (k = 0; k < n; k++)
				buf[k] = i % 4 ? alpha[random() % (sizeof(alpha) - 1)]
					       : (char)random();
		}
		pm = proc_maps__parse(buf, n);
		CHECK(pm != NULL);
		if (!pm)
			continue;
		total += pm->nr;
		for (k = 0; k < pm->nr; k++) {
			CHECK(pm->maps[k].start < pm->maps[k].end);
			CHECK(pm->maps[k].kind == PROC_MAP_ANON || pm->maps[k].path);
		}
		at(pm, ((uint64_t)random() << 32) | random());
		proc_maps__free(pm);
	}
	CHECK(total > 0);
}

int main(void)
{
	RUN(fixture_parse);
	RUN(find_boundaries);
	RUN(empty_and_odd_inputs);
	RUN(own_process);
	RUN(gone_process);
	RUN(fuzz_no_crash);
	UNIT_EXIT();
}
