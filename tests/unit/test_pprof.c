// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pprof output and the protobuf encoder under it: known varint bytes, the
 * UTF-8 checker against Unicode's table, the interner, and profiles written
 * by pprof__write read back by an independent decoder here (gunzip, then
 * the wire format by hand) into folded stacks compared with the input;
 * source locations (CPython frames) made through profile_addr's API and
 * read back as functions, files and lines.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>
#include "unit.h"
#include "output/format.h"
#include "output/pb.h"
#include "lib/utf8.h"
#include "output/pprof.h"

/* ---- an independent reader of what pprof__write writes ---- */

#define MAXN 4096

struct decoded {
	char *strings[MAXN];
	size_t nstrings;
	uint64_t fn_name[MAXN];        /* function id -> name index */
	uint64_t fn_file[MAXN];        /* function id -> filename index (0 none) */
	uint64_t fn_start[MAXN];       /* function id -> start line */
	uint64_t fn_id[MAXN];          /* the functions' ids, in order */
	uint64_t loc_fn[MAXN];         /* location id -> function id */
	uint64_t loc_line[MAXN];       /* location id -> its Line's line */
	uint64_t loc_map[MAXN];        /* location id -> mapping id */
	uint64_t loc_addr[MAXN];       /* location id -> address */
	size_t nmappings;
	int loc_lines[MAXN];           /* location id -> number of lines */
	size_t nfunctions, nlocations;
	uint64_t sample_type[4][2], period_type[2];
	size_t nsample_types;
	int64_t period, drop_frames, time_nanos;
	char *folded;                  /* "root;..;leaf v1[ v2]\n" per sample */
	size_t folded_len;
	size_t nsamples;
	int bad;                       /* a malformed or unexpected field */
};

static uint64_t rd_varint(const uint8_t **p, const uint8_t *end, int *bad)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			break;
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	*bad = 1;
	return 0;
}

/* Calls fn for each (field, wire, varint value or bytes) of a message. */
typedef void (*field_fn)(struct decoded *d, unsigned field, uint64_t v,
			 const uint8_t *b, size_t len, void *ctx);

static void rd_message(struct decoded *d, const uint8_t *p, size_t n,
		       field_fn fn, void *ctx)
{
	const uint8_t *end = p + n;

	while (p < end && !d->bad) {
		uint64_t key = rd_varint(&p, end, &d->bad), v = 0, len = 0;

		if ((key & 7) == 0) {
			v = rd_varint(&p, end, &d->bad);
		} else if ((key & 7) == 2) {
			len = rd_varint(&p, end, &d->bad);
			if (len > (uint64_t)(end - p)) {
				d->bad = 1;
				return;
			}
		} else {
			d->bad = 1;
			return;
		}
		fn(d, (unsigned)(key >> 3), v, (key & 7) == 2 ? p : NULL, len, ctx);
		p += len;
	}
}

/* A packed varint field into out[]; returns the count. */
static size_t rd_packed(struct decoded *d, const uint8_t *b, size_t len,
			uint64_t *out, size_t max)
{
	const uint8_t *end = b + len;
	size_t n = 0;

	while (b < end && n < max)
		out[n++] = rd_varint(&b, end, &d->bad);
	if (b < end)
		d->bad = 1;
	return n;
}

/* Fields 1 and 2 of a message (for a Location: its Line's function), and
 * a Function's filename and start line, a Location's mapping, a Line's
 * line. */
struct pair { uint64_t a, b, file, start, map, addr, line; int n; };

static void pair_fields(struct decoded *d, unsigned f, uint64_t v,
			const uint8_t *b, size_t len, void *ctx)
{
	struct pair *p = ctx;

	(void)len;
	if (f == 1 && !b)
		p->a = v;
	else if (f == 2 && !b)
		p->b = p->map = v;
	else if (f == 4 && b) { /* Location.line: a Line {function_id = 1, line = 2} */
		struct pair line = { 0 };

		rd_message(d, b, len, pair_fields, &line);
		p->b = line.a;
		p->line = line.b;
		p->n++;
	} else if (f == 4 && !b) /* Function.filename */
		p->file = v;
	else if (f == 5 && !b)   /* Function.start_line */
		p->start = v;
	else if (f == 3 && !b)   /* Location.address, Function.system_name */
		p->addr = v;
	else
		d->bad = 1;
}

