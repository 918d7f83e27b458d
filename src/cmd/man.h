/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The man page, smolder(1): every option and command of --help, in roff. */
#ifndef SMOLDER_MAN_H
#define SMOLDER_MAN_H

#include <stdio.h>

/* Writes the page (man macros) to out; `make man` keeps it in build/. */
void man__print(FILE *out);

#endif
