// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Python frames merged into native stacks (fold/pyframes.c), on stacks
 * built by hand: which interpreter-loop frame each run of Python frames
 * takes, when the native stack has more loop frames than runs (one just
 * entered), fewer (a native stack cut short), or none; and the names the
 * frames go by.  tests/cli/python_*.sh check the same on live processes.
 */
#include <stdint.h>
#include <string.h>
#include "unit.h"
#include "fold/pyframes.h"

#define EVAL 0x1000 /* the loop's code: [0x1000, 0x2000) */

static const struct py_interp interp = { .major = 3, .minor = 12, .eval = { { EVAL, 0x2000 } } };

static uint64_t addr_of(const struct stack_trace *st, int i)
{
	return st->ip[i];
}

/* Native stack from a string, leaf first: 'E' a loop frame, else 0x9000 + c. */
static void native(struct stack_trace *st, const char *frames)
{
	st->nr = strlen(frames);
	for (uint32_t i = 0; i < st->nr; i++)
		st->ip[i] = frames[i] == 'E' ? EVAL + 0x10 * i : 0x9000 + (uint64_t)frames[i];
}

/* Python stack, innermost first: each char a frame, '|' after a frame
 * ends its run (PY_EVAL_END). */
static void python(struct stack_trace *st, const char *frames)
{
	st->nr = 0;
	for (const char *c = frames; *c; c++) {
		if (*c == '|') {
			st->ip[st->nr - 1] |= PY_EVAL_END;
			continue;
		}
		st->ip[st->nr++] = 0x700000 + (uint64_t)*c; /* code object */
		st->ip[st->nr++] = 0;
	}
}

/* The merged stack, root first: native frames as their letter, Python
 * frames as their letter in upper case... both are letters: Python ones
 * are printed inside brackets. */
static const char *merge(const char *nat, const char *py)
{
	static char out[512];
	static struct stack_trace ust, pyst;
	struct merged_frame m[PYFRAMES_MAX];
	size_t n, k = 0;

	native(&ust, nat);
	python(&pyst, py);
	n = pyframes__merge(&interp, &ust, addr_of, &pyst, m);
	for (size_t i = 0; i < n; i++) {
		if (m[i].python) {
			out[k++] = '[';
			out[k++] = (char)(pyst.ip[m[i].index * PY_FRAME_SLOTS] - 0x700000);
			out[k++] = ']';
		} else {
			uint64_t a = ust.ip[m[i].index];

			out[k++] = a >= EVAL && a < 0x2000 ? 'E' : (char)(a - 0x9000);
		}
	}
	out[k] = '\0';
	return out;
}

/* 3.11+: two runs of the loop, a C function between them. */
TEST(runs_take_their_loop_frames)
{
	/* native leaf first: x (leaf C), E (inner loop), c (C call), E, m, s (root) */
	CHECK_STR(merge("xEcEms", "ba|dc|"), "sm[c][d]c[a][b]x");
}

/* Up to 3.10: one frame per run. */
TEST(one_frame_a_run)
{
	CHECK_STR(merge("EEEm", "a|b|c|"), "m[c][b][a]");
}

/* The innermost loop frame has not pushed its frame yet: it stays. */
TEST(loop_frame_without_a_run_stays)
{
	CHECK_STR(merge("xEEm", "a|"), "m[a]Ex");
}

/* A native stack cut short of its root: the outer runs go before the
 * outermost loop frame it has. */
TEST(outer_runs_before_the_outermost_loop)
{
	CHECK_STR(merge("xEc", "a|b|c|"), "c[c][b][a]x");
}

/* No loop frame at all (walked without frame pointers): Python first. */
TEST(no_loop_frame_python_first)
{
	CHECK_STR(merge("xy", "ab|"), "[b][a]yx");
}

/* A run whose end mark was cut (depth limit): still a run. */
TEST(last_run_without_its_mark)
{
	CHECK_STR(merge("Em", "ab"), "m[b][a]");
}

static const char *name(const char *func, const char *file, uint32_t line, bool lines)
{
	static char buf[256];
	struct py_frame pf = { .func = func, .file = file, .line = line };

	pyframes__name(&pf, lines, buf, sizeof(buf));
	return buf;
}

TEST(names)
{
	CHECK_STR(name("handle", "/srv/app/app.py", 42, false), "handle (app.py)");
	CHECK_STR(name("handle", "/srv/app/app.py", 42, true), "handle (app.py:42)");
	CHECK_STR(name("JSONDecoder.raw_decode", "/usr/lib/python3.11/json/decoder.py", 7, false),
		  "JSONDecoder.raw_decode (json/decoder.py)");
	CHECK_STR(name("get", "/venv/lib/python3.12/site-packages/requests/api.py", 0, true),
		  "get (requests/api.py)");
	CHECK_STR(name("f", "/usr/lib/python3/dist-packages/apt/cache.py", 3, false),
		  "f (apt/cache.py)");
	CHECK_STR(name("<module>", "app.py", 1, false), "<module> (app.py)");
	CHECK_STR(name("<lambda>", "<string>", 1, false), "<lambda> (<string>)");
}

int main(void)
{
	RUN(runs_take_their_loop_frames);
	RUN(one_frame_a_run);
	RUN(loop_frame_without_a_run_stays);
	RUN(outer_runs_before_the_outermost_loop);
	RUN(no_loop_frame_python_first);
	RUN(last_run_without_its_mark);
	RUN(names);
	UNIT_EXIT();
}