struct sample { uint64_t loc[256], val[4]; size_t nloc, nval; };

static void sample_fields(struct decoded *d, unsigned f, uint64_t v,
			  const uint8_t *b, size_t len, void *ctx)
{
	struct sample *s = ctx;

	(void)v;
	if (f == 1 && b)
		s->nloc = rd_packed(d, b, len, s->loc, 256);
	else if (f == 2 && b)
		s->nval = rd_packed(d, b, len, s->val, 4);
	else
		d->bad = 1; /* we write packed fields only */
}

static void append(struct decoded *d, const char *s, size_t n)
{
	d->folded = realloc(d->folded, d->folded_len + n + 1);
	memcpy(d->folded + d->folded_len, s, n);
	d->folded_len += n;
	d->folded[d->folded_len] = 0;
}

/* A sample as a folded line, root first: its location ids reversed; a
 * frame whose Function has a file is "name@file:line". */
static void fold_sample(struct decoded *d, const uint8_t *b, size_t len)
{
	struct sample s = { 0 };
	char num[64];

	rd_message(d, b, len, sample_fields, &s);
	for (size_t i = s.nloc; i-- > 0;) {
		uint64_t loc = s.loc[i], fn = loc < MAXN ? d->loc_fn[loc] : 0;
		uint64_t name = fn < MAXN ? d->fn_name[fn] : MAXN;

		if (!loc || loc > d->nlocations || !fn || name >= d->nstrings) {
			d->bad = 1;
			return;
		}
		append(d, d->strings[name], strlen(d->strings[name]));
		if (d->fn_file[fn] && d->fn_file[fn] < d->nstrings) {
			snprintf(num, sizeof(num), ":%llu", (unsigned long long)d->loc_line[loc]);
			append(d, "@", 1);
			append(d, d->strings[d->fn_file[fn]], strlen(d->strings[d->fn_file[fn]]));
			append(d, num, strlen(num));
		}
		append(d, i ? ";" : "", i ? 1 : 0);
	}
	for (size_t i = 0; i < s.nval; i++) {
		snprintf(num, sizeof(num), " %llu", (unsigned long long)s.val[i]);
		append(d, num, strlen(num));
	}
	append(d, "\n", 1);
	d->nsamples++;
}

/* Pass 0 reads everything but samples; pass 1 (when the tables are known)
 * the samples. */
static void profile_fields(struct decoded *d, unsigned f, uint64_t v,
			   const uint8_t *b, size_t len, void *ctx)
{
	int pass = *(int *)ctx;
	struct pair p = { 0 };

	if (pass == 1) {
		if (f == 2)
			fold_sample(d, b, len);
		return;
	}
	if (f == 1 || f == 11) {
		rd_message(d, b, len, pair_fields, &p);
		uint64_t *t = f == 11 ? d->period_type : d->sample_type[d->nsample_types++ & 3];

		t[0] = p.a;
		t[1] = p.b;
	} else if (f == 4 || f == 5) {
		rd_message(d, b, len, pair_fields, &p);
		if (!p.a || p.a >= MAXN) {
			d->bad = 1;
		} else if (f == 4) {
			d->loc_fn[p.a] = p.b;
			d->loc_lines[p.a] = p.n;
			d->loc_line[p.a] = p.line;
			d->loc_map[p.a] = p.map;
			d->loc_addr[p.a] = p.addr;
			d->nlocations++;
		} else {
			d->fn_name[p.a] = p.b;
			d->fn_file[p.a] = p.file;
			d->fn_start[p.a] = p.start;
			d->fn_id[d->nfunctions++] = p.a;
		}
	} else if (f == 6 && d->nstrings < MAXN) {
		d->strings[d->nstrings++] = strndup((const char *)b, len);
	} else if (f == 7 || f == 9 || f == 12) {
		*(f == 7 ? &d->drop_frames : f == 9 ? &d->time_nanos : &d->period) = (int64_t)v;
	} else if (f == 3 && b) {
		d->nmappings++;
	} else if (f != 2 && f != 13) {
		d->bad = 1;
	}
}

