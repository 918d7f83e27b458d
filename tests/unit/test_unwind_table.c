// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for unwind tables, against an independent reference: binutils'
 * readelf.  For Debian's C library, dynamic loader and C++ runtime, and for
 * the frameless workloads (tests/workloads/frameless, gcc and clang, -O2
 * -fomit-frame-pointer), every row `readelf --debug-dump=frames-interp`
 * lists (or, for an FDE without instructions, its CIE's row) is looked up
 * in the table, which must give the rule readelf shows: CFA = rsp or rbp +
 * N, rbp unchanged or saved at CFA - M, return address at CFA - 8; END
 * where the return address is undefined; PLT and SIGNAL with the constants
 * of the expressions `readelf --debug-dump=frames` prints; UNSUPPORTED for
 * the other rules.  Every address no FDE covers must be a gap, and every
 * other row must lie inside an FDE.  Then: a file without asynchronous
 * unwind tables (gaps), its separate debug file's .debug_frame (plain and
 * compressed), IBT PLTs, a file without section headers, a corrupted FDE,
 * each budget stopping a build cleanly, the work of a build bounded by its
 * CFI's size whatever the CFI holds, and a cancelled build.  arm64 files
 * likewise, on any host (the cross compiler's C library and C++ runtime,
 * the frameless workloads cross-compiled by gcc and clang, with and without
 * pointer authentication): CFA = sp or x29 + N, x30 still in the link
 * register, saved at CFA - N or at the frame's base, x29 unchanged or right
 * below x30, as include/unwind.h's arm64 rows say.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "lib/budget.h"
#include "unit.h"
#include "unit_sh.h"
#include "unwind/unwind_table.h"

#define LIBDIR "/usr/lib/x86_64-linux-gnu/"

static char dir[] = "/tmp/smolder-unwind-XXXXXX";
static char workloads[PATH_MAX]; /* build/workloads, beside build/tests */

/* An open file and its table. */
struct built {
	int fd, dfd;
	struct elf_file *f, *dbg;
	struct unwind_table *t;
};

static int build(struct built *b, const char *path, const char *dbg,
		 const struct unwind_build_opts *o)
{
	*b = (struct built){ .fd = open(path, O_RDONLY | O_CLOEXEC), .dfd = -1 };
	if (b->fd < 0 || !(b->f = elf_file__open_fd(b->fd))) {
		printf("  cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (dbg && ((b->dfd = open(dbg, O_RDONLY | O_CLOEXEC)) < 0 ||
		    !(b->dbg = elf_file__open_fd(b->dfd)))) {
		printf("  cannot open %s: %s\n", dbg, strerror(errno));
		return -1;
	}
	b->t = unwind_table__build(b->f, b->dbg, o);
	if (!b->t)
		printf("  no table for %s: %s\n", path, strerror(errno));
	return b->t ? 0 : -1;
}

static void unbuild(struct built *b)
{
	unwind_table__free(b->t);
	elf_file__close(b->f);
	elf_file__close(b->dbg);
	if (b->fd >= 0)
		close(b->fd);
	if (b->dfd >= 0)
		close(b->dfd);
}

/* ---- The reference: what readelf says */

struct range {
	uint64_t lo, hi;
};

/* Constants of an FDE's expressions, from `readelf --debug-dump=frames`. */
struct fde_exprs {
	char sec;          /* 'e' .eh_frame, 'd' .debug_frame */
	unsigned long off; /* of the FDE in its section */
	int plt_a, plt_k;  /* CFA = rsp + a + ((rip & 15) >= k ? 8 : 0) */
	int sig_cfa, sig_rbp, sig_rip; /* breg7 offsets of a signal frame */
	/* arm64: where DW_CFA_undefined x30 was first met (a CIE's: 0), for
	 * frames-interp shows "u" for it and for x30 not yet saved alike */
	bool ra_undef;
	uint64_t ra_undef_at;
};

/* A CIE's or FDE's table from frames-interp. */
struct itable {
	char cols[24][16]; /* column names after LOC */
	int ncols;
	struct irow {
		uint64_t loc;
		char vals[24][16];
	} *rows;
	size_t nr;
};

struct icie {
	char sec;
	unsigned long off;
	bool signal;
	unsigned long ra_col; /* its return address column */
	struct itable tab;
};

struct ref {
	struct fde_exprs *ex;
	size_t nr_ex;
	struct icie *cies;
	size_t nr_cies;
	struct range *fdes, exec[16];
	size_t nr_fdes, nr_exec;
	bool a64; /* an arm64 file: include/unwind.h's arm64 rows */
	size_t checked, mismatches;
};

static void *grow(void *p, size_t n, size_t size)
{
	p = realloc(p, (n + 1) * size);
	if (!p)
		abort();
	return p;
}

/* 'e' or 'd' for the section a line of readelf starts; in a debug file,
 * 'E' or 'D', so that its offsets are not taken for the file's. */
static char section_of(const char *line, char cur, bool dbg)
{
	if (strstr(line, "Contents of the .eh_frame section"))
		return dbg ? 'E' : 'e';
	if (strstr(line, "Contents of the .debug_frame section"))
		return dbg ? 'D' : 'd';
	return cur;
}

static struct fde_exprs *exprs_of(struct ref *r, char sec, unsigned long off,
				  bool add)
{
	size_t i;

	for (i = 0; i < r->nr_ex; i++)
		if (r->ex[i].sec == sec && r->ex[i].off == off)
			return &r->ex[i];
	if (!add)
		return NULL;
	r->ex = grow(r->ex, r->nr_ex, sizeof(*r->ex));
	r->ex[r->nr_ex] = (struct fde_exprs){ .sec = sec, .off = off };
	return &r->ex[r->nr_ex++];
}

/* One line of `readelf --debug-dump=frames` inside FDE (sec, off). */
static void read_expr_line(struct ref *r, const char *line, char sec,
			   unsigned long off)
{
	char end = 0;
	int x, k;

	if (sscanf(line, " DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): %d; "
		   "DW_OP_breg16 (rip): 0; DW_OP_lit15; DW_OP_and; DW_OP_lit%d; "
		   "DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus%c", &x, &k, &end) == 3 &&
	    end == ')') {
		exprs_of(r, sec, off, true)->plt_a = x;
		exprs_of(r, sec, off, true)->plt_k = k;
	} else if (sscanf(line, " DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): %d; "
			  "DW_OP_deref%c", &x, &end) == 2 && end == ')') {
		exprs_of(r, sec, off, true)->sig_cfa = x;
	} else if (sscanf(line, " DW_CFA_expression: r6 (rbp) (DW_OP_breg7 (rsp): %d%c",
			  &x, &end) == 2 && end == ')') {
		exprs_of(r, sec, off, true)->sig_rbp = x;
	} else if (sscanf(line, " DW_CFA_expression: r16 (rip) (DW_OP_breg7 (rsp): %d%c",
			  &x, &end) == 2 && end == ')') {
		exprs_of(r, sec, off, true)->sig_rip = x;
	}
}

/* arm64: an undefined x30 at loc, in the CIE or FDE at (sec, off). */
static void read_ra_undef(struct ref *r, const char *line, char sec, unsigned long off,
			  uint64_t loc)
{
	struct fde_exprs *ex;

	if (!strstr(line, "DW_CFA_undefined: r30 (x30)"))
		return;
	ex = exprs_of(r, sec, off, true);
	if (!ex->ra_undef)
		ex->ra_undef_at = loc;
	ex->ra_undef = true;
}

/* The PLT and signal-frame expressions readelf decodes, by FDE; for arm64,
 * where x30 becomes undefined. */
