// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JIT maps of process images, inside usyms: owns reading and
 * refreshing a process's /tmp/perf-PID.map (perfmap.c parses it) as the
 * process sees it and within usyms' budgets, what it costs, and the notes
 * on maps not (wholly) used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "symbols/usyms_int.h"

void usyms_jit_set(struct usyms *u, struct pid_ent *e, struct perfmap *pm)
{
	u->jit_bytes -= perfmap__bytes(e->jit);
	perfmap__free(e->jit);
	e->jit = pm;
	u->jit_bytes += perfmap__bytes(pm);
}

/*
 * From one read of /proc/PID/status: the process's PID in its own namespace
 * (the number its JIT writes in /tmp, last NSpid field) and its effective
 * uid (who owns the files it creates).  -1 if the process is gone.
 */
static int read_status(pid_t pid, pid_t *inner, uid_t *euid)
{
	char path[64], line[256];
	unsigned long ruid, uid = 0;
	bool have_uid = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	*inner = pid;
	while (fgets(line, sizeof(line), f)) {
		char *last = strrchr(line, '\t');

		if (!strncmp(line, "NSpid:", 6) && last && atoi(last + 1) > 0)
			*inner = atoi(last + 1);
		else if (sscanf(line, "Uid: %lu %lu", &ruid, &uid) == 2)
			have_uid = true;
	}
	fclose(f);
	*euid = uid;
	return have_uid ? 0 : -1;
}

/* Notes once per image why its perf map is not (wholly) used. */
static void note_jit(struct usyms *u, struct pid_ent *e, pid_t inner, const char *why)
{
	if (e->jit_noted)
		return;
	e->jit_noted = true;
	if (why) {
		warn("ignoring /tmp/perf-%d.map of pid %d: %s", (int)inner, (int)e->pid, why);
		return;
	}
	u->jit_cut++;
	warn("note: /tmp/perf-%d.map of pid %d: only its newest lines read, %u MiB of them",
	     (int)inner, (int)e->pid, USYMS_FILE_BUDGET >> 20);
}

/*
 * Trusted only as perf trusts it: a regular file owned by the process's
 * user or by root, never followed through a symlink, read in the process's
 * own mount namespace.
 */
void usyms_jit_refresh(struct usyms *u, struct pid_ent *e,
		       size_t (*allowance)(struct usyms *u, size_t releasing))
{
	struct budget b = u->budget ? *u->budget : (struct budget){ 0 };
	size_t before = perfmap__bytes(e->jit);
	struct perfmap *pm = e->jit;
	const char *why = NULL;
	char root[64];
	pid_t inner;
	uid_t owner;

	e->jit_read_phase = u->phase + 1;
	if (budget__expired(u->budget) || read_status(e->pid, &inner, &owner))
		return;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)e->pid);
	b.max_bytes = allowance(u, before);
	if (!b.max_bytes || perfmap__refresh(&pm, inner, root, owner, &b, &why)) {
		if (b.max_bytes && errno != ENOENT && errno != ETIMEDOUT)
			note_jit(u, e, inner, why ? why : "unreadable");
		return;
	}
	u->jit_bytes = u->jit_bytes - before + perfmap__bytes(pm);
	e->jit = pm;
	if (perfmap__truncated(pm))
		note_jit(u, e, inner, NULL);
}

bool usyms_jit_fresh(const struct usyms *u, const struct pid_ent *e)
{
	return e->jit_read_phase == u->phase + 1;
}

const char *usyms_jit_name(const struct pid_ent *e, uint64_t addr)
{
	return e->jit ? perfmap__lookup(e->jit, addr, NULL) : NULL;
}
