/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pprof writer's state and profile.proto's field numbers, private to
 * output/: pprof.c writes the header, samples, labels, functions and
 * strings; pprof_addr.c a capture's addresses (mappings placed in one
 * address space, locations, source functions).
 */
#ifndef SMOLDER_OUTPUT_PPROF_INT_H
#define SMOLDER_OUTPUT_PPROF_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>
#include "output/pb.h"
#include "output/pprof.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_DROP_FRAMES = 7,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

/* The string table starts with these; frame name i is S_FRAMES + i.  The
 * first value's type is "samples", or "wall" in a time-weighted profile. */
enum {
	S_EMPTY, S_VALUE_TYPE, S_COUNT, S_CPU, S_NANOSECONDS, S_NAME, S_EXPORTER, S_PROCESS,
	S_PID, S_THREAD, S_MAIN, S_BUILD_ID, S_KERNEL, S_DESCRIBED, S_CGROUP, S_CONTAINER, S_FRAMES
};

/* The process names and CPU numbers of labels: strings after the frame names. */
struct comms {
	char (*name)[16];
	size_t nr, cap, last;
};

/* The encoded top level goes through deflate in chunks of about this size. */
#define FLUSH_AT (64 * 1024)

struct pprof_writer {
	FILE *out;
	char described[512]; /* what the profile shows: a comment (format__subtitle) */
	z_stream z;
	struct pb top;       /* top-level fields not yet compressed */
	struct pb msg, line; /* embedded messages being built */
	const struct strtab *names; /* the profile's frame names */
	struct used_names used;     /* those of kept stacks: function/location k + 1 */
	uint64_t *ids;       /* one stack's location ids, root first */
	size_t nids, cap;
	uint64_t period_ns;
	const struct profile *p;
	struct comms comms;
	bool without_pids;   /* no pid and thread labels */
	/* the cgroup and container values (profile name ids) of the kept
	 * stacks: strings after the frame names, then the comms */
	uint32_t *value_number; /* per name id: its value's number + 1, 0 unused */
	uint32_t *value_order;  /* value k is name value_order[k] */
	size_t nr_values;
	struct pb label;
	uint8_t *in_kernel;  /* per used name: a kernel frame (location -> [kernel.kallsyms]) */
	uint64_t kernel_mapping; /* its mapping id, 0 without */
	/* A capture's samples by address (profile_addr.h), else NULL: */
	const struct paddrs *addrs;
	const struct psite *site;   /* the one being written */
	uint32_t *loc_number;       /* per location: its Location id, 0 when unused */
	uint32_t *loc_order;        /* Location k + 1 is location loc_order[k] */
	size_t nr_locs;
	uint64_t *map_id;           /* per mapping: its Mapping id */
	uint64_t *map_start;        /* per mapping: where it is placed */
	size_t *placed;             /* the mappings placed so far, in order */
	uint32_t *src_number;       /* per source function: its number + 1, 0 when unused */
	uint32_t *src_order;        /* source Function used.nr + k + 1 is src_order[k] */
	size_t nr_srcs;
	uint8_t *name_use;          /* per used name: NAME_BY_* of the Locations written */
};

/* Which Locations use a name's Function: one only source locations use is
 * not written (theirs are the source functions). */
enum { NAME_BY_ADDR = 1, NAME_BY_SOURCE = 2 };
/* The Lines of one Location at most (an inline chain, with its function). */
#define PPROF_MAX_INLINE 64

int pw_deflate(struct pprof_writer *w, int flush);
void pw_mapping(struct pprof_writer *w, uint64_t id, int file, int build_id);
void pw_addr_mappings(struct pprof_writer *w);
int pw_addr_locations(struct pprof_writer *w);
int pw_source_functions(struct pprof_writer *w);
int pw_addr_strings(struct pprof_writer *w);
int pw_addr_init(struct pprof_writer *w, const struct paddrs *a);
void pw_addr_free(struct pprof_writer *w);

#endif
