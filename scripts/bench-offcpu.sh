#!/usr/bin/env bash
# What off-CPU tracing costs a context-switch-heavy program (`make
# bench-offcpu`, part of `make bench`): build/workloads/pingpong, two
# threads bouncing a byte over two pipes (two sleeps and two wakeups a round
# trip), runs SECONDS_PER_RUN seconds (default 5), counted from SETTLE
# seconds (default 1) after the tracer, started on it, has attached (a BPF
# link open, for perf a perf event).  Its round trips per second, under:
#
#   alone          nothing traces
#   offcputime     Debian's libbpf-tools offcputime, the whole machine
#   offcputime-p   offcputime -p PID
#   offcputime+perf  offcputime and perf record -F 49 -a -g together: the
#                  two tools a Debian user runs for off- and on-CPU stacks
#   smolder-off    smolder --off-cpu, the whole machine
#   smolder-off-p  smolder --off-cpu -p PID
#   smolder-samp   smolder --off-cpu --off-cpu-sample SAMPLE_N (default 10)
#   smolder-cpu    smolder, CPU samples only (49 Hz): what --off-cpu's code
#                  must not make dearer
#   smolder-base   SMOLDER_BASE=PATH, another smolder build, CPU only, the
#                  same options (a build without --off-cpu: the CPU-only
#                  cost before and after)
#   perf-off       perf record --off-cpu -a -g (Debian's perf ignores
#                  --off-cpu and samples cpu-clock at its default 4000 Hz)
#
# The modes take turns, ROUNDS times (default 5), in an order that rotates;
# each figure is the median over rounds, and what counts is its ratio to
# "alone" in the same run (a small, shared, noisy VM), and to smolder-cpu:
# on this VM any tool that opens a cpu-clock perf event per CPU makes
# pingpong faster than alone (idle vCPUs wake sooner while the tick runs),
# so a tool with CPU sampling is best compared with a CPU-only capture.  A mode whose tool
# is missing (no offcputime, a smolder without --off-cpu) is left out with
# a line that says so.  Each off-CPU run also reports the time the tool
# recorded for the ping and pong threads, which were traced for at least
# SETTLE + SECONDS_PER_RUN s each: a tool that records nothing shows 0.
#
# Then, once per tool, with kernel.bpf_stats_enabled: the BPF programs the
# tool loaded (the program ids new while it runs: on a machine where other
# BPF tools start meanwhile, theirs too), their runs and ns per run.
# PIN=CPU runs pingpong pinned to one CPU (both threads).
#
#   sudo make bench-offcpu
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=${SMOLDER:-$ROOT/smolder}
BASE=${SMOLDER_BASE:-}
PINGPONG=$ROOT/build/workloads/pingpong
ROUNDS=${ROUNDS:-5}
RUN=${SECONDS_PER_RUN:-5}
SETTLE=${SETTLE:-1}
SAMPLE_N=${SAMPLE_N:-10}
PIN=${PIN:-}
OFFCPUTIME=${OFFCPUTIME:-$(command -v offcputime || echo /usr/sbin/offcputime)}

for v in ROUNDS RUN SETTLE SAMPLE_N; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] || die "$v must be a whole number of at least 1, not '${!v}'"
done
need_root
need_built "$SMOLDER"
need_built "$PINGPONG" workloads
need_exec_var SMOLDER_BASE "another smolder build"
need_cmd bpftool bpftool
make_tmp
exit_on_interrupt
TR_PID="" TR2_PID=""
on_exit() {	# the tracers end on SIGINT, as a user ends them
	[ -n "$TR_PID" ] && kill -INT "$TR_PID" 2>/dev/null && wait "$TR_PID" 2>/dev/null
	[ -n "$TR2_PID" ] && kill -INT "$TR2_PID" 2>/dev/null && wait "$TR2_PID" 2>/dev/null
}

