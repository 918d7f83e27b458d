// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf/unwind.bpf.h itself, compiled for user space (no copy of its logic):
 * the helpers it calls (bpf_shim.h) answer from an unwind image.  A map
 * lookup goes by the map's address: the LPM trie takes the longest
 * matching recorded prefix, the files hash its entry, the array of shards
 * a handle per shard created, a shard the recorded slot (absent when not
 * recorded), the per-CPU state a static slot; bpf_probe_read_user reads the
 * sample's recorded memory and fails outside it, as on an unmapped page.
 * The configuration the BPF program's loader sets (unwind_shard_bits,
 * image_events) comes from the image.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpf_shim.h"

static __u32 unwind_shard_bits;
static bool image_events;

#include "unwind.bpf.h"

#include "walk.h"

#define MAX_SHARDS 4096
#define MAX_TOUCHED (1u << 20)

static const struct unwind_image *cur_img;
static const struct image_sample *cur_sample;
static struct unwind_scratch scratch[UNWIND_SLOTS];
static char shard_handle[MAX_SHARDS];
static uint32_t touched[MAX_TOUCHED];
static size_t nr_touched;

/* Whether the first bits bits of a and b (big-endian bytes) are equal. */
static bool prefix_equal(const __u8 *a, const __u8 *b, __u32 bits)
{
	__u32 bytes = bits / 8, rest = bits % 8;

	if (memcmp(a, b, bytes))
		return false;
	return !rest || !((a[bytes] ^ b[bytes]) & (0xffu << (8 - rest)));
}

/* The LPM trie: the longest recorded prefix that matches key's data. */
static void *lpm_lookup(const struct unwind_map_key *key)
{
	const struct image_mapping *best = NULL;

	for (size_t i = 0; i < cur_img->nr_mappings; i++) {
		const struct image_mapping *e = &cur_img->mappings[i];

		if (e->key.prefixlen > key->prefixlen ||
		    (best && e->key.prefixlen <= best->key.prefixlen))
			continue;
		if (prefix_equal((const __u8 *)&e->key.tgid, (const __u8 *)&key->tgid,
				 e->key.prefixlen))
			best = e;
	}
	return best ? (void *)&best->m : NULL;
}

static void *file_lookup(__u32 id)
{
	for (size_t i = 0; i < cur_img->nr_files; i++)
		if (cur_img->files[i].id == id)
			return (void *)&cur_img->files[i].f;
	return NULL;
}

static void *slot_lookup(__u32 shard, __u32 idx)
{
	__u32 slot;
	long i;

	if (idx >> (unwind_shard_bits & 31))
		return NULL; /* past the array's max_entries */
	slot = shard << (unwind_shard_bits & 31) | idx;
	if (nr_touched < MAX_TOUCHED)
		touched[nr_touched++] = slot;
	i = unwind_image__slot(cur_img, slot);
	return i < 0 ? NULL : (void *)&cur_img->slots[i].value;
}

void *replay_map_lookup(void *map, const void *key)
{
	__u32 k;

	if ((char *)map >= shard_handle && (char *)map < shard_handle + MAX_SHARDS) {
		memcpy(&k, key, sizeof(k));
		return slot_lookup((char *)map - shard_handle, k);
	}
	if (map == &unwind_mappings)
		return lpm_lookup(key);
	memcpy(&k, key, sizeof(k));
	if (map == &unwind_files)
		return file_lookup(k);
	if (map == &unwind_shards)
		return k < cur_img->nr_shards && k < MAX_SHARDS ? &shard_handle[k] : NULL;
	if (map == &unwind_scratch)
		return k < UNWIND_SLOTS ? &scratch[k] : NULL;
	return NULL; /* a map the walk does not use: never */
}

long replay_loop(__u32 nr, long (*fn)(__u64 i, void *ctx), void *ctx, __u64 flags)
{
	__u32 i = 0;

	(void)flags;
	while (i < nr && !fn(i++, ctx))
		;
	return i;
}

long replay_probe_read_user(void *dst, __u32 size, const void *src)
{
	if (cur_sample && unwind_image__read(cur_sample, (uint64_t)src, dst, size))
		return 0;
	memset(dst, 0, size);
	return -EFAULT;
}

static void use(const struct unwind_image *img, const struct image_sample *s)
{
	cur_img = img;
	cur_sample = s;
	unwind_shard_bits = img->shard_bits;
	image_events = img->image_events;
}

void replay__walk(const struct unwind_image *img, const struct image_sample *smp,
		  struct replay_walk *out, bool loop)
{
	struct unwind_scratch *s;

	use(img, smp);
	memset(out, 0, sizeof(*out));
	s = unwind_begin(UNWIND_SLOT_SAMPLE, img->tgid, img->gen);
	if (!s)
		return;
	s->pc = smp->pc;
	s->sp = smp->sp;
	s->bp = smp->bp;
	s->lr = smp->lr;
	unwind_walk(UNWIND_SLOT_SAMPLE, loop);
	out->trace = s->trace;
	out->reasons = s->reasons;
	out->complete = s->complete;
	cur_sample = NULL;
}

enum replay_find replay__find(const struct unwind_image *img, uint32_t tgid, uint32_t gen,
			      uint64_t addr, struct unwind_row *row, uint64_t *map_start,
			      uint64_t *map_end)
{
	struct unwind_scratch *s;

	use(img, NULL);
	*map_start = *map_end = 0;
	s = unwind_begin(UNWIND_SLOT_SAMPLE, tgid, gen);
	if (!s)
		return REPLAY_UNKNOWN;
	find_mapping(s, addr);
	*map_start = s->map_start;
	*map_end = s->map_end;
	switch (s->map_kind) {
	case MK_TABLE:
		find_row(s, addr, row);
		return REPLAY_TABLE;
	case MK_NO_TABLE:
		return REPLAY_NO_TABLE;
	case MK_NOT_LOADED:
		return REPLAY_NOT_LOADED;
	default:
		return REPLAY_UNKNOWN;
	}
}

size_t replay__touched(const uint32_t **slots)
{
	size_t n = nr_touched;

	*slots = touched;
	nr_touched = 0;
	return n;
}

const char *replay__reasons(uint32_t reasons, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ R_NO_TABLE, "no_table" }, { R_NOT_LOADED, "not_loaded" },
		{ R_UNREADABLE, "unreadable" }, { R_UNSUPPORTED, "unsupported" },
		{ R_BAD_FRAME, "bad_frame" }, { R_DEPTH, "depth" },
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((reasons & names[i].bit) && n + strlen(names[i].name) + 2 < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", names[i].name);
	return n ? buf : "-";
}

bool replay__only_depth(uint32_t reasons)
{
	return !(reasons & ~(uint32_t)R_DEPTH);
}
