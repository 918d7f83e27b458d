# Helpers for the tests of hostile processes (sourced after lib.sh; files
# starting with _ are not run by tests/run.sh).  The hostile process
# (build/workloads/hostile) runs as nobody, as an unprivileged user would.

# start_hostile SECONDS MODE ARGS...: starts it, waits for "ready"; sets HP.
# Its map file (jit mode) goes at exit.
start_hostile() {
	local secs=$1
	shift
	chmod 755 "$TMP"
	start_cmd hostile setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$WL/hostile" "$secs" "$@" || exit 1
	HP=$WL_PID
	at_exit "rm -f /tmp/perf-$HP.map"
	wait_for "$WL_OUT" '^ready$' 60 || exit 1
}
stop_hostile() { kill "$HP" 2>/dev/null; wait "$HP" 2>/dev/null; rm -f "/tmp/perf-$HP.map"; }

# timed_sm NAME ARGS...: run_sm with smolder's peak RSS in RSS_KIB.
timed_sm() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	/usr/bin/time -f %M -o "$TMP/$name.rss" "$SMOLDER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
	t1=$(date +%s.%N)
	ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }')
	RSS_KIB=$(tail -n 1 "$TMP/$name.rss")
}

# term_sm NAME AFTER ARGS...: smolder ARGS in the background, SIGTERM after
# AFTER seconds; TERM_TOOK is how long it took to exit from there, RC its
# exit code.
term_sm() {
	local name=$1 after=$2 sm t0 t1
	shift 2
	"$SMOLDER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	sm=$!
	sleep "$after"
	t0=$(date +%s.%N)
	kill -TERM "$sm"
	wait "$sm"
	RC=$?
	t1=$(date +%s.%N)
	TERM_TOOK=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }')
}

# bounded NAME DURATION: the checks every bounded capture must pass: exit
# 0, ended within DURATION + 1 s, peak RSS under 128 MiB.
bounded() {
	check "${1}_exit_0" equals "$RC" 0
	check "${1}_ends_in_time" within "$ELAPSED" 0 "$(($2 + 1))"
	check "${1}_rss_under_128MiB" within "$RSS_KIB" 1 $((128 * 1024))
	echo "# $1: ${ELAPSED} s, peak RSS $((RSS_KIB / 1024)) MiB"
}
