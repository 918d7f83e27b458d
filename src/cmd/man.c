// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The man page, smolder(1), in roff with the man macros (see man.h), from
 * help_text.c's tables: what --help says of each command, laid out as
 * sections, and what only the manual says.  The formatter fills the
 * paragraphs; this file only escapes and marks up.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cmd/help_text.h"
#include "cmd/man.h"

/* Characters roff would take as its own, or draw as typographic quotes,
 * hyphens and accents that do not paste back into a shell.  literal: a
 * dash typed on a command line, a real minus sign. */
static void put_char(FILE *out, char c, bool literal)
{
	switch (c) {
	case '\\': fputs("\\e", out); break;
	case '-': fputs(literal ? "\\-" : "-", out); break;
	case '\'': fputs("\\(aq", out); break;
	case '`': fputs("\\(ga", out); break;
	case '^': fputs("\\(ha", out); break;
	case '~': fputs("\\(ti", out); break;
	default: putc(c, out);
	}
}

static bool word_start(const char *p, const char *start)
{
	return p == start || strchr(" \n([/\"`'", p[-1]);
}

static bool option_char(char c)
{
	return isalnum((unsigned char)c) || c == '-';
}

/* Prose: an option it names ("-p", "--off-cpu" at a word's start) is bold,
 * its dashes minus signs; a line starting with a control character of
 * roff's stays text. */
static void put_text(FILE *out, const char *s)
{
	for (const char *p = s; *p; p++) {
		if ((p == s || p[-1] == '\n') && (*p == '.' || *p == '\''))
			fputs("\\&", out);
		if (*p == '-' && word_start(p, s) && option_char(p[1])) {
			size_t n = 1;

			while (option_char(p[n]))
				n++;
			fputs("\\fB", out);
			for (size_t i = 0; i < n; i++)
				put_char(out, p[i], true);
			fputs("\\fR", out);
			p += n - 1;
			continue;
		}
		put_char(out, *p, *p == '-' && word_start(p, s));
	}
}

/* An upper-case word in a command line is a placeholder (PID, FILE),
 * unless it is one letter of an option (-F) or inside a word (-dfK). */
static bool placeholder_at(const char *p, const char *start)
{
	if (!isupper((unsigned char)*p) || (p > start && isalnum((unsigned char)p[-1])))
		return false;
	return !(p > start && p[-1] == '-' && !isupper((unsigned char)p[1]));
}

/* A command line, option or argument: typed as it is (bold) but for its
 * placeholders (italic). */
static void put_code(FILE *out, const char *s)
{
	bool italic = false;

	fputs("\\fB", out);
	for (const char *p = s; *p; p++) {
		bool next = italic ? isalnum((unsigned char)*p) || *p == '_' : placeholder_at(p, s);

		if (next != italic)
			fputs(next ? "\\fI" : "\\fB", out);
		italic = next;
		put_char(out, *p, true);
	}
	fputs("\\fR", out);
}

/* A usage form: its command words bold, the rest placeholders, in
 * brackets or not. */
static void put_usage(FILE *out, const char *s)
{
	bool bracketed = false;

	for (const char *p = s; *p; p++) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		bracketed |= *p == '[';
		bracketed &= *p != ']';
		if (!n && !strncmp(p, "--", 2)) {
			fputs("\\fB\\-\\-\\fR", out);
			p++;
		} else if (!n) {
			put_char(out, *p, true);
		} else {
			fprintf(out, bracketed || isupper((unsigned char)*p) ? "\\fI%.*s\\fR" : "\\fB%.*s\\fR",
				(int)n, p);
			p += n - 1;
		}
	}
}

static void put_option(FILE *out, const struct help_option *o)
{
	fputs(".TP\n", out);
	if (o->short_name)
		put_code(out, o->short_name);
	if (o->short_name && o->long_name)
		fputs(", ", out);
	if (o->long_name)
		put_code(out, o->long_name);
	if (o->arg) {
		putc(' ', out);
		put_code(out, o->arg);
	}
	putc('\n', out);
	put_text(out, o->text);
	putc('\n', out);
}

