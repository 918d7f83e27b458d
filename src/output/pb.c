// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The protobuf encoder of pb.h, for the pprof writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include "lib/grow.h"
#include "output/pb.h"
#include "lib/utf8.h"

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

static int pb_grow(struct pb *b, size_t more)
{
	if (b->err)
		return b->err;
	if (GROW(b->buf, b->cap, b->len + more, 256))
		return b->err = -ENOMEM;
	return 0;
}

static void pb_raw(struct pb *b, const void *data, size_t len)
{
	if (len && !pb_grow(b, len)) {
		memcpy(b->buf + b->len, data, len);
		b->len += len;
	}
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb__varint(struct pb *b, uint64_t v)
{
	if (pb_grow(b, 10))
		return;
	while (v >= 0x80) {
		b->buf[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->buf[b->len++] = (uint8_t)v;
}

static void pb_key(struct pb *b, unsigned field, enum pb_wire wire)
{
	pb__varint(b, (uint64_t)field << 3 | wire);
}

void pb__uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_key(b, field, PB_VARINT);
	pb__varint(b, v);
}

void pb__bytes(struct pb *b, unsigned field, const void *data, size_t len)
{
	pb_key(b, field, PB_LEN);
	pb__varint(b, len);
	pb_raw(b, data, len);
}

void pb__string(struct pb *b, unsigned field, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t out = 0, i;
	bool bad = false;
	int k;

	/* Two passes: the length goes first on the wire.  (A 3-byte ill-formed
	 * sequence takes as many bytes as its U+FFFD: lengths cannot tell.) */
	for (i = 0; i < len; i += k > 0 ? k : -k) {
		k = utf8__seq(u + i, len - i);
		out += k > 0 ? (size_t)k : sizeof(replacement) - 1;
		bad |= k < 0;
	}
	if (!bad) {
		pb__bytes(b, field, s, len);
		return;
	}
	pb_key(b, field, PB_LEN);
	pb__varint(b, out);
	for (i = 0; i < len; i += k > 0 ? k : -k) {
		k = utf8__seq(u + i, len - i);
		if (k > 0)
			pb_raw(b, u + i, k);
		else
			pb_raw(b, replacement, sizeof(replacement) - 1);
	}
}

void pb__packed(struct pb *b, unsigned field, const uint64_t *v, size_t n,
		int reversed)
{
	size_t size = 0;

	if (!n)
		return; /* an empty packed field is the same as none */
	for (size_t i = 0; i < n; i++)
		size += varint_size(v[i]);
	pb_key(b, field, PB_LEN);
	pb__varint(b, size);
	for (size_t i = 0; i < n; i++)
		pb__varint(b, v[reversed ? n - 1 - i : i]);
}

void pb__free(struct pb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