static uint8_t *gunzip(const char *in, size_t n, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = 1 << 16;
	uint8_t *out = malloc(cap);
	int rc;

	if (inflateInit2(&z, 15 + 16) != Z_OK) /* gzip only, not zlib */
		return NULL;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	do {
		if (z.total_out == cap)
			out = realloc(out, cap *= 2);
		z.next_out = out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		rc = inflate(&z, Z_NO_FLUSH);
	} while (rc == Z_OK);
	*out_len = z.total_out;
	inflateEnd(&z);
	if (rc != Z_STREAM_END || z.avail_in) {
		free(out);
		return NULL;
	}
	return out;
}

/* Writes p with pprof__write and decodes it; NULL if either failed. */
static struct decoded *roundtrip(const struct profile *p, const struct render_opts *o)
{
	char *buf = NULL;
	size_t n = 0, len;
	FILE *f = open_memstream(&buf, &n);
	struct decoded *d = calloc(1, sizeof(*d));
	uint8_t *raw;
	int pass0 = 0, pass1 = 1, rc = pprof__write(f, p, o);

	fclose(f);
	raw = rc ? NULL : gunzip(buf, n, &len);
	free(buf);
	if (!raw) {
		free(d);
		return NULL;
	}
	rd_message(d, raw, len, profile_fields, &pass0);
	rd_message(d, raw, len, profile_fields, &pass1);
	free(raw);
	if (!d->folded)
		d->folded = strdup("");
	return d;
}

static void decoded_free(struct decoded *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
	free(d->folded);
	free(d);
}

static const char *str(const struct decoded *d, uint64_t i)
{
	return i < d->nstrings ? d->strings[i] : "(out of range)";
}

static struct profile *make(const char *const *frames, const double *counts, size_t n)
{
	struct profile *p = profile__new();

	for (size_t i = 0; i < n; i++)
		profile__add(p, frames[i], strlen(frames[i]), counts[i], 0);
	return p;
}

/* ---- the encoder ---- */

TEST(pb_varint_bytes)
{
	struct pb b = { 0 };

	pb__varint(&b, 0);
	pb__varint(&b, 1);
	pb__varint(&b, 127);
	pb__varint(&b, 128);
	pb__varint(&b, 300);
	pb__varint(&b, UINT64_MAX);
	CHECK(b.len == 1 + 1 + 1 + 2 + 2 + 10);
	CHECK(!memcmp(b.buf, "\x00\x01\x7f\x80\x01\xac\x02", 7));
	CHECK(!memcmp(b.buf + 7, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10));
	pb__free(&b);
}

TEST(pb_fields_bytes)
{
	struct pb b = { 0 };
	uint64_t v[] = { 3, 270, 86942 };

	pb__uint(&b, 1, 150);             /* the protobuf docs' example */
	pb__bytes(&b, 2, "testing", 7);
	pb__packed(&b, 4, v, 3, 0);       /* ditto: 22 06 03 8e 02 9e a7 05 */
	pb__packed(&b, 4, v, 0, 0);       /* nothing */
	pb__packed(&b, 5, v, 2, 1);       /* 270 then 3 */
	pb__uint(&b, 16, 1);              /* a two-byte key */
	CHECK(b.len == 3 + 9 + 8 + 5 + 3);
	CHECK(!memcmp(b.buf, "\x08\x96\x01", 3));
	CHECK(!memcmp(b.buf + 3, "\x12\x07testing", 9));
	CHECK(!memcmp(b.buf + 12, "\x22\x06\x03\x8e\x02\x9e\xa7\x05", 8));
	CHECK(!memcmp(b.buf + 20, "\x2a\x03\x8e\x02\x03", 5));
	CHECK(!memcmp(b.buf + 25, "\x80\x01\x01", 3));
	pb__free(&b);
}

TEST(pb_string_replaces_bad_utf8)
{
	struct pb b = { 0 };

	pb__string(&b, 1, "a\xff" "b\xe2\x82", 5);
	CHECK(b.len == 2 + 1 + 3 + 1 + 3);
	CHECK(!memcmp(b.buf, "\x0a\x08" "a\xef\xbf\xbd" "b\xef\xbf\xbd", 10));
	b.len = 0;
	pb__string(&b, 1, "\xc3\xa9t\xc3\xa9", 5); /* valid: as it is */
	CHECK(b.len == 7 && !memcmp(b.buf + 2, "\xc3\xa9t\xc3\xa9", 5));
	/* an ill-formed 3-byte sequence: as long as its U+FFFD, still replaced
	 * (fuzz_outputs found it written as it was) */
	b.len = 0;
	pb__string(&b, 1, "\xf0\x9d\x88S", 4);
	CHECK(b.len == 6 && !memcmp(b.buf + 2, "\xef\xbf\xbdS", 4));
	pb__free(&b);
}

