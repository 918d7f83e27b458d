#!/usr/bin/env bash
# What an unprivileged process can make a root capture cost
# (`make bench-hostile`; issue 12).  Each scenario starts one hostile
# process as nobody (build/workloads/hostile: code that a big file must
# name, and a thread mapping and unmapping a page in a loop) and runs
# smolder against it, recording the wall time of the capture, how long
# SIGTERM takes to end it, and smolder's peak RSS (/usr/bin/time's %M):
#
#   jit-1M       /tmp/perf-PID.map of 1,000,000 lines; smolder -p PID 3
#   jit-1M-cont  the same; --continuous --interval 2 for 6 s (files written)
#   map-255MB    a 255 MB perf map (1,000,000 lines of 255 bytes); the whole
#                machine for 2 s
#   elf-5M       a mapped ELF file with 5,000,000 function symbols; -p PID 3
#   maps-10k     10,000 mappings and the churn, no perf map; -F 999, the
#                whole machine for 3 s (samples and losses from the summary)
#   service      the unit's command line (--continuous, 2 s intervals here)
#                for 8 s in a memory cgroup with the unit's MemoryMax=256M,
#                next to the 255 MB map: killed or not, profiles written
#   cfi-2.2MB    a mapped ELF file whose CFI makes its unwind table's build
#                work (build/tools/hostile_cfi: two CIEs with a million-letter
#                augmentation in one cache slot, 10,000 FDEs using them in
#                turn; issue 21); -F 999 -p PID 3
#   cfi-zdebug   a mapped 256 KB ELF file whose compressed .debug_frame
#                inflates to 255 MB; -F 999 -p PID 3
#
# SIGTERM is sent 2 s into an open-ended capture.  Every capture gets a
# fresh hostile process that lives HOSTILE_SECONDS (default 30): a capture
# that waits for its target to exit shows that time.
# SMOLDER=path compares another build (e.g. main's) with the same
# workloads.  Not a test: the figures go to docs/BENCHMARKS.md.
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=${SMOLDER:-$ROOT/smolder}
WL=$ROOT/build/workloads
need_root
need_built "$SMOLDER"
need_built "$WL/hostile" workloads
need_built "$ROOT/build/tools/many_syms" tools
need_built "$ROOT/build/tools/hostile_cfi" tools
need_time
make_tmp
chmod 755 "$TMP"
CG=
on_exit() {	# the memory cgroup, once nothing runs in it
	kill_jobs
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -f /tmp/perf-*.map.hostile-bench
}

# hostile ARGS...: starts the workload as nobody; sets HP.
hostile() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$WL/hostile" \
		"${HOSTILE_SECONDS:-30}" "$@" \
		>"$TMP/hostile.out" 2>&1 &
	HP=$!
	for _ in $(seq 600); do
		grep -q ready "$TMP/hostile.out" 2>/dev/null && return 0
		sleep 0.1
	done
	die "hostile $* did not start: $(cat "$TMP/hostile.out")"
}
stop_hostile() { kill "$HP" 2>/dev/null; wait "$HP" 2>/dev/null; rm -f "/tmp/perf-$HP.map"; }

# capture NAME SMOLDER-ARGS...: one capture; prints wall time and peak RSS.
capture() {
	local name=$1 t0 t1
	shift
	t0=$(now_us)
	timed "$TMP/$name.time" "$SMOLDER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	t1=$(now_us)
	printf '%-12s capture %5s s   peak RSS %6d MiB   %s\n' "$name" "$(secs "$t0" "$t1" 1)" \
		"$(($(rss_of "$TMP/$name.time") / 1024))" "$(grep -m1 -E 'samples, ' "$TMP/$name.err")"
}

# sigterm NAME SMOLDER-ARGS...: SIGTERM 2 s in; prints how long it took to end.
sigterm() {
	local name=$1 sm t0 t1
	shift
	"$SMOLDER" "$@" >"$TMP/$name.term.out" 2>"$TMP/$name.term.err" &
	sm=$!
	sleep 2
	t0=$(now_us)
	kill -TERM "$sm"
	wait "$sm"
	t1=$(now_us)
	printf '%-12s SIGTERM took %5s s\n' "$name" "$(secs "$t0" "$t1" 1)"
}

