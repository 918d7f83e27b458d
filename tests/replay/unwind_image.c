// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unwind images (see unwind_image.h): owns their arrays, their lookups, and
 * the recording format, read and written with zlib's gzip streams.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "unwind_image.h"

/* Bytes of one "mem" line, and the zero runs worth a "zero" line. */
#define MEM_LINE 64
#define MAX_LINE 4096

struct unwind_image *unwind_image__new(void)
{
	return calloc(1, sizeof(struct unwind_image));
}

void unwind_image__free(struct unwind_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nr_names; i++)
		free(img->names[i].name);
	for (size_t i = 0; i < img->nr_samples; i++) {
		for (size_t j = 0; j < img->samples[i].nr_mem; j++)
			free(img->samples[i].mem[j].bytes);
		free(img->samples[i].mem);
	}
	free(img->slots);
	free(img->files);
	free(img->mappings);
	free(img->names);
	free(img->samples);
	free(img);
}

/* Appends item to an array only ever grown here: by doubling, whenever nr
 * reaches a power of two, so no capacity is kept. */
#define ADD(arr, nr, item)                                                      \
	({                                                                      \
		int rc_ = 0;                                                    \
		if (!((nr) & ((nr) - 1))) { /* 0, 1, 2, 4...: full */          \
			void *p_ = realloc((arr), ((nr) ? 2 * (nr) : 1) * sizeof(*(arr))); \
			if (p_)                                                 \
				(arr) = p_;                                     \
			else                                                    \
				rc_ = -ENOMEM;                                  \
		}                                                               \
		if (!rc_)                                                       \
			(arr)[(nr)++] = (item);                                 \
		rc_;                                                            \
	})

int unwind_image__add_slot(struct unwind_image *img, uint32_t slot, uint64_t value)
{
	return ADD(img->slots, img->nr_slots, ((struct image_slot){ slot, value }));
}

int unwind_image__add_file(struct unwind_image *img, uint32_t id, const struct unwind_file *f)
{
	return ADD(img->files, img->nr_files, ((struct image_file){ id, *f }));
}

int unwind_image__add_mapping(struct unwind_image *img, const struct unwind_map_key *k,
			      const struct unwind_mapping *m)
{
	return ADD(img->mappings, img->nr_mappings, ((struct image_mapping){ *k, *m }));
}

