/*
 * many_syms: writes an x86-64 ELF shared object with COUNT function symbols,
 * the kind of file a hostile user can leave for a root profiler to parse.
 * One page of real code at file offset and address 0x1000 (a counted loop
 * with a frame, named big_hot_loop, COUNT symbols after it in .symtab) and
 * COUNT more FUNC symbols "fXXXXXXX" of 16 bytes each from 0x100000 on,
 * where nothing is mapped.  A process maps the code page executable (see
 * tests/workloads/hostile.c) and runs it: a profiler then has to read this
 * file's symbol table to name its frames.
 * Usage: many_syms OUT COUNT
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODE_OFF 0x1000
#define SYMTAB_OFF 0x2000
#define FAR_BASE 0x100000

static const unsigned char code[] = {
	0x55,                                         /* push %rbp */
	0x48, 0x89, 0xe5,                             /* mov %rsp, %rbp */
	0x48, 0xb9, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, /* mov $1000000, %rcx */
	0x48, 0xff, 0xc9,                             /* 1: dec %rcx */
	0x75, 0xfb,                                   /* jnz 1b */
	0x5d,                                         /* pop %rbp */
	0xc3,                                         /* ret */
};
static const char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab";

static int put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

/* Pads f with zeros up to offset off. */
static int pad_to(FILE *f, long off)
{
	static const char zero[4096];
	long at = ftell(f);

	while (at < off) {
		size_t n = off - at < (long)sizeof(zero) ? (size_t)(off - at) : sizeof(zero);

		if (put(f, zero, n))
			return -1;
		at += n;
	}
	return 0;
}

static int write_syms(FILE *f, unsigned long count, unsigned long *strsz)
{
	Elf64_Sym s = { 0 };
	unsigned long i, name = 1;
	char buf[32];

	if (put(f, &s, sizeof(s)))
		return -1;
	s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	s.st_shndx = 1;
	s.st_name = name;
	s.st_value = CODE_OFF;
	s.st_size = sizeof(code);
	if (put(f, &s, sizeof(s)))
		return -1;
	name += sizeof("big_hot_loop");
	for (i = 0; i < count; i++) {
		s.st_name = name;
		s.st_value = FAR_BASE + i * 16;
		s.st_size = 16;
		if (put(f, &s, sizeof(s)))
			return -1;
		name += snprintf(buf, sizeof(buf), "f%07lx", i) + 1;
	}
	*strsz = name;
	return 0;
}

static int write_strtab(FILE *f, unsigned long count)
{
	unsigned long i;

	if (fputc(0, f) == EOF || put(f, "big_hot_loop", sizeof("big_hot_loop")))
		return -1;
	for (i = 0; i < count; i++)
		if (fprintf(f, "f%07lx", i) < 0 || fputc(0, f) == EOF)
			return -1;
	return 0;
}

static Elf64_Shdr section(Elf64_Word name, Elf64_Word type, Elf64_Off off, Elf64_Xword size)
{
	Elf64_Shdr sh = { .sh_name = name, .sh_type = type, .sh_offset = off, .sh_size = size };

	sh.sh_addralign = 1;
	return sh;
}

/* An x86-64 shared object's header, one PT_LOAD for the code page. */
static void headers(Elf64_Ehdr *eh, Elf64_Phdr *ph)
{
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_offset = ph->p_vaddr = ph->p_paddr = CODE_OFF;
	ph->p_filesz = ph->p_memsz = 0x1000;
	ph->p_align = 0x1000;
}

int main(int argc, char **argv)
{
	unsigned long count, strsz, symsz, stroff, shstroff, shoff;
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	Elf64_Shdr sh[5];
	FILE *f;

	if (argc != 3 || !(count = strtoul(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: many_syms OUT COUNT\n");
		return 2;
	}
	f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	symsz = (count + 2) * sizeof(Elf64_Sym);
	headers(&eh, &ph);
	if (put(f, &eh, sizeof(eh)) || put(f, &ph, sizeof(ph)) || pad_to(f, CODE_OFF) ||
	    put(f, code, sizeof(code)) || pad_to(f, SYMTAB_OFF) || write_syms(f, count, &strsz))
		goto fail;
	stroff = SYMTAB_OFF + symsz;
	shstroff = stroff + strsz;
	shoff = (shstroff + sizeof(shstrtab) + 7) & ~7UL;
	if (write_strtab(f, count) || put(f, shstrtab, sizeof(shstrtab)) || pad_to(f, shoff))
		goto fail;
	memset(sh, 0, sizeof(sh));
	sh[1] = section(1, SHT_PROGBITS, CODE_OFF, 0x1000);
	sh[1].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[1].sh_addr = CODE_OFF;
	sh[2] = section(7, SHT_SYMTAB, SYMTAB_OFF, symsz);
	sh[2].sh_link = 3;
	sh[2].sh_info = 1;
	sh[2].sh_entsize = sizeof(Elf64_Sym);
	sh[2].sh_addralign = 8;
	sh[3] = section(15, SHT_STRTAB, stroff, strsz);
	sh[4] = section(23, SHT_STRTAB, shstroff, sizeof(shstrtab));
	eh.e_shoff = shoff;
	if (put(f, sh, sizeof(sh)) || fseek(f, 0, SEEK_SET) || put(f, &eh, sizeof(eh)))
		goto fail;
	if (fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
fail:
	perror(argv[1]);
	fclose(f);
	return 1;
}
