// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The container ids in cgroup v2 paths and the cgroup= prefix match
 * (proc_cgroup.h), on the paths the runtimes make; this process's own
 * cgroup as /proc/self/cgroup's 0:: line says. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "files/proc_cgroup.h"
#include "unit.h"

#define ID "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899"

TEST(container_ids_of_the_runtimes)
{
	const char *paths[] = {
		"/system.slice/docker-" ID ".scope",
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-" ID ".scope",
		"/kubepods.slice/kubepods-pod2.slice/crio-" ID ".scope",
		"/machine.slice/libpod-" ID ".scope/container",
		"/docker/" ID,
		"/kubepods/besteffort/pod3/" ID,
	};
	char id[PROC_CGROUP_ID_LEN + 1];

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		id[0] = 0;
		CHECK(proc_cgroup__container(paths[i], id));
		CHECK_STR(id, ID);
	}
}

TEST(no_container_id_where_none)
{
	char id[PROC_CGROUP_ID_LEN + 1];

	CHECK(!proc_cgroup__container("/", id));
	CHECK(!proc_cgroup__container("/system.slice/nginx.service", id));
	/* 65 hex digits, upper case, a prefix no runtime uses */
	CHECK(!proc_cgroup__container("/docker-" ID "0.scope", id));
	CHECK(!proc_cgroup__container("/docker/3F4E5D6C7B8A99887766554433221100FFEEDDCCBBAA00112233445566778899", id));
	CHECK(!proc_cgroup__container("/evil-" ID ".scope", id));
}

TEST(under_is_a_path_prefix)
{
	CHECK(proc_cgroup__under("/a/b", "/a"));
	CHECK(proc_cgroup__under("/a/b", "/a/"));
	CHECK(proc_cgroup__under("/a", "/a"));
	CHECK(proc_cgroup__under("/a/b/c", "/a/b"));
	CHECK(proc_cgroup__under("/anything", "/"));
	CHECK(proc_cgroup__under("/", "/"));
	CHECK(!proc_cgroup__under("/ab", "/a"));
	CHECK(!proc_cgroup__under("/a", "/a/b"));
	CHECK(!proc_cgroup__under("/b/a", "/a"));
}

TEST(own_cgroup_as_proc_says)
{
	char want[PROC_CGROUP_MAX] = "", got[PROC_CGROUP_MAX], line[PROC_CGROUP_MAX + 8];
	FILE *f = fopen("/proc/self/cgroup", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			snprintf(want, sizeof(want), "%.*s", (int)strcspn(line + 3, "\n"), line + 3);
	if (f)
		fclose(f);
	CHECK(*want); /* the test machine has cgroup v2 */
	CHECK(!proc_cgroup__path(getpid(), got, sizeof(got)));
	CHECK_STR(got, want);
	CHECK(proc_cgroup__path(0, got, sizeof(got)) < 0);
}

int main(void)
{
	RUN(container_ids_of_the_runtimes);
	RUN(no_container_id_where_none);
	RUN(under_is_a_path_prefix);
	RUN(own_cgroup_as_proc_says);
	UNIT_EXIT();
}
