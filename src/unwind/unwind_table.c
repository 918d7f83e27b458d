// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind tables: owns building a file's table, the rows of include/unwind.h
 * that the BPF unwinder walks: finding its CFI sections (and its debug
 * file's), listing and ordering the FDEs, merging equal neighbouring rows
 * and marking the gaps between functions.  Reading the CFI itself (records,
 * CFA programs, what a rule means as a row) is unwind_cfi.c's.
 *
 * A build has two passes.  The first lists the FDEs of every source (pc
 * range, where the record is), sorts them and drops overlaps (.eh_frame
 * wins).  The second runs the FDEs' programs in address order, appending
 * rows, merging each with the last when their rules are equal and putting
 * a gap row wherever no FDE covers the code.  Memory is that list, the rows
 * and the CFI sections' bytes.  The first pass alone also lists where a
 * file's functions start, for naming (unwind_funcs__build).  .eh_frame_hdr only serves to find .eh_frame
 * in a file without section headers, as the C runtime's unwinder finds it:
 * its sorted index would save a sort, at the price of trusting it.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "files/elf_syms.h"
#include "lib/grow.h"
#include "lib/hash.h"
#include "unwind/unwind_table.h"
#include "unwind/unwind_table_int.h"

static void note_stop(struct builder *b, enum unwind_stop why)
{
	if (!b->t->stats.stopped)
		b->t->stats.stopped = why;
}

/* A budget is spent: the table ends where the rows got to. */
static void stop(struct builder *b, enum unwind_stop why)
{
	note_stop(b, why);
	b->halt = true;
}

static bool stopped(const struct builder *b)
{
	return b->halt || b->nomem;
}

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off;
}

/*
 * Appends the row for [from, to), merged into the last row when their rules
 * are equal.  Rows arrive in address order and each starts where the last
 * one ended (build_rows puts gaps between).  One row stays free for the
 * closing gap.
 */
static int emit_row(struct builder *b, uint64_t from, uint64_t to,
		    struct unwind_row row)
{
	struct unwind_table *t = b->t;

	row.pc = from - b->base;
	if (t->nr && same_rule(&t->rows[t->nr - 1], &row)) {
		b->covered = to;
		return 0;
	}
	if (t->nr + 1 >= b->max_rows) {
		stop(b, UNWIND_STOP_ROWS);
		return -E2BIG;
	}
	if (GROW_MAX(t->rows, b->cap, t->nr + 1, 4096, b->max_rows)) {
		b->nomem = true;
		return -ENOMEM;
	}
	t->rows[t->nr++] = row;
	b->covered = to;
	return 0;
}

/* The row of a CFA program's state, counted among the CFI's rows. */
static int emit_cfi(void *arg, uint64_t from, uint64_t to, const struct cfa_state *st,
		    const struct cie *c)
{
	struct builder *b = arg;
	struct unwind_stats *s = &b->t->stats;
	int why;
	struct unwind_row row = cfi_classify(b->arch, st, c->ra, c->signal, &why);

	s->cfi_rows++;
	s->cfi_rows_by_kind[UNWIND_KIND(row.kind)]++;
	if (why >= 0)
		s->unsupported[why]++;
	return emit_row(b, from, to, row);
}

static int emit_bad(struct builder *b, uint64_t from, uint64_t to)
{
	struct unwind_stats *s = &b->t->stats;

	s->cfi_rows++;
	s->cfi_rows_by_kind[UNWIND_UNSUPPORTED]++;
	s->unsupported[UNWIND_UNSUP_BAD_CFI]++;
	return emit_row(b, from, to, (struct unwind_row){ .kind = UNWIND_UNSUPPORTED });
}
/* Runs a program, noting which budget stopped it. */
static int run(struct builder *b, struct cfi_exec *x, struct rd *r)
{
	int err = cfi_run(x, r);

	if (err == -ETIME) {
		stop(b, b->work.spent);
		return -E2BIG;
	}
	return err;
}

/* Pays for reading n bytes of records: false (and the build stops) once
 * the work's budget is spent or the build was cancelled. */
