// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Recordings of counted samples (see recording.h): a header, then per
 * sample its key, count, the result and frames of each stack read and of
 * its work item's description.  Read whole into memory: it is a tool for
 * comparing builds, not for production captures.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow.h"
#include "lib/log.h"
#include "session/recording.h"

#define REC_MAGIC "smolder-rec-2"

struct rec_header {
	char magic[16];
	uint32_t key_size, trace_size, work_size, nr_counters;
	uint64_t captured_ns;
	uint64_t counters[CNT__MAX];
	char main_binary[4096];
	char main_build_id[96];
};

struct rec_sample {
	struct sample_key key;
	uint64_t count;
	int32_t k_rc, u_rc, w_rc; /* what the capture's readers returned */
	struct stack_trace kst, ust;
	struct work_desc work;
};

struct recording {
	struct rec_header h;
	struct rec_sample *s;
	size_t nr, cap;
	const struct rec_sample *cur; /* the sample being delivered */
};

struct save_ctx {
	FILE *f;
	struct capture *cap;
};

static void put_trace(FILE *f, int rc, const struct stack_trace *st)
{
	uint32_t nr = rc ? 0 : st->nr;

	fwrite(&nr, sizeof(nr), 1, f);
	fwrite(&st->exact, sizeof(st->exact), 1, f);
	fwrite(st->ip, sizeof(st->ip[0]), nr, f);
}

static int save_sample(const struct sample_key *key, uint64_t count, void *arg)
{
	struct save_ctx *c = arg;
	struct rec_sample s = { .key = *key, .count = count };

	s.k_rc = key->kstack ? capture__stack(c->cap, key->kstack, &s.kst) : -ENOENT;
	s.u_rc = key->ustack ? capture__stack(c->cap, key->ustack, &s.ust) : -ENOENT;
	s.w_rc = key->work ? capture__work_desc(c->cap, key->work, &s.work) : -ENOENT;
	fwrite(&s.key, sizeof(s.key), 1, c->f);
	fwrite(&s.count, sizeof(s.count), 1, c->f);
	fwrite(&s.k_rc, sizeof(int32_t), 3, c->f);
	put_trace(c->f, s.k_rc, &s.kst);
	put_trace(c->f, s.u_rc, &s.ust);
	fwrite(&s.work, sizeof(s.work), 1, c->f);
	return 0;
}

int recording__save(const char *path, struct capture *cap, uint64_t captured_ns,
		    const char *main_binary, const char *main_build_id)
{
	struct rec_header h = { .key_size = sizeof(struct sample_key),
				.trace_size = sizeof(struct stack_trace),
				.work_size = sizeof(struct work_desc), .nr_counters = CNT__MAX,
				.captured_ns = captured_ns };
	struct save_ctx c = { .f = fopen(path, "we"), .cap = cap };
	int e;

	if (!c.f) {
		err("cannot write the recording %s: %s (check SMOLDER_RECORD)", path, log__errstr(errno));
		return -1;
	}
	memcpy(h.magic, REC_MAGIC, sizeof(REC_MAGIC));
	capture__counters(cap, h.counters);
	snprintf(h.main_binary, sizeof(h.main_binary), "%s", main_binary);
	snprintf(h.main_build_id, sizeof(h.main_build_id), "%s", main_build_id);
	fwrite(&h, sizeof(h), 1, c.f);
	e = capture__for_each_sample(cap, save_sample, &c);
	if (fclose(c.f) || e) {
		err("cannot write the recording %s: %s", path, log__errstr(e ? -e : errno));
		return -1;
	}
	return 0;
}

static bool get_trace(FILE *f, struct stack_trace *st)
{
	memset(st, 0, sizeof(*st));
	return fread(&st->nr, sizeof(st->nr), 1, f) == 1 && st->nr <= SMOLDER_MAX_DEPTH &&
	       fread(&st->exact, sizeof(st->exact), 1, f) == 1 &&
	       fread(st->ip, sizeof(st->ip[0]), st->nr, f) == st->nr;
}