#define SEQ(s) utf8__seq((const unsigned char *)(s), sizeof(s) - 1)

TEST(utf8_table)
{
	CHECK(SEQ("a") == 1);
	CHECK(SEQ("\xc3\xa9") == 2);
	CHECK(SEQ("\xe2\x82\xac") == 3);
	CHECK(SEQ("\xf0\x9f\x98\x80") == 4);
	CHECK(SEQ("\xf4\x8f\xbf\xbf") == 4);     /* U+10FFFF */
	CHECK(SEQ("\xef\xbf\xbf") == 3);         /* U+FFFF */
	CHECK(SEQ("\x80") == -1);                /* lone continuation */
	CHECK(SEQ("\xc0\x80") == -1);            /* overlong NUL */
	CHECK(SEQ("\xc1\xbf") == -1);
	CHECK(SEQ("\xe0\x80\x80") == -1);        /* overlong */
	CHECK(SEQ("\xed\xa0\x80") == -1);        /* surrogate U+D800 */
	CHECK(SEQ("\xf0\x80\x80\x80") == -1);    /* overlong */
	CHECK(SEQ("\xf4\x90\x80\x80") == -1);    /* past U+10FFFF */
	CHECK(SEQ("\xf5\x80\x80\x80") == -1);
	CHECK(SEQ("\xff") == -1);
	CHECK(SEQ("\xe2\x82") == -2);            /* truncated: one U+FFFD */
	CHECK(SEQ("\xe2\x82x") == -2);
	CHECK(SEQ("\xf0\x9f\x98") == -3);
	CHECK(SEQ("\xc3") == -1);
}

TEST(strtab_dedups)
{
	struct strtab t = { 0 };
	char names[3000][16];
	int ok = 1;

	for (int i = 0; i < 3000; i++)
		snprintf(names[i], 16, "fn_%d", i);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3000; i++)
			ok &= strtab__intern(&t, names[i], strlen(names[i])) == i;
	CHECK(ok);
	CHECK(t.nr == 3000);
	CHECK(strtab__intern(&t, "fn_1x", 4) == 1);  /* by length, not NUL */
	CHECK(strtab__intern(&t, "", 0) == 3000);
	CHECK(strtab__intern(&t, "", 0) == 3000);
	CHECK(t.ent[5].len == 4 && !memcmp(t.ent[5].s, "fn_5", 4));
	strtab__free(&t);
}

/* ---- pprof__write ---- */

static const char *const split_frames[] = {
	"main;run_loop;burn_a;spin", "main;run_loop;burn_b;spin", "main;init",
};
static const double split_counts[] = { 75, 25, 1 };

TEST(pprof_stacks_roundtrip)
{
	struct profile *p = make(split_frames, split_counts, 3);
	struct decoded *d = roundtrip(p, NULL);

	CHECK(d && !d->bad);
	if (d && !d->bad) {
		CHECK_STR(d->folded, "main;run_loop;burn_a;spin 75\n"
				     "main;run_loop;burn_b;spin 25\n"
				     "main;init 1\n");
		CHECK(d->nsamples == 3);
		CHECK_STR(str(d, 0), "");
		/* main run_loop burn_a spin burn_b init: one function and one
		 * location each, ids from 1, one line per location. */
		CHECK(d->nfunctions == 6 && d->nlocations == 6);
		for (int id = 1; id <= 6; id++)
			CHECK(d->loc_fn[id] == (uint64_t)id && d->loc_lines[id] == 1);
		CHECK(d->nsample_types == 1);
		CHECK_STR(str(d, d->sample_type[0][0]), "samples");
		CHECK_STR(str(d, d->sample_type[0][1]), "count");
		CHECK(d->period == 0 && d->period_type[0] == 0);
		CHECK(d->drop_frames == 0);
		CHECK(d->time_nanos > (int64_t)1600000000 * 1000000000);
	}
	decoded_free(d);
	profile__free(p);
}

