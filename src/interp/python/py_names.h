/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names of Python frames: the interpreters found in process images
 * (py_interp.h), and the code objects their frames ran, each read once per
 * process image from the live process (py_code.h) and kept by its address
 * and identity.  Code objects are read as soon as a stack naming them is
 * seen, while the process lives; what cannot be read is counted by reason.
 */
#ifndef SMOLDER_PY_NAMES_H
#define SMOLDER_PY_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "interp/python/py_interp.h"
#include "lib/budget.h"
#include "smolder.h"

/* Why a Python frame has no name (or a process no Python frames). */
enum py_miss {
	PY_NAMED,
	PY_MISS_GONE,       /* process gone before its code objects were read */
	PY_MISS_UNREADABLE, /* code object unreadable or not one */
	PY_MISS_CHANGED,    /* another code object at that address by then */
	PY_MISS_FULL,       /* over the names' memory bound */
	PY_MISS_LATE,       /* not read in time: the capture's end came */
	PY_MISS__MAX
};

struct py_names_opts {
	size_t max_bytes; /* code objects kept, in bytes; 0: PY_NAMES_DEFAULT_BYTES */
};
#define PY_NAMES_DEFAULT_BYTES (64u << 20)

/* One Python frame, named (func set) or not (miss says why). */
struct py_frame {
	const char *func; /* qualified name; NULL when unnamed */
	const char *file; /* co_filename as the process has it */
	uint32_t line;    /* 0: unknown */
	uint32_t first_line;
	enum py_miss miss;
};

struct py_names_stats {
	size_t images;          /* process images with CPython */
	size_t unsupported;     /* ... of a version we cannot read */
	size_t codes;           /* code objects read */
	size_t bytes;           /* held */
	uint64_t miss[PY_MISS__MAX]; /* code object reads that failed, by reason */
};

struct py_names;

struct py_names *py_names__new(const struct py_names_opts *o);
void py_names__free(struct py_names *pn);
/* Code objects are read only while b has time left (NULL: always); the
 * budget is the caller's, as usyms' is. */
void py_names__set_budget(struct py_names *pn, const struct budget *b);
/* Remembers process pid's image gen's interpreter (found, or found
 * unsupported: pi->layout NULL). */
int py_names__add_image(struct py_names *pn, pid_t pid, uint32_t gen, const struct py_interp *pi);
/* The interpreter of pid's image gen, or NULL. */
const struct py_interp *py_names__interp(const struct py_names *pn, pid_t pid, uint32_t gen);
/* Reads now the code objects stack st (a Python stack, include/python.h)
 * names that are not known yet. */
void py_names__read_stack(struct py_names *pn, pid_t pid, uint32_t gen,
			  const struct stack_trace *st);
/* Frame i (0: innermost) of Python stack st, named; its code object read
 * now if it was not yet. */
void py_names__frame(struct py_names *pn, pid_t pid, uint32_t gen, const struct stack_trace *st,
		     uint32_t i, struct py_frame *out);
void py_names__stats(const struct py_names *pn, struct py_names_stats *out);
/* Forgets the images current() says are gone (exec, exit) and their code
 * objects: a long run keeps what is live, not every process it saw. */
void py_names__forget_gone(struct py_names *pn, bool (*current)(pid_t pid, uint32_t gen, void *arg),
			   void *arg);

#endif
