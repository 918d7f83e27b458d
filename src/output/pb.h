/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The small pieces the pprof and speedscope writers share: a protobuf
 * encoder into a growable buffer (varints, length-delimited fields, packed
 * repeated varints), a UTF-8 checker (protobuf strings and JSON text must be
 * valid UTF-8), and a string interner that gives each distinct frame name a
 * dense index (pprof's string table and functions, speedscope's frames).
 * No protobuf library: profile.proto needs only these wire types.
 */
#ifndef SMOLDER_PB_H
#define SMOLDER_PB_H

#include <stddef.h>
#include <stdint.h>

enum pb_wire {
	PB_VARINT = 0,
	PB_LEN = 2,
};

/* Encoded bytes.  Errors are sticky: after a failed allocation err is
 * -ENOMEM and every later write does nothing, so callers check once. */
struct pb {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

void pb__varint(struct pb *b, uint64_t v);
/* A varint field; int64 fields take non-negative values here. */
void pb__uint(struct pb *b, unsigned field, uint64_t v);
/* A bytes, string or embedded message field. */
void pb__bytes(struct pb *b, unsigned field, const void *data, size_t len);
/* A string field with invalid UTF-8 replaced by U+FFFD (proto3 strings must
 * be valid UTF-8, and other readers than Go's reject them otherwise). */
void pb__string(struct pb *b, unsigned field, const char *s, size_t len);
/* A packed repeated varint field, v[n-1] first when reversed. */
void pb__packed(struct pb *b, unsigned field, const uint64_t *v, size_t n,
		int reversed);
void pb__free(struct pb *b);

#endif