static void read_exprs(struct ref *r, const char *path, bool dbg)
{
	char cmd[PATH_MAX + 64], line[1024], sec = 0;
	unsigned long off = 0, a, b, c, cie, lo, hi, to;
	uint64_t loc = 0;
	const char *at;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -wN -W --debug-dump=frames '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		sec = section_of(line, sec, dbg);
		if (sscanf(line, "%lx %lx %lx FDE cie=%lx pc=%lx..%lx", &a, &b, &c, &cie, &lo,
			   &hi) == 6) {
			off = a;
			loc = lo;
		} else if (sscanf(line, "%lx %lx %lx CIE", &a, &b, &c) == 3 &&
			   strstr(line, " CIE")) {
			off = a;
			loc = 0;
		} else if (strstr(line, "DW_CFA_advance_loc") && (at = strstr(line, " to ")) &&
			   sscanf(at, " to %lx", &to) == 1) {
			loc = to;
		} else {
			read_expr_line(r, line, sec, off);
			read_ra_undef(r, line, sec, off, loc);
		}
	}
	if (p)
		pclose(p);
}

static const char *col(const struct itable *tab, const struct irow *row,
		       const char *name)
{
	int i;

	for (i = 0; i < tab->ncols; i++)
		if (!strcmp(tab->cols[i], name))
			return row->vals[i];
	return NULL;
}

/*
 * The row readelf's line means: "c-8" for the return address, "u" or "s"
 * for rbp (and rsp) left alone, "c-N" for rbp saved, "rsp+N" or "rbp+N"
 * for the CFA; "exp" is the PLT's or a signal frame's expression (decoded
 * from the raw dump) or unsupported.
 */
static struct unwind_row expect(const struct itable *tab, const struct irow *row,
				bool signal, const struct fde_exprs *ex)
{
	const struct unwind_row none = { .kind = UNWIND_UNSUPPORTED };
	const char *cfa = col(tab, row, "CFA"), *ra = col(tab, row, "ra");
	const char *fp = col(tab, row, "rbp"), *sp = col(tab, row, "rsp");
	struct unwind_row u = none;
	char end;
	int n;

	if (signal) {
		if (!ex || ex->sig_cfa <= 0 || ex->sig_rip != ex->sig_cfa + 8 || ex->sig_rbp <= 0)
			return none;
		return (struct unwind_row){ .kind = UNWIND_SIGNAL, .cfa_off = ex->sig_cfa / 8,
					    .rbp_off = ex->sig_rbp / 8 };
	}
	if (ra && !strcmp(ra, "u"))
		return (struct unwind_row){ .kind = UNWIND_END };
	if (!cfa || !ra || strcmp(ra, "c-8") || (sp && strcmp(sp, "u") && strcmp(sp, "s")))
		return none;
	if (fp && strcmp(fp, "u") && strcmp(fp, "s")) {
		if (sscanf(fp, "c-%d%c", &n, &end) != 1 || n <= 0 || n % 8 || n > 1024)
			return none;
		u.rbp_off = -n / 8;
	}
	if (!strcmp(cfa, "exp")) {
		if (!ex || !ex->plt_a || u.rbp_off)
			return none;
		n = ex->plt_a;
		u.kind = UNWIND_PLT;
		u.rbp_off = ex->plt_k;
	} else if (sscanf(cfa, "rsp%d%c", &n, &end) == 1) {
		u.kind = UNWIND_CFA_RSP;
	} else if (sscanf(cfa, "rbp%d%c", &n, &end) == 1) {
		u.kind = UNWIND_CFA_RBP;
	} else {
		return none;
	}
	if (n <= 0 || n % 8 || n / 8 > 65535)
		return none;
	u.cfa_off = n / 8;
	return u;
}

/*
 * The arm64 row readelf's line means (include/unwind.h, "arm64 rows"): the
 * CFA "sp+N" or "x29+N"; x30 ("ra") not saved yet (in the link register),
 * undefined (ra_undef: END) or "c-N", kept as N below the CFA when that
 * fits a byte of 8s, else from the CFA's base register; x29 unchanged or
 * saved right below x30.
 */
static struct unwind_row expect_a64(const struct itable *tab, const struct irow *row,
				    bool signal, bool ra_undef, unsigned long ra_col)
{
	const struct unwind_row none = { .kind = UNWIND_UNSUPPORTED };
	const char *cfa = col(tab, row, "CFA"), *ra = col(tab, row, "ra");
	const char *fp = col(tab, row, "x29"), *sp = col(tab, row, "sp");
	struct unwind_row u = none;
	int n, k = 0, f;
	char end;

	if (signal)
		return (struct unwind_row){ .kind = UNWIND_SIGNAL };
	if (ra_col != 30) /* the return address in another register */
		return none;
	if (ra_undef && ra && !strcmp(ra, "u"))
		return (struct unwind_row){ .kind = UNWIND_END };
	if (!cfa || (sp && strcmp(sp, "u") && strcmp(sp, "s")))
		return none;
	if (sscanf(cfa, "sp+%d%c", &n, &end) == 1)
		u.kind = UNWIND_CFA_RSP;
	else if (sscanf(cfa, "x29+%d%c", &n, &end) == 1)
		u.kind = UNWIND_CFA_RBP;
	else
		return none;
	if (n < 0 || n % 8 || n / 8 > 65535)
		return none;
	u.cfa_off = n / 8;
	if (ra && strcmp(ra, "u") && strcmp(ra, "s")) {
		if (sscanf(ra, "c-%d%c", &k, &end) != 1 || k <= 0 || k % 8)
			return none;
		if (k <= 1024) {
			u.rbp_off = -k / 8;
		} else if (n - k >= 0 && n - k <= 255 * 8) {
			u.kind |= UNWIND_AT_BASE;
			u.rbp_off = (int8_t)(uint8_t)((n - k) / 8);
		} else {
			return none;
		}
	}
	if (fp && strcmp(fp, "u") && strcmp(fp, "s")) {
		if (!k || sscanf(fp, "c-%d%c", &f, &end) != 1 || f != k + 8)
			return none;
		u.kind |= UNWIND_FP_BELOW;
	}
	return u;
}

static bool in_exec(const struct ref *r, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < r->nr_exec; i++)
		if (lo >= r->exec[i].lo && hi <= r->exec[i].hi)
			return true;
	return false;
}

/* The executable PT_LOADs: FDEs outside them (discarded functions in a
 * .debug_frame) have no rows. */
static void read_exec(struct ref *r, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t i, n = 0;
	GElf_Phdr ph;
	GElf_Ehdr eh;

	if (elf && gelf_getehdr(elf, &eh))
		r->a64 = eh.e_machine == EM_AARCH64;
	if (elf && !elf_getphdrnum(elf, &n))
		for (i = 0; i < n && r->nr_exec < 16; i++)
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X))
				r->exec[r->nr_exec++] = (struct range){ ph.p_vaddr,
									ph.p_vaddr + ph.p_memsz };
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

static void print_row(const char *what, const struct unwind_row *u)
{
	printf(" %s kind %d cfa_off %d rbp_off %d", what, u ? u->kind : -1,
	       u ? u->cfa_off : 0, u ? u->rbp_off : 0);
}

