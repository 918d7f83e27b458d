// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vDSO frames, inside usyms: the kernel maps one vDSO image into every
 * native process, so smolder names them from its own copy, read once.
 */
#include <inttypes.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "files/proc_maps.h"
#include "symbols/usyms_int.h"

/* Our own vDSO: the kernel maps the same image into every native process. */
static void load_vdso(struct usyms *u)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const struct proc_map *m;
	struct proc_maps *pm;

	u->vdso_tried = true;
	if (!base || !(pm = proc_maps__load(getpid())))
		return;
	m = proc_maps__find(pm, base);
	if (m && m->kind == PROC_MAP_VDSO && m->start == base) {
		u->vdso_size = m->end - m->start;
		u->vdso = elf_syms__open_mem((const void *)base, u->vdso_size);
	}
	proc_maps__free(pm);
}

size_t usyms_vdso_name(struct usyms *u, const struct proc_map *m, uint64_t addr, char *buf,
		       size_t len)
{
	uint64_t off = addr - m->start;
	const char *name = NULL;

	if (!u->vdso_tried)
		load_vdso(u);
	/* A different size means another image (a 32-bit process's). */
	if (u->vdso && m->end - m->start == u->vdso_size)
		name = elf_syms__map_offset(u->vdso, off, NULL, NULL);
	if (name)
		return usyms_put(buf, len, "%s", name);
	return usyms_put(buf, len, "[vdso+0x%" PRIx64 "]", off);
}
