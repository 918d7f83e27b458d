#!/bin/bash
# Kernel BTF.  Without it smolder cannot relocate its BPF program: one line
# naming the two fixes (a kernel with BTF, or --btf FILE).  With --btf and
# /sys/kernel/btf hidden it relocates against the file and profiles, noting
# that exec and exit go untraced (BTF tracepoints need the kernel's own).
# A bad --btf file is one line, exit 1; a kernel BTF lacking a field smolder
# reads (build/tools/btf_rename renames task_struct.flags) makes the kernel's
# verifier reject the program for real: one line with the verifier's reason,
# and with -v the end of its log.  BTF is hidden with a tmpfs over
# /sys/kernel/btf inside a private mount namespace.
source "$(dirname "$0")/../lib.sh"
TOOLS="$TOP/build/tools"

# hidden CMD...: CMD with /sys/kernel/btf hidden; stdout, stderr in $TMP/h.{out,err}, RC.
hidden() {
	unshare -m bash -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' hidden "$@" \
		>"$TMP/h.out" 2>"$TMP/h.err"
	RC=$?
}

hidden "$SMOLDER" -f 1
check no_btf_exit_1 equals "$RC" 1
check no_btf_one_line one_error "$TMP/h.err"
check no_btf_names_fixes some_line "$TMP/h.err" '^smolder: kernel BTF not found .*CONFIG_DEBUG_INFO_BTF=y.*--btf FILE'
check no_btf_no_stdout equals "$(wc -c <"$TMP/h.out")" 0

# --btf with a copy of the kernel's BTF, made before hiding it.
cp /sys/kernel/btf/vmlinux "$TMP/vmlinux.btf"
start_wl cpu_split 20 || exit 1
sleep 0.2
hidden "$SMOLDER" --btf "$TMP/vmlinux.btf" -F 199 -f -p "$WL_PID" 2
check btf_file_exit_0 equals "$RC" 0
check btf_file_names_frames within "$(share_clean "$TMP/h.out" '^cpu_split;(.*;)?main;run_loop;burn_a;spin ')" 60 90
grep '^smolder: note:' "$TMP/h.err" >"$TMP/h.notes"
check btf_file_notes_untraced_exec all_lines "$TMP/h.notes" \
	'^smolder: note: BTF tracepoints need /sys/kernel/btf/vmlinux, which is missing: exits and execs are not traced'
check btf_file_summary some_line "$TMP/h.err" '^smolder: [0-9]+ samples, 0 lost'
# With the kernel's BTF in place, --btf changes nothing visible: no note.
run_sm btf_visible --btf "$TMP/vmlinux.btf" -F 199 -f -p "$WL_PID" 1
check btf_file_visible_exit_0 equals "$RC" 0
check btf_file_visible_no_note no_line "$TMP/btf_visible.err" 'note:'

# bad_btf NAME FILE ERE: --btf FILE is one line matching ERE, exit 1, no output.
bad_btf() {
	run_sm "$1" --btf "$2" -f -o "$TMP/$1.folded" 1
	check "bad_btf_$1" equals "$RC $(one_error "$TMP/$1.err" >/dev/null && echo one-line) $(grep -cE -- "$3" "$TMP/$1.err") $(wc -c <"$TMP/$1.out") $([ -e "$TMP/$1.folded" ] && echo written)" \
		"1 one-line 1 0 "
}
head -c 65536 /dev/urandom >"$TMP/random.bin"
bad_btf missing "$TMP/nonexistent" "cannot read BTF from .*nonexistent: no such file or directory \(give --btf"
bad_btf text /etc/passwd 'cannot read BTF from /etc/passwd: not BTF data'
bad_btf random "$TMP/random.bin" 'random.bin: not BTF data'
bad_btf directory "$TMP" 'cannot read BTF from .*: (not BTF data|is a directory)'
# A program's BTF has struct task_struct too, but relocating against it
# would read the wrong offsets.
bad_btf program "$TOP/build/smolder.bpf.o" 'smolder.bpf.o: it does not describe a kernel \([0-9]+ types'
run_sm empty --btf '' 1
check bad_btf_empty_usage_exit_2 equals "$RC $(one_error "$TMP/empty.err" >/dev/null && echo one-line)" "2 one-line"

# A real verifier rejection: the kernel's BTF, task_struct.flags renamed.
if "$TOOLS/btf_rename" /sys/kernel/btf/vmlinux "$TMP/renamed.btf" task_struct flags flags_renamed; then
	run_sm rejected --btf "$TMP/renamed.btf" -f 1
	check verifier_exit_1 equals "$RC" 1
	check verifier_one_line one_error "$TMP/rejected.err"
	check verifier_reason some_line "$TMP/rejected.err" \
		"^smolder: the kernel's BPF verifier rejected program do_sample: failed to resolve CO-RE relocation .*struct task_struct\.flags .*\(--btf must describe the running kernel; rerun with -v for the end of the verifier's log\)$"
	run_sm rejected_v -v --btf "$TMP/renamed.btf" -f 1
	check verifier_v_exit_1 equals "$RC" 1
	check verifier_v_tail within "$(grep -c '^smolder: verifier: ' "$TMP/rejected_v.err")" 5 20
	check verifier_v_tail_has_reason some_line "$TMP/rejected_v.err" '^smolder: verifier: .*task_struct\.flags'
	check verifier_v_error_last equals "$(tail -n 1 "$TMP/rejected_v.err" | cut -c1-61)" \
		"smolder: the kernel's BPF verifier rejected program do_sample"
else
	fail verifier_rejection "build/tools/btf_rename could not write the renamed BTF"
fi
