/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * /proc/kallsyms read in a thread of its own while a capture samples
 * (from the end of its programs' load on): the kernel formats ~120k lines (50-90 ms on a VM)
 * that the names need only once the capture has ended.  What the kernel
 * adds meanwhile is not lost: when a module or a BPF program other than
 * the capture's own came after the read began, the symbols are read again
 * at the end, as they were before.
 */
#ifndef SMOLDER_KSYMS_READER_H
#define SMOLDER_KSYMS_READER_H

#include <stdbool.h>
#include <stdint.h>
#include "symbols/ksyms.h"

struct ksyms_reader;

/* Starts the read; NULL when no thread could start (then read at the end). */
struct ksyms_reader *ksyms_reader__start(const char *path);
/* The ids of the capture's own BPF programs: no reason to read again if
 * they came after the read began (their frames are never in a sampled
 * stack). */
void ksyms_reader__own(struct ksyms_reader *r, const uint32_t *ids, size_t nr);
/*
 * Waits for the read and frees r: the symbols as they are now (read again
 * when the kernel's text changed since, or the change cannot be told), or
 * NULL with errno set, as ksyms__load_file.
 */
struct ksyms *ksyms_reader__finish(struct ksyms_reader *r);


#endif
