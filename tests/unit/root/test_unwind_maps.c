// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The unwind tables as the BPF unwinder finds them (src/unwind/unwind_maps.c,
 * src/unwind/unwind_shards.c): real tables of this process's own files loaded into
 * real BPF maps with tiny shards, so that a table is split over extents and
 * shards, then every row looked up again in the maps, read back, by
 * bpf/unwind.bpf.h's own find_mapping and find_row (LPM trie, file entry,
 * page index, binary search; compiled for user space by tests/replay/walk.c)
 * and compared with the table built directly from the file.  Also: the
 * memory budget (a table that does not fit is counted, one evicted for
 * another when its process went), and an exec (a new generation) replacing
 * a process's mappings.  Needs root (it creates BPF maps).
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "files/elf_syms.h"
#include "files/proc_maps.h"
#include "unit.h"
#include "unwind.h"
#include "unwind/unwind_maps.h"
#include "unwind/unwind_table.h"
#include "unwind_image.h"
#include "walk.h"

struct fixture {
	int outer, files, mappings;
	uint32_t bits, max_shards;
	struct unwind_maps *um;
	struct unwind_image *img; /* the maps, read back */
};

static int fixture_open(struct fixture *fx, uint32_t bits, uint32_t max_shards)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_create_opts, outer);
	LIBBPF_OPTS(bpf_map_create_opts, lpm, .map_flags = BPF_F_NO_PREALLOC);
	int tmpl = bpf_map_create(BPF_MAP_TYPE_ARRAY, "tmpl", 4, 8, 1u << bits, &mm);
	struct unwind_maps_opts o = { .shard_bits = bits, .max_shards = max_shards };

	memset(fx, 0, sizeof(*fx));
	fx->bits = bits;
	fx->max_shards = max_shards;
	if (tmpl < 0)
		return -1;
	outer.inner_map_fd = tmpl;
	fx->outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "shards", 4, 4, max_shards, &outer);
	close(tmpl);
	fx->files = bpf_map_create(BPF_MAP_TYPE_HASH, "files", 4, sizeof(struct unwind_file),
				   64, NULL);
	fx->mappings = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "mappings",
				      sizeof(struct unwind_map_key), sizeof(struct unwind_mapping),
				      4096, &lpm);
	if (fx->outer < 0 || fx->files < 0 || fx->mappings < 0)
		return -1;
	o.shards_fd = fx->outer;
	o.files_fd = fx->files;
	o.mappings_fd = fx->mappings;
	fx->um = unwind_maps__new(&o);
	return fx->um ? 0 : -1;
}

static void fixture_close(struct fixture *fx)
{
	unwind_maps__free(fx->um);
	unwind_image__free(fx->img);
	close(fx->outer);
	close(fx->files);
	close(fx->mappings);
}

/*
 * The maps as the loader left them, read into an unwind image for the
 * lookups below; again after each change.
 */
static void snapshot(struct fixture *fx)
{
	unwind_image__free(fx->img);
	fx->img = unwind_image__new();
	CHECK(fx->img && !unwind_image__read_kernel(fx->img, fx->outer, fx->files, fx->mappings,
						    fx->bits, fx->max_shards));
}

/* Waits for the builder thread (at most 10 s), then reads the maps back. */
static void settle(struct fixture *fx)
{
	struct unwind_maps_stats st;
	struct timespec ts = { 0, 5000000 };

	for (int i = 0; i < 2000; i++) {
		unwind_maps__stats(fx->um, &st);
		if (!st.queued)
			break;
		nanosleep(&ts, NULL);
	}
	snapshot(fx);
}

/*
 * addr in image gen of this process, looked up by bpf/unwind.bpf.h's own
 * find_mapping and find_row (tests/replay/walk.c compiles them for user
 * space); row's pc is UINT32_MAX when no row was found.  A mapping the
 * LPM trie gives must cover addr.
 */
static enum replay_find lookup(struct fixture *fx, uint64_t addr, uint32_t gen,
			       struct unwind_row *row)
{
	uint64_t start, end;
	enum replay_find k;

