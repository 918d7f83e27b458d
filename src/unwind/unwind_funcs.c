// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where a file's functions start, for naming stripped code: the first pass
 * of an unwind-table build (unwind_table.c: the FDEs of the file's own
 * .eh_frame and .debug_frame, listed within its budgets, sorted, overlaps
 * dropped), kept as files/func_ranges.h's ranges, 8 bytes a function.  No
 * CFA program is run and none of the unwinder's tables is needed, so
 * --unwind fp names so too.  .eh_frame_hdr's sorted index is not used: it
 * would save the sort, not the reading (a start without its FDE's end would
 * name the code between functions), at the price of trusting it.
 */
#include <errno.h>
#include <stdlib.h>

#include "files/elf_syms.h"
#include "unwind/unwind_table.h"
#include "unwind/unwind_table_int.h"

/* The builder's sorted FDEs as f's ranges, with its executable segments. */
static struct func_ranges *keep(const struct builder *b, Elf *elf)
{
	struct func_range *r = malloc((b->nr_fdes ? b->nr_fdes : 1) * sizeof(*r));
	struct func_ranges *fr;
	GElf_Phdr ph;
	size_t i, n;

	if (!r)
		return NULL;
	for (i = 0; i < b->nr_fdes; i++)
		r[i] = (struct func_range){ b->fdes[i].pc, b->fdes[i].len };
	fr = func_ranges__new(b->base, r, b->nr_fdes, b->t->stats.stopped);
	if (!fr || elf_getphdrnum(elf, &n))
		return fr;
	for (i = 0; i < n && i < MAX_PHDRS; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			func_ranges__add_segment(fr, ph.p_offset, ph.p_filesz, ph.p_vaddr);
	return fr;
}

/* Pass one on f's own CFI; 0, or -errno. */
static int list(struct builder *b, struct elf_file *f, size_t max)
{
	int err = cfi_load_segments(b, elf_file__elf(f));

	if (err)
		return err;
	cfi_load_sections(b, f, NULL, max > MAX_CFI_BYTES ? MAX_CFI_BYTES : max);
	cfi_size_work(b);
	cfi_list_fdes(b, UNWIND_SRC_EH_FRAME);
	cfi_list_fdes(b, UNWIND_SRC_DEBUG_FRAME);
	if (b->nomem)
		return -ENOMEM;
	if (b->t->stats.stopped == UNWIND_STOP_CANCELLED)
		return -ETIMEDOUT;
	cfi_sort_fdes(b);
	return b->nr_fdes ? 0 : -ENOENT;
}

struct func_ranges *unwind_funcs__build(struct elf_file *f, const struct unwind_build_opts *o)
{
	size_t max = o && o->max_cfi_bytes ? o->max_cfi_bytes : DEFAULT_MAX_CFI_BYTES;
	const struct cfi_arch *arch = NULL;
	struct func_ranges *fr = NULL;
	struct builder *b;
	GElf_Ehdr eh;
	int err;

	if (!f || !elf_file__elf(f) || !gelf_getehdr(elf_file__elf(f), &eh) ||
	    !(arch = cfi_arch_of(&eh))) {
		errno = ENOEXEC;
		return NULL;
	}
	b = cfi_builder_new(arch, o);
	err = b ? list(b, f, max) : -ENOMEM;
	if (!err && !(fr = keep(b, elf_file__elf(f))))
		err = -ENOMEM;
	if (b) {
		unwind_table__free(b->t);
		cfi_builder_free(b);
	}
	errno = -err;
	return fr;
}

struct func_ranges *unwind_funcs__reader(struct elf_file *f, const struct budget *b,
					 size_t max_cfi_bytes, size_t max_funcs)
{
	struct unwind_build_opts o = { .max_cfi_bytes = max_cfi_bytes, .max_rows = max_funcs,
				       .budget = b };

	return unwind_funcs__build(f, &o);
}
