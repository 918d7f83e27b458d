// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * deny FEATURE[,FEATURE...] COMMAND [ARGS...]: runs COMMAND in a process to
 * which the kernel refuses the named BPF features, nothing else changed:
 *
 *	ringbuf   BPF_MAP_TYPE_RINGBUF maps (kernels before 5.8 lack them)
 *	tracing   BPF_PROG_TYPE_TRACING programs, tp_btf among them (5.5, and
 *	          kernels without BTF)
 *
 * A BPF LSM program (deny.bpf.c) does it, for this process's PID only, which
 * COMMAND keeps: the link's descriptor is inherited across the exec, so the
 * program stays attached while COMMAND runs and goes with it.  Needs the
 * BPF LSM (lsm=...,bpf); exits 3 when the kernel has none, 2 on misuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "deny.skel.h"

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	struct deny_bpf *skel;
	char *list, *save = NULL;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: deny ringbuf|tracing[,...] COMMAND [ARGS...]\n");
		return 2;
	}
	libbpf_set_print(quiet);
	skel = deny_bpf__open();
	if (!skel) {
		fprintf(stderr, "deny: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = getpid();
	list = argv[1];
	for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (!strcmp(f, "ringbuf"))
			skel->rodata->deny_ringbuf = true;
		else if (!strcmp(f, "tracing"))
			skel->rodata->deny_tracing = true;
		else {
			fprintf(stderr, "deny: unknown feature '%s' (ringbuf or tracing)\n", f);
			return 2;
		}
	}
	if (deny_bpf__load(skel) || deny_bpf__attach(skel)) {
		fprintf(stderr, "deny: cannot load or attach the BPF LSM program: %s (is \"bpf\" in /sys/kernel/security/lsm?)\n",
			strerror(errno));
		return 3;
	}
	fd = bpf_link__fd(skel->links.deny);
	if (fd < 0 || fcntl(fd, F_SETFD, 0)) {
		fprintf(stderr, "deny: cannot keep the link across exec: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "deny: cannot run %s: %s\n", argv[2], strerror(errno));
	return 127;
}
