#!/bin/bash
# Continuous mode against a workload of known CPU time: one file per
# interval whose totals add up, sample for sample, to what the capture
# counted and to the workload's CPU time; --keep rotation, across a restart
# too (through the directory's index); SIGUSR1 writing at once; SIGTERM
# writing the last partial interval; the status line on a terminal; and
# SIGKILL leaving no BPF program behind.
source "$(dirname "$0")/../lib.sh"
# sampling_begun ERR: wait (at most 20 s) for -v's "sampling N cpus" line
sampling_begun() {
	local i
	for i in $(seq 400); do
		grep -q '^smolder: sampling [0-9]* cpus' "$1" 2>/dev/null && return 0
		sleep 0.05
	done
}

# cputime PID: user+system CPU seconds of PID so far (from /proc/PID/stat).
cputime() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz }' "/proc/$1/stat"; }
# sum_dir DIR: samples in all folded profiles of DIR.
sum_dir() { cat "$1"/smolder-*.folded 2>/dev/null | awk '{ t += $NF } END { print t + 0 }'; }
nfiles() { find "$1" -name "smolder-*${2:-.folded}" | wc -l; }

# --- errors: one line, exit 2 ---
run_sm noDir --continuous
check cont_needs_output_dir equals "$RC" 2
check cont_needs_output_dir_msg one_error "$TMP/noDir.err"
run_sm withO --continuous --output-dir "$TMP/x" -o "$TMP/x.folded"
check cont_rejects_o equals "$RC" 2
run_sm noCont --interval 5
check interval_needs_continuous equals "$RC" 2
run_sm notDir --continuous --output-dir /etc/hostname 1
check cont_output_dir_not_dir equals "$RC" 1

