// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SVG flame graph output: draws flame.c's layout as a self-contained,
 * interactive SVG (hover details, click to zoom, regex search; the script
 * is src/flamegraph.js, embedded).  It behaves like flamegraph.pl's
 * pictures so that people who read those read these.
 *
 * Frame names are untrusted (any process names its functions): they are
 * written only as escaped XML text, always valid UTF-8, and never into the
 * script, which reads them back from the DOM.  Colours come from a hash of
 * the name, so the same function has the same colour in every graph.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "output/flame.h"
#include "lib/hash.h"
#include "output/svg.h"
#include "flamegraph_js.h" /* build/: src/flamegraph.js as bytes */

#define FRAME_H 16      /* a row: 15 px of frame and 1 px between rows */
#define FRAME_H_PX 15    /* FRAME_H - 1, spelled out for the output */
#define STR_(x) #x
#define STR(x) STR_(x)
#define FONT_SIZE 12
#define FONT_WIDTH 0.59 /* average glyph width per px of font size */
#define TEXT_Y 10.5     /* a label's baseline below its frame's top */
#define TITLE_MAX 8192  /* characters of a name in a title; longer: "…" */
#define OBUF_SIZE 65536

_Static_assert(FRAME_H_PX == FRAME_H - 1, "a frame is a row less one pixel");

struct palette {
	const char *name;
	uint8_t base[3], range[3]; /* r, g, b: base + range * v[src] */
	uint8_t src[3];            /* which hash value drives each channel */
};

/* The palettes flamegraph.pl users know, by their hues. */
static const struct palette palettes[] = {
	{ "hot", { 205, 0, 55 }, { 50, 230, 50 }, { 2, 0, 1 } },
	{ "mem", { 0, 190, 0 }, { 0, 50, 210 }, { 0, 1, 2 } },
	{ "io", { 80, 80, 190 }, { 60, 60, 55 }, { 0, 0, 1 } },
	{ "red", { 200, 50, 50 }, { 55, 80, 80 }, { 0, 0, 0 } },
	{ "green", { 50, 200, 50 }, { 60, 55, 60 }, { 0, 0, 0 } },
	{ "blue", { 80, 80, 205 }, { 60, 60, 50 }, { 0, 0, 0 } },
	{ "yellow", { 175, 175, 50 }, { 55, 55, 20 }, { 0, 0, 0 } },
	{ "purple", { 190, 80, 190 }, { 65, 60, 65 }, { 0, 0, 0 } },
	{ "aqua", { 50, 165, 165 }, { 60, 55, 55 }, { 0, 0, 0 } },
	{ "orange", { 190, 90, 0 }, { 65, 65, 0 }, { 0, 0, 0 } },
};
/*
 * Off-CPU waits ("[off-cpu:*]" and the frames above it): a sky blue of
 * their own, as flamegraph.pl's off-CPU graphs are blue, so that running
 * and waiting part at a glance whatever the palette.  Red and green move
 * together (green is always red + 70), which no palette above makes:
 * "blue", "io" and the kernel's blue have red = green, aqua green = blue.
 */
static const struct palette waiting_palette = { "waiting", { 70, 140, 210 }, { 40, 40, 40 },
						 { 0, 0, 1 } };

enum { PAL_HOT, PAL_MEM, PAL_IO, PAL_RED, PAL_GREEN, PAL_BLUE, PAL_YELLOW,
       PAL_PURPLE, PAL_AQUA, PAL_ORANGE };

/* Frames are written through this buffer with hand-made number
 * formatting: fprintf's float conversion took most of the time of a big
 * graph. */
struct obuf {
	FILE *out;
	size_t len;
	char buf[OBUF_SIZE];
};

struct svg {
	struct obuf *out;
	const struct flame *f;
	const struct palette *pal; /* NULL: the kernel palette */
	const char *title, *subtitle, *countname;
	unsigned width, height, ypad1, ypad2;
	double plot, scale; /* plot width; pixels per sample */
	bool inverted, diff;
	bool whole; /* counts are microseconds: shown whole, as written elsewhere */
};

/* ---- output ---- */

static void ob_flush(struct obuf *b)
{
	if (b->len)
		fwrite(b->buf, 1, b->len, b->out);
	b->len = 0;
}

/* Room for n more bytes (n <= OBUF_SIZE). */
static char *ob_room(struct obuf *b, size_t n)
{
	if (b->len + n > OBUF_SIZE)
		ob_flush(b);
	return b->buf + b->len;
}

