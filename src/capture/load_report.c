// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What loading the BPF object cost, said with -v (-vv): each program's
 * verified instructions and load time, the start-up's largest cost.
 */
#include <stdio.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/load_report.h"
#include "lib/log.h"

uint64_t load_report__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts); /* bpf_prog_info.load_time's clock */
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * With -v: each loaded program's verified instructions and load time, the
 * start-up's largest cost.  The kernel stamps a program before verifying
 * it, and libbpf loads them one after the other, so a program's time runs
 * to the next one's stamp (the last one's to loaded_at).
 */
#define MAX_REPORTED_PROGS 32
void load_report__print(struct bpf_object *obj, uint64_t started_at, uint64_t loaded_at)
{
	struct { const char *name; uint64_t at; uint32_t insns; } p[MAX_REPORTED_PROGS];
	char line[1024];
	size_t n = 0, len = 0;
	struct bpf_program *prog;

	if (log_verbosity < 2)
		return;
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info pi = {};
		__u32 size = sizeof(pi);

		if (n == MAX_REPORTED_PROGS || bpf_program__fd(prog) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &pi, &size))
			continue;
		p[n].name = bpf_program__name(prog);
		p[n].at = pi.load_time;
		p[n++].insns = pi.verified_insns;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t end = loaded_at;

		for (size_t j = 0; j < n; j++)
			if (p[j].at > p[i].at && p[j].at < end)
				end = p[j].at;
		len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
				"%s%s %.1f ms", i ? ", " : "", p[i].name, (end - p[i].at) / 1e6);
		if (p[i].insns) /* 0 before 5.16, which does not count them */
			len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
					" %u insns", p[i].insns);
	}
	info("BPF object loaded in %.1f ms: %s", (loaded_at - started_at) / 1e6, line);
}