TEST(pprof_period_adds_cpu_time)
{
	struct profile *p = make(split_frames, split_counts, 3);
	struct decoded *d;

	p->period_ns = 2004008; /* 499 Hz */
	d = roundtrip(p, NULL);
	CHECK(d && !d->bad);
	if (d && !d->bad) {
		CHECK_STR(d->folded, "main;run_loop;burn_a;spin 75 150300600\n"
				     "main;run_loop;burn_b;spin 25 50100200\n"
				     "main;init 1 2004008\n");
		CHECK(d->nsample_types == 2);
		CHECK_STR(str(d, d->sample_type[0][0]), "samples");
		CHECK_STR(str(d, d->sample_type[1][0]), "cpu");
		CHECK_STR(str(d, d->sample_type[1][1]), "nanoseconds");
		CHECK_STR(str(d, d->period_type[0]), "cpu");
		CHECK_STR(str(d, d->period_type[1]), "nanoseconds");
		CHECK(d->period == 2004008);
	}
	decoded_free(d);
	profile__free(p);
}

/* --off-cpu: microseconds of running and waiting become wall/nanoseconds,
 * one value per sample, the whole microseconds the folded output writes
 * times 1000; a stack under half a microsecond is left out. */
TEST(pprof_time_weighted_wall_nanoseconds)
{
	static const char *const fr[] = { "main;compute", "main;nap;[off-cpu:S]", "main;blip" };
	static const double us[] = { 7 * 20408.163265, 250000, 0.3 };
	struct profile *p = make(fr, us, 3);
	struct decoded *d;

	p->time_weighted = true;
	p->period_ns = 20408163; /* 49 Hz */
	d = roundtrip(p, NULL);
	CHECK(d && !d->bad);
	if (d && !d->bad) {
		CHECK_STR(d->folded, "main;compute 142857000\nmain;nap;[off-cpu:S] 250000000\n");
		CHECK(d->nsample_types == 1);
		CHECK_STR(str(d, d->sample_type[0][0]), "wall");
		CHECK_STR(str(d, d->sample_type[0][1]), "nanoseconds");
		CHECK_STR(str(d, d->period_type[0]), "wall");
		CHECK_STR(str(d, d->period_type[1]), "nanoseconds");
		CHECK(d->period == 20408163);
		CHECK(d->nfunctions == 4); /* blip's frame left out with it */
	}
	decoded_free(d);
	p->period_ns = 0; /* from folded files: no period to tell */
	d = roundtrip(p, NULL);
	CHECK(d && !d->bad);
	if (d && !d->bad) {
		CHECK(d->nsample_types == 1 && d->period == 0 && d->period_type[0] == 0);
		CHECK_STR(str(d, d->sample_type[0][0]), "wall");
	}
	decoded_free(d);
	profile__free(p);
}

TEST(pprof_rounds_decimal_counts)
{
	static const char *const fr[] = { "a;b", "a;c", "a;d", "a;e", "a;b", "x;y", "x;z" };
	static const double c[] = { 2.5, 0.4, 1.49, 7, 0.6, INFINITY, 1e19 };
	struct profile *p = make(fr, c, 7);
	struct decoded *d = roundtrip(p, NULL);

	CHECK(p->fractional);
	CHECK(d && !d->bad);
	/* 0.4 rounds to nothing: left out (and so is its frame); so are
	 * counts an int64 cannot hold. */
	if (d)
		CHECK_STR(d->folded, "a;b 3\na;d 1\na;e 7\na;b 1\n");
	if (d)
		CHECK(d->nfunctions == 4);
	decoded_free(d);
	profile__free(p);
}

TEST(pprof_diff_writes_after)
{
	struct profile *p = profile__new();
	struct decoded *d;

	p->diff = true;
	profile__add(p, "a;b", 3, 10, 4);
	profile__add(p, "a;gone", 6, 0, 9);
	profile__add(p, "a;new", 5, 2, 0);
	d = roundtrip(p, NULL);
	CHECK(d && !d->bad);
	if (d)
		CHECK_STR(d->folded, "a;b 10\na;new 2\n");
	decoded_free(d);
	profile__free(p);
}

