// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CPython layouts smolder needs, as one version's own headers have
 * them: compiled by tests/check/py_layout.sh against each installed
 * CPython's include/pythonX.Y (with Py_BUILD_CORE and internal/ for
 * _PyRuntimeState and the frames), it prints "name value" lines in the
 * form build/tools/py_layout prints src/interp/python/py_layout.c's table,
 * so the two can be compared line for line.  Not built with smolder: it
 * needs a CPython's headers, whose version picks the fields below.
 */
#include <Python.h>
#include <frameobject.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if PY_VERSION_HEX < 0x03090000
#include <internal/pycore_pystate.h>
#else
#include <internal/pycore_runtime.h>
#endif
#if PY_VERSION_HEX >= 0x030b0000
#include <internal/pycore_frame.h>
#endif

#define NO_FIELD 0xffff
#define PRINT(name, value) printf("%s %lu\n", name, (unsigned long)(value))

/* Where the state bitfield F of PyASCIIObject starts (bit 0: the lowest of
 * its 32-bit word), and how wide it is, found by setting it. */
#define STATE_BIT(F)                                                           \
	({                                                                     \
		PyASCIIObject o_;                                              \
		uint32_t w_;                                                   \
		memset(&o_, 0, sizeof(o_));                                    \
		o_.state.F = ~0u;                                              \
		memcpy(&w_, &o_.state, sizeof(w_));                            \
		__builtin_ctz(w_);                                             \
	})
#define STATE_WIDTH(F)                                                         \
	({                                                                     \
		PyASCIIObject o_;                                              \
		uint32_t w_;                                                   \
		memset(&o_, 0, sizeof(o_));                                    \
		o_.state.F = ~0u;                                              \
		memcpy(&w_, &o_.state, sizeof(w_));                            \
		__builtin_popcount(w_);                                        \
	})

static void bpf_fields(void)
{
#if PY_VERSION_HEX < 0x030b0000
	PRINT("tstate_frame", offsetof(PyThreadState, frame));
	PRINT("cframe_frame", NO_FIELD);
	PRINT("frame_code", offsetof(PyFrameObject, f_code));
	PRINT("frame_back", offsetof(PyFrameObject, f_back));
	PRINT("frame_instr", offsetof(PyFrameObject, f_lasti));
	PRINT("frame_instr_size", sizeof(((PyFrameObject *)0)->f_lasti));
	PRINT("frame_entry", NO_FIELD);
	PRINT("frame_owner", NO_FIELD);
	PRINT("code_bytecode", 0);
	PRINT("frames", 1); /* PY_FRAMES_OBJECTS */
#else
#if PY_VERSION_HEX < 0x030d0000
	PRINT("tstate_frame", offsetof(PyThreadState, cframe));
	PRINT("cframe_frame", offsetof(_PyCFrame, current_frame));
	PRINT("frame_code", offsetof(_PyInterpreterFrame, f_code));
	PRINT("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
	PRINT("frame_instr_size", sizeof(((_PyInterpreterFrame *)0)->prev_instr));
#else
	PRINT("tstate_frame", offsetof(PyThreadState, current_frame));
	PRINT("cframe_frame", NO_FIELD);
	PRINT("frame_code", offsetof(_PyInterpreterFrame, f_executable));
	PRINT("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
	PRINT("frame_instr_size", sizeof(((_PyInterpreterFrame *)0)->instr_ptr));
#endif
	PRINT("frame_back", offsetof(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX < 0x030c0000
	PRINT("frame_entry", offsetof(_PyInterpreterFrame, is_entry));
	PRINT("frame_owner", NO_FIELD);
	PRINT("frames", 2); /* PY_FRAMES_311 */
#else
	PRINT("frame_entry", NO_FIELD);
	PRINT("frame_owner", offsetof(_PyInterpreterFrame, owner));
	PRINT("frames", 3); /* PY_FRAMES_312 */
#endif
	PRINT("code_bytecode", offsetof(PyCodeObject, co_code_adaptive));
#endif
	PRINT("code_flags", offsetof(PyCodeObject, co_flags));
	PRINT("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
}

static void code_fields(void)
{
#if PY_VERSION_HEX < 0x030c0000
	PRINT("runtime_tss_key", offsetof(_PyRuntimeState, gilstate.autoTSSkey));
#else
	PRINT("runtime_tss_key", offsetof(_PyRuntimeState, autoTSSkey));
#endif
	PRINT("code_filename", offsetof(PyCodeObject, co_filename));
	PRINT("code_name", offsetof(PyCodeObject, co_name));
#if PY_VERSION_HEX < 0x030b0000
	PRINT("code_qualname", NO_FIELD);
	/* what bounds an instruction: co_code, a bytes object */
	PRINT("code_size_field", offsetof(PyCodeObject, co_code));
	PRINT("code_size_kind", 1); /* PY_CODE_SIZE_BYTES_OBJECT */
#else
	PRINT("code_qualname", offsetof(PyCodeObject, co_qualname));
	/* the code object's own ob_size: its code units */
	PRINT("code_size_field", offsetof(PyVarObject, ob_size));
	PRINT("code_size_kind", 2); /* PY_CODE_SIZE_UNITS */
#endif
#if PY_VERSION_HEX < 0x030a0000
	PRINT("code_lines", offsetof(PyCodeObject, co_lnotab));
	PRINT("line_table", 1); /* PY_LINES_LNOTAB */
#elif PY_VERSION_HEX < 0x030b0000
	PRINT("code_lines", offsetof(PyCodeObject, co_linetable));
	PRINT("line_table", 2); /* PY_LINES_310 */
#else
	PRINT("code_lines", offsetof(PyCodeObject, co_linetable));
	PRINT("line_table", 3); /* PY_LINES_LOCATIONS */
#endif
	PRINT("code_unit_size", sizeof(_Py_CODEUNIT));
	/* f_lasti counts bytes up to 3.9 (ceval's INSTR_OFFSET), then code
	 * units, as the instruction pointers do */
	PRINT("instr_unit", PY_VERSION_HEX < 0x030a0000 ? 1 : sizeof(_Py_CODEUNIT));
}

static void object_fields(void)
{
	PRINT("str_length", offsetof(PyASCIIObject, length));
	PRINT("str_state", offsetof(PyASCIIObject, state));
	PRINT("str_kind_shift", STATE_BIT(kind));
	PRINT("str_kind_width", STATE_WIDTH(kind));
	PRINT("str_compact_bit", STATE_BIT(compact));
	PRINT("str_ascii_bit", STATE_BIT(ascii));
	PRINT("str_ascii_data", sizeof(PyASCIIObject));
	PRINT("str_compact_data", sizeof(PyCompactUnicodeObject));
	PRINT("bytes_size", offsetof(PyBytesObject, ob_base.ob_size));
	PRINT("bytes_data", offsetof(PyBytesObject, ob_sval));
}

int main(void)
{
	printf("version %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
	bpf_fields();
	code_fields();
	object_fields();
	return 0;
}
