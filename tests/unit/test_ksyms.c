// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for ksyms: a kallsyms-format fixture written by the test
 * (text, data, weak and module symbols, aliases, unsorted and malformed
 * lines), a file with hidden addresses, an empty file, and the running
 * kernel's /proc/kallsyms when it is readable with real addresses.  The
 * compact table (addresses in gap-coded blocks, names coded and decoded
 * per block) is checked symbol by symbol against a plain parse of the
 * same file: the fixtures, generated hostile files, and a copy of
 * /proc/kallsyms.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "symbols/ksyms.h"
#include "symbols/ksyms_reader.h"
#include "unit.h"

static const char fixture[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 t _text_alias\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T func_a\n"
	"ffffffff81000200 t func_b\n"
	"ffffffff81000280 W weak_fn\n"
	"ffffffff81000300 D data_sym\n"
	"ffffffff81000400 d local_data\n"
	"ffffffff81000480 R ro_data\n"
	"ffffffff81000500 b bss_sym\n"
	"this line is garbage\n"
	"ffffffff81000600 T\n"
	"zzzzzzzzzzzzzzzz T bad_addr\n"
	"ffffffff81000700 T mod_broken\t[unterminated\n"
	"\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffffc0001100 T mod_fn2\t[mymod]\n"
	"ffffffffc0002000 t other_fn\t[othermod]\n"
	"ffffffff81000050 T unsorted_fn\n"
	"ffffffff81000800 T last_fn"; /* no final newline */

static char *write_fixture(const char *text)
{
	char *path = strdup("/tmp/smolder-ksyms-XXXXXX");
	FILE *f;
	int fd;

	fd = mkstemp(path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static struct ksyms *load_text(const char *text)
{
	char *path = write_fixture(text);
	struct ksyms *ks;

	if (!path)
		return NULL;
	ks = ksyms__load_file(path);
	unlink(path);
	free(path);
	return ks;
}

static const char *name_at(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *s = ksyms__map_addr(ks, addr);

	return s ? s->name : NULL;
}

TEST(fixture_lookups)
{
	struct ksyms *ks = load_text(fixture);
	const struct ksym *s;

	CHECK(ks != NULL);
	if (!ks)
		return;
	/* _stext, _text_alias, func_a, func_b, weak_fn, unsorted_fn, last_fn,
	 * mod_fn, mod_fn2, other_fn */
	CHECK(ksyms__count(ks) == 10);
	CHECK(!ksyms__addresses_hidden(ks));
	CHECK_STR(name_at(ks, 0xffffffff81000000), "_stext"); /* global alias wins */
	CHECK_STR(name_at(ks, 0xffffffff81000010), "_stext");
	CHECK_STR(name_at(ks, 0xffffffff81000050), "unsorted_fn");
	CHECK_STR(name_at(ks, 0xffffffff810000ff), "unsorted_fn");
	CHECK_STR(name_at(ks, 0xffffffff81000100), "func_a");
	CHECK_STR(name_at(ks, 0xffffffff81000150), "func_a");
	CHECK_STR(name_at(ks, 0xffffffff81000200), "func_b");
	CHECK_STR(name_at(ks, 0xffffffff81000280), "weak_fn");
	/* data symbols are not kept: their addresses fall to the text before */
	CHECK_STR(name_at(ks, 0xffffffff81000300), "weak_fn");
	CHECK_STR(name_at(ks, 0xffffffff81000450), "weak_fn");
	CHECK_STR(name_at(ks, 0xffffffff81000900), "last_fn");
	CHECK(ksyms__map_addr(ks, 0xffffffff80ffffff) == NULL);
	CHECK(ksyms__map_addr(ks, 0) == NULL);

	s = ksyms__map_addr(ks, 0xffffffffc0001050);
	CHECK(s && !strcmp(s->name, "mod_fn") && s->module &&
	      !strcmp(s->module, "mymod"));
	s = ksyms__map_addr(ks, 0xffffffffc0001100);
	CHECK(s && !strcmp(s->name, "mod_fn2") && s->module &&
	      !strcmp(s->module, "mymod"));
	s = ksyms__map_addr(ks, 0xffffffffc0ffffff);
	CHECK(s && !strcmp(s->name, "other_fn") && s->module &&
	      !strcmp(s->module, "othermod"));
	s = ksyms__map_addr(ks, 0xffffffff81000100);
	CHECK(s && s->module == NULL && s->addr == 0xffffffff81000100);

	s = ksyms__get_symbol(ks, "func_b");
	CHECK(s && s->addr == 0xffffffff81000200);
	CHECK(ksyms__get_symbol(ks, "_text_alias") != NULL);
	CHECK(ksyms__get_symbol(ks, "data_sym") == NULL);
	CHECK(ksyms__get_symbol(ks, "local_data") == NULL);
	CHECK(ksyms__get_symbol(ks, "bss_sym") == NULL);
	CHECK(ksyms__get_symbol(ks, "bad_addr") == NULL);
	CHECK(ksyms__get_symbol(ks, "mod_broken") == NULL);
	CHECK(ksyms__get_symbol(ks, "no_such_symbol") == NULL);
	ksyms__free(ks);
}

TEST(hidden_addresses)
{
	struct ksyms *ks = load_text("0000000000000000 T _stext\n"
				     "0000000000000000 t func_a\n"
				     "0000000000000000 D data\n");

	CHECK(ks != NULL);
	if (!ks)
		return;
	CHECK(ksyms__addresses_hidden(ks));
	CHECK(ksyms__count(ks) == 2);
	CHECK(ksyms__map_addr(ks, 0xffffffff81000000) == NULL);
	ksyms__free(ks);
}

TEST(empty_and_missing)
{
	struct ksyms *ks = load_text("");

	CHECK(ks != NULL);
	CHECK(ksyms__count(ks) == 0);
	CHECK(!ksyms__addresses_hidden(ks));
	CHECK(ksyms__map_addr(ks, 0xffffffff81000000) == NULL);
	CHECK(ksyms__get_symbol(ks, "x") == NULL);
	ksyms__free(ks);

	errno = 0;
	ks = ksyms__load_file("/nonexistent/kallsyms");
	CHECK(ks == NULL && errno == ENOENT);
	CHECK(ksyms__map_addr(NULL, 1) == NULL);
	CHECK(ksyms__count(NULL) == 0);
	ksyms__free(NULL);
}

/*
 * A file bigger than the 64 KiB read buffer: lines that straddle reads, a
 * line too long to be kallsyms (skipped, and the next one read), and an
 * unsorted tail, as BPF programs and trampolines leave it, whose alias of
 * an earlier address must still lose to the earlier global name.
 */
TEST(chunks_long_lines_and_unsorted_tail)
{
	enum { NR = 10000, LONG = 100000 };
	size_t cap = NR * 48 + LONG + 4096, len = 0;
	char *text = malloc(cap), want[32];
	const struct ksym *s;
	struct ksyms *ks;
	int bad = 0;

	if (!text)
		return;
	for (int i = 0; i < NR; i++) {
		len += snprintf(text + len, cap - len, "ffffffff81%06x %c fn_%d\n", i * 16,
				i % 2 ? 't' : 'T', i);
		if (i == NR / 2) {
			len += snprintf(text + len, cap - len, "ffffffff8f000000 T ");
			memset(text + len, 'x', LONG);
			len += LONG;
			text[len++] = '\n';
		}
	}
	len += snprintf(text + len, cap - len,
			"ffffffffc0000000 t tramp\t[__builtin__ftrace]\n"
			"ffffffff81000010 t bpf_late\t[bpf]\n"
			"ffffffff81000020 t bpf_alias\t[bpf]\n");
	ks = load_text(text);
	free(text);
	CHECK(ks != NULL);
	if (!ks)
		return;
	CHECK(ksyms__count(ks) == NR + 3);
	for (int i = 0; i < NR; i++) {
		snprintf(want, sizeof(want), "fn_%d", i);
		s = ksyms__map_addr(ks, 0xffffffff81000000ULL + i * 16 + 3);
		/* fn_1's address also has bpf_late, listed later: the first name wins */
		bad += !s || strcmp(s->name, want) || s->module;
	}
	CHECK(bad == 0);
	s = ksyms__map_addr(ks, 0xffffffffc0000001ULL);
	CHECK_STR(s ? s->name : NULL, "tramp");
	CHECK_STR(s ? s->module : NULL, "__builtin__ftrace");
	/* fn_2 is global (T), the later bpf_alias local: fn_2 stays first */
	s = ksyms__map_addr(ks, 0xffffffff81000020ULL);
	CHECK_STR(s ? s->name : NULL, "fn_2");
	CHECK(ksyms__get_symbol(ks, "bpf_late") != NULL);
	ksyms__free(ks);
}

static double elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

/* "__pfx_NAME" before NAME (function padding): NAME is kept as the tail of
 * the padding's string, and both still name their own addresses; a
 * "__pfx_" name followed by another function shares nothing. */
TEST(padding_names)
{
	struct ksyms *ks = load_text("ffffffff81000ff0 t __pfx_foo\n"
				     "ffffffff81001000 T foo\n"
				     "ffffffff81001ff0 t __pfx_bar\n"
				     "ffffffff81002000 t baz\n"
				     "ffffffff81002100 d data_between\n"
				     "ffffffff81002ff0 t __pfx_qux\n"
				     "ffffffff81003000 t qux\n"
				     "ffffffffc0000ff0 t __pfx_mfn\t[m]\n"
				     "ffffffffc0001000 t mfn\t[m]\n");
	const struct ksym *s;

	CHECK(ks != NULL);
	if (!ks)
		return;
	CHECK(ksyms__count(ks) == 8);
	CHECK_STR(name_at(ks, 0xffffffff81000ff8), "__pfx_foo");
	CHECK_STR(name_at(ks, 0xffffffff81001010), "foo");
	CHECK_STR(name_at(ks, 0xffffffff81001ff8), "__pfx_bar");
	CHECK_STR(name_at(ks, 0xffffffff81002000), "baz");
	CHECK_STR(name_at(ks, 0xffffffff81002ff0), "__pfx_qux");
	CHECK_STR(name_at(ks, 0xffffffff81003004), "qux");
	s = ksyms__map_addr(ks, 0xffffffffc0001000);
	CHECK(s && !strcmp(s->name, "mfn") && s->module && !strcmp(s->module, "m"));
	s = ksyms__map_addr(ks, 0xffffffffc0000ff0);
	CHECK(s && !strcmp(s->name, "__pfx_mfn") && s->module && !strcmp(s->module, "m"));
	CHECK(ksyms__get_symbol(ks, "foo") && ksyms__get_symbol(ks, "foo")->addr == 0xffffffff81001000);
	ksyms__free(ks);
}

/*
 * The plain parse the table is checked against: the file read whole, one
 * line at a time, each symbol an entry of its own with its name and
 * module copied.  The format, as the kernel writes it: ADDR (hex, at most
 * 16 digits), a space, TYPE, a space, NAME (up to a tab, a space or a CR),
 * then, after blanks, [MODULE]; a NUL ends a name as it ends a C string;
 * a line of 64 KiB or more is not kallsyms.  Text is t, T, w and W.
 */
struct ref_sym {
	uint64_t addr;
	size_t seq; /* the file's order */
	bool global;
	char *name, *module;
};

struct ref {
	struct ref_sym *syms;
	size_t nr;
	bool hidden;
};

#define REF_LINE_MAX (64 << 10)

static bool ref_line(const char *l, size_t len, struct ref_sym *s, char *type)
{
	size_t i = 0, n0, m0;

	s->addr = 0;
	for (; i < len && i < 16 && isxdigit((unsigned char)l[i]); i++)
		s->addr = s->addr << 4 | (isdigit((unsigned char)l[i]) ? l[i] - '0'
								 : (tolower((unsigned char)l[i]) - 'a' + 10));
	if (i == 0 || i + 3 > len || l[i] != ' ' || l[i + 2] != ' ')
		return false;
	*type = l[i + 1];
	for (n0 = i += 3; i < len && l[i] != '\t' && l[i] != ' ' && l[i] != '\r'; i++)
		;
	if (i == n0)
		return false;
	s->name = strndup(l + n0, i - n0);
	s->module = NULL;
	while (i < len && (l[i] == '\t' || l[i] == ' '))
		i++;
	if (i < len && l[i] == '[') {
		for (m0 = ++i; i < len && l[i] != ']'; i++)
			;
		if (i == len || i == m0) {
			free(s->name);
			return false;
		}
		s->module = strndup(l + m0, i - m0);
	}
	return true;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct ref_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The text symbols of path, sorted by address and then file order. */
static bool ref_load(const char *path, struct ref *r)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, *p, *end, *nl;
	size_t len = 0, cap = 0, n;
	bool any = false, nonzero = false;

	memset(r, 0, sizeof(*r));
	if (!f)
		return false;
	for (;;) {
		if (len == cap && !(text = realloc(text, cap = cap ? cap * 2 : 1 << 20)))
			return false;
		if (!(n = fread(text + len, 1, cap - len, f)))
			break;
		len += n;
	}
	fclose(f);
	r->syms = calloc(len / 4 + 1, sizeof(*r->syms)); /* a line has 4 bytes or more */
	for (p = text, end = text + len; r->syms && p < end; p = nl + 1) {
		struct ref_sym s = { .seq = r->nr };
		char type;

		if (!(nl = memchr(p, '\n', end - p)))
			nl = end;
		if (nl - p >= REF_LINE_MAX || !ref_line(p, nl - p, &s, &type))
			continue;
		any = true;
		nonzero |= s.addr != 0;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W') {
			free(s.name);
			free(s.module);
			continue;
		}
		s.global = type == 'T' || type == 'W';
		r->syms[r->nr++] = s;
	}
	free(text);
	qsort(r->syms, r->nr, sizeof(*r->syms), ref_cmp);
	r->hidden = any && !nonzero;
	return r->syms != NULL;
}

static void ref_free(struct ref *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->syms[i].name);
		free(r->syms[i].module);
	}
	free(r->syms);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Mismatches of ks's lookup at q against the reference's symbol want. */
static int ref_check_at(const struct ksyms *ks, uint64_t q, const struct ref_sym *want)
{
	const struct ksym *s = ksyms__map_addr(ks, q);

	if (want ? s && s->addr == want->addr && same_str(s->name, want->name) &&
			   same_str(s->module, want->module)
		 : !s)
		return 0;
	printf("  at %#llx: got %s [%s] at %#llx, want %s [%s]\n", (unsigned long long)q,
	       s ? s->name : "(none)", s && s->module ? s->module : "", s ? (unsigned long long)s->addr : 0ULL,
	       want ? want->name : "(none)", want && want->module ? want->module : "");
	return 1;
}

/*
 * Every address of path's table against the plain parse: at each address
 * and at the byte before the next, the symbol is the first global of its
 * aliases (else the first listed), with its name and module; below the
 * first, none; with hidden addresses, none anywhere.  Also a sample of
 * names by ksyms__get_symbol (of equal names, the lowest address).  The count of
 * mismatches, the first few printed.
 */
static int ref_compare(const char *path)
{
	struct ksyms *ks = ksyms__load_file(path);
	struct ref r;
	int bad = 0;

	if (!ks || !ref_load(path, &r)) {
		printf("  %s: cannot load\n", path);
		ksyms__free(ks);
		return 1;
	}
	if (ksyms__count(ks) != r.nr || !ksyms__addresses_hidden(ks) != !r.hidden) {
		printf("  %zu symbols (hidden %d), want %zu (hidden %d)\n", ksyms__count(ks),
		       ksyms__addresses_hidden(ks), r.nr, r.hidden);
		bad++;
	}
	if (r.nr && r.syms[0].addr > 0)
		bad += ref_check_at(ks, r.syms[0].addr - 1, NULL);
	for (size_t i = 0, j; i < r.nr && bad < 5; i = j) {
		const struct ref_sym *want = &r.syms[i];

		for (j = i; j < r.nr && r.syms[j].addr == r.syms[i].addr; j++)
			if (!want->global && r.syms[j].global)
				want = &r.syms[j];
		bad += ref_check_at(ks, r.syms[i].addr, r.hidden ? NULL : want);
		bad += ref_check_at(ks, j < r.nr ? r.syms[j].addr - 1 : UINT64_MAX, r.hidden ? NULL : want);
	}
	for (size_t i = 0; i < r.nr && bad < 5; i += r.nr / 40 + 1) {
		const struct ref_sym *first = NULL;
		const struct ksym *s = ksyms__get_symbol(ks, r.syms[i].name);

		for (size_t k = 0; k < r.nr; k++)
			if (!first && !strcmp(r.syms[k].name, r.syms[i].name))
				first = &r.syms[k];
		if (!s || s->addr != first->addr || !same_str(s->name, first->name)) {
			printf("  by name %s: got %s at %#llx, want %#llx\n", first->name, s ? s->name : "(none)",
			       s ? (unsigned long long)s->addr : 0ULL, (unsigned long long)first->addr);
			bad++;
		}
	}
	ref_free(&r);
	ksyms__free(ks);
	return bad;
}

static int ref_compare_text(const char *text, size_t len)
{
	char *path = strdup("/tmp/smolder-ksyms-XXXXXX");
	int fd = path ? mkstemp(path) : -1, bad;

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		printf("  cannot write a fixture\n");
		free(path);
		return 1;
	}
	close(fd);
	bad = ref_compare(path);
	unlink(path);
	free(path);
	return bad;
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A name: mostly kernel-like, sometimes hostile (NUL, high bytes, long). */
static size_t gen_name(char *out, size_t cap)
{
	static const char *const words[] = { "tcp", "v4", "do", "sys", "init", "__", "ext4",
					     "rcv", "x", "show", "store", "_", "irq", "0", "9" };
	size_t len = 0, n = 1 + rng() % 6;

	switch (rng() % 40) {
	case 0: /* a NUL inside: the name ends there */
		return snprintf(out, cap, "nul%c%s", '\0', "tail") ;
	case 1: /* bytes past ASCII */
		return snprintf(out, cap, "hi\xff\x80\xc3\xa9_%u", (unsigned int)(rng() % 100));
	case 2: /* long, past the 255 bytes a header shares, under a line's bound */
		len = 256 + rng() % 3000;
		memset(out, 'L', len);
		out[len - 1] = 'z';
		return len;
	case 3:
		return snprintf(out, cap, "__pfx_");
	case 4:
		return snprintf(out, cap, "__pfx___pfx_%u", (unsigned int)(rng() % 4));
	case 5: /* a NUL first: an empty name */
		return snprintf(out, cap, "%cafter", '\0');
	}
	for (size_t i = 0; i < n; i++)
		len += snprintf(out + len, cap - len, "%s%s", i ? "_" : "", words[rng() % 15]);
	return len;
}

static const char *const types = "tTwWtTtdDbBrRA?";

/* One line: a symbol, its padding, aliases, or something malformed. */
static size_t gen_line(char *out, size_t cap, uint64_t *addr, bool tail)
{
	char name[4096], mod[64] = "";
	size_t nlen = gen_name(name, sizeof(name)), len;
	char type = types[rng() % 15];
	uint64_t a;

	if (tail) /* modules, BPF: anywhere, often on an address already listed */
		a = rng() % 3 ? 0xffffffff81000000ULL + (rng() % 4096) * 16 : rng();
	else if (rng() % 4) /* sorted, with aliases and far jumps */
		a = *addr += rng() % 5 ? (rng() % 2048) & ~15ULL : rng() % 3 ? 0 : rng() >> 20;
	else
		a = *addr;
	if (rng() % 3 == 0)
		snprintf(mod, sizeof(mod), "\t[m%u]", (unsigned int)(rng() % 3));
	switch (rng() % 30) {
	case 0:
		return snprintf(out, cap, "garbage line %u", (unsigned int)rng());
	case 1:
		return snprintf(out, cap, "%016llx T", (unsigned long long)a);
	case 2:
		return snprintf(out, cap, "%016llx T name\t[unterminated", (unsigned long long)a);
	case 3:
		return snprintf(out, cap, "%016llx T name\t[]", (unsigned long long)a);
	case 4:
		return snprintf(out, cap, "1%016llx T seventeen", (unsigned long long)a);
	case 5:
		return snprintf(out, cap, "%llX t upper_%u\r", (unsigned long long)a, (unsigned int)(rng() % 9));
	case 6:
		return snprintf(out, cap, "%llx t spaced  \t [m9]  trailing", (unsigned long long)a);
	case 7: /* "__pfx_NAME" then NAME, the padding's pair */
		len = snprintf(out, cap, "%016llx t __pfx_", (unsigned long long)a);
		memcpy(out + len, name, nlen);
		len += nlen;
		len += snprintf(out + len, cap - len, "%s\n%016llx %c ", mod, (unsigned long long)a + 16,
				type);
		*addr = tail ? *addr : a + 16;
		break;
	default:
		len = snprintf(out, cap, "%016llx %c ", (unsigned long long)a, type);
	}
	memcpy(out + len, name, nlen);
	len += nlen;
	return len + snprintf(out + len, cap - len, "%s", mod);
}

/*
 * Generated files, each of thousands of lines, sorted and then an
 * unsorted tail: every line kind above, at random (seeded: the same each
 * run), as a hostile or damaged kallsyms could hold them.
 */
TEST(compact_table_matches_plain_parse_generated)
{
	enum { LINES = 6000, LINE_MAX = 8192 };
	size_t cap = (size_t)LINES * LINE_MAX + 80000, len;
	char *text = malloc(cap);
	int bad = 0;

	if (!text)
		return;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		uint64_t addr = 0xffffffff81000000ULL;
		size_t tail_from = LINES - (seed % 3) * LINES / 4; /* none, a quarter, a half */

		rng_state = seed * 0x9e3779b97f4a7c15ULL;
		len = 0;
		for (size_t i = 0; i < LINES; i++) {
			len += gen_line(text + len, cap - len - 1, &addr, i >= tail_from);
			text[len++] = '\n';
			if (seed == 4 && i == LINES / 2) { /* a line over the 64 KiB bound */
				len += snprintf(text + len, cap - len, "ffffffff8f000000 T ");
				memset(text + len, 'x', 70000);
				len += 70000;
				text[len++] = '\n';
			}
		}
		if (seed == 5) /* no final newline */
			len -= 1;
		bad += ref_compare_text(text, len);
	}
	free(text);
	CHECK(bad == 0);
}

