// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vDSO frames, inside usyms: the kernel maps one vDSO image into every
 * native process, so smolder names them from its own copy, read once.
 */
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "files/elf_syms.h"
#include "files/proc_maps.h"
#include "symbols/usyms_int.h"

#define SIGRETURN "__kernel_rt_sigreturn"

/*
 * arm64's signal trampoline, a symbol without a type (so not among the
 * functions elf_syms keeps): its offset + 1, or 0.  A handler returns to
 * it, and a return address is named at its address - 1, which lands in
 * the nop the kernel puts before it for unwinders.
 */
static uint64_t find_sigreturn(const void *base, size_t size)
{
	char *copy = malloc(size); /* libelf wants a writable image */
	Elf *elf = copy ? elf_memory(memcpy(copy, base, size), size) : NULL;
	Elf_Scn *scn = NULL;
	uint64_t at = 0;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;

	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM && sh.sh_entsize &&
		    (d = elf_getdata(scn, NULL)))
			for (size_t i = 1; i < sh.sh_size / sh.sh_entsize && i < 64 && !at; i++) {
				const char *n = gelf_getsym(d, (int)i, &s) ?
							elf_strptr(elf, sh.sh_link, s.st_name) : NULL;

				if (n && !strcmp(n, SIGRETURN) && s.st_value)
					at = s.st_value + 1;
			}
	elf_end(elf);
	free(copy);
	return at;
}

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
		u->vdso_sigreturn = find_sigreturn((const void *)base, u->vdso_size);
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
	/* vaddrs are offsets in the vDSO (its PT_LOAD starts at 0) */
	if (!name && u->vdso_sigreturn && off + 1 >= u->vdso_sigreturn - 1 &&
	    off + 1 < u->vdso_sigreturn + 8)
		name = SIGRETURN;
	if (name)
		return usyms_put(buf, len, "%s", name);
	return usyms_put(buf, len, "[vdso+0x%" PRIx64 "]", off);
}