TEST(pprof_names_and_comments)
{
	static const char *const fr[] = { "r\xff;x;;\xe2\x82\xac" };
	static const double c[] = { 4 };
	struct profile *p = make(fr, c, 1);
	struct render_opts o = { .name = "my run" };
	struct decoded *d = roundtrip(p, &o);
	int has_name = 0, has_exporter = 0;

	CHECK(d && !d->bad);
	if (d) {
		/* invalid UTF-8 replaced; an empty frame stays a frame */
		CHECK_STR(d->folded, "r\xef\xbf\xbd;x;;\xe2\x82\xac 4\n");
		for (size_t i = 0; i < d->nstrings; i++) {
			has_name |= !strcmp(d->strings[i], "my run");
			has_exporter |= !strcmp(d->strings[i], "smolder " SMOLDER_VERSION);
		}
		CHECK(has_name && has_exporter);
	}
	decoded_free(d);
	profile__free(p);
}

TEST(pprof_empty_profile)
{
	struct profile *p = profile__new();
	struct decoded *d = roundtrip(p, NULL);

	CHECK(d && !d->bad);
	if (d) {
		CHECK_STR(d->folded, "");
		CHECK(d->nsamples == 0 && d->nfunctions == 0);
		CHECK(d->nstrings >= 1);
		CHECK_STR(str(d, 0), "");
	}
	decoded_free(d);
	profile__free(p);
}

/* 2000 distinct stacks over 300 names, 30 frames deep: every one comes
 * back, totals equal, names shared. */
TEST(pprof_many_stacks)
{
	struct profile *p = profile__new();
	char buf[1024];
	double total = 0, got = 0;
	struct decoded *d;

	for (int i = 0; i < 2000; i++) {
		size_t n = 0;

		for (int j = 0; j < 30; j++)
			n += snprintf(buf + n, sizeof(buf) - n, "%sf%d", j ? ";" : "",
				      (i * 7 + j * 13 + (i >> j % 8)) % 300);
		profile__add(p, buf, n, i % 17 + 1, 0);
		total += i % 17 + 1;
	}
	d = roundtrip(p, NULL);
	CHECK(d && !d->bad);
	if (d && !d->bad) {
		const char *line = d->folded;
		size_t i = 0;
		int same = 1;

		for (; *line && i < p->nr; i++) {
			const char *nl = strchr(line, '\n');
			char text[4096];
			size_t fl = profile__text(p, &p->stacks[i], text, sizeof(text));

			same &= !strncmp(line, text, fl) && line[fl] == ' ';
			got += strtod(line + fl + 1, NULL);
			line = nl + 1;
		}
		CHECK(same && i == p->nr && !*line);
		CHECK(got == total);
		CHECK(d->nfunctions <= 300 && d->nfunctions == d->nlocations);
	}
	decoded_free(d);
	profile__free(p);
}

/* ---- source locations (CPython frames: profile_addr.h) ---- */

/* A frame of a test sample: a source location when func is set, else a
 * name alone, or a file offset in mapping map when map is set. */
struct src_frame {
	const char *name, *func, *file;
	uint32_t line, start_line, map;
	uint64_t off;
};

/* Adds count samples of frames fr[0..depth) as the folder does: names
 * interned, the stack found by its names (or added), then its site by the
 * frames' places.  0, or an error. */
static int add_frames(struct profile *p, const struct src_frame *fr, uint32_t depth, double count)
{
	uint32_t ids[16];
	struct paddr_frame at[16];
	size_t k;

	for (uint32_t i = 0; i < depth; i++) {
		long id = profile__intern(p, fr[i].name, strlen(fr[i].name));

		if (id < 0)
			return (int)id;
		ids[i] = (uint32_t)id;
		at[i] = (struct paddr_frame){ .map = fr[i].map, .addr = fr[i].off };
		if (fr[i].func && paddrs__source(p->addrs, &(struct paddr_source){
				.func = fr[i].func, .file = fr[i].file, .line = fr[i].line,
				.start_line = fr[i].start_line }, &at[i]))
			return -ENOMEM;
	}
	for (k = 0; k < p->nr; k++)
		if (p->stacks[k].depth == depth &&
		    !memcmp(profile__ids(p, &p->stacks[k]), ids, depth * sizeof(*ids)))
			break;
	if (k == p->nr && profile__add_ids(p, ids, depth, 0, NULL))
		return -ENOMEM;
	p->stacks[k].count += count;
	return paddrs__add_sample(p->addrs, (uint32_t)k, ids, at, depth, count);
}

static struct profile *capture_profile(void)
{
	struct profile *p = profile__new();

	if (p && !(p->addrs = paddrs__new())) {
		profile__free(p);
		return NULL;
	}
	return p;
}