static bool pay(struct builder *b, uint64_t n)
{
	if (cfi_pay(&b->work, n, 0))
		return true;
	stop(b, b->work.spent);
	return false;
}

static const struct cie *get_cie(struct builder *b, uint8_t src, size_t off)
{
	const struct cfi_sec *s = &b->sec[src];
	struct cie *c = &b->cies[(off ^ (off >> 7) ^ src) % CIE_CACHE];
	struct cfi_exec x = { .arch = b->arch, .cie = c, .here = s->vaddr, .sec_data = s->data,
			      .saved = b->saved, .work = &b->work, .emit = emit_cfi,
			      .arg = b };
	struct rec rec;
	struct rd r;
	size_t next;

	if (c->used && c->off == off && c->src == src)
		return c->ok ? c : NULL;
	*c = (struct cie){ .used = true, .src = src, .off = off };
	if (cfi_read_record(s, off, &rec, &next) || !rec.cie)
		return NULL;
	/* Its augmentation string and instructions are read whole, each time */
	if (!pay(b, next - off)) {
		c->used = false;
		return NULL;
	}
	r = (struct rd){ rec.body, rec.end, false };
	if (!cfi_read_cie_header(&r, c))
		return NULL;
	x.st.cfa.how = RULE_UNDEF;
	if (run(b, &x, &r)) {
		if (stopped(b)) /* not the CIE's fault: parse it again next time */
			c->used = false;
		return NULL;
	}
	c->init = x.st;
	c->ok = true;
	return c;
}

/* ---- FDEs */

struct fde {
	const struct cie *cie;
	uint64_t start, end;
	const uint8_t *insns, *insns_end;
};

/* An FDE's CIE, range and program. */
static int read_fde(struct builder *b, uint8_t src, const struct rec *rec,
		    struct fde *fd)
{
	const struct cfi_sec *s = &b->sec[src];
	size_t cie_off = cfi_cie_offset(s, rec);
	struct rd r = { rec->body, rec->end, false };
	uint64_t len, aug_len;

	if (cie_off == SIZE_MAX || !(fd->cie = get_cie(b, src, cie_off)))
		return -EINVAL;
	fd->start = rd_ptr(&r, fd->cie->fde_enc, fd->cie->addr_size,
			   s->vaddr + (r.p - s->data));
	len = rd_enc(&r, fd->cie->fde_enc, fd->cie->addr_size);
	if (fd->cie->aug_z) {
		aug_len = rd_uleb(&r);
		if (!r.bad && aug_len <= (uint64_t)(r.end - r.p))
			r.p += aug_len;
		else
			r.bad = true;
	}
	if (r.bad || __builtin_add_overflow(fd->start, len, &fd->end))
		return -EINVAL;
	fd->insns = r.p;
	fd->insns_end = r.end;
	return 0;
}

/* Whether [lo, hi) lies in one executable segment (then its pcs fit in 32
 * bits: segments were clipped to 4 GiB past the base). */
bool cfi_in_exec_segment(const struct builder *b, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < b->nr_segs; i++)
		if (lo >= b->segs[i].lo && hi <= b->segs[i].hi)
			return true;
	return false;
}

int cfi_push_fde(struct builder *b, const struct fde_ref *e)
{
	/* Every FDE takes a row at least: those listed so far are built. */
	if (b->nr_fdes + 1 >= b->max_rows) {
		note_stop(b, UNWIND_STOP_ROWS);
		b->fdes_full = true;
		return -E2BIG;
	}
	if (GROW_MAX(b->fdes, b->fdes_cap, b->nr_fdes + 1, 1024, b->max_rows)) {
		b->nomem = true;
		return -ENOMEM;
	}
	b->fdes[b->nr_fdes++] = *e;
	return 0;
}

/* Pass one: the FDEs of one source.  A record that cannot be read ends the
 * section, since the next one's start is unknown. */
