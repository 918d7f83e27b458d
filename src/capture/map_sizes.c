// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Map sizes (see map_sizes.h).  A one-shot capture keeps
 * --stack-storage-size stacks and 3/8 as many sample keys (under 16 MiB of
 * kernel memory by default).  A continuous one holds one interval per
 * bank, so its default follows the samples an interval can take (rate x
 * interval x CPUs, plus a quarter), from 1024 up to the one-shot default:
 * at 19 Hz, 60 s and 2 CPUs, 2,850 stacks instead of 32,768, in each of
 * its two banks.  A COMMAND at its default rate (499 Hz) keeps as many
 * keys as stacks, 3 MiB more.  A one-shot capture of a given duration
 * holds no more than it can sample: a key and two stack entries' worth
 * of chunks per stack (see fit_duration).  --off-cpu's map of pending waits holds as many threads
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

/*
 * A one-shot capture of m->duration seconds takes at most rate x duration
 * x CPUs samples (plus a quarter: the capture stops a moment after its
 * duration); each adds at most one key, and three stacks: kernel and user
 * ones of SMOLDER_MAX_DEPTH frames (8 chunks each) and a Python one of
 * STACK_CHUNKS chunks, 32 chunks in all, STACK_CHUNKS stack entries (a
 * stack entry is two chunks).  So the maps cannot fill when every sample's
 * stacks are new and as deep as they go; they stay no larger than the
 * defaults, and no smaller than 1024.  A 1 s capture at 49 Hz on 2 CPUs
 * keeps 1,960 stacks instead of 32,768 (0.8 instead of 15.6 MiB of kernel
 * memory), and creating them takes ~1 ms instead of ~40 ms.
 */
static void fit_duration(struct map_sizes *m)
{
	double samples = m->hz * m->duration * m->nr_cpus * 1.25;
	double stacks = samples * STACK_CHUNKS;

	if (stacks < m->stack_entries)
		m->stack_entries = stacks < 1024 ? 1024 : (uint32_t)stacks;
	if (samples < m->count_entries)
		m->count_entries = samples < 1024 ? 1024 : (uint32_t)samples;
}

void map_sizes__choose(struct map_sizes *m)
{
	bool by_duration = !m->stack_entries && !m->continuous && !m->off_cpu && m->duration > 0;

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
	if (by_duration)
		fit_duration(m);
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
