// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One scrape's window of samples (see window.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "files/proc_cgroup.h"
#include "lib/hash.h"
#include "serve/window.h"

/* What a key's ids name, copied out of the bank. */
enum blob_kind { BLOB_STACK = 1, BLOB_WORK, BLOB_WAKER };

struct key_slot {
	struct sample_key key;
	uint64_t count; /* 0: empty slot */
};

struct blob_slot {
	uint64_t id;
	uint32_t kind; /* 0: empty slot */
	uint32_t len;
	void *data;
};

/* Whether a process is in the window's cgroup, as last read. */
#define CGROUP_VERDICTS 256
struct cgroup_verdict {
	uint32_t tgid; /* 0: none yet */
	bool in;
};

struct window {
	uint32_t pids[WINDOW_MAX_PIDS];
	size_t nr_pids;
	char *cgroup;  /* NULL: any */
	/* direct-mapped by tgid, for one tick: a miss reads /proc again,
	 * memory stays fixed */
	struct cgroup_verdict verdicts[CGROUP_VERDICTS];
	struct key_slot *keys;
	size_t nr_keys, keys_cap; /* keys_cap: a power of two */
	struct blob_slot *blobs;
	size_t nr_blobs, blobs_cap;
	size_t bytes;
	uint64_t samples, lost;
	struct stack_trace tmp; /* what capture__stack reads into */
};

struct window *window__new(const uint32_t *pids, size_t nr_pids, const char *cgroup)
{
	struct window *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	if (cgroup && *cgroup && !(w->cgroup = strdup(cgroup))) {
		free(w);
		return NULL;
	}
	w->nr_pids = nr_pids < WINDOW_MAX_PIDS ? nr_pids : WINDOW_MAX_PIDS;
	memcpy(w->pids, pids, w->nr_pids * sizeof(*pids));
	return w;
}

/* The process is in the window's cgroup; one gone is not. */
static bool in_cgroup(struct window *w, uint32_t tgid)
{
	struct cgroup_verdict *v = &w->verdicts[hash__mix64(tgid) & (CGROUP_VERDICTS - 1)];
	char path[PROC_CGROUP_MAX];

	if (!w->cgroup)
		return true;
	if (!tgid)
		return false; /* the idle task */
	if (v->tgid != tgid) {
		v->tgid = tgid;
		v->in = !proc_cgroup__path(tgid, path, sizeof(path)) &&
			proc_cgroup__under(path, w->cgroup);
	}
	return v->in;
}

void window__new_tick(struct window *w)
{
	memset(w->verdicts, 0, sizeof(w->verdicts));
}

static bool wanted(struct window *w, uint32_t tgid)
{
	bool listed = !w->nr_pids;

	for (size_t i = 0; i < w->nr_pids && !listed; i++)
		listed = w->pids[i] == tgid;
	return listed && in_cgroup(w, tgid);
}

static uint64_t key_hash(const struct sample_key *k)
{
	return hash__fnv1a(HASH_FNV_OFFSET, k, sizeof(*k));
}

static uint64_t blob_hash(uint32_t kind, uint64_t id)
{
	return hash__mix64(id ^ hash__mix64(kind));
}

/* Doubles a table when it is half full; bytes counts what it takes. */
static int grow_keys(struct window *w)
{
	size_t cap = w->keys_cap ? w->keys_cap * 2 : 64;
	struct key_slot *t;

	if (w->nr_keys * 2 < w->keys_cap)
		return 0;
	if (w->bytes + cap * sizeof(*t) > WINDOW_MAX_BYTES)
		return -E2BIG;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < w->keys_cap; i++) {
		size_t j;

		if (!w->keys[i].count)
			continue;
		for (j = key_hash(&w->keys[i].key) & (cap - 1); t[j].count; j = (j + 1) & (cap - 1))
			;
		t[j] = w->keys[i];
	}
	w->bytes += (cap - w->keys_cap) * sizeof(*t);
	free(w->keys);
	w->keys = t;
	w->keys_cap = cap;
	return 0;
}

static int grow_blobs(struct window *w)
{
	size_t cap = w->blobs_cap ? w->blobs_cap * 2 : 64;
	struct blob_slot *t;

	if (w->nr_blobs * 2 < w->blobs_cap)
		return 0;
	if (w->bytes + cap * sizeof(*t) > WINDOW_MAX_BYTES)
		return -E2BIG;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < w->blobs_cap; i++) {
		const struct blob_slot *b = &w->blobs[i];
		size_t j;

		if (!b->kind)
			continue;
		for (j = blob_hash(b->kind, b->id) & (cap - 1); t[j].kind; j = (j + 1) & (cap - 1))
			;
		t[j] = *b;
	}
	w->bytes += (cap - w->blobs_cap) * sizeof(*t);
	free(w->blobs);
	w->blobs = t;
	w->blobs_cap = cap;
	return 0;
}

static struct blob_slot *find_blob(const struct window *w, uint32_t kind, uint64_t id)
{
	if (!w->blobs_cap)
		return NULL;
	for (size_t j = blob_hash(kind, id) & (w->blobs_cap - 1);; j = (j + 1) & (w->blobs_cap - 1)) {
		struct blob_slot *b = &w->blobs[j];

		if (!b->kind)
			return NULL;
		if (b->kind == kind && b->id == id)
			return b;
	}
}

