#!/bin/bash
# --off-cpu in continuous mode: waits split at interval boundaries, each part
# in its own interval, none counted twice.  offcpu_split's "long" mode
# sleeps 1.5 s at a time, so with 1 s intervals every boundary cuts a wait,
# and a thread that always waits has one interval's length in each file.
# Then the 30/50/20 split over many intervals, with --wakers.
source "$(dirname "$0")/../lib.sh"

# file_total FILE: the main thread's microseconds in one folded profile.
file_total() { awk '/^offcpu_split;/ { t += $NF } END { print t + 0 }' "$1"; }
# file_starts DIR: the start times of the profiles, in seconds.
file_starts() {
	ls "$1" | sed -nE 's/^smolder-[0-9]{8}T([0-9]{2})([0-9]{2})([0-9]{2}\.[0-9]+)Z\.folded$/\1 \2 \3/p' |
		awk '{ printf "%.3f\n", $1 * 3600 + $2 * 60 + $3 }'
}

# --- waits across boundaries: each interval holds its own length ---
start_wl offcpu_split long 60 || exit 1
P=$WL_PID
sleep 0.3
D=$TMP/long
run_sm long --off-cpu --continuous --interval 1 --output-dir "$D" -F 99 -p "$P" 6
check offcpu_cont_exit_0 equals "$RC" 0
mapfile -t files < <(ls "$D"/smolder-*.folded)
mapfile -t starts < <(file_starts "$D")
check offcpu_cont_files within "${#files[@]}" 5 7
# The wait the thread was in when the capture started counts from its next
# switch in continuous mode (docs/off-cpu.md, "Hangs"), and it can end up
# to 1.5 s after the start: inside the second interval as often as not.  So
# the intervals that start 1.6 s or more after the first are the whole ones,
# the last one excepted (it ends with the run).  Each of those holds exactly
# its own wall time: no part lost, none twice.
bad=
whole=0
for ((i = 1; i + 1 < ${#files[@]}; i++)); do
	awk -v a="${starts[0]}" -v b="${starts[i]}" 'BEGIN { exit !(b - a >= 1.6) }' || continue
	whole=$((whole + 1))
	got=$(file_total "${files[i]}")
	want=$(awk -v a="${starts[i]}" -v b="${starts[i + 1]}" 'BEGIN { printf "%.0f\n", (b - a) * 1e6 }')
	between "$got" "$(awk -v w="$want" 'BEGIN { print w * 0.97 }')" \
		"$(awk -v w="$want" 'BEGIN { print w * 1.03 }')" || bad="$bad ${files[i]##*/}:$got/$want"
done
check offcpu_cont_interval_is_its_wall_time equals "$bad" ""
check offcpu_cont_whole_intervals_checked within "$whole" 2 5
last=$(file_total "${files[-1]}")
check offcpu_cont_last_interval_not_over within "$last" 1 1060000
check offcpu_cont_long_nap_stack some_line "${files[2]}" '^offcpu_split;.*main;long_naps;nap;.*\[off-cpu:S\] [0-9]+$'
check offcpu_cont_summary some_line "$TMP/long.err" '^smolder: [0-9]+ off-CPU waits \([0-9.]+ s\), 0 lost'
kill "$P" 2>/dev/null

# --- the 30/50/20 split over 1 s intervals, with --wakers ---
start_wl offcpu_split 60 || exit 1
P=$WL_PID
sleep 0.3
D=$TMP/split
run_sm split --off-cpu --wakers --continuous --interval 1 --output-dir "$D" -F 499 -p "$P" 5
check offcpu_cont_split_exit_0 equals "$RC" 0
cat "$D"/smolder-*.folded >"$TMP/all.folded"
share_of() {
	awk -v pat="$2" '/^offcpu_split;/ { t += $NF; if ($0 ~ pat) m += $NF }
		END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$1"
}
check offcpu_cont_compute_share within "$(share_of "$TMP/all.folded" ';compute( |;|$)')" 27 33
check offcpu_cont_doze_share within "$(share_of "$TMP/all.folded" ';doze;')" 47 53
check offcpu_cont_pipe_share within "$(share_of "$TMP/all.folded" ';wait_pipe;')" 17 23
# every pipe wait's waker is named in the interval it is counted in
check offcpu_cont_wakers within "$(share_of "$TMP/all.folded" ';wait_pipe;.*woken-by:pipe_writer;')" 16 23
check offcpu_cont_no_unnamed_waker no_line "$TMP/all.folded" 'woken-by-unknown'
kill "$P" 2>/dev/null