# var MODE: MODE as a shell variable name's tail.
var() { local v=${1//-/_}; echo "${v//+/_}"; }

# Which modes this machine can run, and why not the others.
# has_opt OPTION...: smolder takes these options (--ebpf parses the command
# line, then only says the BPF program is compiled in).
has_opt() { "$SMOLDER" "$@" --ebpf >/dev/null 2>&1; }
MODES="alone"
SKIPPED=()
if [ -x "$OFFCPUTIME" ]; then
	MODES="$MODES offcputime offcputime-p"
	have_cmd perf && MODES="$MODES offcputime+perf"
else
	SKIPPED+=("offcputime: not found (apt-get install libbpf-tools, or OFFCPUTIME=PATH)")
fi
if has_opt --off-cpu; then
	MODES="$MODES smolder-off smolder-off-p"
	if has_opt --off-cpu --off-cpu-sample "$SAMPLE_N"; then
		MODES="$MODES smolder-samp"
	else
		SKIPPED+=("smolder --off-cpu-sample: $SMOLDER has no such option")
	fi
else
	SKIPPED+=("smolder --off-cpu: $SMOLDER has no such option (a build before it): rows left out")
fi
MODES="$MODES smolder-cpu${BASE:+ smolder-base}"
if have_cmd perf; then
	MODES="$MODES perf-off"
else
	SKIPPED+=("perf --off-cpu: perf is missing (apt-get install linux-perf)")
fi

# start_tracer MODE PID OUT: starts MODE's tool on PID (or the machine) in
# the background, its output in OUT; TR_PID is its PID ("" for alone).
start_tracer() {
	local long=$((RUN + 90)) # stopped by SIGINT long before
	TR_PID="" TR2_PID=""
	case $1 in
	alone) return ;;
	offcputime+perf)
		perf record -F 49 -a -g -B -o "$3.data" >/dev/null 2>&1 &
		TR2_PID=$!
		"$OFFCPUTIME" "$long" >"$3" 2>"$3.err" & ;;
	offcputime) "$OFFCPUTIME" "$long" >"$3" 2>"$3.err" & ;;
	offcputime-p) "$OFFCPUTIME" -p "$2" "$long" >"$3" 2>"$3.err" & ;;
	smolder-off) "$SMOLDER" --off-cpu -q -o "$3" "$long" 2>"$3.err" & ;;
	smolder-off-p) "$SMOLDER" --off-cpu -q -p "$2" -o "$3" "$long" 2>"$3.err" & ;;
	smolder-samp) "$SMOLDER" --off-cpu --off-cpu-sample "$SAMPLE_N" -q -o "$3" "$long" 2>"$3.err" & ;;
	smolder-cpu) "$SMOLDER" -q -o "$3" "$long" 2>"$3.err" & ;;
	smolder-base) "$BASE" -q -o "$3" "$long" 2>"$3.err" & ;;
	perf-off) perf record --off-cpu -a -g -B -o "$3.data" >"$3" 2>"$3.err" & ;;
	esac
	TR_PID=$!
}

# attached: waits until the tracer has attached (up to 30 s), then SETTLE s.
attached() {
	local what=bpf_link
	[ -n "$TR_PID" ] || { sleep "$SETTLE"; return 0; }
	[ "$1" = perf-off ] && what=perf_event
	for _ in $(seq 300); do
		if ls -l "/proc/$TR_PID/fd" 2>/dev/null | grep -q "anon_inode:.\?$what"; then
			sleep "$SETTLE"
			return 0
		fi
		kill -0 "$TR_PID" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# measure MODE OUT: pingpong under MODE's tool (output in OUT), its window
# opened by SIGUSR1 once the tool has attached; its output in $TMP/pp.
measure() {
	local pin=()
	[ -n "$PIN" ] && pin=(taskset -c "$PIN")
	"${pin[@]}" "$PINGPONG" "$RUN" 600 >"$TMP/pp" 2>&1 &
	WL_PID=$!
	start_tracer "$1" "$WL_PID" "$2"
	attached "$1" || die "$1 did not attach in 30 s: $(tail -n 1 "$2.err" 2>/dev/null)"
	kill -USR1 "$WL_PID"
	wait "$WL_PID"
	WL_PID=""
}

stop_tracer() {
	[ -n "$TR_PID" ] || return 0
	kill -INT "$TR_PID" $TR2_PID 2>/dev/null
	wait "$TR_PID" $TR2_PID 2>/dev/null
	TR_PID="" TR2_PID=""
}

# recorded MODE OUT: seconds of the ping and pong threads in OUT (the
# report offcputime prints: a process line "-  comm (pid)" then the us;
# smolder's folded file, whose first frame is the thread's comm).
recorded() {
	case $1 in
	offcputime*) awk '/^    -  / { c = $2 } /^        [0-9]+$/ && (c == "ping" || c == "pong") { t += $1 }
		END { printf "%.2f", t / 1e6 }' "$2" ;;
	smolder-off*|smolder-samp) awk '/^(ping|pong);/ { t += $NF } END { printf "%.2f", t / 1e6 }' "$2" ;;
	*) echo "" ;;
	esac
}

# run MODE: one pingpong run under MODE; appends its rate (and the time
# recorded) to MODE's lists.
run() {
	local mode=$1 out="$TMP/out-$1.folded" rate rec
	rm -f "$out" "$out.data"
	measure "$mode" "$out"
	stop_tracer
	rate=$(sed -n 's/^pingpong: \([0-9]*\) round trips\/s$/\1/p' "$TMP/pp")
	[ -n "$rate" ] || die "pingpong under $mode failed: $(tail -n 1 "$TMP/pp")"
	rec=$(recorded "$mode" "$out")
	[ "$mode" = perf-off ] && [ -s "$out.err" ] && grep -m1 -o "option .off-cpu. is being ignored[^[]*" "$out.err" >"$TMP/perf-warning"
	eval "RATE_$(var "$mode")+=($rate) REC_$(var "$mode")+=($rec)"
	echo "  $mode: $rate round trips/s${rec:+, ping+pong recorded ${rec} s}" >&2
}