/* Keeps a copy of len bytes at p as (kind, id). */
static int put_blob(struct window *w, uint32_t kind, uint64_t id, const void *p, size_t len)
{
	size_t j;
	void *data;
	int e;

	if (w->bytes + len > WINDOW_MAX_BYTES)
		return -E2BIG;
	if ((e = grow_blobs(w)))
		return e;
	data = malloc(len ? len : 1);
	if (!data)
		return -ENOMEM;
	memcpy(data, p, len);
	for (j = blob_hash(kind, id) & (w->blobs_cap - 1); w->blobs[j].kind;
	     j = (j + 1) & (w->blobs_cap - 1))
		;
	w->blobs[j] = (struct blob_slot){ .id = id, .kind = kind, .len = len, .data = data };
	w->nr_blobs++;
	w->bytes += len;
	return 0;
}

/* The stack, work item or waker id names, copied once; a name the bank
 * cannot give is left out (the key's reader then finds none, as the
 * capture's would). */
static int keep(struct window *w, struct capture *cap, uint32_t kind, uint64_t id)
{
	struct work_desc wd;
	struct waker_desc kd;

	if (!id || find_blob(w, kind, id))
		return 0;
	if (kind == BLOB_STACK) {
		if (capture__stack(cap, id, &w->tmp))
			return 0;
		return put_blob(w, kind, id, &w->tmp,
				offsetof(struct stack_trace, ip) + w->tmp.nr * sizeof(w->tmp.ip[0]));
	}
	if (kind == BLOB_WORK)
		return capture__work_desc(cap, id, &wd) ? 0 : put_blob(w, kind, id, &wd, sizeof(wd));
	return capture__waker_desc(cap, id, &kd) ? 0 : put_blob(w, kind, id, &kd, sizeof(kd));
}

static int add_key(struct window *w, const struct sample_key *key, uint64_t count)
{
	size_t j;
	int e;

	if (w->keys_cap)
		for (j = key_hash(key) & (w->keys_cap - 1); w->keys[j].count;
		     j = (j + 1) & (w->keys_cap - 1))
			if (!memcmp(&w->keys[j].key, key, sizeof(*key))) {
				w->keys[j].count += count;
				return 0;
			}
	if ((e = grow_keys(w)))
		return e;
	for (j = key_hash(key) & (w->keys_cap - 1); w->keys[j].count; j = (j + 1) & (w->keys_cap - 1))
		;
	w->keys[j] = (struct key_slot){ .key = *key, .count = count };
	w->nr_keys++;
	return 0;
}

int window__add(struct window *w, struct capture *cap, const struct sample_key *key,
		uint64_t count)
{
	bool offcpu = key->flags & SAMPLE_OFFCPU;
	int e;

	if (!count || !wanted(w, key->tgid))
		return 0;
	e = keep(w, cap, BLOB_STACK, key->kstack);
	if (!e)
		e = keep(w, cap, BLOB_STACK, key->ustack);
	if (!e)
		e = keep(w, cap, BLOB_STACK, key->pystack);
	if (!e)
		e = keep(w, cap, offcpu ? BLOB_WAKER : BLOB_WORK, key->work);
	if (!e && offcpu && key->work) {
		struct blob_slot *b = find_blob(w, BLOB_WAKER, key->work);

		if (b)
			e = keep(w, cap, BLOB_STACK, ((struct waker_desc *)b->data)->kstack);
	}
	if (!e)
		e = add_key(w, key, count);
	if (e == -E2BIG || e == -ENOMEM) {
		/* over the bound: lost to this window, the run goes on */
		w->lost += offcpu ? 0 : count;
		return 0;
	}
	if (!e && !offcpu)
		w->samples += count;
	return e;
}

uint64_t window__samples(const struct window *w)
{
	return w->samples;
}

uint64_t window__lost(const struct window *w)
{
	return w->lost;
}

size_t window__bytes(const struct window *w)
{
	return w->bytes + sizeof(*w);
}

static int for_each(void *arg, sample_fn fn, void *fn_arg)
{
	struct window *w = arg;
	int e;

	for (size_t i = 0; i < w->keys_cap; i++)
		if (w->keys[i].count && (e = fn(&w->keys[i].key, w->keys[i].count, fn_arg)))
			return e;
	return 0;
}

static int read_blob(struct window *w, uint32_t kind, uint64_t id, void *out, size_t size)
{
	const struct blob_slot *b = find_blob(w, kind, id);

	if (!b)
		return -ENOENT;
	memset(out, 0, size);
	memcpy(out, b->data, b->len < size ? b->len : size);
	return 0;
}

static int stack(void *arg, uint64_t id, struct stack_trace *out)
{
	struct window *w = arg;
	const struct blob_slot *b = find_blob(w, BLOB_STACK, id);

	if (!b)
		return -ENOENT;
	/* only the frames stored: the rest of out is never read */
	memcpy(out, b->data, b->len);
	return 0;
}

static int work_desc(void *arg, uint64_t id, struct work_desc *out)
{
	return read_blob(arg, BLOB_WORK, id, out, sizeof(*out));
}

static int waker_desc(void *arg, uint64_t id, struct waker_desc *out)
{
	return read_blob(arg, BLOB_WAKER, id, out, sizeof(*out));
}

struct sample_source window__source(struct window *w)
{
	return (struct sample_source){ for_each, stack, work_desc, w, waker_desc };
}

void window__free(struct window *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->blobs_cap; i++)
		free(w->blobs[i].data);
	free(w->blobs);
	free(w->keys);
	free(w->cgroup);
	free(w);
}
