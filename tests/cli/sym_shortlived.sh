#!/bin/bash
# Short-lived processes, exec and PID reuse.  A capture of the whole machine
# while two drivers run:
#  - short_parent runs short_child over and over; each child lives ~40 ms
#    (main -> short_work -> short_leaf) and is gone long before the capture
#    ends, so its mappings must be read when its first sample arrives;
#  - pid_reuse gives one PID to exec_a, then (exec) exec_b, then (after the
#    process exits, clone3 set_tid) to a new exec_b and a new exec_a.  Both
#    binaries have the same code at the same addresses under other names
#    (a_work/a_leaf, b_work/b_leaf), so samples named with the wrong
#    binary's symbols show as the other binary's function names.
source "$(dirname "$0")/../lib.sh"

# Precondition: the pair really has the same layout (exec_b.c includes
# exec_a.c; make rebuilds exec_b only when exec_b.c changes).
addr() { nm "$WL/$1" | awk -v s="$2" '$3 == s { print $1 }'; }
check exec_pair_same_layout equals "$(addr exec_a a_work) $(addr exec_a a_leaf)" \
	"$(addr exec_b b_work) $(addr exec_b b_leaf)"

"$SMOLDER" -F 999 -U -f 4.5 >"$TMP/m.out" 2>"$TMP/m.err" &
SM=$!
sleep 0.5 # smolder has attached (it starts in ~0.1 s)
"$WL/short_parent" 3 "$WL/short_child" 40 >"$TMP/parent.out" 2>&1 &
PAR=$!
"$WL/pid_reuse" 3 "$WL/exec_a" "$WL/exec_b" 40 >"$TMP/reuse.out" 2>&1 &
REU=$!
wait "$PAR"
check shortlived_parent_ok equals "$?" 0
wait "$REU"
check pid_reuse_ok equals "$?" 0
wait "$SM"
check shortlived_exit_0 equals "$?" 0

children=$(awk '$1 == "children" { print $2 }' "$TMP/parent.out")
check shortlived_children_ran within "${children:-0}" 15 1000
reused=$(awk '$1 == "rounds" { print $4 }' "$TMP/reuse.out")
check pid_reuse_reused within "${reused:-0}" 6 1000
echo "# shortlived: $children children; pid_reuse: $(cat "$TMP/reuse.out")"

# --- short-lived children: >= 95% of their samples named, and >= 95% of
# those in the program's own work along its whole path.  (The loader's
# start-up is named too, but is not the work: its share is how slow this
# machine starts a process, about a tenth of a child's life here.)
comm_stacks "$TMP/m.out" short_child >"$TMP/child.out"
check shortlived_samples within "$(total "$TMP/child.out")" 400 100000
share_is shortlived_named "$TMP/child.out" '' 95 100
grep -E '(^|;)(short_work|short_leaf)[; ]' "$TMP/child.out" >"$TMP/child.work"
share_is shortlived_symbolized "$TMP/child.work" '^short_child;([^;]*;)*main;short_work;short_leaf [0-9]+$' 95 100
# The program's own functions are always named, even in its first
# milliseconds (frames elsewhere in the file can be startup garbage).
func_offsets "$WL/short_child" main short_work short_leaf >"$TMP/child.offs"
check shortlived_no_unnamed_exe no_unnamed_in "$TMP/child.out" short_child "$TMP/child.offs"

# --- exec and PID reuse: each binary's samples carry its own names only ---
comm_stacks "$TMP/m.out" exec_a >"$TMP/a.out"
comm_stacks "$TMP/m.out" exec_b >"$TMP/b.out"
check exec_a_samples within "$(total "$TMP/a.out")" 200 100000
check exec_b_samples within "$(total "$TMP/b.out")" 200 100000
check exec_a_not_b_names no_line "$TMP/a.out" '(^|;)b_(work|leaf)( |;)'
check exec_b_not_a_names no_line "$TMP/b.out" '(^|;)a_(work|leaf)( |;)'
func_offsets "$WL/exec_a" main a_work a_leaf >"$TMP/a.offs"
func_offsets "$WL/exec_b" main b_work b_leaf >"$TMP/b.offs"
check exec_a_not_unnamed no_unnamed_in "$TMP/a.out" exec_a "$TMP/a.offs"
check exec_b_not_unnamed no_unnamed_in "$TMP/b.out" exec_b "$TMP/b.offs"
share_is exec_a_named "$TMP/a.out" '' 95 100
share_is exec_b_named "$TMP/b.out" '' 95 100
grep -E '(^|;)(a_work|a_leaf)[; ]' "$TMP/a.out" >"$TMP/a.work"
grep -E '(^|;)(b_work|b_leaf)[; ]' "$TMP/b.out" >"$TMP/b.work"
share_is exec_a_symbolized "$TMP/a.work" '^exec_a;([^;]*;)*main;a_work;a_leaf [0-9]+$' 95 100
share_is exec_b_symbolized "$TMP/b.work" '^exec_b;([^;]*;)*main;b_work;b_leaf [0-9]+$' 95 100
check shortlived_summary some_line "$TMP/m.err" '^smolder: [0-9]+ samples, [0-9]+ lost'