echo "smolder off-CPU tracing cost: $(uname -r), $(nproc) CPUs, git $(source_rev)"
[ -x "$OFFCPUTIME" ] && echo "  offcputime: $OFFCPUTIME (libbpf-tools $(dpkg-query -W -f '${Version}' libbpf-tools 2>/dev/null))"
have_cmd perf && echo "  perf: $(perf --version 2>&1)"
[ -n "$BASE" ] && echo "  SMOLDER_BASE: $BASE"
for s in "${SKIPPED[@]}"; do echo "  skipped: $s"; done
echo "  pingpong $RUN s from $SETTLE s after the tool attached${PIN:+, pinned to CPU $PIN}; $ROUNDS rounds; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

for m in $MODES; do eval "RATE_$(var "$m")=() REC_$(var "$m")=()"; done
for ((r = 0; r < ROUNDS; r++)); do
	# shellcheck disable=SC2086 # the modes, a word each
	for m in $(rotated "$r" $MODES); do run "$m"; done
done

label() {
	case $1 in
	alone) echo "pingpong alone" ;;
	offcputime) echo "\`offcputime\` (whole machine)" ;;
	offcputime-p) echo "\`offcputime -p PID\`" ;;
	offcputime+perf) echo "\`offcputime\` + \`perf record -F 49 -a -g\`" ;;
	smolder-off) echo "\`smolder --off-cpu\` (whole machine)" ;;
	smolder-off-p) echo "\`smolder --off-cpu -p PID\`" ;;
	smolder-samp) echo "\`smolder --off-cpu --off-cpu-sample $SAMPLE_N\`" ;;
	smolder-cpu) echo "\`smolder\` CPU only (whole machine, 49 Hz)" ;;
	smolder-base) echo "SMOLDER_BASE CPU only (whole machine, 49 Hz)" ;;
	perf-off) echo "\`perf record --off-cpu -a -g\`" ;;
	esac
}
ALONE=$(median "${RATE_alone[@]}")
CPUONLY=$(median "${RATE_smolder_cpu[@]}")
echo "| under | round trips/s, median (range) | ratio to alone | ratio to smolder CPU only | ping+pong recorded, s (traced >= $((2 * (SETTLE + RUN)))) |"
echo "| --- | ---: | ---: | ---: | ---: |"
for m in $MODES; do
	eval "v=(\"\${RATE_$(var "$m")[@]}\") rec=(\"\${REC_$(var "$m")[@]}\")"
	med=$(median "${v[@]}")
	recm=""
	[ -n "${rec[*]}" ] && recm="$(median "${rec[@]}") ($(range "${rec[@]}"))"
	printf '| %s | %s (%s) | %s | %s | %s |\n' "$(label "$m")" "$med" "$(range "${v[@]}")" \
		"$(ratio "$med" "$ALONE")" "$(ratio "$med" "$CPUONLY")" "${recm:--}"
done
[ -s "$TMP/perf-warning" ] && echo "perf said: $(cat "$TMP/perf-warning")"
echo

# ---- BPF time per run, once per tool ----------------------------------------
# prog_stats: "id name type run_cnt run_time_ns" of every loaded program.
prog_stats() {
	bpftool prog show -j 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for p in json.load(sys.stdin):
    print(p["id"], p.get("name", "?"), p["type"], p.get("run_cnt", 0), p.get("run_time_ns", 0))'
}
echo "BPF programs each tool loaded, kernel.bpf_stats_enabled=1, one $RUN s pingpong run each:"
bpf_stats_on || die "cannot set kernel.bpf_stats_enabled=1"
for m in $MODES; do
	case $m in alone|perf-off|smolder-base|offcputime+perf) continue ;; esac
	prog_stats | awk '{ print $1 }' >"$TMP/before"
	measure "$m" "$TMP/stats-$m.folded"
	prog_stats >"$TMP/after"
	stop_tracer
	echo "  $(label "$m"), $(sed -n 's/^pingpong: //p' "$TMP/pp"):"
	awk 'NR == FNR { old[$1] = 1; next } !($1 in old) && $4 > 0 {
		printf "    %s (%s): %d runs, %.0f ns per run\n", $2, $3, $4, $5 / $4 }' \
		"$TMP/before" "$TMP/after"
done
