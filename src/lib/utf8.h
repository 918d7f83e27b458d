/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * UTF-8 checking: frame names come from binaries and files anyone can
 * write, and the JSON and protobuf outputs must hold valid UTF-8.
 */
#ifndef SMOLDER_UTF8_H
#define SMOLDER_UTF8_H

#include <stddef.h>

/* The UTF-8 sequence at s[0..n), n > 0: its length (1-4) when valid, else
 * minus the number of bytes one U+FFFD replaces (the maximal subpart of an
 * ill-formed sequence, as Unicode recommends). */
int utf8__seq(const unsigned char *s, size_t n);

#endif
