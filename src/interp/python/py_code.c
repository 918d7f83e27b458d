// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPython code objects read from another process, and their line tables
 * decoded (see py_code.h).  Each piece -- the code object, a string, a
 * bytes object -- is one process_vm_readv of a bounded size, at most two
 * for a long line table; a short read is fine as long as it holds what
 * the piece's own header says it needs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "interp/python/py_code.h"

/* What no name, table or bytecode comes near: a longer length is a lie. */
#define PY_LEN_ABSURD INT32_MAX
/* Read with a bytes object's header, so most tables take one call. */
#define PY_BYTES_FIRST 4096

/* Reads up to len bytes at addr of pid into buf; the bytes read, at least
 * need, or -errno (a read shorter than need: -EFAULT). */
static ssize_t read_mem(pid_t pid, uint64_t addr, void *buf, size_t len, size_t need)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (!addr)
		return -EFAULT;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return errno == ESRCH || errno == EPERM || errno == ENOMEM ? -errno : -EFAULT;
	return (size_t)n < need ? -EFAULT : n;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* A length field (a Py_ssize_t) that a real object could hold. */
static int length_at(const uint8_t *p, size_t off, size_t *len)
{
	int64_t v = (int64_t)u64_at(p, off);

	if (v < 0 || v > PY_LEN_ABSURD)
		return -EINVAL;
	*len = v;
	return 0;
}

/* Appends code point cp to out as UTF-8 (U+FFFD for what UTF-8 cannot
 * carry, and for NUL, which would end the name early); false when it does
 * not fit in PY_NAME_MAX bytes. */