void cfi_list_fdes(struct builder *b, uint8_t src)
{
	const struct cfi_sec *s = &b->sec[src];
	struct unwind_stats *st = &b->t->stats;
	size_t off = 0, next;
	struct rec rec;
	struct fde fd;
	int rc;

	while (!stopped(b) && !b->fdes_full &&
	       (rc = cfi_read_record(s, off, &rec, &next)) == 0 && pay(b, next - off)) {
		if (!rec.cie && read_fde(b, src, &rec, &fd)) {
			st->fdes_bad += !stopped(b);
		} else if (!rec.cie && fd.start != fd.end) {
			if (!cfi_in_exec_segment(b, fd.start, fd.end))
				st->fdes_outside++;
			else if (cfi_push_fde(b, &(struct fde_ref){
					.pc = fd.start - b->base, .len = fd.end - fd.start,
					.off = off, .src = src }))
				return;
		}
		off = next;
	}
	if (!stopped(b) && !b->fdes_full && rc < 0)
		st->fdes_bad++;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->src - y->src;
}

/*
 * Sorts the FDEs and drops overlaps.  Where two overlap, the one from the
 * better source stays (.eh_frame, which the C runtime unwinds with, before
 * .debug_frame), else the first.  Those kept end before the next starts,
 * so only the last kept can overlap the next one.
 */
void cfi_sort_fdes(struct builder *b)
{
	size_t i, n = 0;
	struct fde_ref *last;

	if (!b->nr_fdes)
		return;
	qsort(b->fdes, b->nr_fdes, sizeof(*b->fdes), fde_cmp);
	for (i = 0; i < b->nr_fdes; i++) {
		const struct fde_ref *e = &b->fdes[i];

		last = n ? &b->fdes[n - 1] : NULL;
		if (last && (uint64_t)last->pc + last->len > e->pc) {
			b->t->stats.fdes_overlap++;
			if (e->src >= last->src)
				continue;
			n--; /* e replaces last */
		}
		b->fdes[n++] = *e;
	}
	b->nr_fdes = n;
}

/* Pass two, one FDE: its program's rows; a malformed instruction makes the
 * rest of its range UNSUPPORTED. */
static void run_fde(struct builder *b, const struct fde_ref *e)
{
	const struct cfi_sec *s = &b->sec[e->src];
	struct cfi_exec x = { .arch = b->arch, .here = s->vaddr, .sec_data = s->data,
			      .saved = b->saved, .fde = true, .work = &b->work, .emit = emit_cfi, .arg = b };
	struct rec rec;
	struct fde fd;
	struct rd r;
	size_t next;
	int err;

	if (e->src == UNWIND_SRC_A64_CODE) {
		if (!emit_row(b, b->base + e->pc, b->base + e->pc + e->len,
			      (struct unwind_row){ .kind = e->off }))
			b->t->stats.fdes_by_source[e->src]++;
		return;
	}
	if (cfi_read_record(s, e->off, &rec, &next) || !pay(b, next - e->off) ||
	    read_fde(b, e->src, &rec, &fd))
		return; /* read in pass one; only a budget stops it now */
	x.cie = fd.cie;
	x.st = fd.cie->init;
	x.loc = fd.start;
	x.end = fd.end;
	r = (struct rd){ fd.insns, fd.insns_end, false };
	err = run(b, &x, &r);
	if (err == -EINVAL)
		emit_bad(b, x.loc, x.end);
	else if (!err && x.loc < x.end)
		emit_cfi(b, x.loc, x.end, &x.st, x.cie);
	if (!stopped(b))
		b->t->stats.fdes_by_source[e->src]++;
}

