// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind_dump: builds the unwind table of an ELF file (src/unwind/unwind_table.c)
 * and prints what it holds, for measurements (docs/BENCHMARKS.md) and by
 * hand.  unwind_dump [-d DEBUGFILE] [-r] [-f] FILE
 *   (default)  statistics, and the build's time
 *   -m         the same as one line of key=value pairs, for scripts
 *   -r         every row: "VADDR KIND CFA_OFF RBP_OFF" (offsets in bytes)
 *   -f         reads addresses (hex) from standard input, prints the row of
 *              each: "ADDR KIND CFA_OFF RBP_OFF", "ADDR none" outside
 *   -n N       builds N times and reports the fastest (the first build
 *              reads the file's pages, the others time the parser)
 * Peak memory: /usr/bin/time -f %M unwind_dump FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "unwind/unwind_table.h"

static const char *const kinds[UNWIND_KIND__MAX] = {
	[UNWIND_GAP] = "gap", [UNWIND_CFA_RSP] = "rsp", [UNWIND_CFA_RBP] = "rbp",
	[UNWIND_PLT] = "plt", [UNWIND_SIGNAL] = "signal", [UNWIND_END] = "end",
	[UNWIND_UNSUPPORTED] = "unsupported",
};

static const char *const reasons[UNWIND_UNSUP__MAX] = {
	[UNWIND_UNSUP_CFA_REG] = "cfa_reg", [UNWIND_UNSUP_CFA_EXPR] = "cfa_expr",
	[UNWIND_UNSUP_CFA_OFF] = "cfa_off", [UNWIND_UNSUP_RA] = "ra",
	[UNWIND_UNSUP_RBP] = "rbp", [UNWIND_UNSUP_RSP] = "rsp",
	[UNWIND_UNSUP_SIGNAL] = "signal", [UNWIND_UNSUP_BAD_CFI] = "bad_cfi",
};

static const char *const stops[] = { "no", "rows", "insns", "bytes", "work", "cancelled" };

static void print_row(uint64_t addr, const struct unwind_row *r)
{
	if (!r) {
		printf("%" PRIx64 " none\n", addr);
		return;
	}
	/* arm64's flags (include/unwind.h) after the numbers; x86_64 has none */
	printf("%" PRIx64 " %s %d %d%s%s\n", addr, kinds[UNWIND_KIND(r->kind)], r->cfa_off * 8,
	       (r->kind & UNWIND_AT_BASE ? (uint8_t)r->rbp_off : r->rbp_off) *
		       (r->kind == UNWIND_PLT ? 1 : 8),
	       r->kind & UNWIND_AT_BASE ? " at_base" : "", r->kind & UNWIND_FP_BELOW ? " fp_below" : "");
}

/* The statistics as key=value pairs (scripts/bench-unwind.sh reads them). */
static void print_machine(const struct unwind_table *t, double ms)
{
	const struct unwind_stats *s = unwind_table__stats(t);
	int i;

	printf("fdes=%zu cfi_rows=%zu rows=%zu gaps=%zu rules=%zu bytes=%zu ms=%.2f"
	       " cfi_bytes=%" PRIu64 " work=%" PRIu64 " insns=%" PRIu64,
	       s->fdes, s->cfi_rows, s->rows, s->rows_by_kind[UNWIND_GAP],
	       unwind_table__rules(t), unwind_table__bytes(t), ms, s->cfi_bytes, s->work,
	       s->insns);
	for (i = 1; i < UNWIND_KIND__MAX; i++)
		printf(" %s=%zu", kinds[i], s->cfi_rows_by_kind[i]);
	printf(" stopped=%s\n", stops[s->stopped]);
}

static void print_stats(const struct unwind_table *t, double ms)
{
	const struct unwind_stats *s = unwind_table__stats(t);
	int i;

	printf("fdes %zu (eh_frame %zu, debug_frame %zu, debug file %zu; bad %zu, "
	       "overlapping %zu, outside %zu)\n", s->fdes,
	       s->fdes_by_source[UNWIND_SRC_EH_FRAME],
	       s->fdes_by_source[UNWIND_SRC_DEBUG_FRAME],
	       s->fdes_by_source[UNWIND_SRC_DBG_DEBUG_FRAME], s->fdes_bad,
	       s->fdes_overlap, s->fdes_outside);
	printf("cfi rows %zu:", s->cfi_rows);
	for (i = 1; i < UNWIND_KIND__MAX; i++)
		printf(" %s %zu (%.2f%%)", kinds[i], s->cfi_rows_by_kind[i],
		       s->cfi_rows ? 100.0 * s->cfi_rows_by_kind[i] / s->cfi_rows : 0);
	printf("\nunsupported:");
	for (i = 0; i < UNWIND_UNSUP__MAX; i++)
		printf(" %s %zu", reasons[i], s->unsupported[i]);
	printf("\ntable rows %zu (gaps %zu), distinct rules %zu, %zu bytes, "
	       "%" PRIu64 " instructions, work %" PRIu64 " (%.2f a byte of %" PRIu64 " of CFI), "
	       "stopped by budget: %s, base 0x%" PRIx64 ", built in %.2f ms\n",
	       s->rows, s->rows_by_kind[UNWIND_GAP], unwind_table__rules(t),
	       unwind_table__bytes(t), s->insns, s->work,
	       s->cfi_bytes ? (double)s->work / s->cfi_bytes : 0, s->cfi_bytes,
	       stops[s->stopped], unwind_table__base(t), ms);
}

static struct elf_file *open_elf(const char *path, int *fd)
{
	struct elf_file *f;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0 || !(f = elf_file__open_fd(*fd))) {
		fprintf(stderr, "unwind_dump: cannot read %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return f;
}

/* The table of f, built n times; *best gets the fastest build's ms. */
static struct unwind_table *build(struct elf_file *f, struct elf_file *dbg, int n,
				  double *best)
{
	struct unwind_table *t = NULL;
	struct timespec t0, t1;
	double ms;

	*best = 1e30;
	while (n-- > 0) {
		unwind_table__free(t);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		t = unwind_table__build(f, dbg, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
		*best = ms < *best ? ms : *best;
	}
	return t;
}

int main(int argc, char **argv)
{
	const char *dbg_path = NULL;
	struct elf_file *f, *dbg = NULL;
	struct unwind_table *t;
	int opt, fd, dfd = -1, rows = 0, find = 0, machine = 0, n = 1;
	double best;
	const struct unwind_row *r;
	size_t i, nr;
	char line[64];

	while ((opt = getopt(argc, argv, "d:rfmn:")) != -1) {
		if (opt == 'd')
			dbg_path = optarg;
		else if (opt == 'r')
			rows = 1;
		else if (opt == 'f')
			find = 1;
		else if (opt == 'm')
			machine = 1;
		else if (opt == 'n')
			n = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: unwind_dump [-d DEBUGFILE] [-r | -f | -m] [-n N] FILE\n");
		return 2;
	}
	f = open_elf(argv[optind], &fd);
	if (dbg_path)
		dbg = open_elf(dbg_path, &dfd);
	t = build(f, dbg, n, &best);
	if (!t) {
		printf("no table: %s\n", strerror(errno));
		return 1;
	}
	if (rows) {
		r = unwind_table__rows(t, &nr);
		for (i = 0; i < nr; i++)
			print_row(unwind_table__base(t) + r[i].pc, &r[i]);
	} else if (find) {
		while (fgets(line, sizeof(line), stdin)) {
			uint64_t a = strtoull(line, NULL, 16);

			print_row(a, unwind_table__find(t, a));
		}
	} else if (machine) {
		print_machine(t, best);
	} else {
		print_stats(t, best);
	}
	unwind_table__free(t);
	elf_file__close(f);
	elf_file__close(dbg);
	close(fd);
	if (dfd >= 0)
		close(dfd);
	return 0;
}
