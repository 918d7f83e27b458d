// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Demangling: owns turning C++ and Rust symbol names into readable ones.
 * The grammar work is libiberty's (the demangler of c++filt, gdb and perf,
 * linked in statically); this file only picks the demangler, bounds what it
 * is fed and what it may cost, copies its output into the caller's buffer
 * and formats Rust names the way profilers show them.
 *
 * Names come from untrusted files, and a short hostile name can make a
 * demangler print practically without end: C++ substitutions and Rust v0
 * back-references expand exponentially (a 333-byte C++ name means 4^30
 * characters), and a v0 lifetime binder loops up to a 64-bit count read
 * from the name.  The callback entry points are used so that output can be
 * counted as it comes and the demangler abandoned (longjmp) once it exceeds
 * any sane length, as rustc-demangle itself caps output.  That is safe
 * because the C++ callback demangler allocates nothing (its arrays live on
 * the stack), and the Rust one holds memory only while it prints a decoded
 * punycode identifier, from a heap buffer: it is never left at that point.
 * A binder loop that runs while printing is suppressed cannot be stopped
 * that way, so such names are refused beforehand.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "symbols/demangle.h"

/*
 * Why DEMANGLE_MAX_INPUT (demangle.h): libiberty's C++ demangler puts arrays
 * sized by the input length on the stack (about 72 bytes per input byte),
 * so a 1 MB name in a hostile ELF file would overflow the stack before any
 * recursion limit applies; 4096 bytes cost under 300 KB.  Real names of
 * heavily templated code can be longer; they stay mangled.
 */
#define OPTS (DMGL_PARAMS | DMGL_ANSI)
/* Far beyond any real name, yet printed in well under a millisecond. */
#define MAX_OUTPUT (256u << 10)

/* The program image (text, read-only data, data): linker-defined bounds. */
extern const char __executable_start[], edata[];

/* Where demangler output goes: the caller's buffer, truncated. */
struct sink {
	char *buf;
	size_t len, used, total;
	bool truncated;
	const char *name; /* the input: output pointing into it is safe */
	size_t nlen;
	bool rust;        /* the Rust demangler is running (else C++) */
	jmp_buf *escape;
};

/*
 * Whether the demangler can be left while it hands us s.  The C++ one
 * always (it passes its own stack buffer).  The Rust one when s is a
 * string constant of the image or a piece of the input: then it holds no
 * heap buffer (the punycode output is the only heap pointer it passes).
 */
static bool may_escape(const struct sink *k, const char *s)
{
	uintptr_t p = (uintptr_t)s;

	return !k->rust ||
	       (p >= (uintptr_t)k->name && p < (uintptr_t)k->name + k->nlen) ||
	       (p >= (uintptr_t)__executable_start && p < (uintptr_t)edata);
}

static void sink_put(const char *s, size_t n, void *arg)
{
	struct sink *k = arg;
	size_t room = k->len - 1 - k->used;

	/* The Rust demangler flushes empty pieces, with s NULL. */
	if (!n)
		return;
	k->total += n;
	if (k->total > MAX_OUTPUT && may_escape(k, s))
		longjmp(*k->escape, 1);
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

/*
 * A v0 binder is 'G' right after an 'F' (fn type) or 'D' (dyn) tag, then a
 * base-62 count and '_'.  Real names bind a handful of lifetimes; three or
 * more digits (over 3844) is an attack.  Letters inside identifiers can
 * look like a binder too: such a name merely stays mangled.
 */
static bool huge_binder(const char *name, size_t nlen)
{
	const char *p = name, *end = name + nlen;
	size_t digits;

	while ((p = memchr(p, 'G', end - p))) {
		if (p[-1] == 'F' || p[-1] == 'D') {
			for (digits = 0, p++; p < end && *p != '_'; p++)
				digits++;
			if (digits >= 3)
				return true;
		} else {
			p++;
		}
	}
	return false;
}

static bool run(int (*fn)(const char *, int, demangle_callbackref, void *),
		const char *name, struct sink *k)
{
	jmp_buf escape;

	k->used = k->total = 0;
	k->truncated = false;
	k->rust = fn == rust_demangle_callback;
	k->escape = &escape;
	if (setjmp(escape))
		return false;
	return fn(name, OPTS, sink_put, k) && k->used > 0;
}

const char *demangle__name(const char *name, char *buf, size_t len)
{
	struct sink k = { .buf = buf, .len = len, .name = name };
	size_t nlen;
	bool ok = false;

	if (!name || !buf || len < 2 || name[0] != '_')
		return name;
	nlen = strnlen(name, DEMANGLE_MAX_INPUT + 1);
	if (nlen > DEMANGLE_MAX_INPUT)
		return name;
	k.nlen = nlen;
	if (name[1] == 'R' && huge_binder(name, nlen))
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
