#!/bin/bash
# No process can stall or bloat a capture (issue 12).  The hostile
# workload runs as nobody: JIT code in anonymous executable memory, named
# by the last line of its 1,000,000-line /tmp/perf-PID.map, while a thread
# maps and unmaps a page in a loop (the BPF side announces its image at
# almost every sample).  Main's smolder ran until the target exited.
# Expect, for -p PID 3 and for --continuous --interval 2:
#  - the capture ends within its duration + 1 s, SIGTERM within 1 s;
#  - smolder's peak RSS stays under 128 MiB (the map is read within its
#    64 MiB budget, newest lines first: a note says so);
#  - the JIT code is still named (its line is the newest).
# Then 10,000 mappings and the churn, no perf map, at 999 Hz (main: 3 s
# took 20 s and lost 8,331 samples): in time, and nothing lost.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"

JIT_RE='^hostile;([^;]*;)*main;run_code;jit_hot_loop(;[^;]*)* [0-9]+$'

start_hostile 40 jit 1000000 40
timed_sm p -f -p "$HP" 3
bounded jit_pid 3
share_is jit_pid_named "$TMP/p.out" "$JIT_RE|^hostile;([^;]*;)*(start_thread|churn|munmap|mmap)" 95 100
check jit_pid_code_named some_line "$TMP/p.out" ';run_code;jit_hot_loop [0-9]+$'
check jit_pid_map_cut_noted some_line "$TMP/p.err" "perf-$HP.map of pid $HP: only its newest lines read"

term_sm t 2 -f -p "$HP"
check jit_sigterm_exit_0 equals "$RC" 0
check jit_sigterm_within_1s within "$TERM_TOOK" 0 1
check jit_sigterm_written some_line "$TMP/t.out" ';run_code;jit_hot_loop [0-9]+$'

mkdir -p "$TMP/cont"
timed_sm c --continuous --interval 2 --output-dir "$TMP/cont" -p "$HP" -v 6
bounded jit_continuous 6
check jit_continuous_files within "$(ls "$TMP/cont" | grep -c '^smolder-.*\.folded$')" 3 4
cat "$TMP"/cont/smolder-*.folded >"$TMP/cont.folded" 2>/dev/null
check jit_continuous_named some_line "$TMP/cont.folded" ';run_code;jit_hot_loop [0-9]+$'

mkdir -p "$TMP/cont2"
term_sm ct 3 --continuous --interval 2 --output-dir "$TMP/cont2" -p "$HP"
check jit_continuous_sigterm_exit_0 equals "$RC" 0
check jit_continuous_sigterm_within_1s within "$TERM_TOOK" 0 1
check jit_continuous_sigterm_last_written within "$(ls "$TMP/cont2" | grep -c '^smolder-')" 2 3
stop_hostile

# --- 10,000 mappings, churn, 999 Hz, the whole machine ---
start_hostile 30 maps 10000
check maps_10k_mapped within "$(wc -l <"/proc/$HP/maps")" 10000 70000
timed_sm k -F 999 -f 3
bounded maps_10k 3
n=$(summary_samples "$TMP/k.err")
check maps_10k_nothing_lost within "$(summary_lost "$TMP/k.err")" 0 "$((${n:-0} / 100))"
check maps_10k_sampled some_line "$TMP/k.out" '^hostile;([^;]*;)*main;run_code;\[anon\] [0-9]+$'
stop_hostile
