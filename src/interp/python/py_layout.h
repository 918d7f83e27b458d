/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CPython's object layouts on x86_64, one row per version (3.8 to 3.13):
 * the offsets the BPF frame walk reads (struct py_offsets, include/python.h)
 * and those user space needs to name a frame -- a code object's names,
 * first line, flags, line table and size, and how str and bytes objects
 * keep their contents.  The rows are data, checked against each version's
 * own headers by tests/check/py_layout.sh (tests/tools/py_offsets.c).
 */
#ifndef SMOLDER_PY_LAYOUT_H
#define SMOLDER_PY_LAYOUT_H

#include <stdint.h>
#include "python.h"

#define PY_CODE_UNIT 2 /* bytes of a _Py_CODEUNIT: an instruction or cache */

/* How a code object's line table is encoded. */
enum py_line_table {
	PY_LINES_LNOTAB = 1,    /* 3.8, 3.9 co_lnotab: (byte delta, line delta) */
	PY_LINES_310 = 2,       /* 3.10 co_linetable: (byte delta, line delta or
				 * -128, no line) */
	PY_LINES_LOCATIONS = 3, /* 3.11+ co_linetable: the location table */
};

/* What code_size_field is, the bound of a code object's instructions. */
enum py_code_size {
	PY_CODE_SIZE_BYTES_OBJECT = 1, /* up to 3.10: co_code, a bytes object
					* whose size is the bytecode's bytes */
	PY_CODE_SIZE_UNITS = 2,        /* from 3.11: the code object's own
					* ob_size, in code units */
};

/* A str object (PEP 393): the state bits and where a compact string's
 * characters start. */
struct py_str_layout {
	uint16_t length;       /* PyASCIIObject.length, in code points */
	uint16_t state;        /* PyASCIIObject.state, a 32-bit bitfield */
	uint8_t kind_shift;    /* state's kind: 1, 2 or 4 bytes a character */
	uint8_t kind_width;
	uint8_t compact_bit;
	uint8_t ascii_bit;
	uint16_t ascii_data;   /* sizeof(PyASCIIObject): compact ASCII text */
	uint16_t compact_data; /* sizeof(PyCompactUnicodeObject): other
				* compact text */
};

/* A bytes object. */
struct py_bytes_layout {
	uint16_t size; /* ob_size, in bytes */
	uint16_t data; /* ob_sval */
};

struct py_layout {
	unsigned major, minor;
	struct py_offsets bpf;
	/* offsetof(_PyRuntimeState, gilstate.autoTSSkey) up to 3.11,
	 * autoTSSkey from 3.12 */
	uint16_t runtime_tss_key;
	uint16_t code_filename; /* co_filename */
	uint16_t code_name;     /* co_name */
	uint16_t code_qualname; /* co_qualname, PY_NO_FIELD before 3.11 */
	uint16_t code_lines;    /* co_lnotab up to 3.9, co_linetable from 3.10 */
	uint16_t code_size_field; /* co_code or ob_size: code_size says which */
	enum py_code_size code_size;
	/* bytes one step of a recorded instruction counts: 1 where f_lasti
	 * counts bytes (3.8, 3.9), else PY_CODE_UNIT */
	uint8_t instr_unit;
	enum py_line_table line_table;
	struct py_str_layout str;
	struct py_bytes_layout bytes;
};

/* The layout of CPython major.minor, NULL if smolder does not know it. */
const struct py_layout *py_layout__find(unsigned major, unsigned minor);

#endif /* SMOLDER_PY_LAYOUT_H */