static bool get_sample(FILE *f, struct rec_sample *s)
{
	return fread(&s->key, sizeof(s->key), 1, f) == 1 &&
	       fread(&s->count, sizeof(s->count), 1, f) == 1 &&
	       fread(&s->k_rc, sizeof(int32_t), 3, f) == 3 && get_trace(f, &s->kst) &&
	       get_trace(f, &s->ust) && fread(&s->work, sizeof(s->work), 1, f) == 1;
}

static int read_samples(FILE *f, struct recording *r)
{
	struct rec_sample s;
	long at = ftell(f);

	while (get_sample(f, &s)) {
		if (GROW(r->s, r->cap, r->nr + 1, 1024))
			return -ENOMEM;
		r->s[r->nr++] = s;
		at = ftell(f);
	}
	/* the end of the file, between two samples: not a truncated one */
	return feof(f) && ftell(f) == at ? 0 : -EINVAL;
}

struct recording *recording__load(const char *path)
{
	struct recording *r = calloc(1, sizeof(*r));
	FILE *f = fopen(path, "re");
	int e = -EINVAL;

	if (!r || !f) {
		e = r ? -errno : -ENOMEM;
	} else if (fread(&r->h, sizeof(r->h), 1, f) == 1 && !memcmp(r->h.magic, REC_MAGIC, sizeof(REC_MAGIC)) &&
		   r->h.key_size == sizeof(struct sample_key) &&
		   r->h.trace_size == sizeof(struct stack_trace) &&
		   r->h.work_size == sizeof(struct work_desc) && r->h.nr_counters == CNT__MAX) {
		e = read_samples(f, r);
	}
	if (f)
		fclose(f);
	if (e) {
		err("cannot replay %s: %s (record it with SMOLDER_RECORD and this build)", path,
		    e == -EINVAL ? "not a recording of this build's layout" : log__errstr(-e));
		recording__free(r);
		return NULL;
	}
	r->h.main_binary[sizeof(r->h.main_binary) - 1] = 0;
	r->h.main_build_id[sizeof(r->h.main_build_id) - 1] = 0;
	return r;
}

static int for_each_sample(void *arg, sample_fn fn, void *fn_arg)
{
	struct recording *r = arg;
	int e = 0;

	for (size_t i = 0; i < r->nr && !e; i++) {
		r->cur = &r->s[i];
		e = fn(&r->cur->key, r->cur->count, fn_arg);
	}
	r->cur = NULL;
	return e;
}

static int stack(void *arg, uint64_t id, struct stack_trace *out)
{
	const struct rec_sample *s = ((struct recording *)arg)->cur;

	if (s && id == s->key.kstack && !s->k_rc)
		*out = s->kst;
	else if (s && id == s->key.ustack && !s->u_rc)
		*out = s->ust;
	else
		return s && id == s->key.kstack ? s->k_rc : s && id == s->key.ustack ? s->u_rc : -ENOENT;
	return 0;
}

static int work_desc(void *arg, uint64_t id, struct work_desc *out)
{
	const struct rec_sample *s = ((struct recording *)arg)->cur;

	if (!s || id != s->key.work || s->w_rc)
		return s && id == s->key.work ? s->w_rc : -ENOENT;
	*out = s->work;
	return 0;
}

struct sample_source recording__source(struct recording *r)
{
	return (struct sample_source){ for_each_sample, stack, work_desc, r, NULL }; /* no wakers */
}

const uint64_t *recording__counters(const struct recording *r)
{
	return r->h.counters;
}

uint64_t recording__captured_ns(const struct recording *r)
{
	return r->h.captured_ns;
}

const char *recording__main_binary(const struct recording *r)
{
	return r->h.main_binary;
}

const char *recording__main_build_id(const struct recording *r)
{
	return r->h.main_build_id;
}

void recording__free(struct recording *r)
{
	if (!r)
		return;
	free(r->s);
	free(r);
}
