#!/bin/bash
# A capture writes its SVG and speedscope files through the same writers as
# `smolder flamegraph` (tests/check/escape.sh): the same hostile --title,
# --subtitle and --countname stay text, and the files well-formed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../check/_escape.sh"

run_sm cap -F 99 --title "$TITLE" --subtitle "$SUB" --countname "$COUNT" -o "$TMP/cap.svg" \
	-o "$TMP/cap.speedscope.json" 1
check capture_exit_0 equals "$RC" 0
check capture_svg_not_injected svg_ok "$TMP/cap.svg"
check capture_speedscope_parses equals "$(json_name "$TMP/cap.speedscope.json" capture)" "$fixed_title ($SUB)"
