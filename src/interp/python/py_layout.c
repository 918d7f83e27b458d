// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPython's layouts, one row per version (see py_layout.h).  Every number
 * here is offsetof() or sizeof() in that version's headers on x86_64, as
 * tests/tools/py_offsets.c prints them; tests/check/py_layout.sh compares.
 */
#include <stddef.h>
#include "interp/python/py_layout.h"

/* PEP 393 strings: up to 3.11 PyASCIIObject ends with a wstr pointer and
 * PyCompactUnicodeObject with wstr_length; 3.12 dropped both. */
#define STR_TO_311                                                             \
	{ .length = 16, .state = 32, .kind_shift = 2, .kind_width = 3,         \
	  .compact_bit = 5, .ascii_bit = 6, .ascii_data = 48, .compact_data = 72 }
#define STR_FROM_312                                                           \
	{ .length = 16, .state = 32, .kind_shift = 2, .kind_width = 3,         \
	  .compact_bit = 5, .ascii_bit = 6, .ascii_data = 40, .compact_data = 56 }
#define BYTES { .size = 16, .data = 32 }

/* 3.8-3.10: a PyFrameObject per call, f_lasti an int. */
#define FRAME_OBJECTS(lasti)                                                   \
	.tstate_frame = 24, .cframe_frame = PY_NO_FIELD, .frame_code = 32,     \
	.frame_back = 24, .frame_instr = lasti, .frame_entry = PY_NO_FIELD,    \
	.frame_owner = PY_NO_FIELD, .code_bytecode = 0, .code_flags = 36,      \
	.code_firstlineno = 40, .frames = PY_FRAMES_OBJECTS

static const struct py_layout layouts[] = {
	{
		.major = 3, .minor = 8,
		.bpf = { FRAME_OBJECTS(104) },
		.runtime_tss_key = 1392,
		.code_filename = 104, .code_name = 112, .code_qualname = PY_NO_FIELD,
		.code_lines = 120, .line_table = PY_LINES_LNOTAB,
		.code_size_field = 48, .code_size = PY_CODE_SIZE_BYTES_OBJECT,
		.instr_unit = 1, .str = STR_TO_311, .bytes = BYTES,
	},
	{
		.major = 3, .minor = 9,
		.bpf = { FRAME_OBJECTS(104) },
		.runtime_tss_key = 584,
		.code_filename = 104, .code_name = 112, .code_qualname = PY_NO_FIELD,
		.code_lines = 120, .line_table = PY_LINES_LNOTAB,
		.code_size_field = 48, .code_size = PY_CODE_SIZE_BYTES_OBJECT,
		.instr_unit = 1, .str = STR_TO_311, .bytes = BYTES,
	},
	{
		.major = 3, .minor = 10,
		.bpf = { FRAME_OBJECTS(96) },
		.runtime_tss_key = 584,
		.code_filename = 104, .code_name = 112, .code_qualname = PY_NO_FIELD,
		.code_lines = 120, .line_table = PY_LINES_310,
		.code_size_field = 48, .code_size = PY_CODE_SIZE_BYTES_OBJECT,
		.instr_unit = PY_CODE_UNIT, .str = STR_TO_311, .bytes = BYTES,
	},
	{
		.major = 3, .minor = 11,
		.bpf = { .tstate_frame = 56, .cframe_frame = 8, .frame_code = 32,
			 .frame_back = 48, .frame_instr = 56, .frame_entry = 68,
			 .frame_owner = PY_NO_FIELD, .code_bytecode = 184,
			 .code_flags = 48, .code_firstlineno = 72,
			 .frames = PY_FRAMES_311 },
		.runtime_tss_key = 592,
		.code_filename = 112, .code_name = 120, .code_qualname = 128,
		.code_lines = 136, .line_table = PY_LINES_LOCATIONS,
		.code_size_field = 16, .code_size = PY_CODE_SIZE_UNITS,
		.instr_unit = PY_CODE_UNIT,
		.str = STR_TO_311, .bytes = BYTES,
	},
	{
		.major = 3, .minor = 12,
		.bpf = { .tstate_frame = 56, .cframe_frame = 0, .frame_code = 0,
			 .frame_back = 8, .frame_instr = 56, .frame_entry = PY_NO_FIELD,
			 .frame_owner = 70, .code_bytecode = 192,
			 .code_flags = 48, .code_firstlineno = 68,
			 .frames = PY_FRAMES_312 },
		.runtime_tss_key = 1544,
		.code_filename = 112, .code_name = 120, .code_qualname = 128,
		.code_lines = 136, .line_table = PY_LINES_LOCATIONS,
		.code_size_field = 16, .code_size = PY_CODE_SIZE_UNITS,
		.instr_unit = PY_CODE_UNIT,
		.str = STR_FROM_312, .bytes = BYTES,
	},
	{
		.major = 3, .minor = 13,
		.bpf = { .tstate_frame = 72, .cframe_frame = PY_NO_FIELD, .frame_code = 0,
			 .frame_back = 8, .frame_instr = 56, .frame_entry = PY_NO_FIELD,
			 .frame_owner = 70, .code_bytecode = 200,
			 .code_flags = 48, .code_firstlineno = 68,
			 .frames = PY_FRAMES_312 },
		.runtime_tss_key = 2160,
		.code_filename = 112, .code_name = 120, .code_qualname = 128,
		.code_lines = 136, .line_table = PY_LINES_LOCATIONS,
		.code_size_field = 16, .code_size = PY_CODE_SIZE_UNITS,
		.instr_unit = PY_CODE_UNIT,
		.str = STR_FROM_312, .bytes = BYTES,
	},
};

const struct py_layout *py_layout__find(unsigned major, unsigned minor)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].major == major && layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}