/* One readelf row against the table's row at its address. */
static void check_row(struct ref *r, const struct unwind_table *t,
		      const struct itable *tab, const struct irow *row, uint64_t loc,
		      const struct icie *cie, const struct fde_exprs *ex,
		      const struct fde_exprs *cie_ex)
{
	bool signal = cie->signal;
	bool ra_undef = (cie_ex && cie_ex->ra_undef) ||
			(ex && ex->ra_undef && ex->ra_undef_at <= loc);
	struct unwind_row want = r->a64 ? expect_a64(tab, row, signal, ra_undef, cie->ra_col) :
					  expect(tab, row, signal, ex);
	const struct unwind_row *got = unwind_table__find(t, loc);

	r->checked++;
	if (got && got->kind == want.kind && got->cfa_off == want.cfa_off &&
	    got->rbp_off == want.rbp_off)
		return;
	if (r->mismatches++ < 8) {
		printf("  at %#" PRIx64 ": readelf CFA %s rbp %s ra %s:", loc,
		       col(tab, row, "CFA") ?: "-", col(tab, row, "rbp") ?: "-",
		       col(tab, row, "ra") ?: "-");
		print_row("want", &want);
		print_row("got", got);
		printf("\n");
	}
}

/* One FDE readelf listed: each of its rows (the CIE's when it has none). */
static void check_fde(struct ref *r, const struct unwind_table *t, char sec,
		      unsigned long off, unsigned long cie_off, struct range pc,
		      const struct itable *tab)
{
	const struct icie *cie = NULL;
	size_t i;

	for (i = 0; i < r->nr_cies; i++)
		if (r->cies[i].sec == sec && r->cies[i].off == cie_off)
			cie = &r->cies[i];
	if (pc.lo == pc.hi || !in_exec(r, pc.lo, pc.hi))
		return;
	r->fdes = grow(r->fdes, r->nr_fdes, sizeof(*r->fdes));
	r->fdes[r->nr_fdes++] = pc;
	if (!cie) {
		printf("  FDE %lx: CIE %lx not listed\n", off, cie_off);
		r->mismatches++;
		return;
	}
	if (!tab->nr && cie->tab.nr)
		check_row(r, t, &cie->tab, &cie->tab.rows[0], pc.lo, cie,
			  exprs_of(r, sec, off, false), exprs_of(r, sec, cie_off, false));
	for (i = 0; i < tab->nr; i++) {
		/* a location listed twice has the second state */
		if (tab->rows[i].loc >= pc.hi ||
		    (i + 1 < tab->nr && tab->rows[i + 1].loc == tab->rows[i].loc))
			continue;
		check_row(r, t, tab, &tab->rows[i], tab->rows[i].loc, cie,
			  exprs_of(r, sec, off, false), exprs_of(r, sec, cie_off, false));
	}
}

/* Where the frames-interp reader is: inside a CIE's or an FDE's table. */
struct iparse {
	char sec;
	int in; /* 0, 'C' or 'F' */
	unsigned long off, cie_off;
	bool signal;
	unsigned long ra_col;
	struct range pc;
	struct itable tab;
};

static void finish(struct ref *r, const struct unwind_table *t, struct iparse *ip)
{
	if (ip->in == 'F') {
		check_fde(r, t, ip->sec, ip->off, ip->cie_off, ip->pc, &ip->tab);
		free(ip->tab.rows);
	} else if (ip->in == 'C') {
		r->cies = grow(r->cies, r->nr_cies, sizeof(*r->cies));
		r->cies[r->nr_cies++] = (struct icie){ ip->sec, ip->off, ip->signal, ip->ra_col,
						       ip->tab };
	}
	ip->in = 0;
	memset(&ip->tab, 0, sizeof(ip->tab));
}

/* A column header ("LOC CFA rbx ra") or a row ("0000000000001020 rsp+16
 * c-8") of the current table. */
static void read_table_line(struct itable *tab, char *line)
{
	char *save, *tok = strtok_r(line, " \t\n", &save);
	bool header = tok && !strcmp(tok, "LOC");
	struct irow row = { 0 };
	int n = 0;

	if (!tok || (!header && (strlen(tok) != 16 || strspn(tok, "0123456789abcdef") != 16)))
		return;
	row.loc = strtoull(tok, NULL, 16);
	while ((tok = strtok_r(NULL, " \t\n", &save)) && n < 24) {
		if (*tok == '(' && n)
			continue; /* "r10 (r10)": a register rule's name, once more */
		snprintf(header ? tab->cols[n] : row.vals[n], 16, "%s", tok);
		n++;
	}
	if (header) {
		tab->ncols = n;
		return;
	}
	tab->rows = grow(tab->rows, tab->nr, sizeof(*tab->rows));
	tab->rows[tab->nr++] = row;
}

/* Checks t against every FDE `readelf --debug-dump=frames-interp path`
 * lists. */
static void read_interp(struct ref *r, const struct unwind_table *t, const char *path,
			bool dbg)
{
	char cmd[PATH_MAX + 64], line[1024], aug[16];
	unsigned long a, b, c, cie_off;
	const char *at;
	struct iparse ip = { 0 };
	struct range pc;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -wN -W --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		if (section_of(line, 0, dbg)) {
			finish(r, t, &ip);
			ip.sec = section_of(line, 0, dbg);
		} else if (strstr(line, " CIE \"") &&
			   sscanf(line, "%lx %lx %lx CIE \"%15[^\"]", &a, &b, &c, aug) >= 3) {
			finish(r, t, &ip);
			ip.in = 'C';
			ip.off = a;
			ip.signal = !strstr(line, "CIE \"\"") && strchr(aug, 'S');
			at = strstr(line, " ra=");
			ip.ra_col = at ? strtoul(at + 4, NULL, 10) : ULONG_MAX;
		} else if (sscanf(line, "%lx %lx %lx FDE cie=%lx pc=%lx..%lx", &a, &b, &c,
				  &cie_off, &pc.lo, &pc.hi) == 6) {
			finish(r, t, &ip);
			ip.in = 'F';
			ip.off = a;
			ip.cie_off = cie_off;
			ip.pc = pc;
		} else if (strstr(line, "ZERO terminator")) {
			finish(r, t, &ip);
		} else if (ip.in) {
			read_table_line(&ip.tab, line);
		}
	}
	finish(r, t, &ip);
	if (p)
		pclose(p);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool in_fde(const struct ref *r, uint64_t a)
{
	size_t lo = 0, hi = r->nr_fdes, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->fdes[mid].hi <= a)
			lo = mid + 1;
		else if (r->fdes[mid].lo > a)
			hi = mid;
		else
			return true;
	}
	return false;
}

/* Every address no FDE covers starts a gap; every row that is not a gap
 * lies inside an FDE. */
static void check_gaps(struct ref *r, const struct unwind_table *t)
{
	const struct unwind_row *rows, *g;
	uint64_t base = unwind_table__base(t), hole;
	size_t i, nr, bad = 0;

	qsort(r->fdes, r->nr_fdes, sizeof(*r->fdes), range_cmp);
	for (i = 0; i < r->nr_fdes; i++) {
		CHECK(!i || r->fdes[i].lo >= r->fdes[i - 1].hi); /* readelf's own FDEs overlap */
		hole = r->fdes[i].hi;
		if (i + 1 < r->nr_fdes && r->fdes[i + 1].lo <= hole)
			continue;
		g = unwind_table__find(t, hole);
		bad += !g || g->kind != UNWIND_GAP;
	}
	if (r->nr_fdes && r->fdes[0].lo > base)
		bad += unwind_table__find(t, base)->kind != UNWIND_GAP;
	rows = unwind_table__rows(t, &nr);
	for (i = 0; i < nr; i++)
		bad += rows[i].kind != UNWIND_GAP && !in_fde(r, base + rows[i].pc);
	if (bad)
		printf("  %zu gaps missing or rows outside FDEs\n", bad);
	CHECK(!bad);
}