static void ob_put(struct obuf *b, const void *s, size_t n)
{
	if (n > OBUF_SIZE) {
		ob_flush(b);
		fwrite(s, 1, n, b->out);
		return;
	}
	memcpy(ob_room(b, n), s, n);
	b->len += n;
}

static void ob_str(struct obuf *b, const char *s)
{
	ob_put(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static void ob_printf(struct obuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(ob_room(b, 1024), OBUF_SIZE - b->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < OBUF_SIZE - b->len) {
		b->len += n;
		return;
	}
	ob_flush(b);
	va_start(ap, fmt);
	vfprintf(b->out, fmt, ap);
	va_end(ap);
}

/* v (>= 0, < 1e15) with the given decimals (at most 3), rounded. */
static void ob_fixed(struct obuf *b, double v, int decimals)
{
	static const unsigned scale[] = { 1, 10, 100, 1000 };
	char tmp[32], *e = tmp + sizeof(tmp), *q = e;
	unsigned long long n = v > 0 && v < 1e15 ? (unsigned long long)(v * scale[decimals] + 0.5) : 0;

	for (int i = 0; i < decimals; i++, n /= 10)
		*--q = '0' + n % 10;
	if (decimals)
		*--q = '.';
	do
		*--q = '0' + n % 10;
	while (n /= 10);
	ob_put(b, q, e - q);
}

/* ---- text: escaped, valid UTF-8 ---- */

/* Decodes one character of s[0..len): U+FFFD for a control character, an
 * invalid sequence or a character XML forbids.  Returns the bytes taken. */
static size_t next_char(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned c = s[0], n, i;
	uint32_t v, min;

	*cp = 0xfffd;
	if (c < 0x80) {
		if (c >= 0x20 && c != 0x7f)
			*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 1, v = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 2, v = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 3, v = c & 0x07, min = 0x10000;
	else
		return 1;
	if (len <= n)
		return 1;
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 1;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) ||
	    v == 0xfffe || v == 0xffff || (v >= 0x80 && v <= 0x9f))
		return 1;
	*cp = v;
	return n + 1;
}

/* Writes up to max characters of s[0..len) as XML text; returns the bytes
 * of s written. */
static size_t put_text(struct obuf *out, const char *s, size_t len, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	for (size_t n = 0; i < len && n < max; n++) {
		uint32_t cp;
		size_t k;

		/* Most names are plain ASCII: copy such runs at once. */
		for (k = 0; i + k < len && n + k < max && u[i + k] >= 0x20 && u[i + k] < 0x7f &&
			    !strchr("&<>\"'", u[i + k]); k++)
			;
		if (k) {
			ob_put(out, u + i, k);
			i += k;
			n += k - 1;
			continue;
		}
		k = next_char(u + i, len - i, &cp);

		switch (cp) {
		case '&': ob_put(out, "&amp;", 5); break;
		case '<': ob_put(out, "&lt;", 4); break;
		case '>': ob_put(out, "&gt;", 4); break;
		case '"': ob_put(out, "&quot;", 6); break;
		case '\'': ob_put(out, "&apos;", 6); break;
		case 0xfffd: ob_put(out, "\xef\xbf\xbd", 3); break;
		default: ob_put(out, u + i, k);
		}
		i += k;
	}
	return i;
}

static void put_str(struct obuf *out, const char *s)
{
	put_text(out, s, strlen(s), SIZE_MAX);
}

/* Characters in s[0..len), counting no further than limit + 1. */
static size_t chars_upto(const char *s, size_t len, size_t limit)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0;
	uint32_t cp;

	for (size_t i = 0; i < len && n <= limit; n++)
		i += next_char(u + i, len - i, &cp);
	return n;
}

