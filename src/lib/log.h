/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Diagnostics: one error helper and verbosity-gated log macros.
 * Errors are one line, lowercase, prefixed "smolder: ", naming the fix.
 */
#ifndef SMOLDER_LOG_H
#define SMOLDER_LOG_H

#include <stdarg.h>

extern int log_verbosity; /* 0 quiet, 1 normal, 2 -v, 3 -vv */

void log__msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* strerror(e) with a lowercase first letter, for our one-line errors. */
const char *log__errstr(int e);

#define err(...) log__msg(0, __VA_ARGS__)   /* always printed */
#define warn(...) log__msg(1, __VA_ARGS__)  /* unless --quiet */
#define info(...) log__msg(2, __VA_ARGS__)  /* -v */
#define debug(...) log__msg(3, __VA_ARGS__) /* -vv */

#endif
