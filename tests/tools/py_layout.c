// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * py_layout X.Y: src/interp/python/py_layout.c's row for CPython X.Y as
 * "name value" lines, named as tests/tools/py_offsets.c prints them from
 * that version's headers (tests/check/py_layout.sh compares the two).
 * Exit 1 when smolder has no row for X.Y.
 */
#include <stdio.h>
#include "interp/python/py_layout.h"

#define PRINT(name, value) printf("%s %lu\n", name, (unsigned long)(value))

static void bpf_fields(const struct py_offsets *o)
{
	PRINT("tstate_frame", o->tstate_frame);
	PRINT("cframe_frame", o->cframe_frame);
	PRINT("frame_code", o->frame_code);
	PRINT("frame_back", o->frame_back);
	PRINT("frame_instr", o->frame_instr);
	/* the walk reads f_lasti as an int, the instruction pointers as such */
	PRINT("frame_instr_size", o->frames == PY_FRAMES_OBJECTS ? sizeof(int) : sizeof(void *));
	PRINT("frame_entry", o->frame_entry);
	PRINT("frame_owner", o->frame_owner);
	PRINT("code_bytecode", o->code_bytecode);
	PRINT("frames", o->frames);
	PRINT("code_flags", o->code_flags);
	PRINT("code_firstlineno", o->code_firstlineno);
}

static void code_fields(const struct py_layout *l)
{
	PRINT("runtime_tss_key", l->runtime_tss_key);
	PRINT("code_filename", l->code_filename);
	PRINT("code_name", l->code_name);
	PRINT("code_qualname", l->code_qualname);
	PRINT("code_size_field", l->code_size_field);
	PRINT("code_size_kind", l->code_size);
	PRINT("code_lines", l->code_lines);
	PRINT("line_table", l->line_table);
	PRINT("code_unit_size", PY_CODE_UNIT);
	PRINT("instr_unit", l->instr_unit);
}

static void object_fields(const struct py_layout *l)
{
	PRINT("str_length", l->str.length);
	PRINT("str_state", l->str.state);
	PRINT("str_kind_shift", l->str.kind_shift);
	PRINT("str_kind_width", l->str.kind_width);
	PRINT("str_compact_bit", l->str.compact_bit);
	PRINT("str_ascii_bit", l->str.ascii_bit);
	PRINT("str_ascii_data", l->str.ascii_data);
	PRINT("str_compact_data", l->str.compact_data);
	PRINT("bytes_size", l->bytes.size);
	PRINT("bytes_data", l->bytes.data);
}

int main(int argc, char **argv)
{
	const struct py_layout *l;
	unsigned major, minor;

	if (argc != 2 || sscanf(argv[1], "%u.%u", &major, &minor) != 2) {
		fprintf(stderr, "usage: py_layout X.Y\n");
		return 2;
	}
	l = py_layout__find(major, minor);
	if (!l) {
		printf("unsupported %u.%u\n", major, minor);
		return 1;
	}
	printf("version %u.%u\n", l->major, l->minor);
	bpf_fields(&l->bpf);
	code_fields(l);
	object_fields(l);
	return 0;
}