/* A count for people: whole numbers with thousands separators. */
static const char *fmt_count(char *buf, size_t size, double v)
{
	char digits[32];
	size_t n = 0, o = 0;
	unsigned long long u;

	if (v >= 1e18 || v != (double)(long long)v) {
		snprintf(buf, size, "%.2f", v);
		return buf;
	}
	u = (unsigned long long)v; /* whole and >= 0: no float formatting */
	do
		digits[n++] = '0' + u % 10;
	while (u /= 10);
	for (size_t i = 0, j = n - 1; i < j; i++, j--) {
		char t = digits[i];

		digits[i] = digits[j];
		digits[j] = t;
	}
	for (size_t i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* v rounded to the nearest whole number (v >= 0 and below 1e18; else as
 * it is, which fmt_count prints with decimals). */
static double whole(double v)
{
	return v >= 0 && v < 1e18 ? (double)(uint64_t)(v + 0.5) : v;
}

/* ---- colours ---- */

/* FNV-1a, then a 64-bit finalizer so that names differing in one last
 * byte ("a", "b") still get far-apart colours; the same name gives the
 * same colour in every graph. */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = hash__fnv1a(HASH_FNV_OFFSET, s, len);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static void pal_color(const struct palette *pal, const struct flame_frame *fr, int rgb[3])
{
	uint64_t h = name_hash(fr->name, fr->len);
	double v[3];

	for (int i = 0; i < 3; i++)
		v[i] = (double)((h >> (i * 21)) & 0x1fffff) / 0x1fffff;
	for (int i = 0; i < 3; i++)
		rgb[i] = pal->base[i] + (int)(pal->range[i] * v[pal->src[i]]);
}

/* "kernel": user frames warm, kernel ones blue (as `smolder flamegraph
 * --help` says; far from the warm hues), JIT green, Python aqua, inlined
 * yellow, "-" grey. */
static void kernel_color(const struct flame_frame *fr, int rgb[3])
{
	if (fr->flags & FLAME_DELIM) {
		rgb[0] = rgb[1] = rgb[2] = 160;
		return;
	}
	if (fr->flags & FLAME_JIT)
		pal_color(&palettes[PAL_GREEN], fr, rgb);
	else if (fr->flags & FLAME_PYTHON)
		pal_color(&palettes[PAL_AQUA], fr, rgb);
	else if (fr->flags & FLAME_INLINE)
		pal_color(&palettes[PAL_YELLOW], fr, rgb);
	else if (fr->flags & FLAME_KERNEL)
		pal_color(&palettes[PAL_BLUE], fr, rgb);
	else
		pal_color(&palettes[PAL_RED], fr, rgb);
}

/* Red where AFTER grew, blue where it shrank, deeper the larger the
 * change against the largest one; near-white where nothing changed. */
static void diff_color(const struct svg *g, const struct flame_frame *fr, int rgb[3])
{
	double d = fr->count - fr->before;
	int pale = g->f->max_delta > 0 ? (int)(210 * (1 - fabs(d) / g->f->max_delta) + 0.5) : 250;

	if (d > 0)
		rgb[0] = 255, rgb[1] = rgb[2] = pale;
	else if (d < 0)
		rgb[0] = rgb[1] = pale, rgb[2] = 255;
	else
		rgb[0] = rgb[1] = rgb[2] = 250;
}

static void frame_color(const struct svg *g, const struct flame_frame *fr, int rgb[3])
{
	if (g->diff)
		diff_color(g, fr, rgb);
	else if (fr->flags & FLAME_WAITING)
		pal_color(&waiting_palette, fr, rgb);
	else if (!g->pal)
		kernel_color(fr, rgb);
	else
		pal_color(g->pal, fr, rgb);
}

/* NULL for "kernel" (and "java", flamegraph.pl's name for its cousin). */
static const struct palette *find_palette(const char *name)
{
	if (name && (!strcmp(name, "kernel") || !strcmp(name, "java")))
		return NULL;
	for (size_t i = 0; name && i < sizeof(palettes) / sizeof(palettes[0]); i++)
		if (!strcmp(name, palettes[i].name))
			return &palettes[i];
	return &palettes[PAL_HOT];
}

/* ---- frames ---- */

static double frame_y(const struct svg *g, uint32_t depth)
{
	if (g->inverted)
		return g->ypad1 + (double)depth * FRAME_H;
	return g->height - g->ypad2 - (double)(depth + 1) * FRAME_H;
}

static double pct(double part, double total)
{
	return total > 0 ? 100 * part / total : 0;
}

/* "name (N samples, P%)"; a diff adds "; +D (+Q%)", Q of AFTER's total.
 * The script finds the name by this suffix: keep the two in step. */
static void write_title(const struct svg *g, const struct flame_frame *fr)
{
	char buf[96];
	size_t done = put_text(g->out, fr->name, fr->len, TITLE_MAX);
	double d = fr->count - fr->before;

	if (done < fr->len)
		ob_str(g->out, "\xe2\x80\xa6"); /* "…": the rest is left out */
	ob_str(g->out, " (");
	ob_str(g->out, fmt_count(buf, sizeof(buf), g->whole ? whole(fr->count) : fr->count));
	ob_str(g->out, " ");
	put_str(g->out, g->countname); /* --countname: escaped like any text */
	ob_str(g->out, ", ");
	ob_fixed(g->out, pct(fr->count, g->f->total), 2);
	ob_str(g->out, "%");
	if (g->diff)
		ob_printf(g->out, "; %s%s (%s%.2f%%)", d > 0 ? "+" : d < 0 ? "-" : "",
			  fmt_count(buf, sizeof(buf), fabs(d)), d > 0 ? "+" : d < 0 ? "-" : "",
			  pct(fabs(d), g->f->total));
	ob_str(g->out, ")");
}

/* The name as drawn: the "kernel" palette says "_[k]", "_[j]", "_[i]" and
 * "_[py]" by colour. */
static size_t label_len(const struct svg *g, const struct flame_frame *fr)
{
	size_t n = fr->len;

	if (!g->pal && (fr->flags & FLAME_PYTHON))
		return n - 5;
	if (!g->pal && n >= 4 && !memcmp(fr->name + n - 4, "_[", 2) &&
	    (fr->name[n - 2] == 'k' || fr->name[n - 2] == 'j' || fr->name[n - 2] == 'i') &&
	    fr->name[n - 1] == ']')
		n -= 4;
	return n;
}

/* The text inside the frame, cut to what fits with ".."; none below 3
 * characters.  The script redoes this when zooming changes widths. */
static void write_label(const struct svg *g, const struct flame_frame *fr,
			double x, double y, double w)
{
	size_t fit = (size_t)(w / (FONT_SIZE * FONT_WIDTH)), len = label_len(g, fr);

	if (fit < 3)
		return;
	ob_str(g->out, "<text x=\"");
	ob_fixed(g->out, x + 3, 3);
	ob_str(g->out, "\" y=\"");
	ob_fixed(g->out, y + TEXT_Y, 1);
	ob_str(g->out, "\">");
	if (chars_upto(fr->name, len, fit) <= fit) {
		put_text(g->out, fr->name, len, SIZE_MAX);
	} else {
		put_text(g->out, fr->name, len, fit - 2);
		ob_str(g->out, "..");
	}
	ob_str(g->out, "</text>");
}

/* A flame_visit: frames come children first, the root last. */
static int write_frame(void *ctx, const struct flame_frame *fr)
{
	const struct svg *g = ctx;
	double x = FLAME_XPAD + fr->x * g->scale, w = fr->count * g->scale;
	double y = frame_y(g, fr->depth);
	int rgb[3];

	frame_color(g, fr, rgb);
	ob_str(g->out, "<g><title>");
	write_title(g, fr);
	ob_str(g->out, "</title><rect x=\"");
	ob_fixed(g->out, x, 3);
	ob_str(g->out, "\" y=\"");
	ob_fixed(g->out, y, 0);
	ob_str(g->out, "\" width=\"");
	ob_fixed(g->out, w, 2);
	ob_str(g->out, "\" height=\"" STR(FRAME_H_PX) "\" fill=\"rgb(");
	for (int i = 0; i < 3; i++) {
		ob_fixed(g->out, rgb[i], 0);
		ob_str(g->out, i < 2 ? "," : ")\"/>");
	}
	write_label(g, fr, x, y, w);
	ob_str(g->out, "</g>\n");
	return 0;
}

/* ---- the document ---- */

static const char css[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; text-anchor: middle; }\n"
	"#subtitle { text-anchor: middle; fill: #808080; }\n"
	"#search, #matched, #resetsearch, #ignorecase { text-anchor: end; }\n"
	"#ignorecase.on { font-weight: bold; fill: #000; }\n"
	".ctl { cursor: pointer; fill: #404040; }\n"
	".ctl:hover { fill: #000; text-decoration: underline; }\n"
	".hide { display: none; }\n"
	".parent { opacity: 0.5; }\n"
	"#frames rect { rx: 2px; ry: 2px; }\n"
	"#frames text { pointer-events: none; }\n"
	"#frames g { cursor: pointer; }\n"
	"#frames g:hover rect { stroke: #000; stroke-width: 0.5; }\n";

static const char *default_title(const struct render_opts *o, bool diff)
{
	if (o && o->title && *o->title)
		return o->title;
	if (diff)
		return "Differential Flame Graph";
	if (o && o->flamechart)
		return "Flame Chart";
	if (o && o->inverted)
		return "Icicle Graph";
	return "Flame Graph";
}

static void write_head(const struct svg *g)
{
	struct obuf *out = g->out;
	unsigned w = g->width, h = g->height;

	ob_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" data-xpad=\"%d\" data-fh=\"%d\" "
		"data-font=\"%d\" data-fontw=\"%.2f\" data-texty=\"%.1f\" data-strip=\"%d\">\n",
		w, h, w, h, FLAME_XPAD, FRAME_H, FONT_SIZE, FONT_WIDTH, TEXT_Y, !g->pal);
	ob_printf(out, "<style>\n%s</style>\n", css);
	ob_printf(out, "<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		"<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
		"</linearGradient></defs>\n", "#eeeeee", g->diff ? "#e0e0ee" : "#eeeeb0");
	ob_printf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#background)\"/>\n",
		w, h);
	ob_printf(out, "<text id=\"title\" x=\"%.1f\" y=\"%d\">", w / 2.0, FONT_SIZE * 2);
	put_str(out, g->title);
	ob_str(out, "</text>\n");
	if (g->subtitle) {
		ob_printf(out, "<text id=\"subtitle\" x=\"%.1f\" y=\"%d\">", w / 2.0, FONT_SIZE * 4);
		put_str(out, g->subtitle);
		ob_str(out, "</text>\n");
	}
	ob_printf(out, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"unzoom\" class=\"ctl hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"%d\">Search</text>\n"
		"<text id=\"ignorecase\" class=\"ctl\" x=\"%d\" y=\"%d\">ic</text>\n"
		"<text id=\"resetsearch\" class=\"ctl hide\" x=\"%d\" y=\"%d\">Reset Search</text>\n"
		"<text id=\"matched\" class=\"hide\" x=\"%d\" y=\"%u\"> </text>\n",
		FLAME_XPAD, h - g->ypad2 / 2, FLAME_XPAD, FONT_SIZE * 2,
		w - FLAME_XPAD - 20, FONT_SIZE * 2, w - FLAME_XPAD, FONT_SIZE * 2,
		w - FLAME_XPAD - 80, FONT_SIZE * 2,
		w - FLAME_XPAD, h - g->ypad2 / 2);
}