# --- intervals add up: 1 s intervals over ~4.5 s, then SIGTERM ---
start_wl cpu_split 30 || exit 1
W=$WL_PID
D=$TMP/d1
c0=$(cputime "$W")
"$SMOLDER" -v --continuous --interval 1 --output-dir "$D" -F 99 -p "$W" >"$TMP/c1.out" 2>"$TMP/c1.err" &
S=$!
# the workload's CPU time from launch, and from when sampling began (seen
# a moment later): start-up (loading the program, the target's tables)
# takes longer on a loaded machine, and the samples lie between the two
sampling_begun "$TMP/c1.err"
c0s=$(cputime "$W")
sleep 4.5
kill -TERM "$S"
wait "$S"
RC=$?
c1=$(cputime "$W")
check cont_exit_0 equals "$RC" 0
n=$(nfiles "$D")
check cont_one_file_per_interval within "$n" 4 6
ls "$D" >"$TMP/names"
check cont_names all_lines "$TMP/names" '^smolder-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z\.folded$'
check cont_no_temp_files equals "$(ls -a "$D" | grep -c tmp)" 0
check cont_every_file_has_samples equals "$(for f in "$D"/*; do [ "$(total "$f")" -gt 0 ] || echo "$f"; done)" ""
sum=$(sum_dir "$D")
s=$(summary_samples "$TMP/c1.err")
l=$(summary_lost "$TMP/c1.err")
check cont_sum_equals_samples_taken equals "$sum" "$((${s:-0} - ${l:-0}))"
check cont_nothing_lost equals "${l:-x}" 0
# the workload's CPU time over the run, at 99 Hz (the split: 75/25)
want=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%d", (b - a) * 99 }')
wants=$(awk -v a="$c0s" -v b="$c1" 'BEGIN { printf "%d", (b - a) * 99 }')
check cont_sum_matches_cpu_time within "$sum" "$((wants * 85 / 100))" "$((want * 110 / 100))"
cat "$D"/*.folded >"$TMP/all.folded"
check cont_split_burn_a within "$(share "$TMP/all.folded" ';burn_a;')" 65 85
# without -v and off a terminal, no status line (c1 ran with -v)
run_sm c0 --continuous --interval 0.5 --output-dir "$TMP/d0" -F 99 -p "$W" 1.2
check cont_no_status_off_tty no_line "$TMP/c0.err" 'samples, [0-9]+ lost, [0-9]+ stacks'

# --- SIGUSR1 writes the current interval at once; SIGTERM the rest ---
D=$TMP/d2
"$SMOLDER" -v --continuous --interval 60 --output-dir "$D" -F 99 -p "$W" >"$TMP/c2.out" 2>"$TMP/c2.err" &
S=$!
sampling_begun "$TMP/c2.err"
sleep 1.5
kill -USR1 "$S"
sleep 0.7
check usr1_writes_at_once equals "$(nfiles "$D")" 1
sleep 1
kill -TERM "$S"
wait "$S"
check usr1_then_term_exit_0 equals "$?" 0
check term_writes_last_interval equals "$(nfiles "$D")" 2
s=$(summary_samples "$TMP/c2.err")
l=$(summary_lost "$TMP/c2.err")
check usr1_sum_equals_samples_taken equals "$(sum_dir "$D")" "$((${s:-0} - ${l:-0}))"
first=$(ls "$D" | head -n 1)
# 1.5 s of a thread at 99 Hz: at most ~150, fewer on a loaded machine
check usr1_file_has_its_samples within "$(total "$D/$first")" 20 200

# --- --keep: only the newest N stay; --format pprof names .pb.gz ---
D=$TMP/d3
run_sm keep --continuous --interval 0.5 --keep 2 --output-dir "$D" -F 49 -p "$W" 3.2
check keep_exit_0 equals "$RC" 0
check keep_two_files equals "$(nfiles "$D")" 2
# across a restart: the index names the first run's two profiles, and the
# second run's --keep removes the one unchanged since, naming it (-v); the
# one a user appended to is no longer what smolder wrote, and stays
check keep_index_written test -f "$D/.smolder-folded.index"
edited=$(ls "$D" | head -n 1)
unchanged=$(ls "$D" | sed -n 2p)
echo "# a note" >>"$D/$edited"
run_sm keep2 -v --continuous --interval 0.5 --keep 2 --output-dir "$D" -F 49 -p "$W" 1.2
check keep_restart_exit_0 equals "$RC" 0
check keep_restart_removes_earlier_run test ! -e "$D/$unchanged"
check keep_restart_names_removal some_line "$TMP/keep2.err" "^smolder: removed $unchanged \(beyond --keep\)$"
check keep_restart_changed_file_stays test -e "$D/$edited"
check keep_restart_keeps_2_and_the_changed_one equals "$(nfiles "$D")" 3
D=$TMP/d4
run_sm pb --continuous --interval 1 --format pprof --output-dir "$D" -F 49 -p "$W" 2
check pprof_files equals "$(nfiles "$D" .pb.gz)" 2
check pprof_gzip equals "$(head -c 2 "$(ls "$D"/*.pb.gz | head -n 1)" | od -An -tx1 | tr -d ' ')" 1f8b

# --- status line on a terminal, none with -q ---
D=$TMP/d5
script -qec "$SMOLDER --continuous --interval 0.5 --output-dir $D -F 49 -p $W 1.2" /dev/null >"$TMP/tty.out" 2>&1
check status_line_on_tty some_line "$TMP/tty.out" '^smolder: [0-9:]+Z \+[0-9]+s: [0-9]+ samples, 0 lost, [0-9]+ stacks, 1 processes, tables [0-9]+ files [0-9]+ KiB, RSS [0-9]+ KiB -> smolder-'
script -qec "$SMOLDER -q --continuous --interval 0.5 --output-dir $D -F 49 -p $W 1.2" /dev/null >"$TMP/ttyq.out" 2>&1
check status_quiet_on_tty equals "$(head -c 300 "$TMP/ttyq.out")" ""

# --- SIGKILL: the kernel drops the programs and events with our fds ---
# (bpftool 7.1 lists no owner pids: the ids come from our fdinfo)
D=$TMP/d6
"$SMOLDER" --continuous --interval 1 --output-dir "$D" -F 49 >"$TMP/k.out" 2>&1 &
S=$!
ids=""
for i in $(seq 50); do
	ids=$(cat /proc/"$S"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -u)
	events=$(ls -l /proc/"$S"/fd 2>/dev/null | grep -c 'perf_event')
	[ -n "$ids" ] && [ "$events" -gt 0 ] && grep -q sampling "$TMP/k.out" && break
	sleep 0.1
done
check sigkill_had_programs_and_events test -n "$ids" -a "$events" -gt 0
for id in $ids; do bpftool prog show id "$id" >/dev/null 2>&1 || echo "$id"; done >"$TMP/notshown"
check sigkill_bpftool_saw_them equals "$(wc -l <"$TMP/notshown")" 0
{ kill -KILL "$S"; wait "$S"; } 2>/dev/null
check sigkill_leaves_no_program equals "$(progs_left $ids)" ""