	*row = (struct unwind_row){ .pc = UINT32_MAX };
	if (!fx->img)
		return REPLAY_UNKNOWN;
	k = replay__find(fx->img, getpid(), gen, addr, row, &start, &end);
	if (k != REPLAY_UNKNOWN && (addr < start || addr >= end)) {
		printf("  %#lx: the trie gave mapping %#lx-%#lx\n", (unsigned long)addr,
		       (unsigned long)start, (unsigned long)end);
		return REPLAY_UNKNOWN;
	}
	return k;
}

/* /proc/self/maps, only the lines containing one of the names (NULL: all). */
static struct proc_maps *self_maps(const char *const *names)
{
	char line[4096], *text = NULL;
	size_t len = 0;
	FILE *f = fopen("/proc/self/maps", "re");
	struct proc_maps *pm;

	while (f && fgets(line, sizeof(line), f)) {
		bool keep = !names;

		for (size_t i = 0; names && names[i]; i++)
			keep |= strstr(line, names[i]) != NULL;
		if (!keep)
			continue;
		text = realloc(text, len + strlen(line) + 1);
		memcpy(text + len, line, strlen(line) + 1);
		len += strlen(line);
	}
	if (f)
		fclose(f);
	pm = proc_maps__parse(text ? text : "", len);
	free(text);
	return pm;
}

/*
 * Every row of the file mapped at m (the mapping of its code), looked up
 * through the maps at its first and last address: same rule as the table
 * built from the file.  Returns the rows checked.
 */
static size_t check_rows(struct fixture *fx, const struct proc_map *m, uint32_t gen)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	struct elf_file *ef = fd >= 0 ? elf_file__open_fd(fd) : NULL;
	struct unwind_table *t = ef ? unwind_table__build(ef, NULL, NULL) : NULL;
	const struct unwind_row *r;
	struct unwind_row got;
	GElf_Phdr ph;
	size_t nr, n, checked = 0;
	uint64_t seg_off = 0, seg_vaddr = 0, seg_size = 0;

	CHECK(t != NULL);
	for (size_t i = 0; ef && !elf_getphdrnum(elf_file__elf(ef), &n) && i < n; i++)
		if (gelf_getphdr(elf_file__elf(ef), i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && m->pgoff >= (ph.p_offset & ~4095ull) &&
		    m->pgoff < ph.p_offset + ph.p_filesz) {
			seg_off = ph.p_offset;
			seg_vaddr = ph.p_vaddr;
			seg_size = ph.p_filesz;
		}
	CHECK(seg_size != 0);
	r = t ? unwind_table__rows(t, &nr) : NULL;
	for (size_t i = 0; r && seg_size && i + 1 < nr; i++) {
		uint64_t v0 = unwind_table__base(t) + r[i].pc;
		uint64_t v1 = unwind_table__base(t) + r[i + 1].pc - 1;

		for (uint64_t v = v0; v <= v1; v += v1 > v0 ? v1 - v0 : 1) {
			uint64_t addr = v - seg_vaddr + seg_off - m->pgoff + m->start;
			int rc;

			if (v < seg_vaddr || v >= seg_vaddr + seg_size || addr >= m->end)
				break;
			rc = lookup(fx, addr, gen, &got);
			checked++;
			if (rc != REPLAY_TABLE || got.pc != r[i].pc || got.kind != r[i].kind ||
			    got.cfa_off != r[i].cfa_off || got.rbp_off != r[i].rbp_off) {
				printf("  %s: vaddr %#lx: got %d kind %u cfa %u rbp %d, want kind %u cfa %u rbp %d\n",
				       m->path, (unsigned long)v, rc, got.kind, got.cfa_off, got.rbp_off,
				       r[i].kind, r[i].cfa_off, r[i].rbp_off);
				CHECK(!"row found through the maps");
				i = nr;
				break;
			}
			if (v1 == v0)
				break;
		}
	}
	unwind_table__free(t);
	elf_file__close(ef);
	if (fd >= 0)
		close(fd);
	return checked;
}

/* The mapping of our own libc's code. */
static const struct proc_map *code_of(const struct proc_maps *pm, const char *name)
{
	for (size_t i = 0; i < pm->nr; i++)
		if (pm->maps[i].exec && pm->maps[i].path && strstr(pm->maps[i].path, name))
			return &pm->maps[i];
	return NULL;
}