/* The rows of every FDE kept, with gaps between, and the closing gap. */
static int build_rows(struct builder *b)
{
	struct unwind_table *t = b->t;
	struct unwind_row *rows;
	const struct fde_ref *e;
	size_t i;

	b->covered = b->base;
	for (i = 0; i < b->nr_fdes && !stopped(b); i++) {
		e = &b->fdes[i];
		if (b->covered < b->base + e->pc &&
		    emit_row(b, b->covered, b->base + e->pc, (struct unwind_row){ 0 }))
			break;
		run_fde(b, e);
	}
	if (b->nomem)
		return -ENOMEM;
	/* The closing gap (room was kept for it), and no spare capacity. */
	rows = realloc(t->rows, (t->nr + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	t->rows = rows;
	if (!t->nr || t->rows[t->nr - 1].kind != UNWIND_GAP)
		t->rows[t->nr++] = (struct unwind_row){ .pc = b->covered - b->base };
	return 0;
}

/* ---- Reading the file */

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *n;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS || !sh->sh_size)
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * Section name of f into s, within *left bytes, which it takes.  Its first
 * *left bytes only (a cut record ends the list there); a compressed one is
 * inflated whole or left out, and takes twice its size (libelf keeps what
 * it inflated until the file is closed; s->owned is a copy).  Either counts
 * as a budget stop.
 */
static void load_section(struct builder *b, struct elf_file *f, const char *name,
			 size_t *left, struct cfi_sec *s)
{
	Elf *elf = elf_file__elf(f);
	GElf_Shdr sh;
	Elf_Data *d;
	size_t len;

	if (!elf || !find_section(elf, name, &sh))
		return;
	s->vaddr = sh.sh_addr;
	if (sh.sh_flags & SHF_COMPRESSED) {
		s->owned = *left / 2 ? elf_file__section(f, name, *left / 2, &len) : NULL;
		if (!s->owned)
			note_stop(b, UNWIND_STOP_BYTES);
		s->data = s->owned;
		s->size = s->owned ? len : 0;
		*left -= 2 * s->size;
		return;
	}
	if (sh.sh_size > *left)
		note_stop(b, UNWIND_STOP_BYTES);
	d = *left ? elf_getdata_rawchunk(elf, sh.sh_offset, sh.sh_size > *left ? *left : sh.sh_size,
					 ELF_T_BYTE) : NULL;
	if (d && d->d_buf) {
		s->data = d->d_buf;
		s->size = d->d_size;
		*left -= s->size;
	}
}

/* The PT_LOAD holding vaddr: its bytes from vaddr on, within max. */
Elf_Data *cfi_segment_bytes(Elf *elf, uint64_t vaddr, size_t max)
{
	GElf_Phdr ph;
	size_t i, n;
	uint64_t skip;

	if (elf_getphdrnum(elf, &n))
		return NULL;
	for (i = 0; i < n && i < MAX_PHDRS; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		skip = vaddr - ph.p_vaddr;
		return elf_getdata_rawchunk(elf, ph.p_offset + skip,
					    ph.p_filesz - skip > max ? max : ph.p_filesz - skip,
					    ELF_T_BYTE);
	}
	return NULL;
}

/*
 * Without a .eh_frame section header: PT_GNU_EH_FRAME's .eh_frame_hdr
 * points at .eh_frame, as the C runtime's unwinder finds it.  Its size is
 * unknown: up to its zero terminator, read within its segment.
 */
static void load_eh_frame_phdr(Elf *elf, size_t max, struct cfi_sec *s)
{
	GElf_Phdr ph;
	Elf_Data *hdr = NULL, *d;
	struct rd r;
	size_t i, n;
	uint8_t enc;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && i < MAX_PHDRS && !hdr; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_GNU_EH_FRAME &&
		    ph.p_filesz >= 12)
			hdr = elf_getdata_rawchunk(elf, ph.p_offset, 12, ELF_T_BYTE);
	if (!hdr || !hdr->d_buf || hdr->d_size < 12)
		return;
	r = (struct rd){ hdr->d_buf, (const uint8_t *)hdr->d_buf + 12, false };
	if (rd_u8(&r) != 1)
		return; /* version */
	enc = rd_u8(&r);
	r.p += 2; /* the FDE count's and search table's encodings */
	s->vaddr = (enc & 0xf0) == DW_EH_PE_datarel ? ph.p_vaddr + rd_enc(&r, enc, 8) :
		   rd_ptr(&r, enc, 8, ph.p_vaddr + 4);
	d = r.bad ? NULL : cfi_segment_bytes(elf, s->vaddr, max);
	if (d && d->d_buf) {
		s->data = d->d_buf;
		s->size = d->d_size;
	}
}

/* The executable PT_LOADs, the base (the lowest), each clipped to 4 GiB
 * past the base so that every pc in them fits a row. */
