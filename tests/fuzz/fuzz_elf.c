// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for ELF symbol tables: each input is opened both as an
 * in-memory image (elf_syms__open_mem, the vDSO path) and as a file through
 * a memfd with the debug-information search (elf_syms__open_debug, the path
 * every mapped file takes: libelf reads instead of parsing a buffer, the
 * build ID and .gnu_debuglink are read, and a .gnu_debugdata section is
 * xz-decoded and parsed as a second ELF).  The search's root does not
 * exist, so no file outside the input is ever read.  Then offset lookups,
 * checked for consistency beyond not crashing.  The file is read again
 * within a budget of a few KiB (elf_syms__open_debug_within): it may give
 * up (E2BIG), but a table it does read must fit the budget and answer as
 * the unbudgeted one, or, when a debug source was over the budget, as the
 * file's own tables.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "lib/log.h"

#define NO_ROOT "/nonexistent/smolder-fuzz-root"

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void probe_one(const struct elf_syms *es, uint64_t off)
{
	uint64_t sym_off = UINT64_MAX, vaddr = 0;
	const char *name = elf_syms__map_offset(es, off, &sym_off, &vaddr);

	if (name && (!name[0] || sym_off > vaddr))
		abort(); /* a symbol is never empty and never starts past vaddr */
}

/* Lookups at fixed spots and at offsets the input itself suggests. */
static void probe(const struct elf_syms *es, const uint8_t *data, size_t size)
{
	static const uint64_t fixed[] = { 0, 1, 0x40, 0x1000, 0x1234, UINT64_MAX };
	size_t i;

	if (!es)
		return;
	(void)elf_syms__count(es);
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		probe_one(es, fixed[i]);
	probe_one(es, size / 2);
	probe_one(es, size);
	for (i = 0; i < 4 && size >= 64 && (i + 1) * 8 <= size; i++)
		probe_one(es, rd64(data + size - (i + 1) * 8) % (size * 2 + 1));
}

/* Whether a and b hold as many functions and name the probes alike. */
static bool same(const struct elf_syms *a, const struct elf_syms *b)
{
	static const uint64_t offs[] = { 0, 0x40, 0x1000, 0x1040, 0x1100, 0x2000 };
	size_t i;

	if (!a || !b || elf_syms__count(a) != elf_syms__count(b))
		return false;
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		const char *x = elf_syms__map_offset(a, offs[i], NULL, NULL);
		const char *y = elf_syms__map_offset(b, offs[i], NULL, NULL);

		if (!x != !y || (x && strcmp(x, y)))
			return false;
	}
	return true;
}

static void compare_budgeted(const struct elf_syms *full, int fd, size_t size)
{
	struct budget b = { .max_bytes = 4096 + size % 8192 };
	struct elf_syms *es = elf_syms__open_debug_within(fd, NO_ROOT, "/usr/bin/app", &b);
	struct elf_syms *own;

	if (!es)
		return;
	if (elf_syms__bytes(es) > b.max_bytes)
		abort();
	if (!same(es, full)) {
		own = elf_syms__open_fd(fd);
		if (!same(es, own))
			abort();
		elf_syms__free(own);
	}
	elf_syms__free(es);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int mfd = -1;
	struct elf_syms *es;

	log_verbosity = 0;
	es = elf_syms__open_mem(data, size);
	probe(es, data, size);
	elf_syms__free(es);

	if (mfd < 0)
		mfd = memfd_create("fuzz_elf", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, 0) || pwrite(mfd, data, size, 0) != (ssize_t)size)
		return 0;
	es = elf_syms__open_debug(mfd, NO_ROOT, "/usr/bin/app");
	probe(es, data, size);
	compare_budgeted(es, mfd, size);
	elf_syms__free(es);
	return 0;
}