/* Rows sorted, merged, from pc 0 to a closing gap; statistics that add up. */
static void check_shape(const struct unwind_table *t)
{
	const struct unwind_stats *s = unwind_table__stats(t);
	size_t i, nr, bad = 0, kinds = 0, cfi = 0, unsup = 0;
	const struct unwind_row *rows = unwind_table__rows(t, &nr);

	CHECK(nr && rows[0].pc == 0 && rows[nr - 1].kind == UNWIND_GAP);
	for (i = 1; i < nr; i++)
		bad += rows[i].pc <= rows[i - 1].pc ||
		       (rows[i].kind == rows[i - 1].kind && rows[i].cfa_off == rows[i - 1].cfa_off &&
			rows[i].rbp_off == rows[i - 1].rbp_off);
	CHECK(!bad);
	for (i = 0; i < UNWIND_KIND__MAX; i++) {
		kinds += s->rows_by_kind[i];
		cfi += s->cfi_rows_by_kind[i];
	}
	for (i = 0; i < UNWIND_UNSUP__MAX; i++)
		unsup += s->unsupported[i];
	CHECK(s->rows == nr && kinds == nr && cfi == s->cfi_rows);
	CHECK(unsup == s->cfi_rows_by_kind[UNWIND_UNSUPPORTED]);
	CHECK(unwind_table__bytes(t) >= nr * sizeof(*rows));
	CHECK(s->stopped == UNWIND_STOP_NONE);
}

static void free_ref(struct ref *r)
{
	size_t i;

	for (i = 0; i < r->nr_cies; i++)
		free(r->cies[i].tab.rows);
	free(r->cies);
	free(r->ex);
	free(r->fdes);
}

/* The table of path (and dbg) against readelf's rows, gaps and shape. */
static void compare(const char *path, const char *dbg, size_t min_rows)
{
	struct ref r = { 0 };
	struct built b;

	if (build(&b, path, dbg, NULL)) {
		CHECK(!"table built");
		unbuild(&b);
		return;
	}
	read_exec(&r, path);
	read_exprs(&r, path, false);
	read_interp(&r, b.t, path, false);
	if (dbg) {
		read_exprs(&r, dbg, true);
		read_interp(&r, b.t, dbg, true);
	}
	check_gaps(&r, b.t);
	check_shape(b.t);
	printf("  %s%s%s: %zu rows of %zu FDEs checked, %zu differ\n", path,
	       dbg ? " + " : "", dbg ? dbg : "", r.checked, r.nr_fdes, r.mismatches);
	CHECK(r.checked >= min_rows);
	CHECK(r.nr_fdes == unwind_table__stats(b.t)->fdes);
	CHECK(!r.mismatches);
	free_ref(&r);
	unbuild(&b);
}

static const char *W(const char *name)
{
	static char path[4][PATH_MAX + 64];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", workloads, name);
	return path[i];
}

