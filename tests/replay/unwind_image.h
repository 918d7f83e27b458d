/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An unwind image: what the BPF unwinder reads, held in user space for the
 * walk compiled there (walk.c): the unwinder's maps (the slots of the
 * shards, which hold page indexes and rows; the "unwind_files" entries; the
 * "unwind_mappings" LPM entries) and recorded samples (registers and the
 * stack bytes above the stack pointer), with the names of the code
 * addresses in those bytes, as smolder names frames.  Read from the
 * kernel's maps as the loader left them (kernel_image.c), or from a
 * recording (the .rec.gz files of tests/replay, written by
 * tests/tools/unwind_record).
 *
 * A recording is gzip'd text, one record a line, "#" lines are comments:
 *   smolder-unwind-recording 1       the version, first
 *   workload NAME MODE               what ran (unwind_paths-gcc leaf)
 *   image TGID GEN                   the process image the maps are for
 *   shards BITS COUNT IMAGE_EVENTS   shard_bits, shards created, and the
 *                                    BPF program's image_events
 *   file ID PAGES N_PAGES SHIFT      an "unwind_files" entry
 *   mapping PREFIXLEN ADDR START END BIAS FILE GEN FLAGS
 *                                    an LPM entry (key: TGID, ADDR's first
 *                                    PREFIXLEN - 32 bits) and its value
 *   page SLOT ROW COUNT              a slot holding a page index entry,
 *   row SLOT PC KIND CFA_OFF RBP_OFF and one holding a row (include/unwind.h)
 *   name ADDR NAME                   the frame name of ADDR (a return
 *                                    address's is that of ADDR - 1)
 *   sample PC SP BP [LR]             a sample's registers (LR: arm64's x30,
 *                                    for an arm64 walk), then its memory:
 *   mem ADDR HEX                     bytes at ADDR,
 *   zero ADDR LEN                    LEN zero bytes at ADDR
 * Numbers are hex (0x...) or decimal; slots not recorded read as absent.
 */
#ifndef SMOLDER_REPLAY_UNWIND_IMAGE_H
#define SMOLDER_REPLAY_UNWIND_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

#define UNWIND_RECORDING_VERSION 1

struct image_slot {
	uint32_t slot;
	uint64_t value; /* the slot's 8 bytes: a struct unwind_page or unwind_row */
};

struct image_file {
	uint32_t id;
	struct unwind_file f;
};

struct image_mapping {
	struct unwind_map_key key; /* big-endian fields, as in the kernel */
	struct unwind_mapping m;
};

struct image_name {
	uint64_t addr;
	char *name;
};

/* Recorded memory: len bytes at addr (zeros when bytes is NULL). */
struct image_mem {
	uint64_t addr;
	uint32_t len;
	uint8_t *bytes;
};

struct image_sample {
	uint64_t pc, sp, bp;
	uint64_t lr; /* arm64's x30; 0 in x86_64 recordings */
	struct image_mem *mem; /* sorted by addr, not overlapping */
	size_t nr_mem;
};

struct unwind_image {
	char workload[64], mode[32];
	uint32_t tgid, gen;
	uint32_t shard_bits, nr_shards;
	bool image_events;
	struct image_slot *slots; /* sorted by slot */
	size_t nr_slots;
	struct image_file *files;
	size_t nr_files;
	struct image_mapping *mappings;
	size_t nr_mappings;
	struct image_name *names; /* sorted by addr */
	size_t nr_names;
	struct image_sample *samples;
	size_t nr_samples;
};

struct unwind_image *unwind_image__new(void);
void unwind_image__free(struct unwind_image *img);
/* Reads a recording; NULL with a one-line reason in err (errlen bytes). */
struct unwind_image *unwind_image__load(const char *path, char *err, size_t errlen);
/* Writes img as a recording, keeping of its slots only those keep[] says
 * (NULL: all).  0 or -errno. */
int unwind_image__save(const struct unwind_image *img, const bool *keep, const char *comment,
		       const char *path);

/* Adding, for readers and recorders; each 0 or -ENOMEM.  Slots and names
 * must come sorted (unwind_image__sort sorts them after). */
int unwind_image__add_slot(struct unwind_image *img, uint32_t slot, uint64_t value);
int unwind_image__add_file(struct unwind_image *img, uint32_t id, const struct unwind_file *f);
int unwind_image__add_mapping(struct unwind_image *img, const struct unwind_map_key *k,
			      const struct unwind_mapping *m);
int unwind_image__add_name(struct unwind_image *img, uint64_t addr, const char *name);
struct image_sample *unwind_image__add_sample(struct unwind_image *img, uint64_t pc, uint64_t sp,
					      uint64_t bp);
/* bytes NULL: zeros.  Regions come in address order. */
int unwind_image__add_mem(struct image_sample *s, uint64_t addr, const void *bytes, uint32_t len);
void unwind_image__sort(struct unwind_image *img);

/* Lookups: the slot's index in img->slots, or -1; a name, or NULL. */
long unwind_image__slot(const struct unwind_image *img, uint32_t slot);
const char *unwind_image__name(const struct unwind_image *img, uint64_t addr);
/* Copies [addr, addr + len) of s's memory into dst: false if any byte of it
 * was not recorded. */
bool unwind_image__read(const struct image_sample *s, uint64_t addr, void *dst, size_t len);

/*
 * kernel_image.c: the unwinder's maps as the loader left them in the
 * kernel, into img: every file and mapping entry, and every slot of the
 * shards created (of at most max_shards).  0 or -errno.
 */
int unwind_image__read_kernel(struct unwind_image *img, int shards_fd, int files_fd,
			      int mappings_fd, uint32_t shard_bits, uint32_t max_shards);

#endif