/* libc's 28k rows over 4096-slot shards: many extents, several shards. */
TEST(rows_through_the_maps)
{
	struct fixture fx;
	struct proc_maps *pm = self_maps(NULL);
	struct unwind_maps_stats st;
	const struct proc_map *libc = pm ? code_of(pm, "/libc.so") : NULL;
	const struct proc_map *ld = pm ? code_of(pm, "/ld-linux") : NULL;
	size_t n;

	CHECK(libc && ld);
	if (!libc || !ld || fixture_open(&fx, 12, 64)) {
		CHECK(!"fixture");
		proc_maps__free(pm);
		return;
	}
	unwind_maps__update(getpid(), 7, pm, fx.um);
	settle(&fx);
	unwind_maps__stats(fx.um, &st);
	CHECK(st.files_loaded >= 3); /* libc, ld.so, the vDSO, this test */
	CHECK(st.too_big == 0);
	CHECK(st.kernel_bytes >= 8 * 4096 * 8); /* libc alone needs 8 shards */
	n = check_rows(&fx, libc, 7);
	printf("  libc: %zu addresses of %zu KiB of tables in %lu shards\n", n,
	       (size_t)(st.table_bytes / 1024), (unsigned long)(st.kernel_bytes / (4096 * 8)));
	CHECK(n > 50000);
	CHECK(check_rows(&fx, ld, 7) > 2000);

	/* An exec: the same pid, a new generation, only ld.so mapped now. */
	proc_maps__free(pm);
	pm = self_maps((const char *const[]){ "/ld-linux", NULL });
	unwind_maps__update(getpid(), 8, pm, fx.um);
	settle(&fx);
	ld = code_of(pm, "/ld-linux");
	CHECK(ld && check_rows(&fx, ld, 8) > 2000);
	{
		struct unwind_row row;

		CHECK(lookup(&fx, libc->start, 8, &row) == REPLAY_UNKNOWN);
	}
	fixture_close(&fx);
	proc_maps__free(pm);
}

/*
 * A budget of one 2048-slot shard: libc does not fit (counted); libz and
 * libtinfo fit alone but not together, so libz goes when the image that
 * mapped it is replaced by one that maps libtinfo.
 */
TEST(budget_and_eviction)
{
	static const char *const libz[] = { "/libz.so", NULL }, *const tinfo[] = { "/libtinfo.so", NULL };
	static const char *const libc[] = { "/libc.so", NULL };
	void *hz = dlopen("libz.so.1", RTLD_NOW), *ht = dlopen("libtinfo.so.6", RTLD_NOW);
	struct proc_maps *pm;
	struct unwind_maps_stats st;
	struct unwind_row row;
	struct fixture fx;

	CHECK(hz && ht);
	if (!hz || !ht || fixture_open(&fx, 11, 1)) {
		CHECK(!"fixture");
		return;
	}
	pm = self_maps(libc);
	unwind_maps__update(getpid(), 1, pm, fx.um);
	settle(&fx);
	unwind_maps__stats(fx.um, &st);
	CHECK(st.too_big == 1 && st.files_loaded == 0);
	CHECK(code_of(pm, "/libc.so") &&
	      lookup(&fx, code_of(pm, "/libc.so")->start, 1, &row) == REPLAY_NO_TABLE);
	proc_maps__free(pm);

	pm = self_maps(libz);
	unwind_maps__update(getpid(), 2, pm, fx.um);
	settle(&fx);
	CHECK(code_of(pm, "/libz.so") && check_rows(&fx, code_of(pm, "/libz.so"), 2) > 1000);
	proc_maps__free(pm);

	pm = self_maps(tinfo);
	unwind_maps__update(getpid(), 3, pm, fx.um);
	settle(&fx);
	unwind_maps__stats(fx.um, &st);
	CHECK(st.evicted == 1 && st.files_loaded == 1 && st.too_big == 1);
	CHECK(st.kernel_bytes == 2048 * 8);
	CHECK(code_of(pm, "/libtinfo.so") && check_rows(&fx, code_of(pm, "/libtinfo.so"), 3) > 1000);
	proc_maps__free(pm);
	fixture_close(&fx);
}

int main(void)
{
	if (geteuid()) {
		printf("SKIP test_unwind_maps: needs root (BPF maps)\n");
		return 0;
	}
	RUN(rows_through_the_maps);
	RUN(budget_and_eviction);
	UNIT_EXIT();
}
