#!/bin/bash
# The shipped unit survives its own MemoryMax against a hostile perf map
# (issue 12; main was OOM-killed within a second or two and wrote no
# profile, and Restart=on-failure restarted it into the same kill).  The
# unit's command line (scripts/smolder.service's ExecStart, 2 s intervals)
# runs for 8 s in a memory cgroup made here with the unit's MemoryMax
# (cgroup v2's memory.max, else v1's memory.limit_in_bytes), next to a
# process (as nobody) whose /tmp/perf-PID.map is 250 MB of 1,000,000
# lines.  Expect: no OOM kill, exit 0, its profiles written, the JIT code
# named in them, and the cgroup's peak memory under the limit.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"
UNIT=$TOP/scripts/smolder.service

limit=$(sed -nE 's/^MemoryMax=//p' "$UNIT")
check memmax_unit_limit equals "$limit" 256M
opts=$(sed -nE 's/^ExecStart=[^ ]+ //p' "$UNIT" | sed -E 's/--interval [0-9]+/--interval 2/')
opts=${opts//'${STATE_DIRECTORY}'/$TMP/state}
mkdir -p "$TMP/state"

# A memory cgroup of our own, removed at exit.
CG=
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
   grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	CG=/sys/fs/cgroup/smolder-test.$$
	mkdir "$CG" && echo "$limit" >"$CG/memory.max" && { echo 0 >"$CG/memory.swap.max"; } 2>/dev/null
	oom_kills() { awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events"; }
	peak() { cat "$CG/memory.peak" 2>/dev/null || echo 0; }
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/smolder-test.$$
	mkdir "$CG" && echo "$limit" >"$CG/memory.limit_in_bytes"
	oom_kills() { awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control"; }
	peak() { cat "$CG/memory.max_usage_in_bytes"; }
fi
if [ -z "$CG" ] || [ ! -d "$CG" ]; then
	fail memmax_cgroup "no memory cgroup could be made (cgroup v2 memory controller or v1 memory hierarchy)"
	exit 0
fi
at_exit "rmdir $CG 2>/dev/null"

start_hostile 40 jit 1000000 238
check memmax_map_250MB within "$(stat -c %s "/tmp/perf-$HP.map")" 240000000 260000000
# shellcheck disable=SC2086 # the unit's options, word-split as systemd does
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$SMOLDER" $opts 8 \
	>"$TMP/svc.out" 2>"$TMP/svc.err"
rc=$?
stop_hostile
check memmax_not_killed equals "$rc:$(oom_kills)" "0:0"
check memmax_profiles_written within "$(ls "$TMP/state" | grep -c '^smolder-.*\.folded$')" 4 5
cat "$TMP"/state/smolder-*.folded >"$TMP/all.folded" 2>/dev/null
check memmax_jit_named some_line "$TMP/all.folded" '^hostile;([^;]*;)*main;run_code;jit_hot_loop [0-9]+$'
check memmax_peak_under_limit within "$(peak)" 1 $((256 << 20))
echo "# unit in a $limit cgroup: exit $rc, cgroup peak $(($(peak) >> 20)) MiB"