int cfi_load_segments(struct builder *b, Elf *elf)
{
	uint64_t lo = UINT64_MAX, limit;
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n && i < MAX_PHDRS && b->nr_segs < MAX_EXEC_SEGS; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !ph.p_memsz ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		b->segs[b->nr_segs++] = (struct exec_seg){ ph.p_vaddr, ph.p_vaddr + ph.p_memsz };
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
	}
	if (!b->nr_segs)
		return -ENOEXEC;
	b->base = lo;
	limit = lo + UINT32_MAX < lo ? UINT64_MAX : lo + UINT32_MAX;
	for (i = 0; i < b->nr_segs; i++) {
		if (b->segs[i].hi > limit)
			b->segs[i].hi = limit;
		if (b->segs[i].lo > limit)
			b->segs[i].lo = limit;
	}
	return 0;
}

/* f's CFI sections and dbg's .debug_frame (when dbg is the same machine),
 * within max bytes together, in order of precedence. */
void cfi_load_sections(struct builder *b, struct elf_file *f,
			  struct elf_file *dbg, size_t max)
{
	struct cfi_sec *eh = &b->sec[UNWIND_SRC_EH_FRAME];
	GElf_Ehdr feh, deh;

	load_section(b, f, ".eh_frame", &max, eh);
	if (!eh->data && max) {
		load_eh_frame_phdr(elf_file__elf(f), max, eh);
		max -= eh->size;
	}
	eh->eh = true;
	load_section(b, f, ".debug_frame", &max, &b->sec[UNWIND_SRC_DEBUG_FRAME]);
	if (dbg && gelf_getehdr(elf_file__elf(f), &feh) &&
	    gelf_getehdr(elf_file__elf(dbg), &deh) && feh.e_machine == deh.e_machine)
		load_section(b, dbg, ".debug_frame", &max, &b->sec[UNWIND_SRC_DBG_DEBUG_FRAME]);
}

void cfi_builder_free(struct builder *b)
{
	size_t i;

	for (i = 0; i < UNWIND_SRC__MAX; i++)
		free(b->sec[i].owned);
	free(b->fdes);
	free(b);
}

struct builder *cfi_builder_new(const struct cfi_arch *arch, const struct unwind_build_opts *o)
{
	struct builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->arch = arch;
	b->t = calloc(1, sizeof(*b->t));
	if (!b->t) {
		free(b);
		return NULL;
	}
	b->max_rows = o && o->max_rows ? o->max_rows : DEFAULT_MAX_ROWS;
	b->work.max_insns = o && o->max_insns ? o->max_insns : DEFAULT_MAX_INSNS;
	b->work.max = o ? o->max_work : 0;
	b->work.cancel = o ? o->cancel : NULL;
	b->work.budget = o ? o->budget : NULL;
	return b;
}

/* The work budget, unless given: WORK_PER_BYTE for each byte of CFI read. */
void cfi_size_work(struct builder *b)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = 0; i < UNWIND_SRC__MAX; i++)
		bytes += b->sec[i].size;
	b->t->stats.cfi_bytes = bytes;
	if (!b->work.max)
		b->work.max = bytes * WORK_PER_BYTE + WORK_BASE;
}

/* Both passes, and the table's statistics. */
static int build(struct builder *b)
{
	struct unwind_stats *s = &b->t->stats;
	size_t i;
	int err;

	cfi_size_work(b);
	for (i = 0; i < UNWIND_SRC__MAX; i++)
		cfi_list_fdes(b, i);
	if (b->a64_vdso)
		cfi_list_a64_code(b, b->elf);
	if (b->nomem)
		return -ENOMEM;
	cfi_sort_fdes(b);
	err = build_rows(b);
	s->insns = b->work.insns;
	s->work = b->work.used;
	if (err)
		return err;
	for (i = 0; i < UNWIND_SRC__MAX; i++)
		s->fdes += s->fdes_by_source[i];
	s->rows = b->t->nr;
	for (i = 0; i < b->t->nr; i++)
		s->rows_by_kind[UNWIND_KIND(b->t->rows[i].kind)]++;
	return s->fdes || s->stopped ? 0 : -ENOENT;
}

