/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What loading the BPF object cost (load_report.c), said with -v.
 */
#ifndef SMOLDER_LOAD_REPORT_H
#define SMOLDER_LOAD_REPORT_H

#include <stdint.h>

struct bpf_object;

/* Now on CLOCK_BOOTTIME, bpf_prog_info.load_time's clock, in ns. */
uint64_t load_report__now(void);
/* Says obj's programs' verified instructions and load times, the object
 * loaded from started_at to loaded_at (load_report__now). */
void load_report__print(struct bpf_object *obj, uint64_t started_at, uint64_t loaded_at);

#endif
