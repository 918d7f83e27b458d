#!/bin/bash
# Known truth: cpu_split spends 75% of its CPU in burn_a and 25% in burn_b,
# both through spin(): main -> run_loop -> burn_{a,b} -> spin.  Checks the
# proportions, the frame order of folded and readable output, and that -p
# leaves out other processes (one of them with the same name).
source "$(dirname "$0")/../lib.sh"

start_wl cpu_split 25 || exit 1
A=$WL_PID
start_wl cpu_split 25 || exit 1 # same comm, must not be counted
B=$WL_PID
start_wl syscall_heavy 25 || exit 1 # other comm, must not be counted
sleep 0.3

# --- folded, -p ---
run_sm a -f -F 999 -p "$A" 3
F=$TMP/a.out
check split_exit_0 equals "$RC" 0
n=$(total "$F")
# 3 s of one busy thread at 999 Hz is at most ~3000 samples; it shares the
# 2 CPUs with two other busy processes, so expect well over 400.
check split_sample_count within "$n" 400 3300
check split_burn_a_share within "$(share "$F" ';burn_a;')" 65 85
check split_burn_b_share within "$(share "$F" ';burn_b;')" 15 35
# Frame order root -> leaf, comm first.
check split_path_order within "$(share "$F" '(^|;)main;run_loop;burn_[ab];spin( |;)')" 95 100
check split_comm_first all_lines "$F" '^cpu_split;'
check split_count_last all_lines "$F" ' [0-9]+$'
check split_excludes_other_process no_line "$F" 'do_reads|syscall_heavy|read_zero'
check split_no_dup_stacks equals "$(sed -E 's/ [0-9]+$//' "$F" | sort | uniq -d | wc -l)" 0
check split_summary some_line "$TMP/a.err" '^smolder: [0-9]+ samples, [0-9]+ lost \(.*\)$'
s=$(summary_samples "$TMP/a.err")
l=$(summary_lost "$TMP/a.err")
# Every sample taken is printed unless it was lost.
check split_summary_matches_output within "$n" "$((${s:-0} - ${l:-0}))" "${s:-0}"

# --- --per-pid: the process frame is comm-PID, only for the -p process ---
run_sm pp -f -F 499 --per-pid -p "$A" 2
check split_per_pid_exit_0 equals "$RC" 0
check split_per_pid_frame all_lines "$TMP/pp.out" "^cpu_split-$A;"
check split_per_pid_excludes_same_name no_line "$TMP/pp.out" "^cpu_split-$B;"

# --- two processes with -p A,B: both there, in about equal parts ---
run_sm two -f -F 499 --per-pid -p "$A,$B" 2
check split_pid_list_both some_line "$TMP/two.out" "^cpu_split-$B;"
check split_pid_list_share within "$(share "$TMP/two.out" "^cpu_split-$A;")" 30 70
check split_pid_list_only_those all_lines "$TMP/two.out" "^cpu_split-($A|$B);"

# --- readable report (no -f) ---
run_sm rep -F 999 -p "$A" 2
R=$TMP/rep.out
check report_exit_0 equals "$RC" 0
# Parse the blocks: frames (4 spaces), "    -                COMM (PID)",
# "        COUNT", blank line.  Prints "ok TOTAL A_COUNT" or what is wrong.
# report_parse FILE DESC: DESC 1 for hottest first (--hottest-first), 0 for
# bcc's order, hottest last.
report_parse() {
	awk -v pid="$A" -v desc="$2" '
	function bad(why) { print "bad line " NR ": " why ": [" $0 "]"; err = 1; exit }
	state == 0 && /^    -                / {
		if (nf == 0) bad("no frames before the process line")
		if ($0 != "    -                cpu_split (" pid ")") bad("process line")
		state = 1; next }
	state == 0 && /^    [^ ]/ { fr[++nf] = substr($0, 5); next }
	state == 0 { bad("expected a frame") }
	state == 1 {
		if ($0 !~ /^        [0-9]+$/) bad("expected the count")
		c = $1 + 0; if (nb > 0 && (desc ? c > last : c < last)) bad("counts not in order")
		last = c; nb++; tot += c
		path = ""; for (i = 1; i <= nf; i++) path = path fr[i] ";"
		if (path ~ /(^|;)burn_a;/) a += c
		if (desc ? nb == 1 : 1) top = path
		nf = 0; state = 2; next }
	state == 2 { if ($0 != "") bad("expected a blank line"); state = 0; next }
	END { if (err) exit; if (state == 0 && nf) { print "truncated block"; exit }
		if (nb == 0) { print "no blocks"; exit }
		print "ok", tot, a, top }' "$1"
}
parse=$(report_parse "$R" 0)
check report_format equals "${parse%% *}" ok
read -r _ rtot ra rtop <<<"$parse"
# The largest block is burn_a (75%), printed leaf first, last (as bcc).
check report_top_stack_leaf_first some_line <(echo "$rtop") '^spin;burn_a;run_loop;main;'
check report_burn_a_share within "$(awk -v a="${ra:-0}" -v t="${rtot:-0}" 'BEGIN { print t ? 100 * a / t : 0 }')" 65 85
# --hottest-first: the same blocks, the largest first.
run_sm rep_first -F 999 -p "$A" --hottest-first 2
parse=$(report_parse "$TMP/rep_first.out" 1)
check report_hottest_first_format equals "${parse%% *}" ok
read -r _ _ _ rtop <<<"$parse"
check report_hottest_first_top some_line <(echo "$rtop") '^spin;burn_a;run_loop;main;'
