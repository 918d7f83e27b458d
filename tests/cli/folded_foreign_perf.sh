#!/bin/bash
# smolder flamegraph on what perf record -g and perf's own stackcollapse
# script (Debian's linux-perf) write, on cpu_split: real output, 75% under
# burn_a, every sample drawn; and with what a pipe picks up on the way,
# skipped and said.  The other profilers' formats, made here without a
# capture: tests/check/folded_foreign.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../check/_folded_foreign.sh"

if ! command -v perf >/dev/null; then
	fail perf_stackcollapse_deps "perf not found (scripts/deps.sh installs linux-perf)"
else
	start_wl cpu_split 4 || exit 1
	sleep 0.3
	# "perf script report" reads ./perf.data whatever -i says
	(cd "$TMP" && perf record -q -e cpu-clock -F 499 -g -p "$WL_PID" -o perf.data -- sleep 2 \
		>perf-record.out 2>&1 && perf script report stackcollapse >perf.folded 2>perf-script.err)
	check perf_stackcollapse_wrote some_line "$TMP/perf.folded" '^cpu_split;.*;burn_a;spin [0-9]+$'
	n=$(total "$TMP/perf.folded")
	check perf_stackcollapse_samples within "$n" 300 1100
	# as perf wrote it: nothing skipped, every sample drawn
	run_sm perf flamegraph --format folded "$TMP/perf.folded"
	check perf_read_exit_0 equals "$RC $(wc -c <"$TMP/perf.err")" "0 0"
	check perf_read_total equals "$(total "$TMP/perf.out")" "$n"
	check perf_read_burn_a_share within "$(share "$TMP/perf.out" ';burn_a;')" 65 85
	# and with what a pipe picks up on the way: perf's header comments,
	# a warning, a blank line
	printf '%s\n' '# ========' '# captured on    : Thu Jan  1 00:00:00 2026' \
		'Warning: 1 out of order events recorded.' '' >"$TMP/perf.other"
	drawn perf_noisy "$TMP/perf.folded" "$TMP/perf.other"
	check perf_noisy_burn_a_share within "$(share "$TMP/perf_noisy.out" ';burn_a;')" 65 85
fi
