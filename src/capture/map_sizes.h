/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How many stacks and sample keys the kernel's maps hold, from the
 * options, and the kernel memory that costs (said when it is a lot).
 */
#ifndef SMOLDER_MAP_SIZES_H
#define SMOLDER_MAP_SIZES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEFAULT_STACK_ENTRIES 32768
#define MAX_STACK_ENTRIES (1u << 22) /* about 1.9 GiB of kernel memory */
#define WARN_MAP_BYTES (256ull << 20) /* said above this */
#define MIN_OFFCPU_ENTRIES 8192 /* waits pending at once, unless --hash-storage-size says */

struct map_sizes {
	uint32_t stack_entries; /* --stack-storage-size, 0: the default; then the size chosen */
	uint32_t hash_entries;  /* --hash-storage-size, 0: from stack_entries */
	uint32_t count_entries; /* set: distinct sample keys kept */
	uint32_t offcpu_entries; /* set: --off-cpu waits pending at once */
	bool continuous;        /* a bank per interval, SMOLDER_BANKS of them */
	bool key_per_stack;     /* a COMMAND at its default rate: as many sample
				 * keys as stacks, not 3/8 as many */
	double hz;              /* samples per second per CPU */
	double interval;        /* continuous: seconds an interval lasts */
	double duration;        /* one-shot: seconds it samples at most; 0: until it is ended */
	bool off_cpu;           /* --off-cpu: keys are waits, not samples */
	size_t nr_cpus;         /* CPUs sampled */
};

/* Chooses m->stack_entries (when 0) and m->count_entries, and warns when
 * the maps take more than WARN_MAP_BYTES of kernel memory. */
void map_sizes__choose(struct map_sizes *m);

#endif
