// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF symbol tables: owns reading the function symbols of one ELF file or
 * image (.symtab and .dynsym merged, plus the .symtab of a separate debug
 * file when one is given), its PT_LOAD layout, and the lookup from a file
 * offset to the function covering it (opening files and reading sections
 * is elf_file.c's).
 *
 * A symbol table can be made as big as its owner likes, so it is read a
 * chunk at a time (never whole, and never by libelf, which would hold it
 * all), checking the budget as it goes (budget.h): what the read holds at
 * its peak stays within the budget's bytes or the read gives up (E2BIG),
 * and it stops at the deadline or a pending signal (ETIMEDOUT).  The table
 * kept is compact: 16 bytes a function and one string table of the names
 * the functions use, read from the file's string table in offset order,
 * a window at a time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/addr_search.h"
#include "files/elf_file_int.h"
#include "lib/log.h"

#define MAX_TABLE_SYMS (50u * 1000 * 1000)
#define MAX_SEGMENTS (1u << 16)
/* How far a lookup walks back past symbols nested in a bigger function. */
#define MAX_WALK_BACK 16
/* Symbols decoded per read, and the window names are read through. */
#define SYM_CHUNK 4096
#define NAME_WINDOW (64u << 10)
/* Tables merged into one (.symtab, the debug file's, .dynsym, ...). */
#define MAX_TABLES 16
/* Names are 32-bit offsets into one string table. */
#define MAX_NAMES (UINT32_MAX - NAME_WINDOW)

/* A function: [addr, addr + len), len clamped to 4 GiB. */
struct esym {
	uint64_t addr;
	uint32_t len;
	uint32_t name; /* offset in names */
};

struct seg {
	uint64_t off, filesz, vaddr, memsz;
};

struct elf_syms {
	struct esym *syms;
	size_t nr;
	char *names;
	size_t names_len; /* bytes of the names arena, for elf_syms__bytes */
	struct seg *segs;
	size_t nr_segs;
	bool complete; /* a .symtab gave functions */
};

/* A candidate symbol before the merge of the tables. */
struct rawsym {
	uint64_t addr, size;
	uint32_t name;  /* st_name in its table's strings, then in the arena */
	uint32_t seq;   /* read order: on a tie, the first read wins */
	uint8_t table;
	bool local;
};

/* The tables being merged: where each one's names are. */
struct collect {
	struct rawsym *raw;
	size_t nr, cap;
	struct region strs[MAX_TABLES];
	size_t nr_tables;
	char *names;
	size_t names_used, names_cap;
	bool thumb;
	const struct budget *b;
	size_t fixed; /* the table's own struct and segments */
};

static size_t held(const struct collect *c)
{
	return c->fixed + c->cap * sizeof(*c->raw) + c->names_cap;
}

static int push_sym(struct collect *c, uint64_t addr, uint64_t size, uint32_t name,
		    bool local)
{
	struct rawsym *r;

	if (c->nr == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;

		if (budget__too_big(c->b, held(c) + (ncap - c->cap) * sizeof(*r)))
			return -E2BIG;
		r = realloc(c->raw, ncap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		c->raw = r;
		c->cap = ncap;
	}
	c->raw[c->nr] = (struct rawsym){
		.addr = c->thumb ? addr & ~1ULL : addr, .size = size, .name = name,
		.seq = c->nr, .table = c->nr_tables - 1, .local = local,
	};
	c->nr++;
	return 0;
}

/* Decodes symbol p of f's class and byte order; true for a defined function. */
static bool function_sym(const struct elf_file *f, const unsigned char *p, uint64_t *addr,
			 uint64_t *size, uint32_t *name, bool *local)
{
	bool big = f->data == ELFDATA2MSB;
	unsigned char info;
	uint16_t shndx;
	int type;

	*name = elf_rd(p, 4, big);
	if (f->cls == ELFCLASS64) {
		info = p[4];
		shndx = elf_rd(p + 6, 2, big);
		*addr = elf_rd(p + 8, 8, big);
		*size = elf_rd(p + 16, 8, big);
	} else {
		*addr = elf_rd(p + 4, 4, big);
		*size = elf_rd(p + 8, 4, big);
		info = p[12];
		shndx = elf_rd(p + 14, 2, big);
	}
	type = GELF_ST_TYPE(info);
	*local = GELF_ST_BIND(info) == STB_LOCAL;
	return (type == STT_FUNC || type == STT_GNU_IFUNC) && shndx != SHN_UNDEF && *addr &&
	       *name;
}

/* Adds the functions of one symbol table, a chunk of entries at a time. */
static int collect_table(struct collect *c, struct elf_file *f, Elf_Scn *scn, GElf_Shdr *sh)
{
	unsigned char buf[SYM_CHUNK * sizeof(Elf64_Sym)];
	struct region syms;
	size_t i, k, n, ent = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
	uint64_t addr, size;
	uint32_t name;
	bool local;
	int e;

	if (!ent || ent > sizeof(Elf64_Sym) || sh->sh_entsize != ent || c->nr_tables == MAX_TABLES)
		return 0;
	f->over_budget = false;
	if (!elf_file__linked_strtab(f, sh, &c->strs[c->nr_tables]) || !elf_file__region(f, scn, sh, &syms))
		return f->over_budget ? -E2BIG : 0;
	c->nr_tables++;
	n = syms.size / ent;
	if (n > MAX_TABLE_SYMS)
		return 0;
	for (i = 1; i < n; i += k) {
		k = n - i < SYM_CHUNK ? n - i : SYM_CHUNK;
		if (!region_read(&syms, i * ent, buf, k * ent))
			break;
		for (size_t j = 0; j < k; j++)
			if (function_sym(f, buf + j * ent, &addr, &size, &name, &local) &&
			    name < c->strs[c->nr_tables - 1].size &&
			    (e = push_sym(c, addr, size, name, local)))
				return e;
		if (budget__expired(c->b))
			return -ETIMEDOUT;
	}
	return 0;
}

/* Adds the functions of every table of one type in f. */
static int collect_type(struct collect *c, struct elf_file *f, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret = 0;

	while (!ret && (scn = elf_nextscn(f->elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			ret = collect_table(c, f, scn, &sh);
	}
	return ret;
}

static int by_table_and_name(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;

	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int rawsym_cmp(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->local != y->local)
		return x->local ? 1 : -1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Appends a name to the arena; its offset, or -errno. */
static int64_t keep_name(struct collect *c, const char *name, size_t len)
{
	size_t at = c->names_used;

	if (c->names_cap - at < len + 1) {
		size_t ncap = c->names_cap ? c->names_cap : 4096;
		char *n;

		while (ncap - at < len + 1)
			ncap *= 2;
		if (ncap > MAX_NAMES || budget__too_big(c->b, held(c) + ncap - c->names_cap))
			return -E2BIG;
		n = realloc(c->names, ncap);
		if (!n)
			return -ENOMEM;
		c->names = n;
		c->names_cap = ncap;
	}
	memcpy(c->names + at, name, len);
	c->names[at + len] = '\0';
	c->names_used += len + 1;
	return at;
}

/* What sorting n symbols takes, about (qsort, 32-byte entries), in s. */
static double sort_cost(size_t n)
{
	return n * 3e-7;
}

/* Where a window over a string table stands. */
struct window {
	char buf[NAME_WINDOW];
	uint64_t base;
	size_t len;
};

/* The NUL-terminated string at off, read through w; NULL if bad or over
 * the window's size (a name that long names nothing). */
static const char *string_at(const struct region *r, struct window *w, uint64_t off, size_t *len)
{
	const char *s, *nul;

	if (r->mem) {
		s = (const char *)r->mem + off;
		nul = memchr(s, '\0', r->size - off);
	} else {
		if (off < w->base || off >= w->base + w->len ||
		    !memchr(w->buf + (off - w->base), '\0', w->len - (off - w->base))) {
			w->base = off;
			w->len = r->size - off < NAME_WINDOW ? r->size - off : NAME_WINDOW;
			if (!region_read(r, off, w->buf, w->len)) {
				w->len = 0;
				return NULL;
			}
		}
		s = w->buf + (off - w->base);
		nul = memchr(s, '\0', w->len - (off - w->base));
	}
	if (!nul || nul == s)
		return NULL;
	*len = nul - s;
	return s;
}

/*
 * Copies each function's name into the arena, the table's strings read in
 * offset order (functions sharing a name share its copy); drops the
 * functions whose name is bad.
 */
static int resolve_names(struct collect *c)
{
	struct window *w = malloc(sizeof(*w));
	uint32_t prev_name = 0;
	int prev_table = -1;
	size_t i, out = 0, len;
	int64_t at = -1;
	const char *s;

	if (!w)
		return -ENOMEM;
	if (!budget__affords(c->b, sort_cost(c->nr))) {
		free(w);
		return -ETIMEDOUT;
	}
	if (c->nr > 1)
		qsort(c->raw, c->nr, sizeof(*c->raw), by_table_and_name);
	for (i = 0; i < c->nr; i++) {
		struct rawsym r = c->raw[i];

		if (r.table != prev_table)
			w->len = 0;
		if (r.table != prev_table || r.name != prev_name) {
			s = string_at(&c->strs[r.table], w, r.name, &len);
			at = s ? keep_name(c, s, len) : -1;
			if (at < -1 || (!(i % SYM_CHUNK) && budget__expired(c->b)))
				break;
		}
		prev_table = r.table;
		prev_name = r.name;
		if (at < 0)
			continue;
		r.name = at;
		c->raw[out++] = r;
	}
	free(w);
	if (i < c->nr)
		return at < -1 ? (int)at : -ETIMEDOUT;
	c->nr = out;
	return 0;
}

static uint64_t segment_end(const struct elf_syms *es, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < es->nr_segs; i++) {
		const struct seg *g = &es->segs[i];

		if (vaddr >= g->vaddr && vaddr - g->vaddr < g->memsz)
			return g->vaddr + g->memsz;
	}
	return UINT64_MAX;
}

/* Keeps the first of each address run (sorted best first) and sizes it. */
static size_t dedupe(struct rawsym *raw, size_t nr)
{
	size_t i, out = 0;

	for (i = 0; i < nr; i++) {
		if (out && raw[out - 1].addr == raw[i].addr) {
			if (!raw[out - 1].size)
				raw[out - 1].size = raw[i].size;
			continue;
		}
		raw[out++] = raw[i];
	}
	return out;
}

/*
 * Turns the raw symbols, sorted and deduplicated, into the table, in place:
 * entry i (16 bytes) is written where raw entries below i/2 were, after
 * they were read (memcpy, not typed stores, since both views share it).
 */
static void build_table(struct elf_syms *es, struct collect *c, size_t nr)
{
	unsigned char *mem = (unsigned char *)c->raw;
	struct rawsym r, next;
	struct esym s;
	uint64_t end;

	for (size_t i = 0; i < nr; i++) {
		memcpy(&r, mem + i * sizeof(r), sizeof(r));
		if (r.size) {
			end = r.addr + r.size < r.addr ? UINT64_MAX : r.addr + r.size;
		} else if (i + 1 < nr) {
			memcpy(&next, mem + (i + 1) * sizeof(next), sizeof(next));
			end = next.addr;
		} else {
			end = segment_end(es, r.addr);
		}
		s = (struct esym){ r.addr, end - r.addr > UINT32_MAX ? UINT32_MAX : end - r.addr, r.name };
		memcpy(mem + i * sizeof(s), &s, sizeof(s));
	}
	es->syms = realloc(c->raw, (nr ? nr : 1) * sizeof(*es->syms));
	if (!es->syms)
		es->syms = (struct esym *)c->raw; /* the shrink failed: keep it all */
	c->raw = NULL;
	es->nr = nr;
	es->names = c->names_used ? realloc(c->names, c->names_used) : NULL;
	es->names_len = c->names_used;
	if (!es->names) {
		es->names = c->names ? c->names : calloc(1, 1); /* kept whole */
		es->names_len = c->names_cap;
	}
	c->names = NULL;
}

static int finish(struct elf_syms *es, struct collect *c)
{
	int e = resolve_names(c);
	size_t nr;

	if (e)
		return e;
	if (!budget__affords(c->b, sort_cost(c->nr)))
		return -ETIMEDOUT;
	if (c->nr > 1)
		qsort(c->raw, c->nr, sizeof(*c->raw), rawsym_cmp);
	nr = dedupe(c->raw, c->nr);
	if (!c->raw && !(c->raw = malloc(sizeof(*c->raw))))
		return -ENOMEM;
	build_table(es, c, nr);
	return es->names ? 0 : -ENOMEM;
}

/*
 * Collects f's .symtab, dbg's .symtab, then f's .dynsym: on a tie the first
 * read wins, so full tables name a function before the dynamic one does.
 */
static int load_symbols(struct elf_file *f, struct elf_file *dbg, struct elf_syms *es)
{
	struct collect c = {
		.thumb = f->machine == EM_ARM, .b = f->budget,
		.fixed = sizeof(*es) + es->nr_segs * sizeof(*es->segs),
	};
	size_t before;
	int ret;

	ret = collect_type(&c, f, SHT_SYMTAB);
	if (!ret && dbg) {
		before = c.nr;
		if (dbg->machine != f->machine || dbg->cls != f->cls || dbg->data != f->data)
			ret = -ENOENT;
		else
			ret = collect_type(&c, dbg, SHT_SYMTAB);
		if (!ret && c.nr == before)
			ret = -ENOENT;
	}
	es->complete = c.nr > 0;
	if (!ret)
		ret = collect_type(&c, f, SHT_DYNSYM);
	if (!ret)
		ret = finish(es, &c);
	free(c.raw);
	free(c.names);
	return ret;
}

static int load_segments(Elf *elf, struct elf_syms *es)
{
	size_t i, n, loads = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) || !n)
		return 0;
	if (n > MAX_SEGMENTS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		loads += gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD;
	es->segs = calloc(loads ? loads : 1, sizeof(*es->segs));
	if (!es->segs)
		return -ENOMEM;
	for (i = 0; i < n && es->nr_segs < loads; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		es->segs[es->nr_segs++] = (struct seg){
			.off = ph.p_offset, .filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
		};
	}
	return 0;
}

struct elf_syms *elf_syms__open_files(struct elf_file *f, struct elf_file *dbg)
{
	struct elf_syms *es;
	int ret;

	if (!f) {
		errno = EINVAL;
		return NULL;
	}
	es = calloc(1, sizeof(*es));
	if (!es)
		return NULL;
	ret = load_segments(f->elf, es);
	if (!ret)
		ret = load_symbols(f, dbg, es);
	if (ret) {
		elf_syms__free(es);
		errno = ret == -ENOMEM || ret == -ENOENT || ret == -E2BIG || ret == -ETIMEDOUT ?
				-ret : ENOEXEC;
		return NULL;
	}
	return es;
}

struct elf_syms *elf_syms__open_fd(int fd)
{
	struct elf_file *f = elf_file__open_fd(fd);
	struct elf_syms *es;

	if (!f)
		return NULL;
	es = elf_syms__open_files(f, NULL);
	elf_file__close(f);
	return es;
}

struct elf_syms *elf_syms__open_mem(const void *image, size_t size)
{
	struct elf_file *f;
	struct elf_syms *es;
	char *copy;

	if (!image || size < sizeof(Elf32_Ehdr)) {
		errno = ENOEXEC;
		return NULL;
	}
	/* libelf wants a writable image; the caller's may be read-only. */
	copy = malloc(size);
	if (!copy)
		return NULL;
	memcpy(copy, image, size);
	f = elf_file__open_mem(copy, size);
	if (!f)
		return NULL;
	es = elf_syms__open_files(f, NULL);
	elf_file__close(f);
	return es;
}

static uint64_t offset_to_vaddr(const struct elf_syms *es, uint64_t off)
{
	size_t i;

	for (i = 0; i < es->nr_segs; i++) {
		const struct seg *g = &es->segs[i];

		if (off >= g->off && off - g->off < g->filesz)
			return off - g->off + g->vaddr;
	}
	return off;
}

const char *elf_syms__map_offset(const struct elf_syms *es, uint64_t off,
				 uint64_t *sym_off, uint64_t *vaddr)
{
	uint64_t va;
	long stop;
	long lo;

	if (!es)
		return NULL;
	va = offset_to_vaddr(es, off);
	if (vaddr)
		*vaddr = va;
	lo = ADDR_SEARCH(es->syms, es->nr, addr, va);
	if (lo < 0)
		return NULL;
	/* A small symbol nested in a larger one may not cover va; its parent can. */
	stop = lo > MAX_WALK_BACK ? lo - MAX_WALK_BACK : 0;
	for (;; lo--) {
		if (va - es->syms[lo].addr < es->syms[lo].len) {
			if (sym_off)
				*sym_off = va - es->syms[lo].addr;
			return es->names + es->syms[lo].name;
		}
		if (lo == stop)
			return NULL;
	}
}

size_t elf_syms__count(const struct elf_syms *es)
{
	return es ? es->nr : 0;
}

bool elf_syms__complete(const struct elf_syms *es)
{
	return es && es->complete;
}

size_t elf_syms__bytes(const struct elf_syms *es)
{
	if (!es)
		return 0;
	return sizeof(*es) + es->nr * sizeof(*es->syms) + es->names_len +
	       es->nr_segs * sizeof(*es->segs);
}

void elf_syms__free(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->names);
	free(es->segs);
	free(es);
}