echo "# smolder $(cd "$ROOT" && git describe --always --dirty 2>/dev/null) ($SMOLDER), $(nproc) CPUs"

# scenario NAME HOSTILE-ARGS -- SMOLDER-ARGS...: a capture and a SIGTERM,
# each against its own hostile process ("PID" in the arguments is its PID).
scenario() {
	local name=$1 h=() a=()
	shift
	while [ "$1" != -- ]; do h+=("$1"); shift; done
	shift
	hostile "${h[@]}"
	a=("${@//PID/$HP}")
	capture "$name" "${a[@]}"
	stop_hostile
	hostile "${h[@]}"
	a=("${@//PID/$HP}")
	# open-ended: the duration (a last argument of digits) left out
	[[ ${a[-1]} =~ ^[0-9]+$ ]] && unset 'a[-1]'
	sigterm "$name" "${a[@]}"
	stop_hostile
}

scenario jit-1M jit 1000000 40 -- -f -p PID -o "$TMP/j.folded" -v 3
hostile jit 1000000 40
mkdir -p "$TMP/cont"
capture jit-1M-cont --continuous --interval 2 --output-dir "$TMP/cont" -p "$HP" 6
echo "jit-1M-cont  $(ls "$TMP/cont" | grep -c '^smolder-') files written (6 s at 2 s intervals: 3 expected)"
stop_hostile

scenario map-255MB jit 1000000 242 -- -f -o "$TMP/m.folded" 2

# The unit's command line in a memory cgroup of its MemoryMax (v2 or v1).
hostile jit 1000000 242
echo "map-255MB    perf map of $(($(stat -c %s "/tmp/perf-$HP.map") / 1000000)) MB"
svc_opts=$(sed -nE 's/^ExecStart=[^ ]+ //p' scripts/smolder.service | sed -E 's/--interval [0-9]+/--interval 2/')
svc_opts=${svc_opts//'${STATE_DIRECTORY}'/$TMP/svc}
mkdir -p "$TMP/svc"
if [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
	CG=/sys/fs/cgroup/smolder-bench.$$
	mkdir "$CG" && echo 256M >"$CG/memory.max" && echo 0 >"$CG/memory.swap.max" 2>/dev/null
	killed() { awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events"; }
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/smolder-bench.$$
	mkdir "$CG" && echo 256M >"$CG/memory.limit_in_bytes"
	killed() { awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control"; }
fi
if [ -n "$CG" ]; then
	t0=$(now_us)
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$SMOLDER" $svc_opts 8 \
		>"$TMP/svc.out" 2>"$TMP/svc.err"
	rc=$?
	t1=$(now_us)
	printf '%-12s exit %d after %s s, %s OOM kills, %d profiles written\n' service "$rc" \
		"$(secs "$t0" "$t1" 1)" "$(killed)" "$(ls "$TMP/svc" | grep -c '^smolder-')"
else
	echo "service      skipped: no memory cgroup to run it in"
fi
stop_hostile

"$ROOT/build/tools/many_syms" "$TMP/many.so" 5000000 || die "cannot write $TMP/many.so"
chmod 644 "$TMP/many.so"
scenario elf-5M elf "$TMP/many.so" -- -f -p PID -o "$TMP/e.folded" -v 3
rm -f "$TMP/many.so"

scenario maps-10k maps 10000 -- -F 999 -f -o "$TMP/k.folded" 3

"$ROOT/build/tools/hostile_cfi" -c 2 -a 1000000 -f 10000 -l 16 "$TMP/cfi.so" &&
	"$ROOT/build/tools/hostile_cfi" -c 1 -f 1 -l 16 -z 255000000 "$TMP/zdbg.so" ||
	die "cannot write $TMP/cfi.so and $TMP/zdbg.so"
chmod 644 "$TMP/cfi.so" "$TMP/zdbg.so"
scenario cfi-2.2MB elf "$TMP/cfi.so" -- -F 999 -f -p PID -o "$TMP/c.folded" 3
scenario cfi-zdebug elf "$TMP/zdbg.so" -- -F 999 -f -p PID -o "$TMP/z.folded" 3
