#!/bin/bash
# A user's light processes are read while they live even when another
# process of the same user makes that user's turns long.  A root process
# that maps and unmaps a page among 60,000 mappings (hostile's maps mode)
# costs a long read of its maps each time, and root's re-reads wait their
# turn after it (src/session/preload.c); a root process that starts
# meanwhile and maps its libraries is read again at once all the same,
# since its maps are light (under USYMS_LIGHT_MAPS).  Before, 2 of 6
# short-lived root Pythons in such a capture had all their samples
# [unknown] (their libraries' mappings never read).
source "$(dirname "$0")/../lib.sh"

"$WL/hostile" 25 maps 60000 >"$TMP/h.log" 2>&1 &
H=$!
wait_for "$TMP/h.log" '^ready$' 60 >/dev/null || { fail same_user_hostile_ready "$(head -c 300 "$TMP/h.log")"; exit 0; }
check same_user_hostile_mapped within "$(wc -l <"/proc/$H/maps")" 60000 70000
# short children (a copy of short_child: its name is this test's own),
# started once the capture runs and the hostile process was read
cp "$WL/short_child" "$TMP/same_child"
(sleep 1.5; "$WL/short_parent" 2 "$TMP/same_child" 40 >"$TMP/parent.out" 2>&1) &
run_sm s -vv -F 199 --per-pid --no-python -f 5
kill "$H" 2>/dev/null
wait "$H" 2>/dev/null
check same_user_exit_0 equals "$RC" 0
# the condition under test: root's turns were long
check same_user_turns_long some_line "$TMP/s.err" "^smolder: maps of pid $H took [0-9]+ ms: uid 0's next read after [0-9]+ ms$"
grep -E '^same_child-[0-9]+;' "$TMP/s.out" >"$TMP/child.in"
unnamed=$(share "$TMP/child.in" '\[unknown\]')
echo "# same user: $(grep -c '^' "$TMP/parent.out" >/dev/null; cat "$TMP/parent.out"); short root processes: $(total "$TMP/child.in") samples, $unnamed% with [unknown] frames"
echo "# $(grep -E '^smolder: [0-9]+ unnamed samples' "$TMP/s.err")"
check same_user_short_sampled within "$(total "$TMP/child.in")" 20 100000
check same_user_short_named within "$unnamed" 0 10
