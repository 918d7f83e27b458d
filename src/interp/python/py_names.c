// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Python frame names (py_names.h): two open-addressing tables, the images
 * with an interpreter by (pid, gen) and the code objects read by (pid,
 * gen, address, identity).  A code object is read once, named or not: a
 * process that keeps making code objects costs one entry per distinct
 * object sampled, within max_bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interp/python/py_code.h"
#include "interp/python/py_names.h"
#include "lib/hash.h"

struct py_image {
	pid_t pid; /* 0: empty slot */
	uint32_t gen;
	struct py_interp interp;
};

struct py_code_ent {
	uint64_t addr; /* 0: empty slot */
	pid_t pid;
	uint32_t gen, ident;
	enum py_miss miss;
	uint32_t last_instr, last_line; /* the last line looked up, kept: a
					 * deep recursion names one
					 * instruction again and again */
	struct py_code code; /* when miss is PY_NAMED */
};

struct py_names {
	struct py_image *images;
	size_t nr_images, cap_images;
	struct py_code_ent *codes;
	size_t nr_codes, cap_codes;
	size_t bytes, max_bytes;
	const struct budget *budget;
	struct py_names_stats stats;
};

void py_names__set_budget(struct py_names *pn, const struct budget *b)
{
	if (pn)
		pn->budget = b;
}

struct py_names *py_names__new(const struct py_names_opts *o)
{
	struct py_names *pn = calloc(1, sizeof(*pn));

	if (!pn)
		return NULL;
	pn->max_bytes = o && o->max_bytes ? o->max_bytes : PY_NAMES_DEFAULT_BYTES;
	return pn;
}

void py_names__free(struct py_names *pn)
{
	if (!pn)
		return;
	for (size_t i = 0; i < pn->cap_codes; i++)
		if (pn->codes[i].addr && pn->codes[i].miss == PY_NAMED)
			py_code__free(&pn->codes[i].code);
	free(pn->codes);
	free(pn->images);
	free(pn);
}

static size_t image_slot(const struct py_names *pn, pid_t pid, uint32_t gen)
{
	size_t mask = pn->cap_images - 1, i = hash__mix64((uint64_t)pid << 32 | gen) & mask;

	while (pn->images[i].pid && (pn->images[i].pid != pid || pn->images[i].gen != gen))
		i = (i + 1) & mask;
	return i;
}

