#!/bin/bash
# Errors found once smolder tries: a command after -- that cannot run (after
# the BPF program is loaded, so as root), and missing privileges (smolder
# run as nobody, with and without CAP_BPF).  Each fails fast with exactly
# one line on stderr, "smolder: <lowercase message>", nothing on stdout.
# Bad input on the command line: tests/check/errors.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../check/_errors.sh"

# after --, a command (perf's and smolder's -- COMMAND), here one that cannot run
err_case command_cannot_run 127 'cannot run -3' -- -3

# Not root: no CAP_BPF/CAP_PERFMON.
if command -v setpriv >/dev/null; then
	timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$SMOLDER" -f 1 >"$TMP/nr.out" 2>"$TMP/nr.err"
else
	timeout 10 su nobody -s /bin/sh -c "'$SMOLDER' -f 1" >"$TMP/nr.out" 2>"$TMP/nr.err"
fi
rc=$?
check error_not_root_exit_1 equals "$rc" 1
check error_not_root_one_line one_error "$TMP/nr.err"
check error_not_root_names_fix some_line "$TMP/nr.err" '(permission denied|not permitted).*root.*CAP_BPF.*CAP_PERFMON'
check error_not_root_no_stdout equals "$(wc -c <"$TMP/nr.out")" 0

# CAP_BPF without CAP_PERFMON: the kernel refuses perf_event programs; the
# error names the missing capability before anything is tried.
timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+bpf \
	--ambient-caps=-all,+bpf "$SMOLDER" -f 1 >"$TMP/np.out" 2>"$TMP/np.err"
rc=$?
check error_no_perfmon_exit_1 equals "$rc" 1
check error_no_perfmon_one_line one_error "$TMP/np.err"
check error_no_perfmon_names_it some_line "$TMP/np.err" '^smolder: not permitted to trace with BPF: CAP_PERFMON is missing \(run as root or grant CAP_BPF and CAP_PERFMON'
