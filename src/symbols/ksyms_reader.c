// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Kernel symbols read during a capture (see ksyms_reader.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "lib/hash.h"
#include "lib/log.h"
#include "symbols/ksyms_reader.h"

/* /proc/modules holds a line per module; past this it is not /proc/modules. */
#define MODULES_MAX (1 << 20)
/* BPF programs listed at most (ids are never reused before 2^31). */
#define PROGS_MAX 65536
/* The capture's own programs, at most. */
#define OWN_MAX 64

/* What /proc/kallsyms's text depends on: the loaded modules and the BPF
 * programs. */
struct ktext_gen {
	uint64_t modules; /* a hash of each module's name and address */
	uint32_t last_prog; /* the highest BPF program id */
	bool progs_known; /* false without CAP_SYS_ADMIN to list programs */
};

struct ksyms_reader {
	pthread_t thread;
	char *path;
	struct ktext_gen gen; /* when the read began */
	uint32_t own[OWN_MAX];
	size_t nr_own;
	struct ksyms *ks;
	int err;
};

/*
 * A hash of each line's module name and address (the first and sixth
 * fields): the use count and state between them change without any symbol
 * changing.
 */
static uint64_t modules_hash(void)
{
	int fd = open("/proc/modules", O_RDONLY | O_CLOEXEC);
	uint64_t h = 0, field = 0;
	size_t total = 0;
	char buf[4096];
	ssize_t n;

	if (fd < 0)
		return 0; /* no modules: CONFIG_MODULES=n */
	while ((n = read(fd, buf, sizeof(buf))) > 0 && (total += n) <= MODULES_MAX) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n' || buf[i] == ' ')
				h = hash__mix64(h ^ (0x100 + field)); /* "ab c" differs from "a bc" */
			if (buf[i] == '\n')
				field = 0;
			else if (buf[i] == ' ')
				field++;
			else if (field == 0 || field == 5)
				h = hash__mix64(h ^ (uint8_t)buf[i]);
		}
	}
	close(fd);
	return h;
}

/* The next BPF program id after id: 0 at the end, -1 when they cannot be listed. */
static int64_t next_prog(uint32_t id)
{
	uint32_t next;

	if (!bpf_prog_get_next_id(id, &next))
		return next;
	return errno == ENOENT ? 0 : -1;
}

static void text_gen(struct ktext_gen *g)
{
	int64_t id = 0, next;
	int n = 0;

	g->modules = modules_hash();
	while (n++ < PROGS_MAX && (next = next_prog(id)) > 0)
		id = next;
	g->last_prog = id;
	g->progs_known = next == 0;
}

static bool own(const struct ksyms_reader *r, uint32_t id)
{
	for (size_t i = 0; i < r->nr_own; i++)
		if (r->own[i] == id)
			return true;
	return false;
}

/* Whether the table read since r->gen still holds: the same modules, and
 * no program since but the capture's own. */
static bool still_holds(const struct ksyms_reader *r)
{
	struct ktext_gen now;
	int64_t id = r->gen.last_prog;
	int n = 0;

	text_gen(&now);
	if (!r->gen.progs_known || !now.progs_known || now.modules != r->gen.modules)
		return false;
	while (n++ < PROGS_MAX && (id = next_prog(id)) > 0)
		if (!own(r, id))
			return false;
	return id == 0;
}

static void *read_syms(void *arg)
{
	struct ksyms_reader *r = arg;

	text_gen(&r->gen);
	r->ks = ksyms__load_file(r->path);
	r->err = r->ks ? 0 : errno;
	return NULL;
}

struct ksyms_reader *ksyms_reader__start(const char *path)
{
	struct ksyms_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->path = strdup(path)) || pthread_create(&r->thread, NULL, read_syms, r)) {
		if (r)
			free(r->path);
		free(r);
		return NULL;
	}
	return r;
}

void ksyms_reader__own(struct ksyms_reader *r, const uint32_t *ids, size_t nr)
{
	for (size_t i = 0; i < nr && r->nr_own < OWN_MAX; i++)
		r->own[r->nr_own++] = ids[i];
}

struct ksyms *ksyms_reader__finish(struct ksyms_reader *r)
{
	struct ksyms *ks;
	int e;

	pthread_join(r->thread, NULL);
	ks = r->ks;
	if (ks && !still_holds(r)) {
		debug("kernel symbols read again: a module or a BPF program came since they were"
		      " read, or BPF programs cannot be listed to tell");
		ksyms__free(ks);
		ks = ksyms__load_file(r->path);
		r->err = ks ? 0 : errno;
	}
	e = r->err;
	free(r->path);
	free(r);
	if (!ks)
		errno = e;
	return ks;
}