/* The script goes last, in CDATA: it must not hold "]]>" (test_flame
 * checks). */
static void write_tail(const struct svg *g)
{
	ob_str(g->out, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	ob_put(g->out, flamegraph_js, sizeof(flamegraph_js));
	ob_str(g->out, "]]></script>\n</svg>\n");
	ob_flush(g->out);
}

/* Counts read "N samples" in titles, or "N us" when they are microseconds
 * (--off-cpu; --countname names them otherwise, as flamegraph.pl's does);
 * the script finds the count by the parentheses around it, so the count's
 * name has none. */
static void set_countname(char *dst, size_t size, const char *name, bool time_weighted)
{
	size_t i = 0;

	if (!name || !*name)
		name = time_weighted ? FORMAT_TIME_UNIT : "samples";
	for (; name[i] && i + 1 < size; i++)
		dst[i] = name[i] == '(' ? '[' : name[i] == ')' ? ']' : name[i];
	dst[i] = '\0';
}

int svg__write(FILE *out, const struct profile *p, const struct render_opts *o)
{
	char countname[128], described[512];
	int err;
	struct obuf *ob = malloc(sizeof(*ob));
	struct flame *f = ob ? flame__new(p, o) : NULL;
	struct svg g = {
		.out = ob, .f = f, .pal = find_palette(o ? o->colors : NULL),
		.title = default_title(o, p->diff), .diff = p->diff,
		/* --subtitle, else what the profile shows */
		.subtitle = o && o->subtitle && *o->subtitle ? o->subtitle : described,
		.width = o && o->width ? o->width : FLAME_DEFAULT_WIDTH,
		.plot = flame__plot_width(o), .inverted = o && o->inverted,
		.countname = countname, .whole = p->time_weighted,
	};

	if (!f) {
		free(ob);
		return -ENOMEM;
	}
	ob->out = out;
	ob->len = 0;
	format__describe(p, described, sizeof(described));
	if (g.subtitle == described && !*described)
		g.subtitle = NULL;
	set_countname(countname, sizeof(countname), o ? o->countname : NULL, p->time_weighted);
	g.scale = f->total > 0 ? g.plot / f->total : 0;
	g.ypad1 = FONT_SIZE * 3 + (g.subtitle ? FONT_SIZE * 2 : 0);
	g.ypad2 = FONT_SIZE * 2 + 10;
	g.height = (f->max_depth + 1) * FRAME_H + g.ypad1 + g.ypad2;
	write_head(&g);
	ob_str(ob, "<g id=\"frames\">\n");
	err = flame__walk(f, write_frame, &g);
	write_tail(&g);
	flame__free(f);
	free(ob);
	return err ? err : ferror(out) ? -1 : 0;
}
