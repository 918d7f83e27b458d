# Helpers of folded_foreign.sh and tests/cli/folded_foreign_perf.sh
# (sourced after lib.sh, not run).

# svg_total SVG: the root frame's count, as its title says it.
svg_total() { grep -o '<g><title>all ([0-9,.]*' "$1" | tail -n 1 | sed 's/.*(//; s/,//g'; }

# drawn NAME STACKS OTHER: STACKS (stack lines) and OTHER (other lines,
# mixed in: OTHER's first line goes first, the rest last) are one input;
# checks that smolder flamegraph draws exactly STACKS and says OTHER.
drawn() {
	local name=$1 stacks=$2 other=$3 n want said= q
	n=$(grep -c . "$other")
	q=$(head -n 1 "$other")
	[ "${#q}" -gt 60 ] && q="${q:0:60}..."
	{ head -n 1 "$other"; cat "$stacks"; tail -n +2 "$other"; } >"$TMP/$name.in"
	want=$(total "$stacks")
	[ "$n" -gt 0 ] && said="smolder: skipped $n line$([ "$n" = 1 ] || echo s) that $([ "$n" = 1 ] && echo is || echo are) not \"stack count\" (first: line 1 of $TMP/$name.in: \"$q\")"
	run_sm "$name" flamegraph --format folded "$TMP/$name.in"
	check "${name}_exit_0" equals "$RC" 0
	check "${name}_stacks_kept" equals "$(cat "$TMP/$name.out")" "$(cat "$stacks")"
	check "${name}_total" equals "$(total "$TMP/$name.out")" "$want"
	check "${name}_skipped_said" equals "$(cat "$TMP/$name.err")" "$said"
	run_sm "${name}_svg" flamegraph -q -o "$TMP/$name.svg" "$TMP/$name.in"
	check "${name}_svg_total" equals "$RC $(svg_total "$TMP/$name.svg")" "0 $want"
}