static const char *T(const char *name)
{
	static char path[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/* A symbol's address, from nm. */
static uint64_t sym(const char *path, const char *name)
{
	char cmd[PATH_MAX + 128], out[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s' | awk '$3 == \"%s\" { print $1; exit }'", path, name);
	p = popen(cmd, "r");
	if (p && !fgets(out, sizeof(out), p))
		out[0] = '\0';
	if (p)
		pclose(p);
	return strtoull(out, NULL, 16);
}

/* ---- Tests */

TEST(libc_matches_readelf)
{
	compare(LIBDIR "libc.so.6", NULL, 20000);
}

TEST(ld_so_matches_readelf)
{
	compare(LIBDIR "ld-linux-x86-64.so.2", NULL, 2000);
}

TEST(libstdcxx_matches_readelf)
{
	compare(LIBDIR "libstdc++.so.6", NULL, 20000);
}

TEST(frameless_gcc_matches_readelf)
{
	compare(W("unwind_paths-gcc"), NULL, 50);
	compare(W("unwind_dl-gcc.so"), NULL, 5);
}

TEST(frameless_clang_matches_readelf)
{
	compare(W("unwind_paths-clang"), NULL, 50);
	compare(W("unwind_dl-clang.so"), NULL, 5);
}

#define A64LIB "/usr/aarch64-linux-gnu/lib/"

/* arm64 files (the cross compiler's C library, and the frameless workloads
 * cross-compiled) against readelf, on any host: the table's architecture
 * is the file's. */
TEST(a64_libc_matches_readelf)
{
	compare(A64LIB "libc.so.6", NULL, 20000);
	compare(A64LIB "ld-linux-aarch64.so.1", NULL, 1000);
	compare(A64LIB "libstdc++.so.6", NULL, 20000);
}

TEST(a64_frameless_gcc_matches_readelf)
{
	compare(W("a64/unwind_paths-gcc"), NULL, 50);
	compare(W("a64/unwind_paths-gcc-pac"), NULL, 50);
	compare(W("a64/unwind_dl-gcc.so"), NULL, 5);
}

TEST(a64_frameless_clang_matches_readelf)
{
	compare(W("a64/unwind_paths-clang"), NULL, 50);
	compare(W("a64/unwind_paths-clang-pac"), NULL, 50);
	compare(W("a64/unwind_dl-clang.so"), NULL, 5);
}

/* Where func's call of callee returns to, from objdump's disassembly. */
static uint64_t a64_call_return(const char *path, const char *func, const char *callee)
{
	char cmd[PATH_MAX + 256], out[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "aarch64-linux-gnu-objdump -d --no-show-raw-insn '%s' | "
		 "awk '/^[0-9a-f]+ <%s>:/ { in_f = 1; next } /^$/ { in_f = 0 } "
		 "in_f && /\\tbl\\t.*<%s>/ { sub(\":\", \"\", $1); print $1; exit }'",
		 path, func, callee);
	p = popen(cmd, "r");
	if (p && !fgets(out, sizeof(out), p))
		out[0] = '\0';
	if (p)
		pclose(p);
	return out[0] ? strtoull(out, NULL, 16) + 4 : 0;
}

/*
 * Rules checked by hand in the disassembly (gcc 12, clang 14, -O2
 * -fomit-frame-pointer): _start's x30 is undefined after its first
 * instruction (glibc's start.S); the
 * frameless leaf hot_leaf keeps its CFA at sp and its return address in
 * x30 throughout; gcc's big_frame (sub sp twice, then str x30, [sp]) calls
 * hot_leaf with the CFA at sp + 73744 and x30 at the bottom of its frame,
 * too far below the CFA for a byte of 8s: from the base.  The kernel's
 * sigreturn trampoline (sigreturn.so, the vDSO's CFI and code) is a
 * signal row, at the return address - 1 that a handler's frame looks up.
 */
TEST(a64_special_rows)
{
	const char *gcc = W("a64/unwind_paths-gcc"), *tramp = W("a64/sigreturn.so");
	const char *files[] = { gcc, W("a64/unwind_paths-clang"), W("a64/unwind_paths-gcc-pac") };
	const struct unwind_row *r;
	struct built b;
	uint64_t at;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (build(&b, files[i], NULL, NULL)) {
			CHECK(!"table built");
		} else {
			/* glibc's start.S: one instruction, then cfi_undefined x30 */
			r = unwind_table__find(b.t, sym(files[i], "_start") + 4);
			CHECK(r && r->kind == UNWIND_END);
			for (at = sym(files[i], "hot_leaf"); at < sym(files[i], "hot_leaf") + 0x30; at += 4) {
				r = unwind_table__find(b.t, at);
				CHECK(r && r->kind == UNWIND_CFA_RSP && !r->cfa_off && !r->rbp_off);
			}
			CHECK(!unwind_table__stats(b.t)->unsupported[UNWIND_UNSUP_BAD_CFI]);
		}
		unbuild(&b);
	}
	if (!build(&b, gcc, NULL, NULL)) {
		at = a64_call_return(gcc, "big_frame", "hot_leaf");
		r = unwind_table__find(b.t, at - 1);
		CHECK(at && r && r->kind == (UNWIND_CFA_RSP | UNWIND_AT_BASE) &&
		      r->cfa_off * 8 == 73744 && r->rbp_off == 0);
	}
	unbuild(&b);
	if (!build(&b, tramp, NULL, NULL)) {
		r = unwind_table__find(b.t, sym(tramp, "__kernel_rt_sigreturn") - 1);
		CHECK(r && r->kind == UNWIND_SIGNAL);
	}
	unbuild(&b);
}

/*
 * arm64's vDSO without CFI (a64/vdso.so, as Debian's 6.1 and 6.12 kernels
 * build it): built as the vDSO, its leaves get "CFA = sp, return address in
 * x30" at every instruction and its trampoline the SIGNAL row from the nop
 * before it; the functions that move sp, write x30
 * or call are UNSUPPORTED (the frame-pointer fallback; a gap would be
 * taken for a PLT entry's).  Built as any other file: no CFI, no
 * table.
 */
TEST(a64_vdso_rows_from_code)
{
	const char *vdso = W("a64/vdso.so");
	const char *leaves[] = { "__kernel_clock_gettime", "jumps_on" };
	const char *others[] = { "framed", "moves_sp", "writes_lr", "calls_reg" };
	struct unwind_build_opts o = { .vdso = true };
	const struct unwind_row *r;
	struct built b;
	uint64_t at, tramp = sym(vdso, "__kernel_rt_sigreturn");

	CHECK(build(&b, vdso, NULL, NULL) && errno == ENOENT);
	unbuild(&b);
	if (build(&b, vdso, NULL, &o)) {
		CHECK(!"table built");
		return;
	}
	for (size_t i = 0; i < 2; i++)
		for (at = sym(vdso, leaves[i]); at < sym(vdso, leaves[i]) + 8; at += 4) {
			r = unwind_table__find(b.t, at);
			CHECK(r && r->kind == UNWIND_CFA_RSP && !r->cfa_off && !r->rbp_off);
		}
	r = unwind_table__find(b.t, sym(vdso, "__kernel_clock_gettime") + 52);
	CHECK(r && r->kind == UNWIND_CFA_RSP);
	for (size_t i = 0; i < 4; i++) {
		r = unwind_table__find(b.t, sym(vdso, others[i]));
		CHECK(r && r->kind == UNWIND_UNSUPPORTED);
	}
	for (at = tramp - 4; at < tramp + 8; at += 4) {
		r = unwind_table__find(b.t, at);
		CHECK(r && r->kind == UNWIND_SIGNAL);
	}
	CHECK(unwind_table__stats(b.t)->fdes_by_source[UNWIND_SRC_A64_CODE] == 7);
	unbuild(&b);
}

/* The loader builds tables only for the architecture smolder runs on: an
 * arm64 program that qemu-user runs on x86_64 has none (its rows would be
 * read as x86_64's). */
TEST(a64_host_arch_only)
{
	struct unwind_build_opts o = { .host_arch_only = true };
	int fd = open(W("a64/unwind_paths-gcc"), O_RDONLY | O_CLOEXEC);
	struct elf_file *f = fd >= 0 ? elf_file__open_fd(fd) : NULL;
	struct unwind_table *t = unwind_table__build(f, NULL, &o);

#if defined(__aarch64__)
	CHECK(t);
#else
	CHECK(!t && errno == ENOEXEC);
#endif
	unwind_table__free(t);
	t = unwind_table__build(f, NULL, NULL);
	CHECK(t); /* either architecture without the option */
	unwind_table__free(t);
	elf_file__close(f);
	if (fd >= 0)
		close(fd);
}

/* The largest CFA offset (bytes) of the rows in [lo, lo + len). */
static unsigned int max_cfa(const struct unwind_table *t, uint64_t lo, uint64_t len)
{
	const struct unwind_row *r;
	unsigned int max = 0;
	uint64_t a;

	for (a = lo; a < lo + len; a++)
		if ((r = unwind_table__find(t, a)) && r->cfa_off * 8u > max)
			max = r->cfa_off * 8u;
	return max;
}

/* The rows with a meaning of their own are there, where they should be. */
TEST(special_rows)
{
	const struct unwind_row *r;
	const struct unwind_stats *s;
	struct built b;

	if (!build(&b, LIBDIR "libc.so.6", NULL, NULL)) {
		s = unwind_table__stats(b.t);
		/* __restore_rt: rsp, rip and rbp of the ucontext at rsp */
		CHECK(s->cfi_rows_by_kind[UNWIND_SIGNAL] == 1);
		CHECK(s->cfi_rows_by_kind[UNWIND_PLT] == 1);
		CHECK(s->fdes > 3000 && s->cfi_rows > 20000);
	}
	unbuild(&b);
	if (!build(&b, W("unwind_paths-gcc"), NULL, NULL)) {
		r = unwind_table__find(b.t, sym(W("unwind_paths-gcc"), "_start"));
		CHECK(r && r->kind == UNWIND_END);
		/* big_frame's 72 KiB frame, past its prologue */
		CHECK(max_cfa(b.t, sym(W("unwind_paths-gcc"), "big_frame"), 0x80) > 72 * 1024);
		/* the frameless leaf: CFA = rsp + 8 throughout */
		r = unwind_table__find(b.t, sym(W("unwind_paths-gcc"), "hot_leaf") + 4);
		CHECK(r && r->kind == UNWIND_CFA_RSP && r->cfa_off == 1 && !r->rbp_off);
	}
	unbuild(&b);
}

/* Without asynchronous unwind tables the program's own code has no CFI in
 * the file: gaps, and only the C runtime's FDEs (_start, .init, the PLT). */
TEST(no_async_unwind_tables)
{
	const char *p = W("unwind_paths-noasync");
	const struct unwind_row *r;
	struct built b;

	if (!build(&b, p, NULL, NULL)) {
		CHECK(unwind_table__stats(b.t)->fdes <= 5);
		CHECK(unwind_table__stats(b.t)->fdes_by_source[UNWIND_SRC_DBG_DEBUG_FRAME] == 0);
		r = unwind_table__find(b.t, sym(p, "_start"));
		CHECK(r && r->kind == UNWIND_END);
		r = unwind_table__find(b.t, sym(p, "hot_leaf") + 4);
		CHECK(r && r->kind == UNWIND_GAP);
		r = unwind_table__find(b.t, sym(p, "chain_a") + 4);
		CHECK(r && r->kind == UNWIND_GAP);
	}
	unbuild(&b);
	compare(p, NULL, 3);
}

/* The same file with its separate debug file: .debug_frame fills the gaps. */
TEST(debug_file_debug_frame)
{
	const char *p = W("unwind_paths-noasync"), *d = W("unwind_paths-noasync.debug");
	const struct unwind_row *r;
	struct built b;

	if (!build(&b, p, d, NULL)) {
		CHECK(unwind_table__stats(b.t)->fdes_by_source[UNWIND_SRC_DBG_DEBUG_FRAME] >= 10);
		r = unwind_table__find(b.t, sym(d, "hot_leaf") + 4);
		CHECK(r && r->kind == UNWIND_CFA_RSP && r->cfa_off == 1);
		r = unwind_table__find(b.t, sym(d, "_start"));
		CHECK(r && r->kind == UNWIND_END);
	}
	unbuild(&b);
	compare(p, d, 50);
}

static bool same_rows(const struct unwind_table *a, const struct unwind_table *b)
{
	size_t na, nb;
	const struct unwind_row *ra = unwind_table__rows(a, &na);
	const struct unwind_row *rb = unwind_table__rows(b, &nb);

	return na == nb && unwind_table__base(a) == unwind_table__base(b) &&
	       !memcmp(ra, rb, na * sizeof(*ra));
}

/* A zlib-compressed .debug_frame (objcopy --compress-debug-sections) gives
 * the same table. */
TEST(compressed_debug_frame)
{
	const char *p = W("unwind_paths-noasync");
	struct built plain, z;

	if (sh("objcopy --compress-debug-sections=zlib '%s' dbg.z",
	       W("unwind_paths-noasync.debug")) ||
	    sh("readelf -SW dbg.z | grep -E ' \\.debug_frame .* [A-Z]*C[A-Z]* '"))
		CHECK(!"compressed debug file made");
	if (!build(&plain, p, W("unwind_paths-noasync.debug"), NULL) &&
	    !build(&z, p, T("dbg.z"), NULL)) {
		CHECK(same_rows(plain.t, z.t));
		CHECK(unwind_table__stats(z.t)->fdes_by_source[UNWIND_SRC_DBG_DEBUG_FRAME] >= 10);
	}
	unbuild(&plain);
	unbuild(&z);
}

/* IBT PLTs (endbr64 first) push at offset 9, not 11: readelf's expression
 * says so, and so must the PLT rows. */
TEST(ibt_plt)
{
	const struct unwind_stats *s;
	struct built b;

	if (sh("printf '#include <stdio.h>\\n#include <stdlib.h>\\n"
	       "int main(int c, char **v) { puts(v[0]); return atoi(v[0]) + c; }\\n' > ibt.c && "
	       "gcc -O2 -fcf-protection -Wl,-z,ibtplt ibt.c -o ibt && "
	       "readelf -SW ibt | grep -q '\\.plt\\.sec'")) {
		CHECK(!"IBT PLT built");
		return;
	}
	compare(T("ibt"), NULL, 5);
	if (!build(&b, T("ibt"), NULL, NULL)) {
		s = unwind_table__stats(b.t);
		CHECK(s->cfi_rows_by_kind[UNWIND_PLT] == 1);
	}
	unbuild(&b);
}

/* A copy of a workload in the test directory, open for patching. */
static int copy_of(const char *src, const char *name)
{
	if (sh("cp '%s' '%s'", src, name))
		return -1;
	return open(T(name), O_RDWR | O_CLOEXEC);
}

static void poke(int fd, uint64_t off, const void *bytes, size_t len)
{
	CHECK(pwrite(fd, bytes, len, off) == (ssize_t)len);
}

/* A file whose section headers were stripped (sstrip does it; the loader
 * needs none) finds .eh_frame through PT_GNU_EH_FRAME: same table. */
TEST(no_section_headers)
{
	static const uint8_t zero[8];
	struct built orig, bare;
	int fd = copy_of(W("unwind_paths-gcc"), "bare");

	if (fd < 0) {
		CHECK(!"copy made");
		return;
	}
	poke(fd, offsetof(Elf64_Ehdr, e_shoff), zero, 8);
	poke(fd, offsetof(Elf64_Ehdr, e_shnum), zero, 2);
	poke(fd, offsetof(Elf64_Ehdr, e_shstrndx), zero, 2);
	close(fd);
	if (!build(&orig, W("unwind_paths-gcc"), NULL, NULL) &&
	    !build(&bare, T("bare"), NULL, NULL))
		CHECK(same_rows(orig.t, bare.t));
	unbuild(&orig);
	unbuild(&bare);
}

/* File offset of .eh_frame, and of the FDE that starts at pc in it. */
static bool locate_fde(const char *path, uint64_t pc, uint64_t *sec_off, uint64_t *fde_off,
		       uint64_t *cie_off, uint64_t *end)
{
	char cmd[PATH_MAX + 64], line[512];
	unsigned long a, b, c, cie, lo, hi;
	FILE *p;

	*sec_off = *fde_off = 0;
	snprintf(cmd, sizeof(cmd), "readelf -SW '%s' | awk '$2 == \".eh_frame\" { print $5 }'", path);
	if ((p = popen(cmd, "r"))) {
		if (fgets(line, sizeof(line), p))
			*sec_off = strtoull(line, NULL, 16);
		pclose(p);
	}
	snprintf(cmd, sizeof(cmd), "readelf -wN -W --debug-dump=frames '%s'", path);
	if ((p = popen(cmd, "r"))) {
		while (fgets(line, sizeof(line), p))
			if (sscanf(line, "%lx %lx %lx FDE cie=%lx pc=%lx..%lx", &a, &b, &c,
				   &cie, &lo, &hi) == 6 && lo == pc) {
				*fde_off = a;
				*cie_off = cie;
				*end = hi;
			}
		pclose(p);
	}
	return *sec_off && *fde_off;
}

/* Rules of `damaged` agree with `orig` everywhere but in [lo, hi). */
static size_t differences(const struct unwind_table *orig, const struct unwind_table *damaged,
			  uint64_t lo, uint64_t hi)
{
	const struct unwind_row *rows = NULL, *g;
	size_t i, nr, n = 0;
	uint64_t a;

	rows = unwind_table__rows(orig, &nr);
	for (i = 0; i < nr; i++) {
		a = unwind_table__base(orig) + rows[i].pc;
		g = unwind_table__find(damaged, a);
		if (a >= lo && a < hi)
			continue;
		n += !g || g->kind != rows[i].kind || g->cfa_off != rows[i].cfa_off ||
		     g->rbp_off != rows[i].rbp_off;
	}
	return n;
}

/* Whatever a damaged or budgeted table says, the whole table says too:
 * each of its rows that is not a gap has the full table's rule. */
static bool sound(const struct unwind_table *part, const struct unwind_table *full)
{
	const struct unwind_row *rows, *g;
	size_t i, nr, bad = 0;
	uint64_t a;

	rows = unwind_table__rows(part, &nr);
	for (i = 0; i < nr; i++) {
		a = unwind_table__base(part) + rows[i].pc;
		g = unwind_table__find(full, a);
		bad += rows[i].kind != UNWIND_GAP && (!g || g->kind != rows[i].kind ||
						       g->cfa_off != rows[i].cfa_off ||
						       g->rbp_off != rows[i].rbp_off);
	}
	rows = unwind_table__rows(full, &nr);
	for (i = 0; i < nr; i++) {
		a = unwind_table__base(full) + rows[i].pc;
		g = unwind_table__find(part, a);
		bad += g && g->kind != UNWIND_GAP &&
		       (g->kind != rows[i].kind || g->cfa_off != rows[i].cfa_off ||
			g->rbp_off != rows[i].rbp_off);
	}
	if (bad)
		printf("  %zu rows differ from the whole table's\n", bad);
	rows = unwind_table__rows(part, &nr);
	return !bad && nr && rows[nr - 1].kind == UNWIND_GAP;
}

/* Damaged CFI: an unknown instruction makes its FDE's range unsupported, a
 * record length past the end loses the records after it, a CIE of an
 * unknown version its FDEs; the rest of the table stays right. */
TEST(corrupt_cfi)
{
	const char *src = W("unwind_paths-gcc");
	uint64_t lo = sym(src, "chain_b"), sec, fde, cie = 0, hi = 0;
	struct built orig, bad = { .fd = -1, .dfd = -1 };
	const struct unwind_row *r;
	uint8_t aug_len = 1;
	int fd;

	if (build(&orig, src, NULL, NULL) || !locate_fde(src, lo, &sec, &fde, &cie, &hi)) {
		CHECK(!"chain_b's FDE found");
		unbuild(&orig);
		return;
	}
	if ((fd = copy_of(src, "badop")) >= 0) {
		/* length, CIE pointer, pc (sdata4), range, augmentation length */
		CHECK(pread(fd, &aug_len, 1, sec + fde + 16) == 1 && aug_len == 0);
		poke(fd, sec + fde + 17, "\x3f", 1);
		close(fd);
	}
	if (!build(&bad, T("badop"), NULL, NULL)) {
		r = unwind_table__find(bad.t, lo);
		CHECK(r && r->kind == UNWIND_UNSUPPORTED);
		r = unwind_table__find(bad.t, hi - 1);
		CHECK(r && r->kind == UNWIND_UNSUPPORTED);
		CHECK(unwind_table__stats(bad.t)->unsupported[UNWIND_UNSUP_BAD_CFI] == 1);
		CHECK(differences(orig.t, bad.t, lo, hi) == 0);
	}
	unbuild(&bad);
	if ((fd = copy_of(src, "badlen")) >= 0) {
		poke(fd, sec + fde, "\xf0\xff\xff\x7f", 4);
		close(fd);
	}
	if (!build(&bad, T("badlen"), NULL, NULL)) {
		CHECK(unwind_table__stats(bad.t)->fdes_bad == 1);
		CHECK(unwind_table__stats(bad.t)->fdes < unwind_table__stats(orig.t)->fdes);
		CHECK(sound(bad.t, orig.t));
	}
	unbuild(&bad);
	if ((fd = copy_of(src, "badcie")) >= 0) {
		poke(fd, sec + cie + 8, "\x09", 1); /* after length and CIE id */
		close(fd);
	}
	if (!build(&bad, T("badcie"), NULL, NULL)) {
		CHECK(unwind_table__stats(bad.t)->fdes_bad >= 10);
		CHECK(sound(bad.t, orig.t));
	}
	unbuild(&bad);
	unbuild(&orig);
}

/* Each budget ends a build with a table that is right as far as it goes,
 * closed by a gap, and says which budget stopped it. */
TEST(budgets_stop_cleanly)
{
	static const struct {
		struct unwind_build_opts o;
		enum unwind_stop why;
	} cases[] = {
		{ { .max_rows = 1000 }, UNWIND_STOP_ROWS },
		{ { .max_insns = 5000 }, UNWIND_STOP_INSNS },
		{ { .max_cfi_bytes = 4096 }, UNWIND_STOP_BYTES },
	};
	struct built full, part;
	size_t i, nr;

	if (build(&full, LIBDIR "libc.so.6", NULL, NULL)) {
		unbuild(&full);
		return;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!build(&part, LIBDIR "libc.so.6", NULL, &cases[i].o)) {
			unwind_table__rows(part.t, &nr);
			CHECK(unwind_table__stats(part.t)->stopped == cases[i].why);
			CHECK(nr > 10 && nr < unwind_table__stats(full.t)->rows);
			CHECK(!cases[i].o.max_rows || nr <= cases[i].o.max_rows);
			CHECK(sound(part.t, full.t));
		}
		unbuild(&part);
	}
	unbuild(&full);
}