static int grow_images(struct py_names *pn)
{
	struct py_image *old = pn->images;
	size_t n = pn->cap_images;

	pn->cap_images = n ? n * 2 : 64;
	pn->images = calloc(pn->cap_images, sizeof(*pn->images));
	if (!pn->images) {
		pn->images = old;
		pn->cap_images = n;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (old[i].pid)
			pn->images[image_slot(pn, old[i].pid, old[i].gen)] = old[i];
	free(old);
	return 0;
}

int py_names__add_image(struct py_names *pn, pid_t pid, uint32_t gen, const struct py_interp *pi)
{
	size_t i;

	if (pid <= 0)
		return -EINVAL;
	if ((pn->nr_images + 1) * 2 > pn->cap_images && grow_images(pn))
		return -ENOMEM;
	i = image_slot(pn, pid, gen);
	if (!pn->images[i].pid) {
		pn->nr_images++;
		pn->stats.images++;
		pn->stats.unsupported += !pi->layout;
	}
	pn->images[i] = (struct py_image){ .pid = pid, .gen = gen, .interp = *pi };
	return 0;
}

const struct py_interp *py_names__interp(const struct py_names *pn, pid_t pid, uint32_t gen)
{
	size_t i;

	if (!pn || !pn->cap_images || pid <= 0)
		return NULL;
	i = image_slot(pn, pid, gen);
	return pn->images[i].pid ? &pn->images[i].interp : NULL;
}

static uint64_t code_hash(pid_t pid, uint32_t gen, uint64_t addr, uint32_t ident)
{
	return hash__mix64(addr ^ hash__mix64((uint64_t)pid << 32 ^ gen ^ (uint64_t)ident << 17));
}

static size_t code_slot(const struct py_names *pn, pid_t pid, uint32_t gen, uint64_t addr,
			uint32_t ident)
{
	size_t mask = pn->cap_codes - 1, i = code_hash(pid, gen, addr, ident) & mask;
	const struct py_code_ent *e;

	for (;; i = (i + 1) & mask) {
		e = &pn->codes[i];
		if (!e->addr || (e->addr == addr && e->pid == pid && e->gen == gen &&
				 e->ident == ident))
			return i;
	}
}

static int grow_codes(struct py_names *pn)
{
	struct py_code_ent *old = pn->codes;
	size_t n = pn->cap_codes;

	pn->cap_codes = n ? n * 2 : 1024;
	pn->codes = calloc(pn->cap_codes, sizeof(*pn->codes));
	if (!pn->codes) {
		pn->codes = old;
		pn->cap_codes = n;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (old[i].addr)
			pn->codes[code_slot(pn, old[i].pid, old[i].gen, old[i].addr, old[i].ident)] =
				old[i];
	free(old);
	pn->bytes += (pn->cap_codes - n) * sizeof(*pn->codes);
	return 0;
}

/* The entry of a code object, read now if new; NULL when there is no room. */
static struct py_code_ent *code_entry(struct py_names *pn, const struct py_interp *pi,
					    pid_t pid, uint32_t gen, uint64_t addr, uint32_t ident)
{
	struct py_code_ent *e;
	size_t i;
	int err;

	if ((pn->nr_codes + 1) * 2 > pn->cap_codes &&
	    (pn->bytes + pn->cap_codes * sizeof(*pn->codes) > pn->max_bytes || grow_codes(pn)))
		return NULL;
	i = code_slot(pn, pid, gen, addr, ident);
	e = &pn->codes[i];
	if (e->addr)
		return e;
	if (budget__expired(pn->budget)) {
		pn->stats.miss[PY_MISS_LATE]++;
		return NULL; /* not kept: read if asked again in time */
	}
	*e = (struct py_code_ent){ .addr = addr, .pid = pid, .gen = gen, .ident = ident,
				   .last_instr = UINT32_MAX };
	pn->nr_codes++;
	if (pn->bytes > pn->max_bytes)
		e->miss = PY_MISS_FULL;
	else if ((err = py_code__read(pi->layout, pid, addr, &e->code)))
		e->miss = err == -ESRCH ? PY_MISS_GONE : PY_MISS_UNREADABLE;
	else if (py_code_identity(e->code.flags, e->code.firstlineno) != ident)
		e->miss = PY_MISS_CHANGED;
	if (e->miss == PY_NAMED) {
		pn->bytes += py_code__bytes(&e->code);
		pn->stats.codes++;
	} else {
		if (e->miss == PY_MISS_CHANGED)
			py_code__free(&e->code);
		pn->stats.miss[e->miss]++;
	}
	return e;
}

void py_names__read_stack(struct py_names *pn, pid_t pid, uint32_t gen,
			  const struct stack_trace *st)
{
	const struct py_interp *pi = py_names__interp(pn, pid, gen);

	if (!pi || !pi->layout)
		return;
	for (uint32_t i = 0; i + 1 < st->nr; i += PY_FRAME_SLOTS)
		code_entry(pn, pi, pid, gen, st->ip[i], (uint32_t)(st->ip[i + 1] >> 32));
}

void py_names__frame(struct py_names *pn, pid_t pid, uint32_t gen, const struct stack_trace *st,
		     uint32_t i, struct py_frame *out)
{
	const struct py_interp *pi = py_names__interp(pn, pid, gen);
	struct py_code_ent *e = NULL;
	uint64_t where;

	memset(out, 0, sizeof(*out));
	out->miss = PY_MISS_GONE;
	if (!pi || !pi->layout || (i + 1) * PY_FRAME_SLOTS > st->nr)
		return;
	where = st->ip[i * PY_FRAME_SLOTS + 1];
	e = code_entry(pn, pi, pid, gen, st->ip[i * PY_FRAME_SLOTS], (uint32_t)(where >> 32));
	if (!e) {
		out->miss = budget__expired(pn->budget) ? PY_MISS_LATE : PY_MISS_FULL;
		return;
	}
	out->miss = e->miss;
	if (e->miss != PY_NAMED)
		return;
	out->func = e->code.qualname;
	out->file = e->code.file;
	out->first_line = e->code.firstlineno;
	if (e->last_instr != ((uint32_t)where & PY_INSTR_MASK)) {
		e->last_instr = (uint32_t)where & PY_INSTR_MASK;
		e->last_line = py_code__line(pi->layout, &e->code, e->last_instr);
	}
	out->line = e->last_line;
}

void py_names__stats(const struct py_names *pn, struct py_names_stats *out)
{
	*out = pn->stats;
	out->bytes = pn->bytes;
}

/* Drops the images and code entries gone[] marks, rebuilding both tables. */
static void drop_gone(struct py_names *pn)
{
	struct py_image *images = pn->images;
	struct py_code_ent *codes = pn->codes;
	size_t nimages = pn->cap_images, ncodes = pn->cap_codes;
	struct py_names_stats seen = pn->stats;

	pn->images = NULL;
	pn->codes = NULL;
	pn->cap_images = pn->cap_codes = pn->nr_images = pn->nr_codes = 0;
	pn->bytes = 0;
	for (size_t i = 0; i < nimages; i++)
		if (images[i].pid > 0)
			py_names__add_image(pn, images[i].pid, images[i].gen, &images[i].interp);
	pn->stats.images = seen.images; /* none of them is new */
	pn->stats.unsupported = seen.unsupported;
	for (size_t i = 0; i < ncodes; i++) {
		struct py_code_ent *e = &codes[i];
		size_t j;

		if (!e->addr)
			continue;
		if (!py_names__interp(pn, e->pid, e->gen) ||
		    ((pn->nr_codes + 1) * 2 > pn->cap_codes && grow_codes(pn))) {
			if (e->miss == PY_NAMED)
				py_code__free(&e->code);
			continue;
		}
		j = code_slot(pn, e->pid, e->gen, e->addr, e->ident);
		pn->codes[j] = *e;
		pn->nr_codes++;
		if (e->miss == PY_NAMED)
			pn->bytes += py_code__bytes(&e->code);
	}
	free(images);
	free(codes);
}

void py_names__forget_gone(struct py_names *pn, bool (*current)(pid_t pid, uint32_t gen, void *arg),
			   void *arg)
{
	bool any = false;

	if (!pn)
		return;
	for (size_t i = 0; i < pn->cap_images; i++) {
		struct py_image *im = &pn->images[i];

		if (im->pid > 0 && !current(im->pid, im->gen, arg)) {
			im->pid = -1; /* skipped by the rebuild */
			any = true;
		}
	}
	if (any)
		drop_gone(pn);
}
