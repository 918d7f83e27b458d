#!/bin/bash
# Known truth for the speedscope and pprof outputs of a capture: cpu_split
# (75% burn_a, 25% burn_b) written as pprof, folded and speedscope at once;
# the pprof and speedscope files, read back by their own tools, carry the
# folded file's stacks and total, and pprof's cpu values are the counts
# times the period.  The same readers on folded input: tests/check/formats.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../check/_formats.sh"

start_wl cpu_split 6 || exit 1
sleep 0.3
run_sm cap -F 499 -p "$WL_PID" -o "$TMP/c.pb.gz" -o "$TMP/c.folded" -o "$TMP/c.speedscope.json" 3
ok_or_err capture_three_outputs_exit_0 "$RC" "$TMP/cap.err"
folded_of "$TMP/c.folded" "$TMP/c.want"
check capture_folded_has_samples within "$(stack_total "$TMP/c.want")" 300 1600
check capture_burn_a_share within "$(share "$TMP/c.folded" ';burn_a;')" 65 85
pprof_of "$TMP/c.pb.gz" "$TMP/c.pp"
check capture_pprof_stacks_equal_folded same_stacks "$TMP/c.pp" "$TMP/c.want"
check capture_pprof_total_equals equals "$(stack_total "$TMP/c.pp")" "$(stack_total "$TMP/c.want")"
check capture_pprof_sample_types equals "$("$PY" "$STACKS" pprof-types "$TMP/c.pp.raw")" "samples/count cpu/nanoseconds"
# -F 499: a sample stands for 1e9 / 499 ns, and cpu = samples * period.
period=$(sed -n 's/^Period: //p' "$TMP/c.pp.raw")
check capture_pprof_period within "${period:-0}" 2003000 2005000
"$PY" "$STACKS" pprof-raw "$TMP/c.pp.raw" 1 >"$TMP/c.cpu" 2>&1
awk -v p="${period:-0}" '{ n = $NF; sub(/ [^ ]*$/, ""); printf "%s %.0f\n", $0, n * p }' \
	"$TMP/c.want" >"$TMP/c.cpuwant"
check capture_pprof_cpu_is_count_times_period same_stacks "$TMP/c.cpu" "$TMP/c.cpuwant"
speedscope_of "$TMP/c.speedscope.json" "$TMP/c.ss"
ok_or_err capture_speedscope_valid_schema "$?" "$TMP/c.ss.err"
check capture_speedscope_stacks_equal_folded same_stacks "$TMP/c.ss" "$TMP/c.want"
check capture_speedscope_total_equals equals "$(stack_total "$TMP/c.ss")" "$(stack_total "$TMP/c.want")"
