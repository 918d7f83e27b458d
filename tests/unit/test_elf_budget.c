// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading symbol tables within a budget (elf_syms__open_debug_within), on
 * this test binary: a budget that fits gives the same table as no budget,
 * and the table fits it; one too small gives up with E2BIG, one expired
 * (or a pending signal it watches) with ETIMEDOUT; a file whose section
 * headers alone would pass the budget is refused at open.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "unit.h"

__attribute__((noipa)) int budget_target_fn(int x)
{
	return x * 3 + 1;
}

static int self_fd(void)
{
	return open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
}

/* The file offset of budget_target_fn in this binary. */
static uint64_t target_off(const struct elf_syms *es)
{
	for (uint64_t off = 0; off < (64u << 20); off += 16) {
		const char *n = elf_syms__map_offset(es, off, NULL, NULL);

		if (n && !strcmp(n, "budget_target_fn"))
			return off;
	}
	return 0;
}

TEST(fitting_budget_same_table)
{
	int fd = self_fd();
	struct elf_syms *full = elf_syms__open_debug(fd, NULL, NULL), *es;
	struct budget b = { .max_bytes = 64u << 20 };
	uint64_t off = target_off(full);

	es = elf_syms__open_debug_within(fd, NULL, NULL, &b);
	CHECK(full && es && off);
	CHECK(elf_syms__count(es) == elf_syms__count(full));
	CHECK(elf_syms__bytes(es) <= b.max_bytes);
	CHECK_STR(elf_syms__map_offset(es, off + 2, NULL, NULL), "budget_target_fn");
	/* a little more than the table: what reading it held besides */
	b.max_bytes = elf_syms__bytes(full) * 3 + (64u << 10);
	elf_syms__free(es);
	es = elf_syms__open_debug_within(fd, NULL, NULL, &b);
	CHECK(es && elf_syms__count(es) == elf_syms__count(full));
	printf("  %zu functions in %zu bytes\n", elf_syms__count(full), elf_syms__bytes(full));
	elf_syms__free(es);
	elf_syms__free(full);
	close(fd);
}

TEST(small_budget_e2big)
{
	struct budget b = { .max_bytes = 16u << 10 };
	int fd = self_fd();

	errno = 0;
	CHECK(elf_syms__open_debug_within(fd, NULL, NULL, &b) == NULL && errno == E2BIG);
	b.max_bytes = 256; /* not even the section headers */
	errno = 0;
	CHECK(elf_file__open_fd_within(fd, &b) == NULL && errno == E2BIG);
	close(fd);
}

TEST(expired_budget_etimedout)
{
	struct budget late = { .until = 1 };
	sigset_t usr1, old;
	struct budget sig = { .sigs = &usr1 };
	int fd = self_fd();

	errno = 0;
	CHECK(elf_syms__open_debug_within(fd, NULL, NULL, &late) == NULL && errno == ETIMEDOUT);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	CHECK(budget__expired(&sig) == false);
	raise(SIGUSR1);
	CHECK(budget__expired(&sig));
	errno = 0;
	CHECK(elf_syms__open_debug_within(fd, NULL, NULL, &sig) == NULL && errno == ETIMEDOUT);
	CHECK(sigtimedwait(&usr1, NULL, &(struct timespec){ 0 }) == SIGUSR1);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fd);
}

int main(void)
{
	RUN(fitting_budget_same_table);
	RUN(small_budget_e2big);
	RUN(expired_budget_etimedout);
	UNIT_EXIT();
}
