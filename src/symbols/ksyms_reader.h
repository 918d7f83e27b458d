/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * /proc/kallsyms read in a thread of its own while a capture samples: the
 * kernel formats ~120k lines (50-90 ms on a VM) that the names need only
 * once the capture has ended.  What the kernel adds meanwhile is not lost:
 * when a module or a BPF program came after the read began, the symbols
 * are read again at the end, as they were before.
 */
#ifndef SMOLDER_KSYMS_READER_H
#define SMOLDER_KSYMS_READER_H

#include <stdbool.h>
#include <stdint.h>
#include "symbols/ksyms.h"

struct ksyms_reader;

/* Starts the read; NULL when no thread could start (then read at the end). */
struct ksyms_reader *ksyms_reader__start(const char *path);
/*
 * Waits for the read and frees r: the symbols as they are now (read again
 * when the kernel's text changed since, or the change cannot be told), or
 * NULL with errno set, as ksyms__load_file.
 */
struct ksyms *ksyms_reader__finish(struct ksyms_reader *r);

/* What /proc/kallsyms's text depends on: the loaded modules and the
 * newest BPF program.  Exposed for tests. */
struct ktext_gen {
	uint64_t modules; /* a hash of each module's name and address */
	uint32_t last_prog; /* the highest BPF program id */
	bool progs_known; /* false without CAP_SYS_ADMIN to list programs */
};
void ksyms_reader__gen(struct ktext_gen *g);
/* Whether a symbol table read at "then" still holds at "now". */
bool ksyms_reader__same(const struct ktext_gen *then, const struct ktext_gen *now);

#endif