struct unwind_table *unwind_table__build(struct elf_file *f, struct elf_file *dbg,
					 const struct unwind_build_opts *o)
{
	size_t max = o && o->max_cfi_bytes ? o->max_cfi_bytes : DEFAULT_MAX_CFI_BYTES;
	const struct cfi_arch *arch = NULL;
	struct unwind_table *t = NULL;
	struct builder *b;
	GElf_Ehdr eh;
	int err;

	if (!f || !elf_file__elf(f) || !gelf_getehdr(elf_file__elf(f), &eh) ||
	    !(arch = cfi_arch_of(&eh)) || (o && o->host_arch_only && !cfi_arch_is_host(arch))) {
		errno = ENOEXEC;
		return NULL;
	}
	b = cfi_builder_new(arch, o);
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	err = cfi_load_segments(b, elf_file__elf(f));
	if (!err) {
		cfi_load_sections(b, f, dbg, max > MAX_CFI_BYTES ? MAX_CFI_BYTES : max);
		b->t->base = b->base;
		b->elf = elf_file__elf(f);
		b->a64_vdso = o && o->vdso && eh.e_machine == EM_AARCH64;
		err = build(b);
	}
	if (err)
		unwind_table__free(b->t);
	else
		t = b->t;
	cfi_builder_free(b);
	errno = err ? -err : 0;
	return t;
}

const struct unwind_row *unwind_table__find(const struct unwind_table *t,
					    uint64_t vaddr)
{
	size_t lo = 0, hi, mid;
	uint64_t pc;

	if (!t || !t->nr || vaddr < t->base || vaddr - t->base > UINT32_MAX)
		return NULL;
	pc = vaddr - t->base;
	hi = t->nr;
	/* The last row whose pc is at most pc; row 0 is at 0. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

uint64_t unwind_table__base(const struct unwind_table *t)
{
	return t ? t->base : 0;
}

const struct unwind_row *unwind_table__rows(const struct unwind_table *t, size_t *nr)
{
	*nr = t ? t->nr : 0;
	return t ? t->rows : NULL;
}

size_t unwind_table__bytes(const struct unwind_table *t)
{
	return t ? sizeof(*t) + t->nr * sizeof(*t->rows) : 0;
}

const struct unwind_stats *unwind_table__stats(const struct unwind_table *t)
{
	return t ? &t->stats : NULL;
}

/* Adds key (not 0) to an open-addressing set of cap slots (a power of 2);
 * whether it was new. */
static bool set_add(uint32_t *set, size_t cap, uint32_t key)
{
	size_t i = hash__mix64(key) & (cap - 1);

	while (set[i] && set[i] != key)
		i = (i + 1) & (cap - 1);
	if (set[i])
		return false;
	set[i] = key;
	return true;
}

/* A set twice as large with the same keys; NULL without memory. */
static uint32_t *set_grow(uint32_t *set, size_t cap)
{
	uint32_t *bigger = calloc(cap * 2, sizeof(*bigger));
	size_t i;

	for (i = 0; bigger && i < cap; i++)
		if (set[i])
			set_add(bigger, cap * 2, set[i]);
	free(set);
	return bigger;
}

/* A hash set: distinct rules are a few hundred, whatever the rows. */
size_t unwind_table__rules(const struct unwind_table *t)
{
	size_t i, cap = 1024, distinct = 0;
	uint32_t *set, key;

	if (!t || !(set = calloc(cap, sizeof(*set))))
		return 0;
	for (i = 0; i < t->nr && set; i++) {
		if (t->rows[i].kind == UNWIND_GAP)
			continue;
		key = (uint32_t)t->rows[i].kind << 24 | (uint32_t)t->rows[i].cfa_off << 8 |
		      (uint8_t)t->rows[i].rbp_off;
		distinct += set_add(set, cap, key);
		if (distinct * 2 > cap) {
			set = set_grow(set, cap);
			cap *= 2;
		}
	}
	free(set);
	return set ? distinct : 0;
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

