/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The --help pages: what each command does, its options, examples. */
#ifndef SMOLDER_HELP_H
#define SMOLDER_HELP_H

#include "cmd/help_text.h" /* enum help_page */

/* Prints the page on standard output. */
void help__print(enum help_page page);

#endif
