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

struct ksyms_reader {
	pthread_t thread;
	char *path;
	struct ktext_gen gen; /* when the read began */
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

void ksyms_reader__gen(struct ktext_gen *g)
{
	uint32_t id = 0, next;
	int n = 0;

	g->modules = modules_hash();
	while (n++ < PROGS_MAX && !bpf_prog_get_next_id(id, &next))
		id = next;
	g->last_prog = id;
	/* ENOENT ends the list; anything else (EPERM) leaves it unknown */
	g->progs_known = errno == ENOENT;
}

bool ksyms_reader__same(const struct ktext_gen *then, const struct ktext_gen *now)
{
	return then->progs_known && now->progs_known && then->last_prog == now->last_prog &&
	       then->modules == now->modules;
}

static void *read_syms(void *arg)
{
	struct ksyms_reader *r = arg;

	ksyms_reader__gen(&r->gen);
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

struct ksyms *ksyms_reader__finish(struct ksyms_reader *r)
{
	struct ktext_gen now;
	struct ksyms *ks;
	int e;

	pthread_join(r->thread, NULL);
	ks = r->ks;
	ksyms_reader__gen(&now);
	if (ks && !ksyms_reader__same(&r->gen, &now)) {
		debug("kernel symbols read again: %s", !r->gen.progs_known || !now.progs_known
			      ? "BPF programs cannot be listed to tell whether the kernel's text changed"
			      : "a module or a BPF program came during the capture");
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
