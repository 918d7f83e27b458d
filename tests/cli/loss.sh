#!/bin/bash
# Sample loss under a realistic load: many_stacks runs one thread per CPU
# through 10,000 distinct 18-frame user stacks.  A 5 s capture of the whole
# machine at 999 Hz must lose at most 0.1% of its samples and keep thousands
# of distinct stacks, each complete and symbolized.  A deliberately tiny
# --stack-storage-size must show up as counted loss, not silence.
source "$(dirname "$0")/../lib.sh"

start_wl many_stacks 15 || exit 1
P=$WL_PID
sleep 0.5 # calibration

run_sm all -f -F 999 --per-pid 5
F=$TMP/all.out
check loss_exit_0 equals "$RC" 0
check loss_summary some_line "$TMP/all.err" '^smolder: [0-9]+ samples, [0-9]+ lost \(.*\)$'
n=$(summary_samples "$TMP/all.err")
m=$(summary_lost "$TMP/all.err")
# Both CPUs are busy: 999 Hz * 5 s * 2 CPUs is ~10,000 samples.
check loss_sample_count within "${n:-0}" 5000 11000
check loss_at_most_0.1pct within "$(awk -v m="${m:-1}" -v n="${n:-0}" 'BEGIN { print n ? 100 * m / n : 100 }')" 0 0.1
check loss_output_total within "$(total "$F")" "$((${n:-0} - ${m:-0}))" "${n:-0}"
# Stacks that print the same are one line.
check loss_no_duplicate_lines equals "$(sed -E 's/ [0-9]+$//' "$F" | sort | uniq -d | head -n 3)" ""

grep -E "^many_stacks-$P;" "$F" >"$TMP/ms"
ms=$(total "$TMP/ms")
# (spelled out: mawk has no {14} intervals)
FULL="(^|;)worker;walk$(printf ';step_[ab]%.0s' $(seq 14));leaf( |;)"
check loss_full_paths within "$(share "$TMP/ms" "$FULL")" 95 100
check loss_symbolized within "$(share "$TMP/ms" '[[]unknown[]]')" 0 1
# Distinct paths (user part; kernel frames of interrupts may follow).
paths=$(grep -oE 'worker;walk(;step_[ab]){14};leaf' "$TMP/ms" | sort -u | wc -l)
# There are only 10,000 paths, and with S samples spread over them about
# 10000 * (1 - exp(-S / 10000)) distinct ones are hit.
expect=$(awk -v s="$ms" 'BEGIN { printf "%d\n", 10000 * (1 - exp(-s / 10000)) }')
echo "# loss: $n samples, $m lost; many_stacks $ms samples, $paths distinct paths (~$expect expected)"
check loss_distinct_stacks within "$paths" "$(awk -v e="$expect" 'BEGIN { e = int(0.8 * e); print (e > 1000 ? e : 1000) }')" 10000

# --- a stack table far too small: loss is counted and reported ---
run_sm small -f -F 999 --stack-storage-size 64 -p "$P" 2
check loss_small_exit_0 equals "$RC" 0
n=$(summary_samples "$TMP/small.err")
m=$(summary_lost "$TMP/small.err")
check loss_small_counted within "${m:-0}" 100 "${n:-0}"
check loss_small_reason some_line "$TMP/small.err" '^smolder: .*stack map full [1-9][0-9]*'
check loss_small_output_total within "$(total "$TMP/small.out")" "$((${n:-0} - ${m:-0}))" "${n:-0}"
