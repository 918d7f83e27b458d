// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Demangling: owns turning C++ and Rust symbol names into readable ones.
 * The grammar work is libiberty's (the demangler of c++filt, gdb and perf,
 * linked in statically); this file only picks the demangler, bounds what it
 * is fed, copies its output into the caller's buffer and formats Rust names
 * the way profilers show them.  The callback entry points are used because
 * they allocate nothing and never need freeing, so a name that makes the
 * demangler fail half-way costs nothing but the time spent.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "demangle.h"

/*
 * Why DEMANGLE_MAX_INPUT: libiberty's C++ demangler puts arrays sized by the
 * input length on the stack (about 72 bytes per input byte), so a 1 MB name
 * in a hostile ELF file would overflow the stack before any recursion limit
 * applies; 4096 bytes cost under 300 KB.  Real names of heavily templated
 * code can be longer; they stay mangled.
 */
#define OPTS (DMGL_PARAMS | DMGL_ANSI)

/* Where demangler output goes: the caller's buffer, truncated. */
struct sink {
	char *buf;
	size_t len, used;
	bool truncated;
};

static void sink_put(const char *s, size_t n, void *arg)
{
	struct sink *k = arg;
	size_t room = k->len - 1 - k->used;

	/* The Rust demangler flushes empty pieces, with s NULL. */
	if (!n)
		return;
	if (n > room) {
		n = room;
		k->truncated = true;
	}
	memcpy(k->buf + k->used, s, n);
	k->used += n;
}

/* Drops a UTF-8 sequence that truncation cut short (Rust names are UTF-8). */
static void trim_utf8(struct sink *k)
{
	size_t i = k->used, stop = k->used > 4 ? k->used - 4 : 0, need;
	unsigned char c;

	while (i > stop && ((unsigned char)k->buf[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0)
		return;
	/* buf[i - 1] leads the last sequence; is all of it there? */
	c = k->buf[i - 1];
	if (c < 0xc0)
		return;
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (k->used - (i - 1) < need)
		k->used = i - 1;
}

static bool is_lower_hex(const char *s, size_t n)
{
	for (; n; n--, s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/*
 * libiberty's Rust demangler already drops the hash, but it declines legacy
 * names whose hash looks too regular to be one (few distinct digits), which
 * then come out of the C++ demangler as "path::h0123456789abcdef".  Cutting
 * that suffix is formatting: only done when the mangled name ends in the
 * "17h<16 hex>E" that rustc writes.
 */
static void strip_rust_hash(const char *name, size_t nlen, struct sink *k)
{
	static const char tail[] = "::h";

	if (nlen < 20 || memcmp(name + nlen - 20, "17h", 3) ||
	    name[nlen - 1] != 'E' || !is_lower_hex(name + nlen - 17, 16))
		return;
	if (k->used < 19 || memcmp(k->buf + k->used - 19, tail, 3) ||
	    memcmp(k->buf + k->used - 16, name + nlen - 17, 16))
		return;
	k->used -= 19;
}

static bool run(int (*fn)(const char *, int, demangle_callbackref, void *),
		const char *name, struct sink *k)
{
	k->used = 0;
	k->truncated = false;
	return fn(name, OPTS, sink_put, k) && k->used > 0;
}

const char *demangle(const char *name, char *buf, size_t len)
{
	struct sink k = { .buf = buf, .len = len };
	size_t nlen;
	bool ok = false;

	if (!name || !buf || len < 2 || name[0] != '_')
		return name;
	nlen = strnlen(name, DEMANGLE_MAX_INPUT + 1);
	if (nlen > DEMANGLE_MAX_INPUT)
		return name;
	/* Rust legacy names are valid C++ too: ask the Rust demangler first. */
	if (name[1] == 'R' || !strncmp(name, "_ZN", 3))
		ok = run(rust_demangle_callback, name, &k);
	if (!ok && name[1] == 'Z') {
		ok = run(cplus_demangle_v3_callback, name, &k);
		if (ok && !k.truncated)
			strip_rust_hash(name, nlen, &k);
	}
	if (!ok)
		return name;
	if (k.truncated)
		trim_utf8(&k);
	buf[k.used] = '\0';
	return buf;
}
