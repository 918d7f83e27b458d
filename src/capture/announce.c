// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The -p and -t targets' images announced before sampling starts
 * (announce.h): whether bpf/smolder.bpf.c's announce_targets iterator is
 * loaded, and its one run.
 */
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "capture/announce.h"
#include "capture/probe.h"
#include "lib/log.h"
#include "smolder.skel.h"

/*
 * Whether the images of the -p or -t targets are announced before sampling
 * (bpf/smolder.bpf.c's announce_targets): their user stacks are walked with
 * tables, the kernel has task iterators (tracing programs, which a kernel
 * or an LSM may refuse: probe__tp_btf says) and the ring buffer, and
 * --off-cpu's offcpu_waiting does not announce them already.
 */
bool announce__wanted(struct smolder_bpf *skel, bool targets, bool dwarf_user_stacks)
{
	struct btf *btf;
	bool ok;

	if (!dwarf_user_stacks || !targets ||
	    bpf_program__autoload(skel->progs.offcpu_waiting) ||
	    !bpf_map__autocreate(skel->maps.events) || !probe__tp_btf())
		return false;
	btf = btf__load_vmlinux_btf();
	ok = btf && btf__find_by_name_kind(btf, "bpf_iter__task", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return ok;
}

/* Runs announce_targets once, if loaded; its announcements wait in the ring
 * buffer for the sampler's settle.  A failure costs only first stacks. */
void announce__run(struct smolder_bpf *skel)
{
	struct bpf_link *link;
	char buf[64];
	int fd = -1;

	if (!bpf_program__autoload(skel->progs.announce_targets))
		return;
	link = bpf_program__attach_iter(skel->progs.announce_targets, NULL);
	if (link)
		fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		debug("the targets' images were not announced before sampling: %s (their first "
		      "stacks may be cut)", log__errstr(errno));
	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
}
