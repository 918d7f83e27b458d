/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Readable names for C++ (Itanium ABI, "_Z...") and Rust (legacy "_ZN...E"
 * with its hash, and v0 "_R...") symbols, through libiberty's demanglers.
 * Symbol names come from untrusted ELF files and perf maps: overlong names
 * are left alone and output never overruns the caller's buffer.
 */
#ifndef SMOLDER_DEMANGLE_H
#define SMOLDER_DEMANGLE_H

#include <stddef.h>

/* Longer names are returned as they are (see demangle.c for why). */
#define DEMANGLE_MAX_INPUT 4096

/*
 * Returns the demangled form of name, written NUL-terminated into buf (len
 * bytes, truncated at a UTF-8 character boundary when too long), or name
 * itself when it is not a mangled name, demangling fails, or it is longer
 * than DEMANGLE_MAX_INPUT.  Rust names lose their "::h<16 hex>" hash as in
 * perf and rustfilt.  Thread-safe; allocates nothing.
 */
const char *demangle__name(const char *name, char *buf, size_t len);

#endif
