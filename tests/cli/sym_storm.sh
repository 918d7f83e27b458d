#!/bin/bash
# Losses a storm of short processes causes are counted and explained
# (issue 12: under an exec storm most short processes' samples were
# [unknown] with no counter, and a full count map was blamed on the stack
# map).  short_parent runs short_child (0 ms of work: exec, start, exit)
# back to back, several hundred a second, while the whole machine is
# sampled at 999 Hz:
#  - user stacks only: every sample with an [unknown] frame is counted, by
#    reason, and the counts add up to what the folded output shows;
#  - with a count map of 1024 keys the storm fills it: the loss is
#    reported against the count map, naming the option that sizes it, and
#    the stack map's hint appears only if the stack map was full too.
source "$(dirname "$0")/../lib.sh"

"$WL/short_parent" 3.5 "$WL/short_child" 0 >"$TMP/storm.out" 2>&1 &
STORM=$!
run_sm u -U -F 999 -f -v 3
wait "$STORM"
echo "# storm: $(awk '$1 == "children" { print $2 }' "$TMP/storm.out") children in 3.5 s"
check storm_exit_0 equals "$RC" 0
check storm_in_time within "$ELAPSED" 0 4
shown=$(awk '/\[unknown\]/ { n += $NF } END { print n + 0 }' "$TMP/u.out")
line=$(grep -E '^smolder: [0-9]+ unnamed samples, with \[unknown\] user frames \(' "$TMP/u.err")
counted=$(sed -nE 's/^smolder: ([0-9]+) unnamed samples.*/\1/p' <<<"$line")
by_reason=$(grep -oE '[a-z ]+ [0-9]+(,|\))' <<<"${line#*(}" | awk '{ n += $(NF) + 0 } END { print n + 0 }')
check storm_unnamed_counted equals "$counted" "$shown"
check storm_reasons_add_up equals "$by_reason" "$counted"
check storm_children_ran within "$(comm_stacks "$TMP/u.out" short_child | wc -l)" 1 100000
echo "# storm: $line"

"$WL/short_parent" 3.5 "$WL/short_child" 0 >"$TMP/storm2.out" 2>&1 &
STORM=$!
run_sm c -F 999 -f --stack-storage-size 1024 3
wait "$STORM"
check storm_small_exit_0 equals "$RC" 0
read -r stack_full count_full < <(sed -nE 's/^smolder: [0-9]+ samples, [0-9]+ lost \(stack map full ([0-9]+), count map full ([0-9]+)\)$/\1 \2/p' "$TMP/c.err")
check storm_count_map_filled within "${count_full:-0}" 1 10000000
check storm_count_map_hint some_line "$TMP/c.err" "^smolder: the count map was full for $count_full samples \\(it holds 1024 sample keys.*raise --stack-storage-size, which sizes it too"
if [ "${stack_full:-0}" -gt 0 ]; then
	check storm_stack_map_hint some_line "$TMP/c.err" "^smolder: the stack map was full for $stack_full stacks"
else
	check storm_no_stack_map_hint no_line "$TMP/c.err" 'the stack map was full'
fi
