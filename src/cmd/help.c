// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The --help pages (see help.h), laid out for a terminal from help_text.c's
 * tables: options in two columns, examples with what they do beside them.
 */
#include <stdio.h>
#include <string.h>
#include "cmd/help.h"

#define OPTION_COLUMN 29  /* where an option's text starts */
#define EXAMPLE_COLUMN 39 /* where an example's text starts */
#define EXAMPLE_GAP 3     /* spaces after a command that reaches that column */
#define LINE_WIDTH 80

static void pad(int from, int to)
{
	printf("%*s", to > from ? to - from : 1, "");
}

/* text's lines, the first where the cursor is, the others at column. */
static void print_lines(const char *text, int column)
{
	for (const char *nl; (nl = strchr(text, '\n')); text = nl + 1)
		printf("%.*s\n%*s", (int)(nl - text), text, column, "");
	printf("%s\n", text);
}

static void print_option(const struct help_option *o)
{
	int n = printf("  %s%s%s%s%s", o->short_name ? o->short_name : "    ",
		       o->short_name && o->long_name ? ", " : "", o->long_name ? o->long_name : "",
		       o->arg ? " " : "", o->arg ? o->arg : "");

	pad(n, OPTION_COLUMN);
	print_lines(o->text, OPTION_COLUMN);
}

/* What an example does goes beside its command, in the column or a gap
 * after a longer command, unless its first line would then pass the line
 * width: then under it, in the column. */
static void print_example(const struct help_example *e)
{
	int n = printf("  %s", e->command), column = n + EXAMPLE_GAP;
	const char *nl;

	if (!e->text) {
		putchar('\n');
		return;
	}
	if (column < EXAMPLE_COLUMN)
		column = EXAMPLE_COLUMN;
	nl = strchr(e->text, '\n');
	if (column + (int)(nl ? (size_t)(nl - e->text) : strlen(e->text)) > LINE_WIDTH) {
		printf("\n%*s", EXAMPLE_COLUMN, "");
		print_lines(e->text, EXAMPLE_COLUMN);
		return;
	}
	pad(n, column);
	print_lines(e->text, EXAMPLE_COLUMN);
}

static void print_block(const struct help_block *b)
{
	if (b->heading)
		printf("%s:\n", b->heading);
	switch (b->kind) {
	case HELP_TEXT:
		printf("%s\n", b->text);
		break;
	case HELP_OPTIONS:
		for (const struct help_option *o = b->options; o->text; o++)
			print_option(o);
		break;
	case HELP_EXAMPLES:
		for (const struct help_example *e = b->examples; e->command; e++)
			print_example(e);
		break;
	}
}

void help__print(enum help_page page)
{
	const struct help_page_text *p = &help_pages[page];

	for (const char *const *s = p->synopsis; *s; s++)
		printf("%s%s\n", s == p->synopsis ? "usage: " : "       ", *s);
	for (const struct help_block *const *b = p->blocks; *b; b++) {
		putchar('\n');
		print_block(*b);
	}
}
