// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tally of code without symbols (see unsym.h): files by identity
 * (device, inode) in an open-addressing table, and the files of the sample
 * being named, each counted once a sample.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold/unsym.h"
#include "lib/hash.h"

/* Frames of one sample (user frames at most, SMOLDER_MAX_DEPTH and
 * Python's merged in): distinct files among them are far fewer. */
#define SAMPLE_FILES 64

struct tally_file {
	uint64_t dev, ino;
	struct unsym_file f;
};

struct unsym_tally {
	struct tally_file *files;
	uint32_t *slots; /* index + 1; 0 empty */
	size_t nr, cap, nslots;
	uint32_t sample[SAMPLE_FILES]; /* the sample's files, index + 1 */
	size_t sample_nr;
	bool sample_any;
	uint64_t samples;
};

struct unsym_tally *unsym_tally__new(void)
{
	struct unsym_tally *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nslots = 2 * UNSYM_MAX_FILES;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void unsym_tally__free(struct unsym_tally *t)
{
	if (!t)
		return;
	free(t->files);
	free(t->slots);
	free(t);
}

/* The index + 1 of fr's file, added if new and there is room; 0 if not. */
static uint32_t file_of(struct unsym_tally *t, const struct usyms_frame *fr)
{
	size_t j = hash__mix64(fr->dev ^ hash__mix64(fr->ino)) & (t->nslots - 1);
	struct tally_file *n;

	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		n = &t->files[t->slots[j] - 1];
		if (n->dev == fr->dev && n->ino == fr->ino)
			return t->slots[j];
	}
	if (t->nr == UNSYM_MAX_FILES)
		return 0;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;

		if (!(n = realloc(t->files, cap * sizeof(*n))))
			return 0;
		t->files = n;
		t->cap = cap;
	}
	n = &t->files[t->nr];
	*n = (struct tally_file){ .dev = fr->dev, .ino = fr->ino };
	snprintf(n->f.path, sizeof(n->f.path), "%s", fr->file);
	snprintf(n->f.build_id, sizeof(n->f.build_id), "%s", fr->build_id ? fr->build_id : "");
	t->slots[j] = (uint32_t)++t->nr;
	return t->slots[j];
}

void unsym_tally__frame(struct unsym_tally *t, const struct usyms_frame *fr)
{
	uint32_t id;

	if (!t || !fr->unsymbolized || !fr->file)
		return;
	t->sample_any = true;
	id = file_of(t, fr);
	for (size_t i = 0; i < t->sample_nr; i++)
		if (t->sample[i] == id)
			return;
	if (id && t->sample_nr < SAMPLE_FILES)
		t->sample[t->sample_nr++] = id;
}

void unsym_tally__end_sample(struct unsym_tally *t, uint64_t count)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->sample_nr; i++)
		t->files[t->sample[i] - 1].f.samples += count;
	if (t->sample_any)
		t->samples += count;
	t->sample_nr = 0;
	t->sample_any = false;
}

/* Puts f among out's top files if it has more samples than the last. */
static void offer(struct unsym_summary *out, const struct unsym_file *f)
{
	size_t i;

	if (out->nr < UNSYM_TOP)
		i = out->nr++;
	else if (f->samples > out->top[UNSYM_TOP - 1].samples)
		i = UNSYM_TOP - 1;
	else
		return;
	out->top[i] = *f;
	for (; i > 0 && out->top[i - 1].samples < out->top[i].samples; i--) {
		struct unsym_file tmp = out->top[i - 1];

		out->top[i - 1] = out->top[i];
		out->top[i] = tmp;
	}
}

void unsym_tally__summary(const struct unsym_tally *t, struct unsym_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	out->samples = t->samples;
	for (size_t i = 0; i < t->nr; i++)
		if (t->files[i].f.samples)
			offer(out, &t->files[i].f);
}

void unsym_summary__merge(struct unsym_summary *into, const struct unsym_summary *from)
{
	struct unsym_file both[2 * UNSYM_TOP];
	struct unsym_summary m = { .samples = into->samples + from->samples };
	size_t n = 0, i, j;

	for (i = 0; i < into->nr; i++)
		both[n++] = into->top[i];
	for (i = 0; i < from->nr; i++) {
		for (j = 0; j < into->nr && strcmp(both[j].path, from->top[i].path); j++)
			;
		if (j < into->nr)
			both[j].samples += from->top[i].samples;
		else
			both[n++] = from->top[i];
	}
	for (i = 0; i < n; i++)
		offer(&m, &both[i]);
	*into = m;
}
