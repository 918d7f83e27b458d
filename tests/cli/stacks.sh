#!/bin/bash
# Stack storage: deep stacks come back whole from their chunks, and a stack
# table too small for the workload loses samples visibly (counted, reported,
# and still present in the output as [lost user stack]) rather than silently.
source "$(dirname "$0")/../lib.sh"

"$WL/deep_stack" 4 &
wl=$!
sleep 0.3
"$SMOLDER" -F 499 -U -f -p $wl -o "$TMP/deep.folded" 2 2>"$TMP/deep.err"
kill $wl 2>/dev/null
top=$(awk '{print $NF" "$0}' "$TMP/deep.folded" 2>/dev/null | sort -nr | head -1 | cut -d' ' -f2-)
depth=$(echo "$top" | tr ';' '\n' | grep -c '^recurse$')
if [ "$depth" -eq 100 ] && echo "$top" | grep -q ';run;recurse;.*;recurse;deep_leaf '; then
	pass "deep stack: 100 recurse frames between run and deep_leaf, in order"
else
	fail "deep stack" "depth=$depth top=$(echo "$top" | cut -c1-200)"
fi
share_deep=$(share "$TMP/deep.folded" ';deep_leaf ')
if between "$share_deep" 95 100; then pass "deep stack: ${share_deep}% of samples reach deep_leaf"
else fail "deep stack share" "${share_deep}%"; fi

# A table with room for 16 stacks against ~10,000 distinct ones.
"$WL/many_stacks" 4 &
wl=$!
sleep 0.3
"$SMOLDER" -F 999 -U -f -p $wl --stack-storage-size 16 -o "$TMP/small.folded" 2 2>"$TMP/small.err"
kill $wl 2>/dev/null
read -r samples lost full < <(sed -nE 's/^smolder: ([0-9]+) samples, ([0-9]+) lost \(stack map full ([0-9]+),.*/\1 \2 \3/p' "$TMP/small.err")
in_output=$(total "$TMP/small.folded")
lost_frames=$(awk '/\[lost user stack\]/ { n += $NF } END { print n + 0 }' "$TMP/small.folded")
if [ "${lost:-0}" -gt 0 ] && [ "$lost" = "$full" ] && [ "$lost_frames" = "$lost" ]; then
	pass "small table: $lost of $samples samples lost, counted as 'stack map full' and shown as [lost user stack]"
else
	fail "small table loss accounting" "samples=$samples lost=$lost full=$full lost_frames=$lost_frames"
fi
if [ "$in_output" = "$samples" ]; then
	pass "small table: every sample is in the output ($in_output)"
else
	fail "small table: output total" "output $in_output, summary $samples"
fi
if grep -q "raise --stack-storage-size" "$TMP/small.err"; then
	pass "small table: stderr names the fix"
else
	fail "small table: fix named" "$(cat "$TMP/small.err")"
fi