/*
 * The work of a build (bytes of records read, a CIE each time it is
 * parsed, plus instructions) is bounded by a multiple of its CFI's size,
 * whatever the CFI holds: files build/tools/hostile_cfi writes.  Those
 * made to cost more (CIEs that take turns in one cache slot or outnumber
 * the cache, each long, and FDEs using them in turn) stop at the budget,
 * 8 units a byte; honest shapes as large (many FDEs, long programs) and
 * real libraries take 3 or less and are built whole.  Counted, not timed:
 * on main the first file took 2 x 10^10 byte reads (11 s).
 */
TEST(work_bounded_by_size)
{
	static const struct {
		const char *args;
		bool hostile;
	} shapes[] = {
		{ "-c 2 -a 1000000 -f 10000", true },       /* issue 21's file */
		{ "-c 2 -a 1000000 -f 10000 -l 16", true }, /* both passes */
		{ "-c 100 -a 10000 -f 100000 -l 1", true }, /* more CIEs than slots */
		{ "-c 2 -i 1000000 -f 10000", true },       /* long initial programs */
		{ "-c 1 -f 100000 -l 4", false },           /* many tiny FDEs */
		{ "-c 1 -f 1000 -l 16 -n 10000", false },   /* long programs */
	};
	static const char *const libs[] = { "libc.so.6", "libstdc++.so.6",
					    "ld-linux-x86-64.so.2" };
	const struct unwind_stats *st;
	struct built b;
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		if (sh("'%s/../tools/hostile_cfi' %s shape.so", workloads, shapes[i].args) ||
		    build(&b, T("shape.so"), NULL, NULL)) {
			CHECK(!"shape built (make tools)");
			unbuild(&b);
			continue;
		}
		st = unwind_table__stats(b.t);
		printf("  hostile_cfi %s: %" PRIu64 " bytes of CFI, work %" PRIu64
		       " (%.2f a byte), stopped %d\n", shapes[i].args, st->cfi_bytes, st->work,
		       (double)st->work / st->cfi_bytes, st->stopped);
		/* the budget, overrun by the last record read at most */
		CHECK(st->cfi_bytes > 0 && st->work <= 9 * st->cfi_bytes + (64 << 10));
		CHECK(st->stopped == (shapes[i].hostile ? UNWIND_STOP_WORK : UNWIND_STOP_NONE));
		CHECK(shapes[i].hostile || st->work <= 3 * st->cfi_bytes + (64 << 10));
		unbuild(&b);
	}
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), LIBDIR "%s", libs[i]);
		if (!build(&b, path, NULL, NULL)) {
			st = unwind_table__stats(b.t);
			printf("  %s: %" PRIu64 " bytes of CFI, work %" PRIu64 " (%.2f a byte)\n",
			       libs[i], st->cfi_bytes, st->work, (double)st->work / st->cfi_bytes);
			CHECK(st->stopped == UNWIND_STOP_NONE && st->work <= 3 * st->cfi_bytes);
		}
		unbuild(&b);
	}
}

