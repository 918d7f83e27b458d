// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CPython frames merged into native stacks, and named (pyframes.h). */
#include <stdio.h>
#include <string.h>

#include "fold/pyframes.h"

/* The runs of a Python stack: run k (innermost first) is frames
 * end[k - 1] + 1 .. end[k]. */
struct runs {
	uint32_t n;
	uint16_t end[PY_MAX_FRAMES];
};

static void find_runs(const struct stack_trace *pyst, struct runs *r)
{
	uint32_t frames = pyst->nr / PY_FRAME_SLOTS;

	r->n = 0;
	for (uint32_t i = 0; i < frames && i < PY_MAX_FRAMES; i++)
		if ((pyst->ip[i * PY_FRAME_SLOTS + 1] & PY_EVAL_END) || i + 1 == frames)
			r->end[r->n++] = i;
}

/* Appends run k, root first. */
static size_t put_run(const struct runs *r, uint32_t k, struct merged_frame *out, size_t n)
{
	uint32_t first = k ? r->end[k - 1] + 1u : 0;

	for (int i = r->end[k]; i >= (int)first && n < PYFRAMES_MAX; i--)
		out[n++] = (struct merged_frame){ .index = (uint16_t)i, .python = true };
	return n;
}

size_t pyframes__merge(const struct py_interp *pi, const struct stack_trace *ust,
		       uint64_t (*addr)(const struct stack_trace *st, int i),
		       const struct stack_trace *pyst, struct merged_frame *out)
{
	int unr = ust ? (int)(ust->nr < SMOLDER_MAX_DEPTH ? ust->nr : SMOLDER_MAX_DEPTH) : 0;
	uint32_t loops = 0, j = 0, extra;
	struct runs r;
	size_t n = 0;

	find_runs(pyst, &r);
	for (int i = 0; i < unr; i++)
		loops += py_interp__is_eval(pi, addr(ust, i));
	extra = r.n > loops ? r.n - loops : 0;
	if (!loops)
		for (uint32_t k = r.n; k-- > 0;)
			n = put_run(&r, k, out, n);
	for (int i = unr - 1; i >= 0 && n < PYFRAMES_MAX; i--) {
		uint32_t root_run;

		if (!py_interp__is_eval(pi, addr(ust, i))) {
			out[n++] = (struct merged_frame){ .index = (uint16_t)i };
			continue;
		}
		/* loop frame j (outermost 0) runs run j + extra, root first */
		if (j == 0)
			for (uint32_t k = r.n; k-- > r.n - extra;)
				n = put_run(&r, k, out, n);
		root_run = j + extra;
		if (root_run < r.n)
			n = put_run(&r, r.n - 1 - root_run, out, n);
		else /* no run of its own yet (or any more): it stays native */
			out[n++] = (struct merged_frame){ .index = (uint16_t)i };
		j++;
	}
	return n;
}

/* What of path a reader needs: below the import root, else the base name. */
static const char *short_file(const char *path)
{
	static const char *const roots[] = { "/site-packages/", "/dist-packages/" };
	const char *s, *best = NULL;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		for (s = strstr(path, roots[i]); s; s = strstr(s + 1, roots[i]))
			best = s + strlen(roots[i]);
	if (best && *best)
		return best;
	for (s = strstr(path, "/lib/python"); s; s = strstr(s + 1, "/lib/python")) {
		const char *slash = strchr(s + 11, '/');

		if (slash && slash[1])
			best = slash + 1;
	}
	if (best)
		return best;
	s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

void pyframes__name(const struct py_frame *pf, bool lines, char *buf, size_t len)
{
	const char *file = pf->file ? short_file(pf->file) : "?";
	char where[300];
	int n, room;

	if (lines && pf->line)
		n = snprintf(where, sizeof(where), " (%.256s:%u)", file, pf->line);
	else
		n = snprintf(where, sizeof(where), " (%.256s)", file);
	/* a name too long for buf is cut, not the file after it */
	room = (int)len - 1 - (n < (int)sizeof(where) ? n : (int)sizeof(where) - 1);
	snprintf(buf, len, "%.*s%s", room > 0 ? room : 0, pf->func, where);
}
