#!/bin/bash
# make demo's script (scripts/demo.sh, 2 s here, into a test directory):
# the whole machine with cpu_split running, drawn as demo.svg; it prints
# the hottest stacks, cpu_split's among them with its 75/25 split, and
# says what to open.  A second workload (deep_stack) runs beside it, so
# "the whole machine" has a known other process in it even on an idle CI
# machine.
source "$(dirname "$0")/../lib.sh"
start_wl deep_stack 4
DEMO_DIR=$TMP DEMO_SECONDS=2 "$TOP/scripts/demo.sh" >"$TMP/demo.out" 2>"$TMP/demo.err"
check demo_exit_0 equals "$?" 0
check demo_svg_drawn some_line "$TMP/demo.svg" '<title>cpu_split-[0-9]+ \('
check demo_whole_machine some_line "$TMP/demo.folded" "^deep_stack-$WL_PID;.*;deep_leaf [0-9]+$"
check demo_workload_split within "$(share <(grep '^cpu_split-' "$TMP/demo.folded") ';burn_a;')" 60 90
check demo_top_stacks some_line "$TMP/demo.out" '^ +[0-9]+  cpu_split-[0-9]+;.*burn_a;spin$'
check demo_says_what_to_open some_line "$TMP/demo.out" "^open the flame graph: file://$TMP/demo\.svg$"