#define APP "/srv/app/app.py"
#define MAIN_FR { .name = "main" }
#define METH_FR { "Outer.meth (app.py)", "Outer.meth", APP, 11, 10, 0, 0 }
#define ALPHA_AT(l) { "alpha (app.py)", "alpha", APP, l, 2, 0, 0 }

/* One function sampled at two lines: one stack (its name has no line) but
 * two Samples, each Location's Line the line it was at, its Function the
 * bare name with the file and first line; the display names are no
 * Functions. */
TEST(pprof_source_lines)
{
	struct profile *p = capture_profile();
	const struct src_frame at5[] = { MAIN_FR, METH_FR, ALPHA_AT(5) };
	const struct src_frame at4[] = { MAIN_FR, METH_FR, ALPHA_AT(4) };
	struct decoded *d = NULL;

	CHECK(p && !add_frames(p, at5, 3, 3) && !add_frames(p, at4, 3, 5) &&
	      !add_frames(p, at5, 3, 2));
	if (!p)
		return;
	CHECK(p->nr == 1 && p->stacks[0].count == 10);
	CHECK(p->addrs->nr_sites == 2 && p->addrs->nr_locs == 4 && p->addrs->nr_srcs == 2);
	d = roundtrip(p, NULL);
	CHECK(d && !d->bad);
	if (d && !d->bad) {
		CHECK_STR(d->folded, "main;Outer.meth@" APP ":11;alpha@" APP ":5 5\n"
				     "main;Outer.meth@" APP ":11;alpha@" APP ":4 5\n");
		CHECK(d->nlocations == 4 && d->nfunctions == 3 && d->nmappings == 0);
		for (size_t k = 0; k < d->nfunctions; k++) {
			uint64_t id = d->fn_id[k];
			const char *name = str(d, d->fn_name[id]);

			CHECK(!strchr(name, '(')); /* no display name */
			if (!strcmp(name, "alpha"))
				CHECK(d->fn_start[id] == 2 && !strcmp(str(d, d->fn_file[id]), APP));
			else if (!strcmp(name, "Outer.meth"))
				CHECK(d->fn_start[id] == 10);
			else
				CHECK(!strcmp(name, "main") && d->fn_file[id] == 0);
		}
		for (size_t id = 1; id <= d->nlocations; id++)
			CHECK(d->loc_map[id] == 0 && d->loc_addr[id] == 0 && d->loc_lines[id] == 1);
	}
	decoded_free(d);
	profile__free(p);
}

/* Names that carry the line (--python-lines) are two stacks of one
 * Function; one name in two files is two Functions; unknown lines are
 * left out; native frames keep their mapping and address beside them. */
TEST(pprof_source_functions)
{
	struct profile *p = capture_profile();
	const struct paddr_file py = { .path = "/usr/bin/python3.11", .dev = 8, .ino = 42,
				       .start = 0x400000, .end = 0x500000, .pgoff = 0,
				       .off = 0x1234, .vaddr = UINT64_MAX };
	long map = p ? paddrs__mapping(p->addrs, &py) : -1;
	const struct src_frame l4[] = {
		{ .name = "_PyEval_EvalFrameDefault", .map = (uint32_t)map, .off = 0x1234 },
		{ "alpha (app.py:4)", "alpha", APP, 4, 2, 0, 0 } };
	const struct src_frame l5[] = { l4[0], { "alpha (app.py:5)", "alpha", APP, 5, 2, 0, 0 } };
	const struct src_frame other[] = { { "run (a/job.py)", "run", "/a/job.py", 0, 0, 0, 0 } };
	const struct src_frame other2[] = { { "run (b/job.py)", "run", "/b/job.py", 7, 0, 0, 0 } };
	struct decoded *d = NULL;

	CHECK(map == 1);
	CHECK(p && !add_frames(p, l4, 2, 1) && !add_frames(p, l5, 2, 2) &&
	      !add_frames(p, other, 1, 4) && !add_frames(p, other2, 1, 8));
	if (!p)
		return;
	CHECK(p->nr == 4 && p->addrs->nr_srcs == 3);
	d = roundtrip(p, NULL);
	CHECK(d && !d->bad);
	if (d && !d->bad) {
		int alphas = 0, runs = 0;

		CHECK_STR(d->folded, "_PyEval_EvalFrameDefault;alpha@" APP ":4 1\n"
				     "_PyEval_EvalFrameDefault;alpha@" APP ":5 2\n"
				     "run@/a/job.py:0 4\nrun@/b/job.py:7 8\n");
		CHECK(d->nmappings == 1 && d->nlocations == 5);
		/* the native frame: in python3.11 at its offset (placed where
		 * its first process had it) */
		CHECK(d->loc_map[1] == 1 && d->loc_addr[1] == 0x400000 + 0x1234);
		for (size_t k = 0; k < d->nfunctions; k++) {
			uint64_t id = d->fn_id[k];

			alphas += !strcmp(str(d, d->fn_name[id]), "alpha");
			runs += !strcmp(str(d, d->fn_name[id]), "run");
			if (!strcmp(str(d, d->fn_name[id]), "run"))
				CHECK(d->fn_start[id] == 0);
		}
		CHECK(alphas == 1 && runs == 2 && d->nfunctions == 4);
	}
	decoded_free(d);
	profile__free(p);
}

