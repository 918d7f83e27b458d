// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the picture writers with hostile option values:
 * --title, --subtitle and --countname come from the input as well as the
 * stacks, as anyone able to reach a script's command line could give them.
 * Input: a flags byte, then TITLE NUL SUBTITLE NUL COUNTNAME NUL, then
 * folded text (a fixed profile when it does not parse).  Checked, besides
 * not crashing:
 * - the SVG is well-formed XML (expat) whose elements are only those the
 *   writer makes, with one <script> and no on* attribute: nothing injected;
 * - the speedscope file is JSON (json-c, strict), an object;
 * - the pprof file inflates, is a well-formed protobuf message at the top
 *   level, and every string of its string table is valid UTF-8.
 */
#include <expat.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "profile/folded_read.h"
#include "lib/log.h"
#include "output/format.h"
#include "lib/utf8.h"
#include "output/pprof.h"
#include "output/speedscope.h"
#include "output/svg.h"

static const char *const palettes[] = {
	"hot", "mem", "io", "kernel", "java", "red", "green", "blue", "aqua", "yellow", "purple", "orange",
};

/* ---- SVG ---- */

struct xml_check {
	int scripts, bad;
};

static void on_start(void *arg, const XML_Char *name, const XML_Char **attr)
{
	static const char *const known[] = {
		"svg", "style", "defs", "linearGradient", "stop", "rect", "text", "g", "title", "script",
	};
	struct xml_check *c = arg;
	bool ok = false;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		ok |= !strcmp(name, known[i]);
	c->bad += !ok;
	c->scripts += !strcmp(name, "script");
	for (size_t i = 0; attr[i]; i += 2)
		c->bad += !strncasecmp(attr[i], "on", 2);
}

static void check_svg(const char *buf, size_t len)
{
	XML_Parser x = XML_ParserCreate("UTF-8");
	struct xml_check c = { 0 };

	XML_SetUserData(x, &c);
	XML_SetStartElementHandler(x, on_start);
	if (XML_Parse(x, buf, (int)len, 1) != XML_STATUS_OK) {
		fprintf(stderr, "SVG not well-formed: %s at line %lu\n",
			XML_ErrorString(XML_GetErrorCode(x)), XML_GetCurrentLineNumber(x));
		abort();
	}
	if (c.bad || c.scripts != 1) {
		fprintf(stderr, "SVG: %d unexpected elements or attributes, %d scripts\n", c.bad,
			c.scripts);
		abort();
	}
	XML_ParserFree(x);
}

/* ---- speedscope ---- */

static void check_json(const char *buf, size_t len)
{
	struct json_tokener *t = json_tokener_new();
	struct json_object *o;

	json_tokener_set_flags(t, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(t, buf, (int)len);
	if (!o || json_tokener_get_error(t) != json_tokener_success ||
	    json_tokener_get_parse_end(t) + 1 < len || !json_object_is_type(o, json_type_object)) {
		fprintf(stderr, "speedscope not JSON: %s\n",
			json_tokener_error_desc(json_tokener_get_error(t)));
		abort();
	}
	json_object_put(o);
	json_tokener_free(t);
}

/* ---- pprof ---- */

static unsigned char *inflate_all(const char *buf, size_t len, size_t *out_len)
{
	z_stream z = { .next_in = (unsigned char *)buf, .avail_in = (unsigned)len };
	size_t cap = 1 << 16, n = 0;
	unsigned char *out = malloc(cap);
	int e = Z_OK;

	if (inflateInit2(&z, 15 + 16) != Z_OK)
		abort();
	while (e == Z_OK) {
		if (n == cap)
			out = realloc(out, cap *= 2);
		z.next_out = out + n;
		z.avail_out = (unsigned)(cap - n);
		e = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
	}
	if (e != Z_STREAM_END)
		abort();
	inflateEnd(&z);
	*out_len = n;
	return out;
}

static uint64_t varint(const unsigned char *p, size_t len, size_t *i)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (*i >= len)
			abort();
		v |= (uint64_t)(p[*i] & 0x7f) << shift;
		if (!(p[(*i)++] & 0x80))
			return v;
	}
	abort();
}

/* Fields of the top-level Profile message; string_table is field 6. */
static void check_pprof(const char *buf, size_t len)
{
	size_t n, i = 0;
	unsigned char *pb = inflate_all(buf, len, &n);

	while (i < n) {
		uint64_t key = varint(pb, n, &i), l;

		switch (key & 7) {
		case 0:
			varint(pb, n, &i);
			break;
		case 2:
			l = varint(pb, n, &i);
			if (l > n - i)
				abort();
			for (size_t k = 0; key >> 3 == 6 && k < l;) {
				int s = utf8__seq(pb + i + k, l - k);

				if (s <= 0) {
					fprintf(stderr, "pprof string %.*s: invalid UTF-8 at %zu\n",
						(int)l, (const char *)pb + i, k);
					abort();
				}
				k += s;
			}
			i += l;
			break;
		default:
			abort();
		}
	}
	free(pb);
}

/* ---- the input ---- */

/* The next NUL-terminated string of the input, or NULL. */
static const char *take(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nul = memchr(*p, '\0', end - *p);
	const char *s = (const char *)*p;

	if (!nul)
		return NULL;
	*p = nul + 1;
	return s;
}

typedef int (*writer)(FILE *, const struct profile *, const struct render_opts *);

static void render(writer w, const struct profile *p, const struct render_opts *o,
		   void (*check)(const char *, size_t))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (w(f, p, o))
		abort();
	fclose(f);
	check(buf, len);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 1, *end = data + size;
	struct render_opts o = { 0 };
	struct profile *prof = profile__new();
	char errbuf[256];
	FILE *f;

	log_verbosity = 0;
	if (size < 4 || !(o.title = take(&p, end)) || !(o.subtitle = take(&p, end)) ||
	    !(o.countname = take(&p, end))) {
		profile__free(prof);
		return 0;
	}
	o.colors = palettes[(data[0] >> 4) % (sizeof(palettes) / sizeof(palettes[0]))];
	o.inverted = data[0] & 1;
	o.reverse = data[0] & 2;
	o.flamechart = data[0] & 4;
	o.minwidth = data[0] & 8 ? -0.5 : 0;
	f = end > p ? fmemopen((void *)p, end - p, "r") : NULL;
	if (!f || folded_read__parse(f, "fuzz", prof, errbuf, sizeof(errbuf)) || !prof->nr) {
		profile__free(prof);
		prof = profile__new();
		profile__add(prof, "a;b", 3, 2, 0);
	}
	if (f)
		fclose(f);
	/* the palette nibble's last 4 values (palettes 0-3 again): counts are
	 * --off-cpu's microseconds */
	prof->time_weighted = !prof->diff && data[0] >> 4 >= 12;
	render(svg__write, prof, &o, check_svg);
	if (!prof->diff) {
		render(speedscope__write, prof, &o, check_json);
		render(pprof__write, prof, &o, check_pprof);
	}
	profile__free(prof);
	return 0;
}
