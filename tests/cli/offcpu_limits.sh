#!/bin/bash
# --off-cpu's noise controls and limits: the minimum and maximum block
# time, --off-cpu-sample's scaled estimate, and a process with thousands of
# sleeping threads, which fills the map of pending waits: the waits lost
# are counted by reason and the capture still ends on time.
source "$(dirname "$0")/../lib.sh"

comm_total() { awk -v c="$2" 'index($0, c ";") == 1 { t += $NF } END { print t + 0 }' "$1"; }

start_wl offcpu_split 60 || exit 1
P=$WL_PID
sleep 0.3

# --- min and max: doze waits 50 ms or more, wait_pipe about 20 ms (more
# on a busy machine: the time from wakeup to running is part of a wait) ---
run_sm min -v --off-cpu --off-cpu-min-us 45000 -f -F 99 -p "$P" 2
check offcpu_min_exit_0 equals "$RC" 0
check offcpu_min_keeps_longer some_line "$TMP/min.out" ';doze;.*\[off-cpu:S\] [0-9]+$'
check offcpu_min_drops_shorter no_line "$TMP/min.out" '^offcpu_split;.*;wait_pipe;.*\[off-cpu'
check offcpu_min_counted some_line "$TMP/min.err" '^smolder: off-CPU: [1-9][0-9]* waits under the minimum'
run_sm max -v --off-cpu --off-cpu-max-us 30000 -f -F 99 -p "$P" 2
# a doze still going on when the capture ends is counted up to the stop
# when it has lasted less than the maximum so far (docs/off-cpu.md): at most one
# such part, under 30 ms; every whole 50 ms doze is left out
doze_us=$(awk '/;doze;.*\[off-cpu/ { t += $NF } END { print t + 0 }' "$TMP/max.out")
check offcpu_max_drops_longer within "$doze_us" 0 30000
check offcpu_max_keeps_shorter some_line "$TMP/max.out" '^offcpu_split;.*;wait_pipe;.*\[off-cpu:S\] [0-9]+$'
check offcpu_max_counted some_line "$TMP/max.err" 'and [1-9][0-9]* over the maximum left out'
kill "$P" 2>/dev/null

# --- a wait cut by the capture's end counts only if it reached the minimum
# by then: a process that execs `sleep 30` once told (1.5 s after two
# captures of 4 s side by side began sampling) is cut about 2 s into that
# sleep; one capture's minimum is 1.2 s, the other's 3 s.  (Its wait for
# the word, from the captures' start, is under 3 s and named "sh".) ---
mkfifo "$TMP/go"
sh -c "read x <'$TMP/go'; exec sleep 30" &
P=$!
"$SMOLDER" -v --off-cpu --off-cpu-min-us 1200000 -f -F 99 -p "$P" 4 >"$TMP/cut_low.out" 2>"$TMP/cut_low.err" &
low=$!
"$SMOLDER" -v --off-cpu --off-cpu-min-us 3000000 -f -F 99 -p "$P" 4 >"$TMP/cut_high.out" 2>"$TMP/cut_high.err" &
high=$!
wait_for "$TMP/cut_low.err" '^smolder: sampling' 10 >/dev/null
wait_for "$TMP/cut_high.err" '^smolder: sampling' 10 >/dev/null
sleep 1.5
echo go >"$TMP/go"
wait "$low" "$high"
check offcpu_cut_reached_min_counted within "$(awk '/^sleep;.*nanosleep.*\[off-cpu:S\] [0-9]+$/ { t += $NF } END { print t + 0 }' "$TMP/cut_low.out")" 1200000 3100000
check offcpu_cut_under_min_left_out no_line "$TMP/cut_high.out" '\[off-cpu'
kill "$P" 2>/dev/null

# --- --off-cpu-sample: 200 threads sleeping all along, 1 switch in 4 ---
start_wl offcpu_split sleepers 200 60 || exit 1
P=$WL_PID
sleep 1
run_sm s4 --off-cpu --off-cpu-sample 4 -f -F 49 -p "$P" 3
check offcpu_sample_exit_0 equals "$RC" 0
# 200 threads x 3 s, scaled back from a quarter of the waits
check offcpu_sample_scaled within "$(comm_total "$TMP/s4.out" sleeper)" 510000000 660000000
run_sm s1 --off-cpu -f -F 49 -p "$P" 3
check offcpu_exact_sleepers within "$(comm_total "$TMP/s1.out" sleeper)" 540000000 630000000
kill "$P" 2>/dev/null

# --- 3000 sleeping threads against a map of 1024 pending waits ---
start_wl offcpu_split sleepers 3000 60 || exit 1
P=$WL_PID
sleep 2
run_sm full --off-cpu --hash-storage-size 1024 -f -F 49 -p "$P" 2
check offcpu_full_exit_0 equals "$RC" 0
check offcpu_full_ends_on_time within "$ELAPSED" 1 12
check offcpu_full_counted some_line "$TMP/full.err" '^smolder: [0-9]+ off-CPU waits \([0-9.]+ s\), [1-9][0-9]* lost \(pending map full [1-9][0-9]*, '
check offcpu_full_hint some_line "$TMP/full.err" 'map of pending waits was full .*holds 1024 threads.*--hash-storage-size'
# what was kept is still right: at most 1024 threads' worth of time
check offcpu_full_bounded within "$(comm_total "$TMP/full.out" sleeper)" 1 "$((1024 * 2100000))"
kill "$P" 2>/dev/null
