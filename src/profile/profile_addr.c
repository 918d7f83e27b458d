// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Frames' files and addresses, and samples by address (see profile_addr.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow.h"
#include "lib/hash.h"
#include "profile/profile_addr.h"

struct paddrs *paddrs__new(void)
{
	return calloc(1, sizeof(struct paddrs));
}

void paddrs__free(struct paddrs *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr_maps; i++) {
		free(a->maps[i].file);
		free(a->maps[i].build_id);
	}
	free(a->maps);
	free(a->map_slots);
	free(a->locs);
	free(a->loc_slots);
	free(a->sites);
	free(a->site_slots);
	free(a->site_locs);
	for (size_t i = 0; i < a->src_strs.nr; i++)
		free((char *)a->src_strs.ent[i].s);
	strtab__free(&a->src_strs);
	free(a->srcs);
	free(a->src_slots);
	free(a);
}

/*
 * An open-addressing set of indexes + 1 into some array, at most half full:
 * *slots grows to hold one more of nr (the items' count before the add);
 * hash(i) is item i's hash.  0, or -ENOMEM.
 */
static int slots_room(uint32_t **slots, size_t *n, size_t nr,
		      uint64_t (*hash)(const struct paddrs *, size_t), const struct paddrs *a)
{
	size_t m = *n ? *n : 256;
	uint32_t *s;

	if (*slots && (nr + 1) * 2 <= *n)
		return 0;
	while ((nr + 1) * 2 > m)
		m *= 2;
	if (nr >= UINT32_MAX - 1 || !(s = calloc(m, sizeof(*s))))
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		size_t j = hash(a, i) & (m - 1);

		while (s[j])
			j = (j + 1) & (m - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(*slots);
	*slots = s;
	*n = m;
	return 0;
}

static uint64_t map_key(uint64_t dev, uint64_t ino, uint64_t off, uint64_t size)
{
	return hash__mix64(dev ^ hash__mix64(ino ^ hash__mix64(off ^ hash__mix64(size))));
}

static uint64_t map_hash(const struct paddrs *a, size_t i)
{
	const struct pmapping *m = &a->maps[i];

	return map_key(m->dev, m->ino, m->offset, m->size);
}

/* m's ELF virtual address, from f's offset and its address if known: a
 * segment is mapped linearly. */
static void learn_vaddr(struct pmapping *m, const struct paddr_file *f)
{
	uint64_t into = f->off - f->pgoff;

	if (m->vaddr == UINT64_MAX && f->vaddr != UINT64_MAX && f->off >= f->pgoff &&
	    f->vaddr >= into)
		m->vaddr = f->vaddr - into;
}

long paddrs__mapping(struct paddrs *a, const struct paddr_file *f)
{
	uint64_t size = f->end - f->start;
	size_t j;
	struct pmapping *m;

	if (a->nr_maps + 1 >= PADDR_SOURCE || /* ids stay below the tags */
	    slots_room(&a->map_slots, &a->nmap_slots, a->nr_maps, map_hash, a) ||
	    GROW(a->maps, a->cap_maps, a->nr_maps + 1, 16))
		return -ENOMEM;
	j = map_key(f->dev, f->ino, f->pgoff, size) & (a->nmap_slots - 1);
	for (; a->map_slots[j]; j = (j + 1) & (a->nmap_slots - 1)) {
		m = &a->maps[a->map_slots[j] - 1];
		if (m->dev == f->dev && m->ino == f->ino && m->offset == f->pgoff &&
		    m->size == size) {
			learn_vaddr(m, f);
			return a->map_slots[j];
		}
	}
	m = &a->maps[a->nr_maps];
	*m = (struct pmapping){ .offset = f->pgoff, .size = size, .seen_at = f->start,
				.vaddr = UINT64_MAX, .dev = f->dev, .ino = f->ino };
	learn_vaddr(m, f);
	m->file = strdup(f->path ? f->path : "");
	m->build_id = strdup(f->build_id ? f->build_id : "");
	if (!m->file || !m->build_id) {
		free(m->file);
		free(m->build_id);
		return -ENOMEM;
	}
	a->map_slots[j] = (uint32_t)++a->nr_maps;
	return (long)a->nr_maps;
}

/* A source string's index, copied in if new (at most PATH_MAX bytes: a
 * path's longest; names are cut there too); -ENOMEM. */
static long src_str(struct paddrs *a, const char *s)
{
	size_t len = s ? strnlen(s, PATH_MAX) : 0;
	long i = strtab__find(&a->src_strs, s ? s : "", len);
	char *copy;

	if (i >= 0)
		return i;
	if (!(copy = malloc(len + 1)))
		return -ENOMEM;
	memcpy(copy, s ? s : "", len);
	copy[len] = '\0';
	if ((i = strtab__intern(&a->src_strs, copy, len)) < 0)
		free(copy);
	return i;
}

static uint64_t src_key(uint32_t func, uint32_t file, uint32_t start_line)
{
	return hash__mix64(((uint64_t)func << 32 | file) ^ hash__mix64(start_line));
}

static uint64_t src_hash(const struct paddrs *a, size_t i)
{
	return src_key(a->srcs[i].func, a->srcs[i].file, a->srcs[i].start_line);
}

/* The index of source function s in a->srcs, kept if new; -ENOMEM. */
static long source_id(struct paddrs *a, const struct paddr_source *s)
{
	long func = src_str(a, s->func), file = func < 0 ? func : src_str(a, s->file);
	struct psource key;
	size_t j;

	if (file < 0 || slots_room(&a->src_slots, &a->nsrc_slots, a->nr_srcs, src_hash, a) ||
	    GROW(a->srcs, a->cap_srcs, a->nr_srcs + 1, 64))
		return -ENOMEM;
	key = (struct psource){ (uint32_t)func, (uint32_t)file, s->start_line };
	j = src_key(key.func, key.file, key.start_line) & (a->nsrc_slots - 1);
	for (; a->src_slots[j]; j = (j + 1) & (a->nsrc_slots - 1)) {
		const struct psource *f = &a->srcs[a->src_slots[j] - 1];

		if (f->func == key.func && f->file == key.file && f->start_line == key.start_line)
			break;
	}
	if (!a->src_slots[j]) {
		a->srcs[a->nr_srcs] = key;
		a->src_slots[j] = (uint32_t)++a->nr_srcs;
	}
	return (long)a->src_slots[j] - 1;
}

int paddrs__source(struct paddrs *a, const struct paddr_source *s, struct paddr_frame *out)
{
	long src = source_id(a, s);

	if (src < 0)
		return -ENOMEM;
	*out = (struct paddr_frame){ .map = PADDR_SOURCE,
				     .addr = paddr__source_addr((uint32_t)src, s->line) };
	return 0;
}

int paddrs__line(struct paddrs *a, const struct paddr_source *s, struct paddr_frame *out)
{
	long src = source_id(a, s);

	if (src < 0)
		return -ENOMEM;
	out->src = (uint32_t)src + 1;
	out->line = s->line;
	return 0;
}

static uint64_t loc_key(const struct ploc *l)
{
	return hash__mix64(l->addr ^ hash__mix64(((uint64_t)l->name << 32) | l->map) ^
			   hash__mix64(((uint64_t)l->src << 32 | l->line) ^
				       ((uint64_t)l->outer << 20)));
}

static uint64_t loc_hash(const struct paddrs *a, size_t i)
{
	return loc_key(&a->locs[i]);
}

/* The id of location *key, made if new; -ENOMEM. */
static long loc_id(struct paddrs *a, const struct ploc *key)
{
	size_t j;

	if (slots_room(&a->loc_slots, &a->nloc_slots, a->nr_locs, loc_hash, a) ||
	    GROW(a->locs, a->cap_locs, a->nr_locs + 1, 1024))
		return -ENOMEM;
	j = loc_key(key) & (a->nloc_slots - 1);
	for (; a->loc_slots[j]; j = (j + 1) & (a->nloc_slots - 1)) {
		const struct ploc *l = &a->locs[a->loc_slots[j] - 1];

		if (l->name == key->name && l->map == key->map && l->addr == key->addr &&
		    l->src == key->src && l->line == key->line && l->outer == key->outer)
			return a->loc_slots[j] - 1;
	}
	a->locs[a->nr_locs] = *key;
	a->loc_slots[j] = (uint32_t)++a->nr_locs;
	return (long)a->nr_locs - 1;
}

/* Sites hash by their locations alone: stacks are renumbered by sorts. */
static uint64_t site_key(const uint32_t *locs, uint32_t depth)
{
	return hash__mix64(hash__fnv1a_words(HASH_FNV_OFFSET ^ depth, locs, depth));
}

/* The depth of site i: up to the next site's locations, or the end. */
static uint32_t site_depth(const struct paddrs *a, size_t i)
{
	size_t end = i + 1 < a->nr_sites ? a->sites[i + 1].first : a->nr_site_locs;

	return (uint32_t)(end - a->sites[i].first);
}

static uint64_t site_hash(const struct paddrs *a, size_t i)
{
	return site_key(a->site_locs + a->sites[i].first, site_depth(a, i));
}

int paddrs__add_sample(struct paddrs *a, uint32_t stack, const uint32_t *names,
		       const struct paddr_frame *frames, uint32_t depth, double count)
{
	size_t first = a->nr_site_locs, j;
	uint32_t *locs;

	if (GROW(a->site_locs, a->cap_site_locs, first + depth + 1, 4096))
		return -ENOMEM;
	for (uint32_t i = 0; i < depth; i++) {
		const struct paddr_frame *fr = &frames[i];
		struct ploc key = { .name = names[i], .map = fr->map, .addr = fr->addr,
				    .src = fr->src, .line = fr->line,
				    .outer = i && fr->inlined ? a->site_locs[first + i - 1] + 1 : 0 };
		long id = loc_id(a, &key);

		if (id < 0)
			return -ENOMEM;
		a->site_locs[first + i] = (uint32_t)id;
	}
	locs = a->site_locs + first;
	if (slots_room(&a->site_slots, &a->nsite_slots, a->nr_sites, site_hash, a) ||
	    GROW(a->sites, a->cap_sites, a->nr_sites + 1, 256))
		return -ENOMEM;
	j = site_key(locs, depth) & (a->nsite_slots - 1);
	for (; a->site_slots[j]; j = (j + 1) & (a->nsite_slots - 1)) {
		struct psite *s = &a->sites[a->site_slots[j] - 1];

		if (s->stack == stack && site_depth(a, s - a->sites) == depth &&
		    !memcmp(paddrs__site_locs(a, s), locs, depth * sizeof(*locs))) {
			s->count += count;
			return 0;
		}
	}
	a->sites[a->nr_sites] = (struct psite){ .stack = stack, .first = first, .count = count };
	a->nr_site_locs += depth;
	a->site_slots[j] = (uint32_t)++a->nr_sites;
	return 0;
}

void paddrs__renumber(struct paddrs *a, const uint32_t *to)
{
	for (size_t i = 0; i < a->nr_sites; i++)
		a->sites[i].stack = to[a->sites[i].stack];
}
