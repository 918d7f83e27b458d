// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The queue of images whose maps wait to be read (preload.c) and why
 * frames stay "[unknown]" (usyms__name_frame), on this process and on PIDs
 * that do not exist: an image announced many times is read once; re-reads
 * come at once for a burst, then wait their turn; an expired budget reads
 * nothing and keeps the image waiting; a full queue drops announcements,
 * counted, and marks their images late; a glance reads a new image's
 * maps only, once, ahead of its full read; and each reason for
 * "[unknown]" is told apart.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
#include "session/preload.h"
#include "unit.h"
#include "symbols/usyms.h"

#define NO_PID 2000000000 /* above pid_max: never a process */

static struct preload_stats stats_of(const struct preload *q)
{
	struct preload_stats st;

	preload__stats(q, &st);
	return st;
}

static enum usyms_miss miss_at(struct usyms *u, pid_t pid, uint32_t gen, uint64_t addr)
{
	struct usyms_frame fr;
	char buf[256];

	usyms__name_frame(u, pid, gen, addr, buf, sizeof(buf), &fr);
	return fr.miss;
}

TEST(announced_often_read_once)
{
	struct usyms *u = usyms__new();
	struct preload *q = preload__new(u);

	for (int i = 0; i < 5; i++)
		preload__add(q, getpid(), 1);
	CHECK(stats_of(q).waiting == 1);
	CHECK(preload__run(q, NULL) == 0);
	CHECK(stats_of(q).done == 1 && stats_of(q).waiting == 0);
	preload__free(q);
	usyms__free(u);
}

TEST(rereads_burst_then_wait)
{
	struct usyms *u = usyms__new();
	struct preload *q = preload__new(u);
	double next;
	int i;

	for (i = 0; i < USYMS_REREAD_BURST; i++) {
		preload__add(q, getpid(), 1);
		preload__run(q, NULL);
	}
	CHECK(stats_of(q).done == USYMS_REREAD_BURST);
	preload__add(q, getpid(), 1);
	next = preload__run(q, NULL);
	CHECK(stats_of(q).done == USYMS_REREAD_BURST && stats_of(q).waiting == 1);
	CHECK(next > clock__now() && next <= clock__now() + USYMS_REREAD_INTERVAL);
	usleep((next - clock__now()) * 1e6 + 20000);
	CHECK(preload__run(q, NULL) == 0 && stats_of(q).done == USYMS_REREAD_BURST + 1);
	preload__free(q);
	usyms__free(u);
}

TEST(expired_budget_reads_nothing)
{
	struct budget late = { .until = 1 };
	struct usyms *u = usyms__new();
	struct preload *q = preload__new(u);

	preload__add(q, getpid(), 7);
	usyms__set_budget(u, &late);
	CHECK(preload__run(q, &late) > 0);
	CHECK(stats_of(q).done == 0 && stats_of(q).waiting == 1);
	/* named within the same budget: not read, so late */
	CHECK(miss_at(u, getpid(), 7, 0x10) == USYMS_MISS_LATE);
	usyms__set_budget(u, NULL);
	CHECK(preload__run(q, NULL) == 0 && stats_of(q).done == 1);
	CHECK(miss_at(u, getpid(), 7, 0x10) == USYMS_MISS_UNMAPPED);
	preload__free(q);
	usyms__free(u);
}

TEST(full_queue_drops_and_marks_late)
{
	struct usyms *u = usyms__new();
	struct preload *q = preload__new(u);

	for (int i = 0; i < PRELOAD_MAX + 5; i++)
		preload__add(q, NO_PID, i + 1);
	preload__add(q, NO_PID, 1); /* waiting already: not a drop */
	CHECK(stats_of(q).waiting == PRELOAD_MAX && stats_of(q).dropped == 5);
	CHECK(miss_at(u, NO_PID, PRELOAD_MAX + 3, 0x1000) == USYMS_MISS_LATE);
	preload__mark_waiting(q);
	CHECK(miss_at(u, NO_PID, 1, 0x1000) == USYMS_MISS_LATE);
	preload__free(q);
	usyms__free(u);
}

static void count_maps(pid_t pid, uint32_t gen, const struct proc_maps *pm, void *arg)
{
	(void)pid, (void)gen, (void)pm;
	(*(int *)arg)++;
}

TEST(glance_reads_new_maps_once)
{
	struct usyms *u = usyms__new();
	struct preload *q = preload__new(u);
	int maps = 0;

	usyms__set_maps_hook(u, count_maps, &maps);
	preload__add(q, getpid(), 5);
	preload__glance_new(q, NULL);
	/* its tables' maps are read; its files wait for the loop's passes */
	CHECK(maps == 1 && stats_of(q).done == 0 && stats_of(q).waiting == 1);
	preload__glance_new(q, NULL);
	CHECK(maps == 1);
	CHECK(preload__run(q, NULL) == 0 && stats_of(q).done == 1 && stats_of(q).waiting == 0);
	/* announced again, read before: no new image, the passes' work */
	maps = 0;
	preload__add(q, getpid(), 5);
	preload__glance_new(q, NULL);
	CHECK(maps == 0 && stats_of(q).waiting == 1);
	preload__free(q);
	usyms__free(u);
}

TEST(reasons_told_apart)
{
	struct usyms *u = usyms__new();
	struct preload *q = preload__new(u);
	pid_t kid = fork();

	if (kid == 0)
		_exit(0);
	waitpid(kid, NULL, 0);
	/* announced and read in time, but the process was gone */
	preload__add(q, kid, 3);
	preload__run(q, NULL);
	CHECK(miss_at(u, kid, 3, 0x1000) == USYMS_MISS_EXITED);
	/* never announced */
	CHECK(miss_at(u, NO_PID, 9, 0x1000) == USYMS_MISS_UNSEEN);
	CHECK(miss_at(u, NO_PID, 0, 0x1000) == USYMS_MISS_UNTRACKED);
	/* maps read, nothing there */
	CHECK(miss_at(u, getpid(), 0, 0x10) == USYMS_MISS_UNMAPPED);
	CHECK(miss_at(u, getpid(), 0, (uintptr_t)&stats_of) == USYMS_NAMED);
	CHECK_STR(usyms__miss_name(USYMS_MISS_LATE), "maps not read in time");
	preload__free(q);
	usyms__free(u);
}

int main(void)
{
	RUN(announced_often_read_once);
	RUN(rereads_burst_then_wait);
	RUN(expired_budget_reads_nothing);
	RUN(full_queue_drops_and_marks_late);
	RUN(glance_reads_new_maps_once);
	RUN(reasons_told_apart);
	UNIT_EXIT();
}
