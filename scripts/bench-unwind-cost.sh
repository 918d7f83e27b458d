#!/usr/bin/env bash
# What the DWARF unwinder costs (`make bench-unwind-cost`, part of `make
# bench`), in one run, kernel.bpf_stats_enabled=1:
#
#   1. BPF ns per sample: smolder --unwind dwarf against --unwind fp on the
#      same process, and --unwind fp against libbpf-tools' `profile`
#      (LIBBPF_TOOLS_PROFILE=PATH, or built from bcc's source beside the
#      project: bench-lib.sh's find_profile_peer).  Workloads, each alone on
#      CPU 1 (taskset) with the tools on CPU 0 sampling CPU 1 only (-C 1):
#      tests/workloads/frameless/unwind_paths built with frame pointers
#      (gcc -O2 -fno-omit-frame-pointer, here) in its 8-frame "leaf" and
#      35-frame "deep" modes, so that both walks see the same frames; the
#      frameless build's "deep" (build/workloads/unwind_paths-gcc); and
#      Debian's python3.11 in a pure-Python loop.  The tools take turns,
#      ROUNDS times, in an order that rotates; the figure is the median.
#      The figure is the program's run_time_ns / run_cnt (smolder: its -v
#      line; profile: bpftool prog show of its program while it runs).  A
#      run is a sample of the workload but when another process ran on CPU
#      1 (filtered out early, in both tools); the share is printed.
#   2. Whole CPU time of a 10 s capture of python3.11 at 499 Hz: smolder's
#      user + sys (/usr/bin/time: loading, symbolization, writing), against
#      perf record --call-graph dwarf + perf script (user + sys of both).
#      Neither counts what runs in the sampled task's interrupt: smolder's
#      BPF program (printed beside), perf's 8 KiB stack copy.  smolder's
#      cost is mostly fixed (verifying its programs, reading vmlinux BTF
#      and kallsyms), so a 1 s capture is measured too, and what each
#      further second costs.
#   3. Bytes written for the same 3 s of python3.11 (perf and smolder at
#      once): perf.data against smolder's folded stacks.
#   4. Unwind table memory of a C++ process (libstdc++, libm, libgcc_s,
#      libc, ld.so): smolder -v's "unwind tables" line.
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=${SMOLDER:-$ROOT/smolder}
FRAMELESS=$ROOT/build/workloads/unwind_paths-gcc
SRC=$ROOT/tests/workloads/frameless/unwind_paths.c
ROUNDS=${ROUNDS:-5}
SECS=${SECONDS_PER_RUN:-4}
HZ=999
PY=$(readlink -f /usr/bin/python3)

need_root
need_built "$SMOLDER"
need_built "$FRAMELESS" workloads
need_time
need_cmd perf linux-perf
need_cmd bpftool bpftool
[ -x "$PY" ] || die "/usr/bin/python3 is missing (apt-get install python3)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (the workload on CPU 1, the tools on CPU 0)"
make_tmp
exit_on_interrupt
find_profile_peer
# Set before every capture: another tool on the machine may reset it.  Set
# here first, in this shell, so that the value before is restored on exit.
stats_on() { bpf_stats_on || die "cannot set kernel.bpf_stats_enabled=1"; }
stats_on

gcc -O2 -g -fno-omit-frame-pointer -pthread -DWL_CC='"gcc"' "$SRC" -o "$TMP/unwind_paths-fp" -ldl ||
	die "cannot build the frame-pointer workload"
