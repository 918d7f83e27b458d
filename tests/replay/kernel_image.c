// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The unwinder's maps as the loader (src/unwind) left them in the kernel,
 * read into an unwind image through the syscall API: every "unwind_files"
 * and "unwind_mappings" entry (the LPM trie's keys, prefix lengths
 * included, come from get_next_key), and every slot of every shard the
 * array of maps holds (each shard read whole through its mmap, as the
 * loader writes it).  Needs what reading BPF maps needs: root.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>

#include "unwind_image.h"

static int read_files(struct unwind_image *img, int fd)
{
	uint32_t key, next;
	struct unwind_file f;
	int err;

	for (int rc = bpf_map_get_next_key(fd, NULL, &next); !rc;
	     rc = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &f))
			continue; /* deleted meanwhile */
		if ((err = unwind_image__add_file(img, key, &f)))
			return err;
	}
	return 0;
}

static int read_mappings(struct unwind_image *img, int fd)
{
	struct unwind_map_key key, next;
	struct unwind_mapping m;
	int err;

	for (int rc = bpf_map_get_next_key(fd, NULL, &next); !rc;
	     rc = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &m))
			continue;
		if ((err = unwind_image__add_mapping(img, &key, &m)))
			return err;
	}
	return 0;
}

/* Shard idx's slots, all of them, zeros included: the kernel's lookups of
 * any index below max_entries succeed. */
static int read_shard(struct unwind_image *img, int outer_fd, uint32_t idx, uint32_t bits)
{
	size_t bytes = (size_t)8 << bits;
	uint32_t id;
	const uint64_t *v;
	int fd, err = 0;

	if (bpf_map_lookup_elem(outer_fd, &idx, &id))
		return -ENOENT; /* no shard created there */
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	v = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (v == MAP_FAILED)
		return -errno;
	for (uint32_t i = 0; !err && i < 1u << bits; i++)
		err = unwind_image__add_slot(img, idx << bits | i, v[i]);
	munmap((void *)v, bytes);
	return err;
}

int unwind_image__read_kernel(struct unwind_image *img, int shards_fd, int files_fd,
			      int mappings_fd, uint32_t shard_bits, uint32_t max_shards)
{
	int err;

	img->shard_bits = shard_bits;
	img->nr_shards = 0;
	if ((err = read_files(img, files_fd)) || (err = read_mappings(img, mappings_fd)))
		return err;
	/* shards are created in order, from slot 0 of the array of maps */
	for (uint32_t i = 0; i < max_shards; i++) {
		err = read_shard(img, shards_fd, i, shard_bits);
		if (err == -ENOENT)
			break;
		if (err)
			return err;
		img->nr_shards = i + 1;
	}
	unwind_image__sort(img);
	return 0;
}