static void put_example(FILE *out, const struct help_example *e)
{
	fputs(".PP\n.nf\n", out);
	put_code(out, e->command);
	fputs("\n.fi\n", out);
	if (e->text) {
		fputs(".RS\n", out);
		put_text(out, e->text);
		fputs("\n.RE\n", out);
	}
}

/* A block's paragraph or list, without its heading. */
static void put_body(FILE *out, const struct help_block *b)
{
	if (b->kind == HELP_TEXT) {
		fputs(".PP\n", out);
		put_text(out, b->text);
		putc('\n', out);
	} else if (b->kind == HELP_OPTIONS) {
		for (const struct help_option *o = b->options; o->text; o++)
			put_option(out, o);
	} else {
		for (const struct help_example *e = b->examples; e->command; e++)
			put_example(out, e);
	}
}

static void put_heading(FILE *out, const char *macro, const char *heading)
{
	fprintf(out, ".%s \"", macro);
	put_text(out, heading); /* no heading holds a quote */
	fputs("\"\n", out);
}

static bool page_has(const struct help_page_text *p, const struct help_block *b)
{
	for (const struct help_block *const *i = p->blocks; *i; i++)
		if (*i == b)
			return true;
	return false;
}

/* The blocks of page of one kind, those with a heading in subsections. */
static void put_blocks(FILE *out, const struct help_page_text *p, enum help_block_kind kind)
{
	for (const struct help_block *const *b = p->blocks; *b; b++) {
		if ((*b)->kind != kind)
			continue;
		if ((*b)->heading && kind == HELP_OPTIONS)
			put_heading(out, "SS", (*b)->heading);
		put_body(out, *b);
	}
}

/* A command's subsection: what it does and its options, in --help's order;
 * those a capture has too are named, not repeated. */
static void put_command(FILE *out, const struct help_page_text *p)
{
	put_heading(out, "SS", p->synopsis[0]);
	for (const struct help_block *const *b = p->blocks; *b; b++) {
		if ((*b)->kind == HELP_EXAMPLES)
			continue;
		if (!page_has(&help_pages[HELP_CAPTURE], *b)) {
			put_body(out, *b);
			continue;
		}
		fputs(".PP\nAnd the options of \\(lq", out);
		put_text(out, (*b)->heading);
		fputs("\\(rq under OPTIONS.\n", out);
	}
}

void man__print(FILE *out)
{
	const struct help_page_text *capture = &help_pages[HELP_CAPTURE];

	fputs(".\\\" smolder(1), written by smolder --man from src/cmd/help_text.c:\n"
	      ".\\\" edit that file, not this one.\n", out);
	fprintf(out, ".TH SMOLDER 1 \"\" \"smolder %s\" \"User Commands\"\n", SMOLDER_VERSION);
	/* File names and options are not words: neither hyphenated nor
	 * stretched apart. */
	fputs(".nh\n.ad l\n", out);
	fputs(".SH NAME\nsmolder \\- ", out);
	put_text(out, help_summary);
	fputs("\n.SH SYNOPSIS\n.nf\n", out);
	for (const char *const *s = capture->synopsis; *s; s++) {
		put_usage(out, *s);
		putc('\n', out);
	}
	fputs(".fi\n.SH DESCRIPTION\n", out);
	put_blocks(out, capture, HELP_TEXT);
	fputs(".SH OPTIONS\n", out);
	put_blocks(out, capture, HELP_OPTIONS);
	fputs(".SH COMMANDS\n", out);
	put_command(out, &help_pages[HELP_FLAMEGRAPH]);
	put_command(out, &help_pages[HELP_DIFF]);
	fputs(".SH EXAMPLES\n", out);
	for (int page = 0; page < HELP_NR_PAGES; page++)
		put_blocks(out, &help_pages[page], HELP_EXAMPLES);
	for (const struct help_block *const *s = help_man_sections; *s; s++) {
		put_heading(out, "SH", (*s)->heading);
		put_body(out, *s);
	}
}