/* The fixtures above (aliases, data, malformed lines, an unsorted tail,
 * padding pairs, hidden addresses) against the plain parse too. */
TEST(compact_table_matches_plain_parse_fixtures)
{
	static const char padding[] = "ffffffff81000ff0 t __pfx_foo\n"
				      "ffffffff81001000 T foo\n"
				      "ffffffff81001ff0 t __pfx_bar\n"
				      "ffffffff81002000 t baz\n"
				      "ffffffffc0000ff0 t __pfx_mfn\t[m]\n"
				      "ffffffffc0001000 t mfn\t[m]\n";
	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t func_a\n";
	/* 100 aliases over four blocks, the global one 70th; addresses 2^63
	 * apart in one block */
	char many[8192];
	size_t len = 0;

	for (int i = 0; i < 100; i++)
		len += snprintf(many + len, sizeof(many) - len, "ffffffff81000000 %c alias_%d\n",
				i == 69 ? 'T' : 't', i);
	len += snprintf(many + len, sizeof(many) - len,
			"0000000000001000 t low\nffffffffffffff00 t high\n8000000000000000 t mid\n");
	CHECK(ref_compare_text(fixture, strlen(fixture)) == 0);
	CHECK(ref_compare_text(padding, strlen(padding)) == 0);
	CHECK(ref_compare_text(hidden, strlen(hidden)) == 0);
	CHECK(ref_compare_text(many, len) == 0);
	CHECK(ref_compare_text("", 0) == 0);
}

