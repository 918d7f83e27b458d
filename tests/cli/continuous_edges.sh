#!/bin/bash
# Continuous mode at the edges.  An interval lost to a full file system (a
# 64 KiB tmpfs of our own, filled, then freed) is reported: its status
# line says "not written" and counts its samples as lost, the summary
# counts them ("not written N"), a line says how many intervals were lost,
# and the exit code is 1; the samples written plus those lost add up to
# every sample counted.  Temporary files a killed run left in --output-dir
# are removed at start when stale, while a live writer's (locked, fresh)
# stays; profiles no run of smolder recorded writing stay too, whatever
# --max-size says.
source "$(dirname "$0")/../lib.sh"

start_wl cpu_split 30 || exit 1
W=$WL_PID

# --- ENOSPC: the first interval cannot be written, later ones can ---
F=$TMP/full
mkdir "$F"
mount -t tmpfs -o size=64k tmpfs "$F" || { fail enospc_mount "cannot mount a tmpfs"; exit 0; }
at_exit "umount -l '$F'"
dd if=/dev/zero of="$F/fill" bs=4k 2>/dev/null
"$SMOLDER" -vv --continuous --interval 1 --output-dir "$F" -F 99 -p "$W" >"$TMP/e.out" 2>"$TMP/e.err" &
S=$!
wait_for "$TMP/e.err" 'cannot write .*no space left' 10 >/dev/null
rm -f "$F/fill"
wait_for "$TMP/e.err" ' 0 lost, .* -> smolder-' 10 >/dev/null
kill -TERM "$S"
wait "$S"
RC=$?
grep -E '^smolder: [0-9:]+Z \+' "$TMP/e.err" >"$TMP/e.status"
check enospc_exit_1 equals "$RC" 1
check enospc_write_error some_line "$TMP/e.err" '^smolder: cannot write .*smolder-.*\.folded: no space left on device \(check free space\)$'
check enospc_status_not_written some_line "$TMP/e.status" '^smolder: .*: ([0-9]+) samples, [1-9][0-9]* lost, .* -> not written: smolder-'
check enospc_status_written_later some_line "$TMP/e.status" '^smolder: .*: [0-9]+ samples, 0 lost, .* -> smolder-'
check enospc_summary_counts_it some_line "$TMP/e.err" '^smolder: [0-9]+ samples, [1-9][0-9]* lost \(stack map full 0, count map full 0, not written [1-9][0-9]*\)$'
check enospc_intervals_line some_line "$TMP/e.err" '^smolder: 1 of [2-9] intervals could not be written: their [1-9][0-9]* samples are lost$'
samples=$(summary_samples "$TMP/e.err")
lost=$(summary_lost "$TMP/e.err")
written=$(cat "$F"/smolder-*.folded 2>/dev/null | awk '{ t += $NF } END { print t + 0 }')
check enospc_written_plus_lost_is_all equals "$((written + lost))" "${samples:-x}"
check enospc_no_temp_left equals "$(ls -a "$F" | grep -c '\.tmp\.')" 0

# --- temporary files a killed run left in the output directory ---
D=$TMP/d
mkdir "$D"
for i in 1 2 3; do head -c 100000 /dev/urandom >"$D/smolder-2020010${i}T000000.000Z.folded"; done
head -c 1000 /dev/urandom >"$D/smolder-20200104T000000.000Z.folded.tmp.Stale1"
touch -d '-2 hours' "$D/smolder-20200104T000000.000Z.folded.tmp.Stale1"
head -c 1100000 /dev/urandom >"$D/smolder-20200105T000000.000Z.folded.tmp.Live01"
echo keep >"$D/notes.tmp.Stale2"
touch -d '-2 hours' "$D/notes.tmp.Stale2"
flock "$D/smolder-20200105T000000.000Z.folded.tmp.Live01" sleep 30 &
sleep 0.2
run_sm sweep --continuous --interval 0.5 --max-size 1 --output-dir "$D" -F 49 -p "$W" 1.2
check sweep_exit_0 equals "$RC" 0
check sweep_stale_temp_removed test ! -e "$D/smolder-20200104T000000.000Z.folded.tmp.Stale1"
check sweep_live_temp_kept test -e "$D/smolder-20200105T000000.000Z.folded.tmp.Live01"
check sweep_other_names_kept test -e "$D/notes.tmp.Stale2"
# 300 KB of profiles smolder has no record of writing: not counted, not
# removed; the run's own fit in 1 MB
check sweep_unrecorded_profiles_stay equals "$(ls "$D" | grep -c '^smolder-2020010[123]T000000\.000Z\.folded$')" 3
check sweep_own_profiles_stay within "$(ls "$D" | grep -c '^smolder-.*Z\.folded$')" 5 6