cat >"$TMP/loop.py" <<'PY'
import time
def work(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s
end = time.time() + 3600
while time.time() < end:
    work(100000)
PY

# start_pinned CMD...: CMD alone on CPU 1, in the background.
start_pinned() { start_workload taskset -c 1 "$@"; }

# sm_cost MODE: smolder --unwind MODE on the workload; prints ns per run.
sm_cost() {
	local err=$TMP/sm.err runs ns samples
	stats_on
	taskset -c 0 "$SMOLDER" -v -C 1 -p "$WL_PID" -F "$HZ" --unwind "$1" -f -o "$TMP/sm.folded" "$SECS" \
		2>"$err" || die "smolder --unwind $1 failed: $(tail -n 1 "$err")"
	read -r runs ns < <(sed -n 's/^smolder: BPF program: \([0-9]*\) runs, \([0-9]*\) ns per run.*/\1 \2/p' "$err")
	samples=$(sed -n 's/^smolder: \([0-9]*\) samples, .*/\1/p' "$err")
	[ -n "${runs:-}" ] || die "smolder printed no BPF run time (kernel.bpf_stats_enabled?)"
	echo "    --unwind $1: $samples samples of $runs runs, $ns ns per run" >&2
	echo "$ns"
}

# peer_cost: libbpf-tools profile on the workload; prints ns per run.  Its
# program's counters come from bpftool prog show, read every 0.2 s while it
# runs (the last reading counts); its program is the perf_event one among
# those the profile process holds (/proc/PID/fdinfo).
peer_cost() {
	local pp id l last="" samples
	stats_on
	taskset -c 0 "$PEER" -C 1 -p "$WL_PID" -F "$HZ" -f "$SECS" >"$TMP/peer.out" 2>"$TMP/peer.err" &
	pp=$!
	while kill -0 "$pp" 2>/dev/null; do
		for id in $(awk '$1 == "prog_id:" { print $2 }' /proc/"$pp"/fdinfo/* 2>/dev/null | sort -u); do
			l=$(bpftool prog show id "$id" 2>/dev/null |
				sed -n 's/.* perf_event .*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2/p')
			[ -n "$l" ] && last=$l
		done
		sleep 0.2
	done
	wait "$pp" || die "profile failed: $(tail -n 1 "$TMP/peer.err")"
	samples=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/peer.out")
	[ -n "$last" ] || die "no BPF run time of profile (bpftool prog show)"
	set -- $last
	echo "    profile: $samples samples of $2 runs, $(($1 / $2)) ns per run" >&2
	echo $(($1 / $2))
}

echo "smolder unwinder cost: $(uname -r), $(nproc) CPUs, git $(source_rev)"
echo "  perf: $(perf --version 2>&1)"
profile_peer_line "$PEER"
echo

# ---- 1. BPF ns per sample --------------------------------------------------
TOOLS="fp dwarf"
[ -n "$PEER" ] && TOOLS="fp dwarf peer"
echo "1. BPF ns per sample (per run), $HZ Hz, $SECS s a run, $ROUNDS rounds (median, range):"
printf '| workload | frames | --unwind fp | --unwind dwarf | dwarf / fp |%s\n' "${PEER:+ profile | fp / profile |}"
printf '| --- | ---: | ---: | ---: | ---: |%s\n' "${PEER:+ ---: | ---: |}"
DWFP=(); FPPE=()
for w in fp-leaf fp-deep frameless-deep python3.11; do
	case $w in
	fp-leaf) start_pinned "$TMP/unwind_paths-fp" leaf 3600 ;;
	fp-deep) start_pinned "$TMP/unwind_paths-fp" deep 3600 ;;
	frameless-deep) start_pinned "$FRAMELESS" deep 3600 ;;
	python3.11) start_pinned "$PY" "$TMP/loop.py" ;;
	esac
	FP=(); DW=(); PE=()
	for ((r = 0; r < ROUNDS; r++)); do
		# shellcheck disable=SC2086 # the tools, a word each
		for t in $(rotated "$r" $TOOLS); do
			case $t in
			fp) FP+=("$(sm_cost fp)") ;;
			dwarf) DW+=("$(sm_cost dwarf)"); cp "$TMP/sm.folded" "$TMP/dwarf.folded" ;;
			peer) PE+=("$(peer_cost)") ;;
			esac
		done
	done
	frames=$(awk '{ n = split($0, f, ";") - 1; c = $NF; if (c > best) { best = c; d = n } } END { print d }' "$TMP/dwarf.folded")
	stop_workload
	mf=$(median "${FP[@]}"); md=$(median "${DW[@]}")
	printf '| %s | %s | %s (%s) | %s (%s) | %s |' "$w" "$frames" "$mf" "$(range "${FP[@]}")" \
		"$md" "$(range "${DW[@]}")" "$(ratio "$md" "$mf")"
	if [ -n "$PEER" ]; then
		mp=$(median "${PE[@]}")
		printf ' %s (%s) | %s |' "$mp" "$(range "${PE[@]}")" "$(ratio "$mf" "$mp")"
	fi
	echo
	DWFP+=("$(ratio "$md" "$mf")")
	[ -n "$PEER" ] && FPPE+=("$(ratio "$mf" "$mp")")
	echo "  $w per round: fp ${FP[*]}; dwarf ${DW[*]}${PEER:+; profile ${PE[*]}}" >&2
done
echo "dwarf / fp, largest: $(printf '%s\n' "${DWFP[@]}" | sort -n | tail -n 1) (target <= 2)"
[ -n "$PEER" ] && echo "fp / profile: $(range "${FPPE[@]}") (target <= 1)"
echo

# ---- 2. whole CPU time of a 10 s capture, against perf --------------------
echo "2. CPU time of a 10 s capture of python3.11 at 499 Hz (3 rounds, median):"
start_pinned "$PY" "$TMP/loop.py"
SMC=(); SM1=(); SMB=(); PRC=(); PSC=(); PTOT=()
for r in 1 2 3; do
	stats_on
	timed "$TMP/sm.time" "$SMOLDER" -v -F 499 -p "$WL_PID" -f -o "$TMP/c.folded" 10 \
		2>"$TMP/c.err" || die "smolder failed: $(tail -n 1 "$TMP/c.err")"
	read -r runs ns < <(sed -n 's/^smolder: BPF program: \([0-9]*\) runs, \([0-9]*\) ns per run.*/\1 \2/p' "$TMP/c.err")
	SMC+=("$(cpu_of "$TMP/sm.time")")
	SMBPF=$(awk -v r="$runs" -v n="$ns" 'BEGIN { printf "%.3f", r * n / 1e9 }')
	SMB+=("$SMBPF")
	timed "$TMP/sm1.time" "$SMOLDER" -F 499 -p "$WL_PID" -f -o "$TMP/c1.folded" 1 \
		2>"$TMP/c1.err" || die "smolder failed: $(tail -n 1 "$TMP/c1.err")"
	SM1+=("$(cpu_of "$TMP/sm1.time")")
	timed "$TMP/pr.time" perf record -q -e cpu-clock -F 499 --call-graph dwarf \
		-p "$WL_PID" -o "$TMP/c.data" -- sleep 10 >/dev/null 2>&1 || die "perf record failed"
	timed "$TMP/ps.time" perf script -i "$TMP/c.data" >"$TMP/c.perf.txt" 2>/dev/null ||
		die "perf script failed"
	PRC+=("$(cpu_of "$TMP/pr.time")"); PSC+=("$(cpu_of "$TMP/ps.time")")
	PTOT+=("$(awk -v a="$(cpu_of "$TMP/pr.time")" -v b="$(cpu_of "$TMP/ps.time")" 'BEGIN { printf "%.2f", a + b }')")
	echo "  round $r: smolder $(cpu_of "$TMP/sm.time") s (1 s capture: $(cpu_of "$TMP/sm1.time") s; BPF $SMBPF s); perf record $(cpu_of "$TMP/pr.time") s + perf script $(cpu_of "$TMP/ps.time") s" >&2
	rm -f "$TMP/c.data" "$TMP/c.perf.txt"
done
stop_workload
ms=$(median "${SMC[@]}"); mp=$(median "${PTOT[@]}")
echo "| tool | CPU s (median) | range |"
echo "| --- | ---: | --- |"
m1=$(median "${SM1[@]}")
echo "| smolder, 10 s (user + sys) | $ms | $(range "${SMC[@]}") |"
echo "| smolder, 1 s (user + sys) | $m1 | $(range "${SM1[@]}") |"
echo "| smolder's BPF program, 10 s (in the workload's interrupts) | $(median "${SMB[@]}") | $(range "${SMB[@]}") |"
echo "| perf record | $(median "${PRC[@]}") | $(range "${PRC[@]}") |"
echo "| perf script | $(median "${PSC[@]}") | $(range "${PSC[@]}") |"
echo "| perf record + script | $mp | $(range "${PTOT[@]}") |"
echo "smolder / perf, 10 s: $(ratio "$ms" "$mp") (target <= 0.10)"
echo "each further second, smolder (10 s - 1 s capture) / perf (10 s / 10): $(awk -v a="$ms" -v b="$m1" -v p="$mp" 'BEGIN { if (p > 0) printf "%.3f", (a - b) / 9 / (p / 10); else print "n/a" }')"
echo

# ---- 3. bytes written for 3 s ----------------------------------------------
echo "3. Bytes written for 3 s of python3.11 at 499 Hz (perf and smolder at once):"
start_pinned "$PY" "$TMP/loop.py"
perf record -q -e cpu-clock -F 499 --call-graph dwarf -p "$WL_PID" -o "$TMP/b.data" -- sleep 3 >/dev/null 2>&1 &
pp=$!
"$SMOLDER" -F 499 -p "$WL_PID" -f -o "$TMP/b.folded" -o "$TMP/b.pb.gz" 3 2>"$TMP/b.err" || die "smolder failed"
wait "$pp" || die "perf record failed"
stop_workload
pd=$(stat -c %s "$TMP/b.data"); sf=$(stat -c %s "$TMP/b.folded"); sp=$(stat -c %s "$TMP/b.pb.gz")
echo "| output | bytes |"
echo "| --- | ---: |"
echo "| perf.data (perf record --call-graph dwarf) | $pd |"
echo "| smolder folded | $sf |"
echo "| smolder pprof (.pb.gz) | $sp |"
echo "perf.data / smolder folded: $(ratio "$pd" "$sf")"
echo

# ---- 4. table memory of a C++ process --------------------------------------
echo "4. Unwind tables of a C++ process (smolder -v):"
cat >"$TMP/cxx.cpp" <<'CXX'
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <vector>
int main()
{
	auto end = std::chrono::steady_clock::now() + std::chrono::hours(1);
	std::map<std::string, double> m;
	while (std::chrono::steady_clock::now() < end) {
		std::vector<std::string> v;
		for (int i = 0; i < 10000; i++)
			v.push_back(std::to_string(i * 7919 % 10007));
		std::sort(v.begin(), v.end());
		m[v[0]] += std::sqrt((double)v.size());
	}
	return m.size() == 0;
}
CXX
g++ -O2 -o "$TMP/cxx" "$TMP/cxx.cpp" || die "g++ failed"
start_pinned "$TMP/cxx"
"$SMOLDER" -v -F 99 -p "$WL_PID" -f -o "$TMP/x.folded" 2 2>"$TMP/x.err" || die "smolder failed"
stop_workload
echo "  libraries: $(ldd "$TMP/cxx" | awk '$3 ~ /^\// { print $1 } $1 ~ /^\// { print $1 }' | xargs -n1 basename | tr '\n' ' ')"
echo "  $(grep '^smolder: unwind tables:' "$TMP/x.err")"
kib=$(sed -n 's/^smolder: unwind tables: [0-9]* files (\([0-9]*\) KiB).*/\1/p' "$TMP/x.err")
kmem=$(sed -n 's/^smolder: unwind tables: .*; \([0-9]*\) KiB of kernel memory.*/\1/p' "$TMP/x.err")
echo "table memory: ${kib:-?} KiB of rows, ${kmem:-?} KiB of kernel memory in whole shards (target < 2048 KiB)"