/* A build whose cancel flag is set stops within a few thousand units of
 * work, with a table as far as it got; a build given max_work stops there. */
TEST(cancel_and_max_work)
{
	atomic_bool cancel = true;
	struct unwind_build_opts o = { .cancel = &cancel };
	const struct unwind_stats *st;
	struct built b, full;

	if (build(&full, LIBDIR "libc.so.6", NULL, NULL)) {
		unbuild(&full);
		return;
	}
	if (!build(&b, LIBDIR "libc.so.6", NULL, &o)) {
		st = unwind_table__stats(b.t);
		CHECK(st->stopped == UNWIND_STOP_CANCELLED);
		CHECK(st->work < 8192 && st->rows < unwind_table__stats(full.t)->rows);
		CHECK(sound(b.t, full.t));
	}
	unbuild(&b);
	cancel = false;
	if (!build(&b, LIBDIR "libc.so.6", NULL, &o))
		CHECK(!memcmp(unwind_table__stats(b.t), unwind_table__stats(full.t),
			      sizeof(struct unwind_stats)));
	unbuild(&b);
	o = (struct unwind_build_opts){ .max_work = 100000 };
	if (!build(&b, LIBDIR "libc.so.6", NULL, &o)) {
		st = unwind_table__stats(b.t);
		CHECK(st->stopped == UNWIND_STOP_WORK && st->work <= 100000 + 4096);
		CHECK(sound(b.t, full.t));
	}
	unbuild(&b);
	unbuild(&full);
}

