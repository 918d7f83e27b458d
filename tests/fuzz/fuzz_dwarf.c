// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for DWARF naming (src/files/dwarf_names.c, through
 * elfutils' libdw): the first byte of an input is flags (bit 0: the file
 * is untrusted; bit 1: a budget of 1 MiB instead of 64 MiB; bit 2: names
 * only, no lines, so .debug_line is set aside too), the rest a whole ELF
 * file, read through a memfd as mapped files are.  Its debug
 * file search has a root that does not exist, so no other file is read.
 * Every unit range indexed is asked for its chain at its first, middle and
 * last address, and a chain must be sane beyond not crashing: at most
 * DWARF_MAX_INLINE frames, the memo answering again the same, and the
 * memory said held within what the budget allows.  Work that escapes the
 * budget's deadline (1 s) shows as a timeout (tests/cli/fuzz_smoke.sh: 5 s
 * an input).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "files/dwarf_names.h"
#include "lib/clock.h"
#include "lib/log.h"

#define NO_ROOT "/nonexistent/smolder-fuzz-root"
#define MAX_RANGES 32

static void same(const struct dwarf_chain *a, const struct dwarf_chain *b)
{
	if (a->n != b->n)
		abort();
	for (uint32_t i = 0; i < a->n; i++)
		if (a->f[i].func != b->f[i].func || a->f[i].line != b->f[i].line ||
		    a->f[i].file != b->f[i].file)
			abort();
}

static void ask(struct dwarf_names *dn, uint64_t vaddr, const struct budget *b)
{
	struct dwarf_chain c, again;
	int e = dwarf_names__chain(dn, vaddr, b, &c);

	if (e && e != -ENOENT && e != -ETIMEDOUT && e != -ENOMEM && e != -E2BIG)
		abort();
	if (c.n > DWARF_MAX_INLINE || (e && c.n))
		abort();
	for (uint32_t i = 0; i < c.n; i++)
		if (c.f[i].func)
			(void)strlen(c.f[i].func);
	if (!e && dwarf_names__chain(dn, vaddr, b, &again) == 0)
		same(&c, &again);
}

/*
 * libdw 0.188's dwarf_getscopes returns -1 without freeing the scopes it
 * had found when an inlined instance's abstract_origin does not resolve
 * (hostile-cycle has one): a few bytes a crafted address, not ours to free.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libdw.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct budget b = { 0 };
	struct dwarf_names *dn;
	uint64_t lo, hi;

	log_verbosity = 0;
	if (size < 2)
		return 0;
	b.max_bytes = data[0] & 2 ? 1u << 20 : 64u << 20;
	b.until = clock__now() + 1;
	if (fd < 0)
		fd = memfd_create("fuzz_dwarf", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
		abort();
	dn = dwarf_names__open(fd, NO_ROOT, NULL, data[0] & 1, &b);
	if (!dn)
		return 0;
	dwarf_names__set_lines(dn, !(data[0] & 4));
	ask(dn, 0, &b); /* the first chain indexes the units */
	for (size_t i = 0; i < MAX_RANGES && dwarf_names__unit_range(dn, i, &lo, &hi); i++) {
		if (lo >= hi)
			abort();
		ask(dn, lo, &b);
		ask(dn, lo + (hi - lo) / 2, &b);
		ask(dn, hi - 1, &b);
	}
	if (dwarf_names__bytes(dn) > 4 * b.max_bytes)
		abort();
	dwarf_names__free(dn);
	return 0;
}
