/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What smolder's help says, as data: --help (help.c) lays it out for a
 * terminal and the man page (man.c) in roff, from these same tables, so an
 * option cannot be in one and missing from the other.  Texts hold their
 * lines as --help wraps them, '\n' between them; the man page joins them
 * and lets the formatter fill.
 */
#ifndef SMOLDER_HELP_TEXT_H
#define SMOLDER_HELP_TEXT_H

enum help_page {
	HELP_CAPTURE,    /* smolder --help */
	HELP_FLAMEGRAPH, /* smolder flamegraph --help */
	HELP_DIFF,       /* smolder diff --help */
	HELP_NR_PAGES,
};

/* One option: "-p, --pid PID[,PID...]" and what it does.  Also an entry of
 * the man page's lists (a file under FILES). */
struct help_option {
	const char *short_name; /* "-p", "--" (before a COMMAND), or NULL */
	const char *long_name;  /* "--pid", or NULL */
	const char *arg;        /* "PID[,PID...]": upper case is a placeholder */
	const char *text;
};

/* One example: a command line and, optionally, what it does. */
struct help_example {
	const char *command;
	const char *text; /* NULL: the command says it */
};

enum help_block_kind {
	HELP_TEXT,     /* a paragraph */
	HELP_OPTIONS,  /* a list of options */
	HELP_EXAMPLES, /* a list of examples */
};

/* A page is blocks separated by a blank line; --help prints a heading with
 * a colon after it, the man page makes it a subsection. */
struct help_block {
	enum help_block_kind kind;
	const char *heading; /* NULL: none */
	const char *text;
	const struct help_option *options;   /* ended by an entry of NULL text */
	const struct help_example *examples; /* ended by a NULL command */
};

struct help_page_text {
	const char *const *synopsis;          /* usage forms, NULL-ended */
	const struct help_block *const *blocks; /* NULL-ended */
};

/* The pages, indexed by enum help_page. */
extern const struct help_page_text help_pages[HELP_NR_PAGES];

/* What only the man page says: its one-line summary (NAME), and its last
 * sections (EXIT STATUS, FILES, SEE ALSO), NULL-ended. */
extern const char help_summary[];
extern const struct help_block *const help_man_sections[];

#endif