/* A copy of the running kernel's /proc/kallsyms (a copy: both parses read
 * the same text), every symbol against the plain parse. */
TEST(compact_table_matches_plain_parse_real)
{
	char path[] = "/tmp/smolder-kallsyms-XXXXXX", buf[65536];
	int in = open("/proc/kallsyms", O_RDONLY), out = mkstemp(path);
	ssize_t n;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0) {
		close(out);
		if (geteuid() == 0)
			CHECK(ref_compare(path) == 0);
		else
			printf("  skipped: not root, /proc/kallsyms hides its addresses\n");
		unlink(path);
	}
}

/*
 * The read in a thread (ksyms_reader.h) gives the table a read in place
 * gives, whether it is kept or read again at the end (unprivileged, BPF
 * programs cannot be listed: then always read again); a missing file is
 * NULL with its errno, as ksyms__load_file.
 */
TEST(reader_thread)
{
	char *path = write_fixture(fixture);
	struct ksyms_reader *r;
	struct ksyms *ks;

	CHECK(path != NULL);
	if (!path)
		return;
	r = ksyms_reader__start(path);
	CHECK(r != NULL);
	ks = r ? ksyms_reader__finish(r) : NULL;
	unlink(path);
	free(path);
	CHECK(ks != NULL);
	CHECK(ksyms__count(ks) == 10);
	CHECK_STR(name_at(ks, 0xffffffff81000250), "func_b");
	CHECK_STR(name_at(ks, 0xffffffff81000050), "unsorted_fn");
	ksyms__free(ks);

	r = ksyms_reader__start("/nonexistent/kallsyms");
	CHECK(r != NULL);
	errno = 0;
	ks = r ? ksyms_reader__finish(r) : NULL;
	CHECK(ks == NULL && errno == ENOENT);
}

