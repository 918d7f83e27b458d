// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* String table (see strtab.h): open addressing, at most half full. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow.h"
#include "profile/strtab.h"

/* Eight bytes a step, mixed by multiplication: every frame of every
 * line of a folded file is hashed, so this is on the hot path. */
static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdULL;
	return (uint32_t)(h ^ h >> 32);
}

/* Doubles the slots (kept at most half full) and re-places every entry. */
static int strtab_rehash(struct strtab *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr; i++) {
		size_t j = t->ent[i].hash & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

static long strtab_append(struct strtab *t, const char *s, size_t len,
			  uint32_t h)
{
	if (GROW(t->ent, t->cap, t->nr + 1, 256))
		return -ENOMEM;
	t->ent[t->nr] = (struct strtab_ent){ s, (uint32_t)len, h };
	return (long)t->nr++;
}

long strtab__find(const struct strtab *t, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len);

	if (!t->nslots)
		return -1;
	for (size_t j = h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		const struct strtab_ent *e = &t->ent[t->slots[j] - 1];

		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return t->slots[j] - 1;
	}
	return -1;
}

long strtab__intern(struct strtab *t, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len);
	size_t j;
	long idx;

	if (len > UINT32_MAX || t->nr >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((t->nr + 1) * 2 > t->nslots && strtab_rehash(t))
		return -ENOMEM;
	for (j = h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		const struct strtab_ent *e = &t->ent[t->slots[j] - 1];

		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return t->slots[j] - 1;
	}
	idx = strtab_append(t, s, len, h);
	if (idx >= 0)
		t->slots[j] = (uint32_t)idx + 1;
	return idx;
}

void strtab__free(struct strtab *t)
{
	free(t->ent);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
