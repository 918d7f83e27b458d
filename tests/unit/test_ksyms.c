// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for ksyms: a kallsyms-format fixture written by the test
 * (text, data, weak and module symbols, aliases, unsorted and malformed
 * lines), a file with hidden addresses, an empty file, and the running
 * kernel's /proc/kallsyms when it is readable with real addresses.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	RUN(reader_thread);
	RUN(real_kallsyms);
	UNIT_EXIT();
}
