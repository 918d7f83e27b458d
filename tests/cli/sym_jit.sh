#!/bin/bash
# JIT code named from /tmp/perf-PID.map.  jit_perfmap runs generated code
# from anonymous memory (main -> run_jit -> generated code, which has a
# frame) and names it jit_hot_loop in its map file (with jit_cold_stub, never
# run, just before it).  Expect:
#  - jit_hot_loop as the frame name; with -a, jit_hot_loop_[j] and kernel
#    frames _[k] (run_jit reads /dev/zero: a few % of samples);
#  - a map file of the process's own user, not root (the process runs as
#    nobody): used;
#  - a map file owned by another user than the process (root's process,
#    file chowned to nobody): not used, the frame is [anon];
#  - /tmp/perf-PID.map a symlink to a valid map elsewhere: not followed, [anon].
source "$(dirname "$0")/../lib.sh"

JIT_RE='^jit_perfmap;([^;]*;)*main;run_jit;jit_hot_loop [0-9]+$'
ANON_RE='^jit_perfmap;([^;]*;)*main;run_jit;\[anon\] [0-9]+$'
# start_jit MODE [COMMAND PREFIX...]: start jit_perfmap 10 MODE, wait for its
# "jit START SIZE" line; sets P and MAP; the map file goes at exit.
start_jit() {
	local mode=$1
	shift
	start_cmd jit_perfmap "$@" "$WL/jit_perfmap" 10 "$mode" || exit 1
	P=$WL_PID
	MAP=/tmp/perf-$P.map
	at_exit "rm -f $MAP"
	wait_for "$WL_OUT" '^jit [0-9a-f]+ [0-9a-f]+$' || exit 1
}
stop_jit() { kill "$P" 2>/dev/null; wait "$P" 2>/dev/null; rm -f "$MAP"; }

# --- the map file names the code ---
start_jit map
check jit_map_written some_line "$MAP" ' jit_hot_loop$'
run_sm n -F 999 -U -f -p "$P" 2
check jit_exit_0 equals "$RC" 0
share_is jit_named "$TMP/n.out" "$JIT_RE" 90 100
check jit_not_cold_stub no_line "$TMP/n.out" 'jit_cold_stub'
check jit_not_anon no_line "$TMP/n.out" '\[anon\]'

# --- -a: _[j] for JIT frames, _[k] for kernel frames, user frames bare ---
run_sm a -a -F 999 -f -p "$P" 2
check jit_annotated_exit_0 equals "$RC" 0
share_is jit_annotated "$TMP/a.out" '^jit_perfmap;([^;]*;)*main;run_jit;jit_hot_loop_\[j\]( [0-9]+|;.*_\[k\] [0-9]+)$' 85 100
check jit_annotated_no_bare no_line "$TMP/a.out" ';jit_hot_loop( |;)'
# (read() in libc has no frame pointer: run_jit may be skipped there)
check jit_annotated_kernel some_line "$TMP/a.out" '^jit_perfmap;([^;]*;)*main;([^;]*;)*[^;]+_\[k\] [0-9]+$'
# Once a kernel frame starts, every frame after it is annotated _[k].
check jit_annotated_kernel_all equals "$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";")
	k = 0; for (i = 2; i <= n; i++) if (f[i] ~ /_\[k\]$/) k = 1; else if (k) { print; exit } }' "$TMP/a.out")" ''
check jit_annotated_user_bare some_line "$TMP/a.out" '^jit_perfmap;([^;]*;)*main;run_jit;'
stop_jit

# --- the process's own user (not root) wrote the map: it is used ---
start_jit map setpriv --reuid=nobody --regid=nogroup --clear-groups
check jit_same_user_owner equals "$(stat -c %U "$MAP")" nobody
check jit_same_user_process equals "$(stat -c %U "/proc/$P")" nobody
run_sm u -F 999 -U -f -p "$P" 2
check jit_same_user_exit_0 equals "$RC" 0
share_is jit_same_user_named "$TMP/u.out" "$JIT_RE" 90 100
stop_jit

# --- a map file owned by another user than the process: not trusted ---
start_jit map
chown nobody "$MAP"
run_sm o -F 999 -U -f -p "$P" 2
check jit_other_owner_exit_0 equals "$RC" 0
check jit_other_owner_not_used no_line "$TMP/o.out" 'jit_hot_loop|jit_cold_stub'
share_is jit_other_owner_anon "$TMP/o.out" "$ANON_RE" 90 100
stop_jit

# --- a symlink to a valid map: not followed ---
start_jit nomap
read -r _ start size <"$WL_OUT"
printf '%s %s jit_hot_loop\n' "$start" "$size" >"$TMP/planted.map"
ln -s "$TMP/planted.map" "$MAP"
run_sm s -F 999 -U -f -p "$P" 2
check jit_symlink_exit_0 equals "$RC" 0
check jit_symlink_not_followed no_line "$TMP/s.out" 'jit_hot_loop'
share_is jit_symlink_anon "$TMP/s.out" "$ANON_RE" 90 100
stop_jit
