// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Map sizes (see map_sizes.h).  A one-shot capture keeps
 * --stack-storage-size stacks and 3/8 as many sample keys (under 16 MiB of
 * kernel memory by default).  A continuous one holds one interval per
 * bank, so its default follows the samples an interval can take (rate x
 * interval x CPUs, plus a quarter), from 1024 up to the one-shot default:
 * at 19 Hz, 60 s and 2 CPUs, 2,850 stacks instead of 32,768, in each of
 * its two banks.  A COMMAND at its default rate (499 Hz) keeps as many
 * keys as stacks, 3 MiB more.  --off-cpu's map of pending waits holds as many threads
 * as the count map holds keys, at least 8192 unless --hash-storage-size
 * sets both.
 */
#include <inttypes.h>
#include "lib/log.h"
#include "capture/map_sizes.h"
#include "smolder.h"

/*
 * Kernel memory of a preallocated hash map of n entries, as the kernel
 * charges it: each element's header (struct htab_elem, 48 bytes), key and
 * value rounded to 8 bytes, and about 16 bytes of bucket.  Measured on
 * 6.18: 32768 stacks take 15.6 MiB in all, 65536 take 30.8 MiB.
 */
static uint64_t hash_map_bytes(uint64_t n, size_t key, size_t value)
{
	return n * (48 + 16 + (key + 7) / 8 * 8 + (value + 7) / 8 * 8);
}

/* What the stack and count maps ask of the kernel, in every bank. */
static uint64_t maps_bytes(bool continuous, uint32_t stacks, uint32_t counts)
{
	uint64_t bank = hash_map_bytes(2ull * stacks, sizeof(struct stack_chunk_key),
				       sizeof(struct stack_chunk)) +
			hash_map_bytes(counts, sizeof(struct sample_key), sizeof(__u64));

	return bank * (continuous ? SMOLDER_BANKS : 1);
}

/* A --stack-storage-size that asks for more than WARN_MAP_BYTES of kernel
 * memory is said, with what it costs: the kernel gives it without a word. */
static void warn_map_size(const struct map_sizes *m)
{
	uint64_t want = maps_bytes(m->continuous, m->stack_entries, m->count_entries);
	uint64_t dflt = maps_bytes(false, DEFAULT_STACK_ENTRIES, DEFAULT_STACK_ENTRIES / 8 * 3);

	if (want > WARN_MAP_BYTES)
		warn("--stack-storage-size %u takes about %" PRIu64 " MiB of kernel memory (the default, %u, takes %" PRIu64 " MiB; give a smaller size unless the machine can spare it)",
		     m->stack_entries, want >> 20, DEFAULT_STACK_ENTRIES, dflt >> 20);
}

void map_sizes__choose(struct map_sizes *m)
{
	double want = m->hz * m->interval * m->nr_cpus * 1.25;

	if (!m->stack_entries) {
		m->stack_entries = DEFAULT_STACK_ENTRIES;
		if (m->continuous && want < DEFAULT_STACK_ENTRIES)
			m->stack_entries = want < 1024 ? 1024 : (uint32_t)want;
	}
	/* keys, not stacks, run out first under a build's many short
	 * processes (each key is a process and thread): a make -j2 of
	 * smolder at 999 Hz filled 12,288 keys, half its samples lost,
	 * with 32,768 stacks not full */
	m->count_entries = m->key_per_stack ? m->stack_entries : m->stack_entries / 8 * 3;
	if (m->continuous)
		m->count_entries = want > 65536 ? 65536 : (uint32_t)want;
	if (m->count_entries < 1024)
		m->count_entries = 1024;
	if (m->hash_entries)
		m->count_entries = m->hash_entries;
	/* a thread waits once at a time: as many threads as keys, or 8192 */
	m->offcpu_entries = m->count_entries;
	if (!m->hash_entries && m->offcpu_entries < MIN_OFFCPU_ENTRIES)
		m->offcpu_entries = MIN_OFFCPU_ENTRIES;
	warn_map_size(m);
}
