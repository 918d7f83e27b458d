#!/bin/bash
# --idle-only on a CPU that got no idle sample: the table's row is "-", and
# one line says why, by the kernel's own count of the CPU's idle time
# (/proc/stat), and what to run instead.  A user once got a table of "-"
# and a guess ("busy all along, or idle without the sampling timer
# firing").  Here CPU 1 is kept busy all along by a spinning cpu_split
# pinned to it; the test reads /proc/stat's idle count itself, and the
# line must give the same figure and the verdict that follows from it.
source "$(dirname "$0")/../lib.sh"

# idle_ms CPU: /proc/stat's idle + iowait of CPU, in ms.
idle_ms() {
	awk -v c="cpu$1" -v hz="$(getconf CLK_TCK)" '$1 == c { printf "%.0f\n", ($5 + $6) * 1000 / hz }' /proc/stat
}

start_cmd cpu_split taskset -c 1 "$WL/cpu_split" 30 || exit 1
sleep 0.3
before=$(idle_ms 1)
run_sm busy --idle-only -C 1 -F 99 -f 2
after=$(idle_ms 1)
kill "$WL_PID" 2>/dev/null
counted=$((after - before))
E=$TMP/busy.err
echo "cpu 1: idle $counted ms by /proc/stat during the capture; smolder said: $(grep -v '^smolder: [0-9]* samples' "$E" | tail -n 1)"
check idle_unknown_exit_0 equals "$RC" 0
check idle_unknown_row_unknown some_line "$E" '^  1 +- +- +- +- +- +-$'
# one line, a verdict (no "or"), the kernel's figure, what to run instead
check idle_unknown_one_line equals "$(grep -c 'cpu 1' "$E")" 1
check idle_unknown_busy_verdict some_line "$E" \
	'^smolder: cpu 1 had no idle time \([0-9]+ ms by the kernel.s count, /proc/stat\): busy all along; run without --idle-only to see what kept it busy$'
said=$(sed -nE 's/^smolder: cpu 1 had no idle time \(([0-9]+) ms.*/\1/p' "$E")
lo=$((counted > 10 ? counted - 10 : 0))
check idle_unknown_figure_is_the_kernels within "${said:-none}" "$lo" "$((counted + 10))"
check idle_unknown_truly_busy within "$counted" 0 10