int unwind_image__add_name(struct unwind_image *img, uint64_t addr, const char *name)
{
	char *copy = strdup(name);

	if (!copy || ADD(img->names, img->nr_names, ((struct image_name){ addr, copy }))) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

struct image_sample *unwind_image__add_sample(struct unwind_image *img, uint64_t pc, uint64_t sp,
					      uint64_t bp)
{
	struct image_sample s = { .pc = pc, .sp = sp, .bp = bp };

	return ADD(img->samples, img->nr_samples, s) ? NULL : &img->samples[img->nr_samples - 1];
}

int unwind_image__add_mem(struct image_sample *s, uint64_t addr, const void *bytes, uint32_t len)
{
	struct image_mem m = { .addr = addr, .len = len }, *last = s->nr_mem ? &s->mem[s->nr_mem - 1] : NULL;

	if (last && addr < last->addr + last->len)
		return -EINVAL; /* out of order, or overlapping */
	/* adjacent and alike: one region, so that reads seldom span several */
	if (last && addr == last->addr + last->len && !bytes == !last->bytes &&
	    last->len + (uint64_t)len < (1ull << 31)) {
		if (bytes) {
			uint8_t *p = realloc(last->bytes, last->len + len);

			if (!p)
				return -ENOMEM;
			memcpy(p + last->len, bytes, len);
			last->bytes = p;
		}
		last->len += len;
		return 0;
	}
	if (bytes) {
		m.bytes = malloc(len ? len : 1);
		if (!m.bytes)
			return -ENOMEM;
		memcpy(m.bytes, bytes, len);
	}
	if (ADD(s->mem, s->nr_mem, m)) {
		free(m.bytes);
		return -ENOMEM;
	}
	return 0;
}

static int slot_order(const void *a, const void *b)
{
	const struct image_slot *x = a, *y = b;

	return (x->slot > y->slot) - (x->slot < y->slot);
}

static int name_order(const void *a, const void *b)
{
	const struct image_name *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

void unwind_image__sort(struct unwind_image *img)
{
	if (img->nr_slots)
		qsort(img->slots, img->nr_slots, sizeof(*img->slots), slot_order);
	if (img->nr_names)
		qsort(img->names, img->nr_names, sizeof(*img->names), name_order);
}

long unwind_image__slot(const struct unwind_image *img, uint32_t slot)
{
	size_t lo = 0, hi = img->nr_slots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->slots[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < img->nr_slots && img->slots[lo].slot == slot ? (long)lo : -1;
}

const char *unwind_image__name(const struct unwind_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->nr_names;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->names[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < img->nr_names && img->names[lo].addr == addr ? img->names[lo].name : NULL;
}

bool unwind_image__read(const struct image_sample *s, uint64_t addr, void *dst, size_t len)
{
	uint8_t *out = dst;

	/* regions are sorted and may be adjacent: a read may span several */
	for (size_t i = 0; i < s->nr_mem && len; i++) {
		const struct image_mem *m = &s->mem[i];
		uint64_t n;

		if (addr < m->addr || addr - m->addr >= m->len)
			continue;
		n = m->len - (addr - m->addr);
		if (n > len)
			n = len;
		if (m->bytes)
			memcpy(out, m->bytes + (addr - m->addr), n);
		else
			memset(out, 0, n);
		out += n;
		addr += n;
		len -= n;
	}
	return !len;
}

/* ---- the recording format ------------------------------------------- */

struct reader {
	gzFile gz;
	const char *path;
	unsigned line;
	char *err;
	size_t errlen;
};

static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, r->errlen, "%s:%u: ", r->path, r->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < r->errlen)
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The hex bytes of a "mem" line into s. */
static int read_mem(struct reader *r, struct image_sample *s, uint64_t addr, const char *hex)
{
	uint8_t bytes[MAX_LINE / 2];
	size_t n = 0;
	unsigned v;

	while (hex[0] && hex[0] != '\n' && n < sizeof(bytes)) {
		if (sscanf(hex, "%2x", &v) != 1 || !hex[1])
			return fail(r, "bad hex bytes");
		bytes[n++] = (uint8_t)v;
		hex += 2;
	}
	return unwind_image__add_mem(s, addr, bytes, (uint32_t)n);
}

#define NOT_MINE 1 /* a record another reader takes */

/* workload, image, shards, file and mapping records. */
static int read_maps_record(struct reader *r, struct unwind_image *img, const char *word,
			    const char *l)
{
	struct unwind_map_key key = { 0 };
	struct unwind_mapping m = { 0 };
	struct unwind_file f = { 0 };
	unsigned long long addr, start, end, bias;
	unsigned id, ev;

	if (!strcmp(word, "workload"))
		return sscanf(l, "%63s %31s", img->workload, img->mode) == 2 ? 0 : fail(r, "bad workload");
	if (!strcmp(word, "image"))
		return sscanf(l, "%i %i", &img->tgid, &img->gen) == 2 ? 0 : fail(r, "bad image");
	if (!strcmp(word, "shards")) {
		if (sscanf(l, "%i %i %i", &img->shard_bits, &img->nr_shards, &ev) != 3 ||
		    img->shard_bits > 31)
			return fail(r, "bad shards");
		img->image_events = ev;
		return 0;
	}
	if (!strcmp(word, "file")) {
		if (sscanf(l, "%i %i %i %i", &id, &f.pages, &f.n_pages, &f.shift) != 4)
			return fail(r, "bad file");
		return unwind_image__add_file(img, id, &f);
	}
	if (strcmp(word, "mapping"))
		return NOT_MINE;
	if (sscanf(l, "%i %lli %lli %lli %lli %i %i %i", &key.prefixlen, &addr, &start, &end, &bias,
		   &m.file, &m.gen, &m.flags) != 8 || key.prefixlen > 96)
		return fail(r, "bad mapping");
	key.tgid = htobe32(img->tgid); /* mappings follow the image record */
	key.addr = htobe64(addr);
	m.start = start;
	m.end = end;
	m.bias = bias;
	return unwind_image__add_mapping(img, &key, &m);
}

/* page and row records: a slot's 8 bytes. */
static int read_slot_record(struct reader *r, struct unwind_image *img, const char *word,
			    const char *l)
{
	struct unwind_page pg = { 0 };
	struct unwind_row row = { 0 };
	unsigned slot, x, y;
	uint64_t v;
	int k;

	if (!strcmp(word, "page")) {
		if (sscanf(l, "%i %i %i", &slot, &pg.row, &x) != 3 || x > 0xffff)
			return fail(r, "bad page");
		pg.count = x;
		memcpy(&v, &pg, sizeof(v));
		return unwind_image__add_slot(img, slot, v);
	}
	if (strcmp(word, "row"))
		return NOT_MINE;
	if (sscanf(l, "%i %i %i %i %i", &slot, &row.pc, &x, &y, &k) != 5 || x > 255 || y > 0xffff ||
	    k < -128 || k > 127)
		return fail(r, "bad row");
	row.kind = x;
	row.cfa_off = y;
	row.rbp_off = k;
	memcpy(&v, &row, sizeof(v));
	return unwind_image__add_slot(img, slot, v);
}

/* name, sample, mem and zero records. */
static int read_sample_record(struct reader *r, struct unwind_image *img, const char *word,
			      const char *l)
{
	struct image_sample *s = img->nr_samples ? &img->samples[img->nr_samples - 1] : NULL;
	unsigned long long a, b, c, lr = 0;
	char name[MAX_LINE];
	int off = 0, rc;

	if (!strcmp(word, "name"))
		return sscanf(l, "%lli %4095[^\n]", &a, name) == 2 ? unwind_image__add_name(img, a, name)
								  : fail(r, "bad name");
	if (!strcmp(word, "sample")) {
		if (sscanf(l, "%lli %lli %lli %lli", &a, &b, &c, &lr) < 3 ||
		    !(s = unwind_image__add_sample(img, a, b, c)))
			return fail(r, "bad sample");
		s->lr = lr;
		return 0;
	}
	if (strcmp(word, "mem") && strcmp(word, "zero"))
		return NOT_MINE;
	if (!s)
		return fail(r, "memory before any sample");
	if (!strcmp(word, "zero"))
		return sscanf(l, "%lli %lli", &a, &b) == 2 && b < (1u << 30) &&
				       !unwind_image__add_mem(s, a, NULL, (uint32_t)b)
			       ? 0
			       : fail(r, "bad zero, or memory out of order");
	if (sscanf(l, "%lli %n", &a, &off) != 1)
		return fail(r, "bad mem");
	rc = read_mem(r, s, a, l + off);
	return rc == -EINVAL ? fail(r, "memory out of order") : rc;
}

/* One line of a recording; the version line is the caller's. */
static int read_line(struct reader *r, struct unwind_image *img, char *l)
{
	char word[16];
	int off = 0, rc;

	if (l[0] == '#' || l[0] == '\n')
		return 0;
	if (sscanf(l, "%15s %n", word, &off) != 1)
		return fail(r, "empty record");
	l += off;
	if ((rc = read_maps_record(r, img, word, l)) != NOT_MINE ||
	    (rc = read_slot_record(r, img, word, l)) != NOT_MINE ||
	    (rc = read_sample_record(r, img, word, l)) != NOT_MINE)
		return rc;
	return fail(r, "unknown record '%s'", word);
}

struct unwind_image *unwind_image__load(const char *path, char *err, size_t errlen)
{
	struct reader r = { .path = path, .err = err, .errlen = errlen };
	struct unwind_image *img = unwind_image__new();
	char line[MAX_LINE + 64];
	int version = -1, rc = 0;

	r.gz = gzopen(path, "rb");
	if (!r.gz || !img) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOMEM));
		if (r.gz)
			gzclose(r.gz);
		unwind_image__free(img);
		return NULL;
	}
	while (!rc && gzgets(r.gz, line, sizeof(line))) {
		r.line++;
		if (!strchr(line, '\n') && !gzeof(r.gz))
			rc = fail(&r, "line too long");
		else if (r.line == 1)
			rc = sscanf(line, "smolder-unwind-recording %d", &version) == 1 &&
					     version == UNWIND_RECORDING_VERSION
				     ? 0
				     : fail(&r, "not a version %d recording", UNWIND_RECORDING_VERSION);
		else
			rc = read_line(&r, img, line);
	}
	if (!rc && version < 0)
		rc = fail(&r, "empty");
	gzclose(r.gz);
	if (rc) {
		unwind_image__free(img);
		return NULL;
	}
	unwind_image__sort(img);
	return img;
}

