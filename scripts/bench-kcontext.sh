#!/usr/bin/env bash
# bench-kcontext.sh: what the kernel context frames cost the profiled
# machine, against perf recording the same tracepoints.  The workload is
# build/workloads/net_pump (loopback TCP, so softirqs fire hundreds of
# thousands of times a second), both its threads pinned to CPU 0: unpinned,
# this VM runs it faster under any profiler (a vCPU kept from halting hands
# packets over sooner), which hides the cost.  Its throughput is measured
# with
#
#   none     no profiler
#   smolder  smolder -F 999 -K (no context options)
#   context  smolder -F 999 -K --irq-frames --kworker --group-threads
#   perf     perf record -a -g -F 999 -e cpu-clock plus the softirq, irq
#            handler and workqueue tracepoints smolder attaches to: what a
#            perf user records to get the same answers
#
# Modes run in turn, ROUNDS times, so that drift in the machine's speed
# touches them alike; each figure is the median over rounds, and the
# ratios to "none" are what counts (a small, shared, noisy VM).
#
#   sudo make bench-kcontext      (ROUNDS=5 SECONDS_PER_RUN=5 by default)
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
ROUNDS=${ROUNDS:-5}
RUN=${SECONDS_PER_RUN:-5}
need_root
need_built "$ROOT/smolder"
need_built "$ROOT/build/workloads/net_pump" workloads
need_cmd perf linux-perf
make_tmp

TP="-e irq:softirq_entry -e irq:softirq_exit -e irq:irq_handler_entry -e irq:irq_handler_exit"
TP="$TP -e workqueue:workqueue_queue_work -e workqueue:workqueue_execute_start -e workqueue:workqueue_execute_end"

# run MODE ROUND: one net_pump run under MODE; appends "MODE rate bytes" to results.
run() {
	local mode=$1 r=$2 pid= out="$TMP/$1.$2" rate
	case $mode in
	smolder) ./smolder -F 999 -K -f -o "$out" "$((RUN + 3))" 2>/dev/null & pid=$! ;;
	context) ./smolder -F 999 -K -f -o "$out" --irq-frames --kworker --group-threads \
			"$((RUN + 3))" 2>/dev/null & pid=$! ;;
	perf) perf record -q -a -g -F 999 -e cpu-clock $TP -o "$out" -- sleep "$((RUN + 3))" \
			>/dev/null 2>&1 & pid=$! ;;
	esac
	[ -n "$pid" ] && sleep 1.5 # loaded and attached
	rate=$(taskset -c 0 build/workloads/net_pump "$RUN" | sed -n 's/^bytes\/s //p')
	[ -n "$pid" ] && wait "$pid"
	echo "$mode $rate $(stat -c %s "$out" 2>/dev/null || echo 0)" >>"$TMP/results"
}

for r in $(seq "$ROUNDS"); do
	for mode in none smolder context perf; do
		run "$mode" "$r"
	done
	echo "bench-kcontext: round $r of $ROUNDS done" >&2
done

# of MODE COLUMN: the values of MODE's runs in that column of the results.
of() { awk -v m="$1" -v c="$2" '$1 == m { print $c }' "$TMP/results"; }
# shellcheck disable=SC2046 # one value a word
base=$(median $(of none 2))
printf '%-8s %14s %10s %12s\n' mode "MB/s (median)" "vs none" "output KiB"
for mode in none smolder context perf; do
	# shellcheck disable=SC2046
	rate=$(median $(of "$mode" 2))
	# shellcheck disable=SC2046
	size=$(median $(of "$mode" 3))
	awk -v m=$mode -v r="$rate" -v b="$base" -v s="$size" \
		'BEGIN { printf "%-8s %14.0f %10.3f %12.0f\n", m, r / 1e6, r / b, s / 1024 }'
done