/* Lookups outside the table's reach, and files it refuses. */
TEST(edges_and_refusals)
{
	const struct unwind_row *rows;
	struct built b;
	size_t nr;
	uint64_t base;

	if (!build(&b, W("unwind_dl-gcc.so"), NULL, NULL)) {
		base = unwind_table__base(b.t);
		rows = unwind_table__rows(b.t, &nr);
		CHECK(!base || !unwind_table__find(b.t, base - 1));
		CHECK(unwind_table__find(b.t, base) == &rows[0]);
		CHECK(unwind_table__find(b.t, base + 0xfffff000) == &rows[nr - 1]);
		CHECK(!unwind_table__find(b.t, base + 0x100000000ull));
	}
	unbuild(&b);
	CHECK(!unwind_table__find(NULL, 0));
	CHECK(!unwind_table__bytes(NULL) && !unwind_table__stats(NULL));
	errno = 0;
	CHECK(!unwind_table__build(NULL, NULL, NULL) && errno == ENOEXEC);
	/* another architecture; no CFI at all */
	if (!sh("printf 'int f(int x) { return x + 1; }\\n' > f.c && "
		"clang --target=i386-linux-gnu -shared -fPIC -nostdlib -O1 f.c -o f32.so && "
		"gcc -shared -fPIC -nostdlib -O1 -fno-asynchronous-unwind-tables "
		"-fno-unwind-tables f.c -o nocfi.so")) {
		CHECK(build(&b, T("f32.so"), NULL, NULL) && errno == ENOEXEC);
		unbuild(&b);
		CHECK(build(&b, T("nocfi.so"), NULL, NULL) && errno == ENOENT);
		unbuild(&b);
	}
}

/* ---- Functions' starts, for naming (unwind_funcs.c) */

/* f's functions (its own CFI only), NULL with a line saying why. */
static struct func_ranges *funcs_of(const char *path, const struct unwind_build_opts *o)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_file *f = fd >= 0 ? elf_file__open_fd(fd) : NULL;
	struct func_ranges *fn = f ? unwind_funcs__build(f, o) : NULL;
	int e = errno;

	if (!fn)
		printf("  no functions for %s: %s\n", path, strerror(e));
	elf_file__close(f);
	if (fd >= 0)
		close(fd);
	errno = e;
	return fn;
}

/*
 * Every FDE readelf lists in path's .eh_frame (whose code is at file
 * offsets equal to its addresses, as in Debian's libraries) names its
 * first and last byte by its start, and the byte after it, when no FDE
 * starts there, by none.
 */
static void funcs_match(const char *path)
{
	struct func_ranges *fn = funcs_of(path, NULL);
	unsigned long lo, hi, prev_hi = 0;
	size_t n = 0, bad = 0, gaps = 0;
	uint64_t start;
	char cmd[PATH_MAX + 64], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	if (!fn || !(p = popen(cmd, "r"))) {
		CHECK(false);
		func_ranges__free(fn);
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		const char *pc = strstr(line, " FDE ") ? strstr(line, "pc=") : NULL;

		if (!pc || sscanf(pc, "pc=%lx..%lx", &lo, &hi) != 2 || lo == hi)
			continue;
		n++;
		bad += !func_ranges__start(fn, lo, &start) || start != lo;
		bad += !func_ranges__start(fn, hi - 1, &start) || start != lo;
		if (prev_hi && prev_hi < lo) /* a gap before this one */
			gaps += !func_ranges__start(fn, prev_hi, &start);
		prev_hi = hi;
	}
	pclose(p);
	printf("  %s: %zu functions, %zu FDEs checked, %zu gaps unnamed, %zu wrong\n", path,
	       func_ranges__count(fn), n, gaps, bad);
	CHECK(n > 100 && n == func_ranges__count(fn));
	CHECK(!bad);
	CHECK(gaps > 0);
	func_ranges__free(fn);
}

TEST(funcs_match_readelf)
{
	funcs_match(LIBDIR "libc.so.6");
	funcs_match(LIBDIR "liblzma.so.5");
}

/*
 * Hostile files: a lying .eh_frame_hdr (count 2^31 - 1, unsorted) changes
 * nothing; the rows budget ends the list where it got to (sound: what it
 * names is right); an expired time budget gives no list (ETIMEDOUT);
 * issue 21's CIEs stop at the work budget.
 */
TEST(funcs_bounded)
{
	struct unwind_build_opts rows = { .max_rows = 1000 };
	struct budget over = { .until = 1e-9 };
	struct unwind_build_opts late = { .budget = &over };
	struct func_ranges *fn;
	uint64_t start;

	if (sh("'%s/../tools/hostile_cfi' -c 1 -f 64 -l 16 -H hdr.so && "
	       "'%s/../tools/hostile_cfi' -c 1 -f 100000 -l 4 many.so && "
	       "'%s/../tools/hostile_cfi' -c 2 -a 1000000 -f 10000 -l 16 cies.so",
	       workloads, workloads, workloads))
		return;
	if ((fn = funcs_of(T("hdr.so"), NULL))) {
		CHECK(func_ranges__count(fn) == 64);
		CHECK(func_ranges__start(fn, 0x1000 + 16 * 5 + 7, &start) && start == 0x1000 + 16 * 5);
		CHECK(!func_ranges__start(fn, 0x1000 + 16 * 64, &start));
	}
	func_ranges__free(fn);
	if ((fn = funcs_of(T("many.so"), &rows))) {
		CHECK(func_ranges__count(fn) < 1000);
		CHECK(func_ranges__stopped(fn) == (int)UNWIND_STOP_ROWS);
		CHECK(func_ranges__start(fn, 0x1000 + 4 * 10 + 3, &start) && start == 0x1000 + 40);
		CHECK(!func_ranges__start(fn, 0x1000 + 4 * 5000, &start));
		CHECK(func_ranges__bytes(fn) < 1000 * 8 + 4096);
	}
	func_ranges__free(fn);
	errno = 0;
	CHECK(!funcs_of(T("many.so"), &late) && errno == ETIMEDOUT);
	if ((fn = funcs_of(T("cies.so"), NULL))) {
		CHECK(func_ranges__stopped(fn) == (int)UNWIND_STOP_WORK);
		CHECK(func_ranges__count(fn) < 10000);
	}
	func_ranges__free(fn);
	CHECK(!func_ranges__start(NULL, 0, &start) && !func_ranges__bytes(NULL));
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argc;
	(void)argv;
	elf_version(EV_CURRENT);
	if (n <= 0 || !mkdtemp(dir)) {
		printf("FAIL fixtures: %s\n", strerror(errno));
		return 1;
	}
	sh_dir = dir;
	self[n] = '\0';
	/* build/tests/test_unwind_table -> build/workloads */
	*strrchr(self, '/') = '\0';
	snprintf(workloads, sizeof(workloads), "%.*s/workloads",
		 (int)(strrchr(self, '/') - self), self);
	if (access(W("unwind_paths-noasync.debug"), R_OK)) {
		printf("FAIL fixtures: %s missing (make workloads)\n", W("unwind_paths-noasync.debug"));
		return 1;
	}
	RUN(libc_matches_readelf);
	RUN(ld_so_matches_readelf);
	RUN(libstdcxx_matches_readelf);
	RUN(frameless_gcc_matches_readelf);
	RUN(frameless_clang_matches_readelf);
	RUN(special_rows);
	RUN(a64_libc_matches_readelf);
	RUN(a64_frameless_gcc_matches_readelf);
	RUN(a64_frameless_clang_matches_readelf);
	RUN(a64_special_rows);
	RUN(a64_vdso_rows_from_code);
	RUN(a64_host_arch_only);
	RUN(no_async_unwind_tables);
	RUN(debug_file_debug_frame);
	RUN(compressed_debug_frame);
	RUN(ibt_plt);
	RUN(no_section_headers);
	RUN(corrupt_cfi);
	RUN(budgets_stop_cleanly);
	RUN(work_bounded_by_size);
	RUN(cancel_and_max_work);
	RUN(edges_and_refusals);
	RUN(funcs_match_readelf);
	RUN(funcs_bounded);
	if (!getenv("SMOLDER_KEEP_TMP"))
		sh("cd / && rm -rf '%s'", dir);
	UNIT_EXIT();
}