/* A sample's memory: "mem" lines of MEM_LINE bytes, runs of zero lines as one
 * "zero" line. */
static void write_mem(gzFile gz, const struct image_mem *m)
{
	static const uint8_t zeros[MEM_LINE];
	char hex[2 * MEM_LINE + 1];
	uint32_t off = 0, zero_start = 0;
	bool in_zeros = false;

	while (off < m->len) {
		uint32_t n = m->len - off < MEM_LINE ? m->len - off : MEM_LINE;
		bool zero = !m->bytes || !memcmp(m->bytes + off, zeros, n);

		if (zero && !in_zeros) {
			in_zeros = true;
			zero_start = off;
		} else if (!zero) {
			if (in_zeros)
				gzprintf(gz, "zero 0x%" PRIx64 " %u\n", m->addr + zero_start,
					 off - zero_start);
			in_zeros = false;
			for (uint32_t i = 0; i < n; i++)
				sprintf(hex + 2 * i, "%02x", m->bytes[off + i]);
			gzprintf(gz, "mem 0x%" PRIx64 " %s\n", m->addr + off, hex);
		}
		off += n;
	}
	if (in_zeros)
		gzprintf(gz, "zero 0x%" PRIx64 " %u\n", m->addr + zero_start, m->len - zero_start);
}

