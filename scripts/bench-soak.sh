#!/usr/bin/env bash
# Continuous mode over a long run (`make bench-soak`; issue 5's limits).
# Two smolder instances run side by side for SOAK_SECONDS (default 1800),
# both --continuous with 60 s intervals, on a machine that starts and ends
# a short process every ~200 ms (build/workloads/short_parent: ~9,000
# processes in 30 minutes) next to a steady cpu_split:
#
#   A: -F 49  (the limits: RSS after the first interval grows by at most
#             1 MiB, open fds stay flat, 0 samples lost, and the interval
#             files add up to the samples taken)
#   B: -F 19  (the default rate: smolder's own CPU time, user and system,
#             as a share of one core; the BPF side runs in the sampled
#             tasks and is reported as ns per sample)
#
# Every 30 s it records each instance's RSS, fd count and CPU ticks from
# /proc.  There is no peer here: no other profiler has a continuous mode
# on this machine; the figures are checked against the issue's limits.
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=$ROOT/smolder
WL=$ROOT/build/workloads
SOAK=${SOAK_SECONDS:-1800}
INTERVAL=${SOAK_INTERVAL:-60}
need_root
need_built "$SMOLDER"
for f in short_parent short_child cpu_split; do
	need_built "$WL/$f" workloads
done
make_tmp
bpf_stats_on || warn "cannot set kernel.bpf_stats_enabled=1 (no BPF cost figures)"
HZ_TICK=$(getconf CLK_TCK)

"$WL/short_parent" "$SOAK" "$WL/short_child" 200 >"$TMP/children" 2>&1 &
LOAD1=$!
"$WL/cpu_split" "$((SOAK + 30))" >/dev/null 2>&1 &
sleep 1
mkdir -p "$TMP/a" "$TMP/b"
"$SMOLDER" -v --continuous --interval "$INTERVAL" -F 49 --output-dir "$TMP/a" "$SOAK" 2>"$TMP/a.err" &
A=$!
"$SMOLDER" -v --continuous --interval "$INTERVAL" -F 19 --output-dir "$TMP/b" "$SOAK" 2>"$TMP/b.err" &
B=$!

# sample PID: "rss_kib fds utime_ticks stime_ticks"
sample() {
	local rss fds
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	fds=$(ls "/proc/$1/fd" 2>/dev/null | wc -l)
	[ -n "$rss" ] || return 1
	echo "$rss $fds $(awk '{ sub(/.*\) /, ""); print $12, $13 }' "/proc/$1/stat")"
}
start=$SECONDS
echo "# t a_rss a_fds a_ut a_st b_rss b_fds b_ut b_st" >"$TMP/series"
while kill -0 "$A" 2>/dev/null && kill -0 "$B" 2>/dev/null; do
	sa=$(sample "$A") && sb=$(sample "$B") && echo "$((SECONDS - start)) $sa $sb" >>"$TMP/series"
	sleep 30
done
wait "$A"; RCA=$?
wait "$B"; RCB=$?
wait "$LOAD1" 2>/dev/null  # it runs as long as the capture: "children N" at its end

files_sum() { cat "$1"/smolder-*.folded | awk '{ t += $NF } END { print t + 0 }'; }
summ() { sed -nE "s/^smolder: ([0-9]+) samples, ([0-9]+) lost.*/\\$2/p" "$1" | tail -n 1; }
bpfns() { sed -nE 's/.*BPF program: [0-9]+ runs, ([0-9]+) ns per run.*/\1/p' "$1" | tail -n 1; }

echo "smolder $("$SMOLDER" --version | cut -d' ' -f2), $(machine)"
echo "$SOAK s, ${INTERVAL} s intervals; short processes started and ended: $(sed -nE 's/^children ([0-9]+)/\1/p' "$TMP/children")"
awk -v iv="$INTERVAL" -v hz="$HZ_TICK" '
	!/^#/ { n++; t[n] = $1; for (i = 2; i <= 9; i++) v[n, i] = $i }
	END {
		for (k = 1; k <= n && t[k] < iv + 5; k++) ;  # first sample after the first interval
		if (k > n) { print "too short a run"; exit }
		printf "A (-F 49): RSS %d KiB after the first interval (t=%ds), %d KiB at the end (t=%ds): growth %+d KiB; fds %d -> %d (max %d)\n",
			v[k, 2], t[k], v[n, 2], t[n], v[n, 2] - v[k, 2], v[k, 3], v[n, 3], maxfd(3)
		printf "B (-F 19): RSS %d KiB after the first interval, %d KiB at the end: growth %+d KiB; fds %d -> %d\n",
			v[k, 6], v[n, 6], v[n, 6] - v[k, 6], v[k, 7], v[n, 7]
		dt = t[n] - t[1]
		printf "CPU of one core, t=%d..%ds: A user %.3f%% system %.3f%%; B user %.3f%% system %.3f%% (total %.3f%%)\n",
			t[1], t[n], 100 * (v[n, 4] - v[1, 4]) / hz / dt, 100 * (v[n, 5] - v[1, 5]) / hz / dt,
			100 * (v[n, 8] - v[1, 8]) / hz / dt, 100 * (v[n, 9] - v[1, 9]) / hz / dt,
			100 * (v[n, 8] + v[n, 9] - v[1, 8] - v[1, 9]) / hz / dt
	}
	function maxfd(c,   m, j) { for (j = 1; j <= n; j++) if (v[j, c] > m) m = v[j, c]; return m }' "$TMP/series"
for x in a b; do
	errf=$TMP/$x.err
	echo "$(echo "$x" | tr ab AB): exit $([ $x = a ] && echo $RCA || echo $RCB), $(ls "$TMP/$x" | wc -l) files, samples $(summ "$errf" 1), lost $(summ "$errf" 2), files add up to $(files_sum "$TMP/$x"), BPF $(bpfns "$errf") ns per sample"
done
echo "series (t rss fds utime stime per instance, ticks of 1/$HZ_TICK s):"
sed 's/^/  /' "$TMP/series"
