// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The capture's scope filters in the BPF object: -p/--tid sets, --cgroup,
 * and bcc's pinned --cgroupmap/--mntnsmap hashes, which take the place of
 * the object's own maps.  Errors are said here, once, naming the fix.
 */
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/filters.h"
#include "capture/probe.h"
#include "lib/log.h"
#include "smolder.skel.h"

static int fill_filter(struct bpf_map *map, const uint32_t *ids, size_t nr)
{
	uint8_t one = 1;

	for (size_t i = 0; i < nr; i++)
		if (bpf_map__update_elem(map, &ids[i], sizeof(ids[i]), &one, sizeof(one), BPF_ANY))
			return -errno;
	return 0;
}

/*
 * bcc's --cgroupmap and --mntnsmap: the pinned hash at path takes the place
 * of map, at whatever size it was made.  Keys must be 8 bytes (a cgroup id,
 * a mount namespace inode).  Errors are said here.
 */
static int reuse_pinned(struct bpf_map *map, const char *path, const char *opt, const char *what)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(path), e;

	if (fd < 0) {
		e = errno;
		err("cannot open %s %s: %s (pin a BPF hash of %s there, as bcc's special filtering does)",
		    opt, path, log__errstr(e), what);
		return -1;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != BPF_MAP_TYPE_HASH ||
	    info.key_size != 8) {
		err("the map pinned at %s is not a BPF hash with 8-byte keys (give %s a hash of %s)", path, opt, what);
		close(fd);
		return -1;
	}
	if ((e = bpf_map__set_value_size(map, info.value_size)) ||
	    (e = bpf_map__set_max_entries(map, info.max_entries)) ||
	    (e = bpf_map__set_map_flags(map, info.map_flags)) || (e = bpf_map__reuse_fd(map, fd))) {
		err("cannot use %s %s: %s (pin a plain hash of %s there)", opt, path, log__errstr(-e), what);
		close(fd);
		return -1;
	}
	close(fd); /* reuse_fd took its own copy */
	return 0;
}

/* The process, cgroup and mount namespace filters, before the load. */
int filters__configure(struct smolder_bpf *skel, const struct scope_opts *o)
{
	struct smolder_bpf__rodata *ro = skel->rodata;

	ro->follow_forks = o->follow_forks;
	ro->filter_cgroup = o->cgroup;
	ro->filter_cgroupmap = o->cgroupmap;
	ro->filter_mntns = o->mntnsmap;
	bpf_program__set_autoload(skel->progs.on_fork, o->follow_forks);
	if (o->cgroupmap && reuse_pinned(skel->maps.cgroupset, o->cgroupmap, "--cgroupmap", "cgroup ids"))
		return -1;
	if (o->mntnsmap &&
	    reuse_pinned(skel->maps.mntnsset, o->mntnsmap, "--mntnsmap", "mount namespace inodes"))
		return -1;
	return 0;
}

/* After the load: what the filters hold. */
int filters__fill(struct smolder_bpf *skel, const struct scope_opts *o)
{
	int e;

	if ((e = fill_filter(skel->maps.tgids, o->tgids, o->nr_tgids)) ||
	    (e = fill_filter(skel->maps.tids, o->tids, o->nr_tids))) {
		err("cannot fill pid filter: %s (%s)", log__errstr(-e), probe__fix(-e));
		return -1;
	}
	if (o->cgroup) {
		__u32 zero = 0, fd = o->cgroup_fd;

		if (bpf_map__update_elem(skel->maps.cgroup_filter, &zero, sizeof(zero), &fd,
					 sizeof(fd), BPF_ANY)) {
			err("cannot filter by cgroup: %s (give a cgroup v2 directory, under /sys/fs/cgroup)",
			    log__errstr(errno));
			return -1;
		}
	}
	return 0;
}