/* A slot: a page index entry if it is in a file's page index, else a row. */
static void write_slot(gzFile gz, const struct unwind_image *img, const struct image_slot *s)
{
	struct unwind_page pg;
	struct unwind_row row;

	for (size_t i = 0; i < img->nr_files; i++) {
		const struct unwind_file *f = &img->files[i].f;

		if (s->slot >= f->pages && s->slot - f->pages < f->n_pages) {
			memcpy(&pg, &s->value, sizeof(pg));
			gzprintf(gz, "page 0x%x 0x%x %u\n", s->slot, pg.row, pg.count);
			return;
		}
	}
	memcpy(&row, &s->value, sizeof(row));
	gzprintf(gz, "row 0x%x 0x%x %u %u %d\n", s->slot, row.pc, row.kind, row.cfa_off, row.rbp_off);
}

static void write_maps(gzFile gz, const struct unwind_image *img, const bool *keep)
{
	gzprintf(gz, "workload %s %s\nimage %u %u\nshards %u %u %d\n", img->workload, img->mode,
		 img->tgid, img->gen, img->shard_bits, img->nr_shards, img->image_events);
	for (size_t i = 0; i < img->nr_files; i++)
		gzprintf(gz, "file %u 0x%x %u %u\n", img->files[i].id, img->files[i].f.pages,
			 img->files[i].f.n_pages, img->files[i].f.shift);
	for (size_t i = 0; i < img->nr_mappings; i++) {
		const struct image_mapping *e = &img->mappings[i];

		gzprintf(gz, "mapping %u 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
			     " %u %u %u\n",
			 e->key.prefixlen, (uint64_t)be64toh(e->key.addr), (uint64_t)e->m.start,
			 (uint64_t)e->m.end, (uint64_t)e->m.bias, e->m.file, e->m.gen, e->m.flags);
	}
	for (size_t i = 0; i < img->nr_slots; i++)
		if (!keep || keep[i])
			write_slot(gz, img, &img->slots[i]);
	for (size_t i = 0; i < img->nr_names; i++)
		gzprintf(gz, "name 0x%" PRIx64 " %s\n", img->names[i].addr, img->names[i].name);
}

int unwind_image__save(const struct unwind_image *img, const bool *keep, const char *comment,
		       const char *path)
{
	gzFile gz = gzopen(path, "wb9");

	if (!gz)
		return -(errno ? errno : ENOMEM);
	gzprintf(gz, "smolder-unwind-recording %d\n", UNWIND_RECORDING_VERSION);
	for (const char *c = comment; c && *c;) {
		const char *nl = strchr(c, '\n');
		int n = nl ? (int)(nl - c) : (int)strlen(c);

		gzprintf(gz, "# %.*s\n", n, c);
		c += n + (nl != NULL);
	}
	write_maps(gz, img, keep);
	for (size_t i = 0; i < img->nr_samples; i++) {
		const struct image_sample *s = &img->samples[i];

		gzprintf(gz, "sample 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64, s->pc, s->sp, s->bp);
		if (s->lr)
			gzprintf(gz, " 0x%" PRIx64, s->lr);
		gzprintf(gz, "\n");
		for (size_t j = 0; j < s->nr_mem; j++)
			write_mem(gz, &s->mem[j]);
	}
	return gzclose(gz) == Z_OK ? 0 : -EIO;
}