static bool put_utf8(char *out, size_t *n, uint32_t cp)
{
	uint8_t *o = (uint8_t *)out + *n;
	size_t len;

	if (!cp || (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
		cp = 0xfffd;
	len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	if (*n + len > PY_NAME_MAX)
		return false;
	if (len == 1) {
		o[0] = cp;
	} else if (len == 2) {
		o[0] = 0xc0 | cp >> 6;
		o[1] = 0x80 | (cp & 0x3f);
	} else if (len == 3) {
		o[0] = 0xe0 | cp >> 12;
		o[1] = 0x80 | (cp >> 6 & 0x3f);
		o[2] = 0x80 | (cp & 0x3f);
	} else {
		o[0] = 0xf0 | cp >> 18;
		o[1] = 0x80 | (cp >> 12 & 0x3f);
		o[2] = 0x80 | (cp >> 6 & 0x3f);
		o[3] = 0x80 | (cp & 0x3f);
	}
	*n += len;
	return true;
}

/* The text of nr characters of kind bytes each at data, as UTF-8 of at
 * most PY_NAME_MAX bytes and "..." when cut. */
static char *to_utf8(const uint8_t *data, size_t nr, unsigned kind, bool ascii)
{
	char *out = malloc(PY_NAME_MAX + sizeof("..."));
	size_t i, n = 0;
	uint32_t cp;

	if (!out)
		return NULL;
	for (i = 0; i < nr; i++) {
		if (kind == 1)
			cp = data[i];
		else if (kind == 2)
			cp = data[2 * i] | data[2 * i + 1] << 8;
		else
			cp = u32_at(data, 4 * i);
		if (ascii && cp >= 0x80)
			cp = 0xfffd; /* a lie about the kind */
		if (!put_utf8(out, &n, cp))
			break;
	}
	if (i < nr)
		memcpy(out + n, "...", 3), n += 3;
	out[n] = 0;
	return out;
}

/* The str object at addr (PEP 393, compact: every code object's names
 * are) as UTF-8 in *out.  PY_NAME_MAX + 1 characters never fit the cap,
 * so no more are read. */
static int read_str(const struct py_layout *l, pid_t pid, uint64_t addr, char **out)
{
	const struct py_str_layout *s = &l->str;
	size_t cap = s->compact_data + 4 * (PY_NAME_MAX + 1), len = 0, nr, data;
	uint8_t *buf = malloc(cap);
	unsigned kind;
	uint32_t state;
	ssize_t got;
	bool ascii;
	int err;

	if (!buf)
		return -ENOMEM;
	got = read_mem(pid, addr, buf, cap, s->ascii_data);
	err = got < 0 ? got : length_at(buf, s->length, &len);
	if (err)
		goto out;
	state = u32_at(buf, s->state);
	kind = state >> s->kind_shift & ((1u << s->kind_width) - 1);
	ascii = state >> s->ascii_bit & 1;
	err = -EINVAL;
	if (!(state >> s->compact_bit & 1) || (kind != 1 && kind != 2 && kind != 4) ||
	    (ascii && kind != 1))
		goto out;
	data = ascii ? s->ascii_data : s->compact_data;
	nr = len < PY_NAME_MAX + 1 ? len : PY_NAME_MAX + 1;
	err = -EFAULT; /* the text runs into memory that cannot be read */
	if ((size_t)got < data + nr * kind)
		goto out;
	err = (*out = to_utf8(buf + data, nr, kind, ascii)) ? 0 : -ENOMEM;
out:
	free(buf);
	return err;
}

/* The size in bytes of the bytes object at addr, and with data, its first
 * bytes (at most max) in a buffer of its own. */
static int read_bytes(const struct py_layout *l, pid_t pid, uint64_t addr, size_t max,
		      size_t *size, uint8_t **data, size_t *nr)
{
	const struct py_bytes_layout *b = &l->bytes;
	size_t want, first = data ? PY_BYTES_FIRST : b->data;
	uint8_t *buf = malloc(first);
	ssize_t got;
	int err;

	if (!buf)
		return -ENOMEM;
	got = read_mem(pid, addr, buf, first, b->data);
	err = got < 0 ? got : length_at(buf, b->size, size);
	if (err || !data)
		goto out;
	want = *size < max ? *size : max;
	err = -ENOMEM;
	if (!(*data = malloc(want ? want : 1)))
		goto out;
	if ((size_t)got >= b->data + want) {
		memcpy(*data, buf + b->data, want);
	} else {
		/* a long table: all of it again, in one more read */
		got = read_mem(pid, addr + b->data, *data, want, want);
		if (got < 0) {
			free(*data), *data = NULL;
			err = got;
			goto out;
		}
	}
	*nr = want;
	err = 0;
out:
	free(buf);
	return err;
}

/* The code object's own fields, in one read of the part of it they are
 * in; the strings and bytes they point to after. */
static int read_fields(const struct py_layout *l, pid_t pid, uint64_t addr, struct py_code *c)
{
	uint16_t offs[] = { l->code_filename, l->code_name, l->code_qualname, l->code_lines,
			    l->code_size_field, l->bpf.code_flags, l->bpf.code_firstlineno };
	uint8_t head[256];
	size_t i, end = 0, size;
	uint64_t name;
	int err;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (offs[i] != PY_NO_FIELD && offs[i] + 8u > end)
			end = offs[i] + 8u;
	if (end > sizeof(head))
		return -EINVAL;
	err = read_mem(pid, addr, head, end, end);
	if (err < 0)
		return err;
	c->flags = u32_at(head, l->bpf.code_flags);
	c->firstlineno = u32_at(head, l->bpf.code_firstlineno);
	if (l->code_size == PY_CODE_SIZE_UNITS) {
		err = length_at(head, l->code_size_field, &size);
		size *= PY_CODE_UNIT;
	} else {
		err = read_bytes(l, pid, u64_at(head, l->code_size_field), 0, &size, NULL, NULL);
	}
	if (err)
		return err;
	c->nr_instr = size / l->instr_unit;
	name = u64_at(head, l->code_qualname != PY_NO_FIELD ? l->code_qualname : l->code_name);
	if ((err = read_str(l, pid, name, &c->qualname)) ||
	    (err = read_str(l, pid, u64_at(head, l->code_filename), &c->file)))
		return err;
	err = read_bytes(l, pid, u64_at(head, l->code_lines), PY_LINES_MAX, &size, &c->lines,
			 &c->nr_lines);
	c->lines_cut = !err && size > c->nr_lines;
	return err;
}

int py_code__read(const struct py_layout *l, pid_t pid, uint64_t addr, struct py_code *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	err = read_fields(l, pid, addr, out);
	if (err)
		py_code__free(out);
	return err;
}

void py_code__free(struct py_code *c)
{
	free(c->qualname);
	free(c->file);
	free(c->lines);
	memset(c, 0, sizeof(*c));
}

size_t py_code__bytes(const struct py_code *c)
{
	return sizeof(*c) + (c->qualname ? strlen(c->qualname) + 1 : 0) +
	       (c->file ? strlen(c->file) + 1 : 0) + c->nr_lines;
}

/* co_lnotab (3.8, 3.9): pairs of a byte delta and a signed line delta; the
 * line of byte addr is that of the last pair starting at or before it
 * (PyCode_Addr2Line). */
static int64_t line_lnotab(const struct py_code *c, uint32_t addr)
{
	int64_t line = c->firstlineno;
	uint64_t at = 0;
	size_t i;

	for (i = 0; i + 1 < c->nr_lines; i += 2) {
		at += c->lines[i];
		if (at > addr)
			return line;
		line += (int8_t)c->lines[i + 1];
	}
	return c->lines_cut ? 0 : line; /* the last pair's line runs to the end */
}

/* co_linetable (3.10): pairs of a byte delta, the length of a range, and
 * a signed line delta, -128 for a range with no line. */
static int64_t line_310(const struct py_code *c, uint32_t addr)
{
	int64_t line = c->firstlineno;
	uint64_t start, end = 0;
	size_t i;

	for (i = 0; i + 1 < c->nr_lines; i += 2) {
		int8_t delta = c->lines[i + 1];

		start = end;
		end += c->lines[i];
		if (delta != -128)
			line += delta;
		if (addr >= start && addr < end)
			return delta == -128 ? 0 : line;
	}
	return 0;
}

/* A varint of the location table at *i: 6 bits a byte, bit 6 says more
 * follow.  One too long for 32 bits keeps its low bits (the table is
 * hostile: the answer will be wrong, not the work unbounded); one that
 * runs past the table's end sets *cut. */
static uint32_t varint(const struct py_code *c, size_t *i, bool *cut)
{
	uint32_t val = 0, shift = 0;
	uint8_t b;

	do {
		if (*i >= c->nr_lines) {
			*cut = true;
			return val;
		}
		b = c->lines[(*i)++];
		if (shift < 32)
			val |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return val;
}

static int32_t svarint(const struct py_code *c, size_t *i, bool *cut)
{
	uint32_t v = varint(c, i, cut);

	return v & 1 ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
}

/* The location table (3.11+, Objects/locations.md): entries of a first
 * byte (bit 7 set; a 4-bit code; the entry's length in code units, less
 * one) and what the code says follows.  Codes: 15 no location, 14 long
 * form and 13 no columns (a signed varint line delta first), 10-12 one
 * line (delta code - 10), 0-9 short forms (same line). */
static int64_t line_locations(const struct py_code *c, uint32_t unit)
{
	int64_t line = c->firstlineno;
	uint64_t start = 0;
	bool cut = false;
	size_t i = 0;

	while (i < c->nr_lines) {
		uint8_t first = c->lines[i++];
		unsigned code = first >> 3 & 15, len = (first & 7) + 1;

		if (!(first & 0x80))
			return 0; /* not an entry's start: the table is not one */
		if (code == 13 || code == 14)
			line += svarint(c, &i, &cut);
		else if (code >= 10 && code <= 12)
			line += code - 10;
		if (unit >= start && unit < start + len)
			return code == 15 || cut ? 0 : line;
		start += len;
		while (i < c->nr_lines && !(c->lines[i] & 0x80))
			i++; /* the columns */
	}
	return 0;
}

int py_code__line(const struct py_layout *l, const struct py_code *c, uint32_t instr)
{
	int64_t line;

	if (instr == PY_INSTR_MASK) /* f_lasti -1, or the unit before the first */
		return c->firstlineno <= INT32_MAX ? (int)c->firstlineno : 0;
	if (instr >= c->nr_instr)
		return 0;
	switch (l->line_table) {
	case PY_LINES_LNOTAB:
		line = line_lnotab(c, instr);
		break;
	case PY_LINES_310:
		line = line_310(c, (uint64_t)instr * PY_CODE_UNIT);
		break;
	case PY_LINES_LOCATIONS:
		line = line_locations(c, instr);
		break;
	default:
		return 0;
	}
	return line > 0 && line <= INT32_MAX ? (int)line : 0;
}