/* A profile's source locations cost its distinct functions and lines, not
 * its samples; odd strings are kept (NULL as "", cut at PATH_MAX). */
TEST(paddrs_source_per_distinct_line)
{
	struct paddrs *a = paddrs__new();
	char *long_name = malloc(3 * PATH_MAX);
	struct paddr_frame f, g;
	uint32_t len;
	int ok = 1;

	CHECK(a && long_name);
	if (!a || !long_name)
		return;
	for (int i = 0; i < 100000; i++) {
		char func[16];

		snprintf(func, sizeof(func), "f%d", i % 3);
		ok &= !paddrs__source(a, &(struct paddr_source){ func, APP, 10 + i % 5, 9 }, &f);
		ok &= f.map == PADDR_SOURCE && (uint32_t)f.addr == 10u + i % 5;
		ok &= !paddrs__add_sample(a, 0, &(uint32_t){ 0 }, &f, 1, 1);
	}
	CHECK(ok);
	CHECK(a->nr_srcs == 3 && a->src_strs.nr == 4 && a->nr_locs == 15 && a->nr_sites == 15);
	CHECK(!paddrs__source(a, &(struct paddr_source){ NULL, NULL, 0, 0 }, &f));
	CHECK(!strcmp(paddrs__src_str(a, a->srcs[a->nr_srcs - 1].file, &len), "") && len == 0);
	memset(long_name, 'x', 3 * PATH_MAX - 1);
	long_name[3 * PATH_MAX - 1] = '\0';
	CHECK(!paddrs__source(a, &(struct paddr_source){ long_name, APP, 1, 1 }, &f));
	CHECK(!paddrs__source(a, &(struct paddr_source){ long_name, APP, 2, 1 }, &g));
	paddrs__src_str(a, a->srcs[f.addr >> 32].func, &len);
	CHECK(len == PATH_MAX && f.addr >> 32 == g.addr >> 32);
	free(long_name);
	paddrs__free(a);
}

TEST(pprof_write_error)
{
	struct profile *p = make(split_frames, split_counts, 3);
	FILE *f = fopen("/dev/full", "w");
	int rc;

	CHECK(f != NULL);
	if (!f)
		return;
	setvbuf(f, NULL, _IONBF, 0); /* fail at the write, not at fclose */
	errno = 0;
	rc = pprof__write(f, p, NULL);
	CHECK(rc == -1);
	CHECK(errno == ENOSPC);
	fclose(f);
	profile__free(p);
}

int main(void)
{
	RUN(pb_varint_bytes);
	RUN(pb_fields_bytes);
	RUN(pb_string_replaces_bad_utf8);
	RUN(utf8_table);
	RUN(strtab_dedups);
	RUN(pprof_stacks_roundtrip);
	RUN(pprof_period_adds_cpu_time);
	RUN(pprof_time_weighted_wall_nanoseconds);
	RUN(pprof_rounds_decimal_counts);
	RUN(pprof_diff_writes_after);
	RUN(pprof_names_and_comments);
	RUN(pprof_empty_profile);
	RUN(pprof_many_stacks);
	RUN(pprof_source_lines);
	RUN(pprof_source_functions);
	RUN(paddrs_source_per_distinct_line);
	RUN(pprof_write_error);
	UNIT_EXIT();
}
