// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A process's cgroup v2 path and container id (see proc_cgroup.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "files/proc_cgroup.h"

int proc_cgroup__path(uint32_t pid, char *buf, size_t len)
{
	/* v1 lines come first on a hybrid system: room for a few of them */
	char text[4096], name[32];
	const char *line;
	size_t n = 0;
	ssize_t r;
	int fd;

	snprintf(name, sizeof(name), "/proc/%u/cgroup", pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (n < sizeof(text) - 1 && (r = read(fd, text + n, sizeof(text) - 1 - n)) > 0)
		n += r;
	close(fd);
	text[n] = 0;
	for (line = text; line && strncmp(line, "0::", 3);)
		if ((line = strchr(line, '\n')))
			line++;
	if (!line || len < 8)
		return -ENOENT;
	line += 3;
	n = strcspn(line, "\n");
	if (n >= len) {
		snprintf(buf, len, "%.*s...", (int)(len - 4), line);
		n = len - 1;
	} else {
		memcpy(buf, line, n);
		buf[n] = 0;
	}
	for (char *c = buf; *c; c++)
		if (*c < ' ' || *c > '~')
			*c = '?';
	return 0;
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* The id in the component s[0..n): RUNTIME-ID.scope, or ID alone. */
static bool component_id(const char *s, size_t n, char *id)
{
	static const char *const prefixes[] = { "docker-", "cri-containerd-", "crio-", "libpod-", "" };

	if (n > 6 && !memcmp(s + n - 6, ".scope", 6))
		n -= 6;
	for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
		size_t pl = strlen(prefixes[k]);

		if (n == pl + PROC_CGROUP_ID_LEN && !memcmp(s, prefixes[k], pl) &&
		    all_hex(s + pl, PROC_CGROUP_ID_LEN)) {
			memcpy(id, s + pl, PROC_CGROUP_ID_LEN);
			id[PROC_CGROUP_ID_LEN] = 0;
			return true;
		}
	}
	return false;
}

bool proc_cgroup__container(const char *path, char *id)
{
	bool found = false;

	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");

		found |= component_id(c, n, id);
		c += n + (c[n] == '/');
	}
	return found;
}

bool proc_cgroup__mount(char *buf, size_t len)
{
	char line[PATH_MAX + 64], dir[PATH_MAX], type[32];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %4095s %31s", dir, type) == 2 && !strcmp(type, "cgroup2") &&
			(size_t)snprintf(buf, len, "%s", dir) < len;
	if (f)
		fclose(f);
	return found;
}

bool proc_cgroup__under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (n == 1 && prefix[0] == '/')
		return path[0] == '/';
	return !strncmp(path, prefix, n) && (path[n] == '/' || !path[n]);
}
