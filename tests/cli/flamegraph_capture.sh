#!/bin/bash
# A capture writes several outputs of one profile at once, each in the
# format its name gives (folded, SVG, the readable report).  The commands
# on folded input, without a capture: tests/check/flamegraph.sh.
source "$(dirname "$0")/../lib.sh"

start_wl cpu_split 6 || exit 1
run_sm cap -F 499 -p "$WL_PID" -o "$TMP/c.folded" -o "$TMP/c.svg" -o "$TMP/c.report" \
	-o "$TMP/c.txt" 2
check capture_multi_exit_0 equals "$RC" 0
n=$(total "$TMP/c.folded")
check capture_multi_samples within "$n" 200 1100
check capture_multi_txt_is_folded equals "$(total "$TMP/c.txt")" "$n"
check capture_multi_svg some_line "$TMP/c.svg" "<svg"
check capture_multi_other_is_report some_line "$TMP/c.report" '^ +[0-9]+$'
check capture_multi_share within "$(share "$TMP/c.folded" ';burn_a;')" 65 85
