// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A capture's command line checked against the running system before
 * anything loads: PIDs and TIDs that exist, online CPUs, a cgroup v2
 * directory for --cgroup, and -o names that are known formats and can
 * be written.  Part of the command layer (cli.c parses; this checks).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "cmd/cli.h"
#include "lib/cpus.h"
#include "files/proc_cgroup.h"
#include "lib/log.h"
#include "output/emit.h"
#include "output/format.h"

/*
 * --cgroup: a cgroup v2 directory, as a path or relative to the cgroup2
 * mount (perf -G takes names relative to the cgroup mount).
 */
static int open_cgroup(struct env *env)
{
	const char *p = env->cgroup_path;
	char rel[PATH_MAX], root[PATH_MAX];
	struct statfs sf;
	int fd;

	if (p[0] != '/' && access(p, F_OK) && proc_cgroup__mount(root, sizeof(root)) &&
	    snprintf(rel, sizeof(rel), "%s/%s", root, p) < (int)sizeof(rel))
		p = rel;
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err("cannot open cgroup %s: %s (give a cgroup v2 directory, see mount -t cgroup2)", p, log__errstr(errno));
		return -1;
	}
	if (fstatfs(fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		err("not a cgroup v2 directory: %s (give one under the cgroup2 mount, see mount -t cgroup2)", p);
		close(fd);
		return -1;
	}
	env->cgroup_fd = fd;
	return 0;
}

/*
 * A capture's -o whose suffix names no format (x.png, out.html) is a
 * usage error: it used to get the readable report.  Names without a
 * suffix (devices, FIFOs, "out") get the default; --format names it.
 */
static int check_output_names(const struct env *env)
{
	for (size_t i = 0; !env->format && i < env->nr_outputs; i++) {
		const char *path = env->outputs[i].path;

		if (path && format__has_suffix(path) && format__of_path(path) == FMT_AUTO) {
			err("cannot write %s: unknown output format (use " FORMAT_SUFFIXES
			    ", or --format)", path);
			return -1;
		}
	}
	return 0;
}

/* PIDs must exist and CPUs be online: exit 1 otherwise. */
static int check_system(struct env *env)
{
	int online[MAX_CPUS], n = cpus__online(online, MAX_CPUS);
	char path[64];

	for (size_t i = 0; i < env->nr_tgids; i++)
		if (kill(env->tgids[i], 0) && errno == ESRCH) {
			err("no such process: %u (check the PID with ps)", env->tgids[i]);
			return 1;
		}
	for (size_t i = 0; i < env->nr_tids; i++) {
		snprintf(path, sizeof(path), "/proc/%u", env->tids[i]);
		if (access(path, F_OK)) {
			err("no such thread: %u (check the TID with ps -L)", env->tids[i]);
			return 1;
		}
	}
	if (env->cgroup_path && open_cgroup(env))
		return 1;
	if (n < 0) {
		err("cannot read /sys/devices/system/cpu/online (mount sysfs)");
		return 1;
	}
	if (!env->nr_cpus) {
		memcpy(env->cpus, online, n * sizeof(*online));
		env->nr_cpus = n;
		env->cpus_given = true;
		return 0;
	}
	for (size_t i = 0; i < env->nr_cpus; i++) {
		bool ok = false;

		for (int j = 0; j < n; j++)
			ok |= online[j] == env->cpus[i];
		if (!ok) {
			err("cpu %d is not online (see /sys/devices/system/cpu/online)", env->cpus[i]);
			return 1;
		}
	}
	return 0;
}

/* What the capture needs of the system, then its outputs: after the
 * checks of the system, so that a bad PID is said whatever -o is.  The
 * exit code, or 0. */
int cli__check_capture(struct env *env)
{
	int rc = check_system(env);

	if (rc)
		return rc;
	if (check_output_names(env))
		return 2;
	/* every -o that names a file must take it before we spend a capture */
	return emit__check(env->outputs, env->nr_outputs) ? 1 : 0;
}