TEST(real_kallsyms)
{
	const struct ksym *s, *m;
	struct timespec t0, t1;
	struct ksyms *ks;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ks = ksyms__load();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ks || ksyms__addresses_hidden(ks) || geteuid() != 0) {
		printf("  skipped: /proc/kallsyms unreadable or addresses hidden\n");
		ksyms__free(ks);
		return;
	}
	printf("  /proc/kallsyms: %zu text symbols in %.1f ms\n",
	       ksyms__count(ks), elapsed_ms(&t0, &t1));
	CHECK(ksyms__count(ks) > 1000);
	s = ksyms__get_symbol(ks, "schedule");
	CHECK(s != NULL);
	if (s) {
		CHECK(s->module == NULL);
		m = ksyms__map_addr(ks, s->addr);
		CHECK(m && m->addr == s->addr);
		CHECK_STR(m ? m->name : NULL, "schedule");
		m = ksyms__map_addr(ks, s->addr + 1);
		CHECK_STR(m ? m->name : NULL, "schedule");
	}
	ksyms__free(ks);
}

int main(void)
{
	RUN(fixture_lookups);
	RUN(hidden_addresses);
	RUN(empty_and_missing);
	RUN(chunks_long_lines_and_unsorted_tail);
	RUN(padding_names);
	RUN(compact_table_matches_plain_parse_fixtures);
	RUN(compact_table_matches_plain_parse_generated);
	RUN(compact_table_matches_plain_parse_real);
	RUN(reader_thread);
	RUN(real_kallsyms);
	UNIT_EXIT();
}
