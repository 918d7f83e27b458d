#!/bin/bash
# Known truth: syscall_heavy spends ~all its time in read(2) of /dev/zero,
# issued from do_reads: user main -> do_reads, kernel entry_SYSCALL_64... ->
# ksys_read -> vfs_read -> read_zero.  Checks kernel frames, -K, -U, -d, -a
# and the order of user and kernel parts in folded and readable output.
source "$(dirname "$0")/../lib.sh"

start_wl syscall_heavy 20 || exit 1
P=$WL_PID
sleep 0.2
KPATH='entry_SYSCALL_64[a-z_]*;do_syscall_64;(.*;)?ksys_read;vfs_read;read_zero'

# --- default: user then kernel frames ---
run_sm def -f -F 999 -p "$P" 2
D=$TMP/def.out
check kernel_exit_0 equals "$RC" 0
check kernel_samples within "$(total "$D")" 400 2200
check kernel_read_path within "$(share "$D" "^syscall_heavy;(.*;)?main;do_reads;$KPATH(;| )")" 70 100
# (a sample in its clock check can show main;now: do_reads checks the clock
# once per 16 MiB read, so that is rare)
check kernel_user_part within "$(share "$D" '^syscall_heavy;(.*;)?main;do_reads[; ]')" 95 100
check kernel_no_annotation_by_default no_line "$D" '_\[k\]'
check kernel_no_delimiter_by_default no_line "$D" ';-;|;- '

# --- -K: kernel frames only ---
run_sm K -f -K -F 999 -p "$P" 1
check kstacks_exit_0 equals "$RC" 0
check kstacks_no_user_frames no_line "$TMP/K.out" ';(main|do_reads|\[libc[^;]*)(;| )'
check kstacks_read_path within "$(share "$TMP/K.out" "^syscall_heavy;$KPATH(;| )")" 70 100
check kstacks_samples within "$(total "$TMP/K.out")" 200 1100

# --- -U: user frames only ---
run_sm U -f -U -F 999 -p "$P" 1
check ustacks_exit_0 equals "$RC" 0
check ustacks_no_kernel_frames no_line "$TMP/U.out" 'entry_SYSCALL|do_syscall_64|ksys_read|vfs_read|read_zero|asm_|_\[k\]'
# Samples in the kernel keep their user stack: still ~all in do_reads.
check ustacks_do_reads within "$(share "$TMP/U.out" '^syscall_heavy;(.*;)?main;do_reads [0-9]+$')" 95 100
check ustacks_samples within "$(total "$TMP/U.out")" 200 1100

# --- -d: "-" between user and kernel frames, only when both are there ---
run_sm d -f -d -F 999 -p "$P" 1
check delim_exit_0 equals "$RC" 0
check delim_between within "$(share "$TMP/d.out" "^syscall_heavy;(.*;)?main;do_reads;-;$KPATH(;| )")" 70 100
check delim_only_between_parts no_line "$TMP/d.out" '^syscall_heavy;-;|;- [0-9]+$|do_reads;entry_'
run_sm dK -f -d -K -F 999 -p "$P" 1
check delim_kernel_only_no_dash no_line "$TMP/dK.out" ';-(;| )'
check delim_kernel_only_output some_line "$TMP/dK.out" "^syscall_heavy;$KPATH"
run_sm dU -f -d -U -F 999 -p "$P" 1
check delim_user_only_no_dash no_line "$TMP/dU.out" ';-(;| )'
check delim_user_only_output some_line "$TMP/dU.out" '^syscall_heavy;(.*;)?main;do_reads '

# --- -a: kernel frames get _[k], user frames and the comm do not ---
run_sm a -f -a -d -F 999 -p "$P" 1
check annot_exit_0 equals "$RC" 0
check annot_read_path some_line "$TMP/a.out" ';ksys_read_\[k\];vfs_read_\[k\];read_zero_\[k\](;| )'
annot=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); k = 0
	if (f[1] ~ /_\[k\]$/) { print "comm annotated: " $0; exit }
	for (i = 2; i <= n; i++) {
		if (f[i] == "-") { k = 1; continue }
		if (k && f[i] !~ /_\[k\]$/) { print "kernel frame " f[i] " not annotated: " $0; exit }
		if (!k && f[i] ~ /_\[k\]$/) { print "user frame " f[i] " annotated: " $0; exit }
	} }' "$TMP/a.out")
check annot_kernel_frames_only equals "$annot" ""

# --- readable report with -d: leaf first, kernel frames, "--", user ---
run_sm rep -d -F 999 -p "$P" 1
check report_d_exit_0 equals "$RC" 0
top=$(awk 'BEGIN { RS = "" } { last = $0 } END { print last }' "$TMP/rep.out" | sed -n '/^    [^ ]/p' | sed 's/^    //' | tr '\n' ';')
check report_d_kernel_then_user some_line <(echo "$top") \
	'^read_zero;vfs_read;ksys_read;(.*;)?do_syscall_64;entry_SYSCALL_64[a-z_]*;--;do_reads;main;(.*;)?-  +syscall_heavy \('"$P"'\);$'
# "--" only between a kernel part and a user part, never at an end.
dbad=$(awk 'BEGIN { RS = "" } /(^|\n)    --\n    -  / || /^    --\n/ { print "block: " $0; exit }' "$TMP/rep.out" | head -c 300)
check report_d_dash_only_between equals "$dbad" ""

# --- kernel threads: kernel frames only (no user part, so no "-") ---
# Dirty 128 MiB of page cache and sync: the flusher kworker does the
# writeback while the whole machine is captured.
kill "$P"
DIRTY="$TOP/build/kernel_sh_dirty.dat"
at_exit "rm -f '$DIRTY'"
"$SMOLDER" -f -a -d -F 999 3 >"$TMP/kt.out" 2>"$TMP/kt.err" &
S=$!
sleep 0.5
dd if=/dev/zero of="$DIRTY" bs=1M count=128 status=none
sync
wait "$S"
rm -f "$DIRTY"
grep -E ';ret_from_fork[a-z_]*_\[k\];(.*;)?kthread_\[k\];' "$TMP/kt.out" >"$TMP/kthreads"
check kthread_writeback_seen some_line "$TMP/kthreads" '^kworker[^;]*;(.*;)?wb_workfn_\[k\];'
kbad=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";")
	for (i = 2; i <= n; i++) if (f[i] !~ /_\[k\]$/) { print "non-kernel frame " f[i] ": " $0; exit } }' "$TMP/kthreads")
check kthread_only_kernel_frames equals "$kbad" ""
