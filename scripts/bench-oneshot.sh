#!/usr/bin/env bash
# What a one-shot capture costs around its second (`make bench-oneshot`,
# part of `make bench`): `smolder -f 1` against libbpf-tools' `profile -f 1`
# (when LIBBPF_TOOLS_PROFILE=PATH names a build of it; bcc's source is not
# ours to ship, so nothing here builds it) and against `perf record -F 99 -a
# -g -- sleep 1` followed by `perf script`, in the same run:
#
#   - peak RSS (/usr/bin/time %M; perf: the larger of its two commands);
#   - time outside the capture: wall time minus the 1 s captured (perf: both
#     commands' wall time, minus 1 s);
#   - CPU time, user + sys (perf: both commands).
#
# Each tool captures twice a round: the whole machine while
# build/workloads/cpu_split runs (the issue's `smolder -f 1`: what it names
# depends on what else runs), and cpu_split alone (-p PID: what is left is
# mostly the fixed cost of starting and ending).  SMOLDER_BASE=PATH adds
# another smolder build, run with the same options, to compare builds in
# the same run.  The tools take turns, ROUNDS times (default 5), in an
# order that rotates; the figures are the medians and the ratios are taken
# between medians of the same run, which is what survives a shared, loaded
# machine.  smolder also runs with
# --unwind fp (no unwind tables built), so the table shows what the DWARF
# unwinder adds.
#
# Then the floors no build on this libbpf can go under, measured the same
# way: libbpf parsing the kernel's BTF alone (a four-line static program
# built here against Debian's libbpf 1.1), and reading /proc/kallsyms (the
# kernel formats ~120k lines however they are read).
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=${SMOLDER:-$ROOT/smolder}
WORKLOAD=$ROOT/build/workloads/cpu_split
PEER=${LIBBPF_TOOLS_PROFILE:-}
BASE=${SMOLDER_BASE:-}
ROUNDS=${ROUNDS:-5}

need_root
need_built "$SMOLDER"
need_built "$WORKLOAD" workloads
need_time
need_cmd perf linux-perf
need_exec_var LIBBPF_TOOLS_PROFILE "a build of libbpf-tools' profile"
need_exec_var SMOLDER_BASE "another smolder build"
make_tmp
exit_on_interrupt

# measure OUT CMD...: runs CMD, stdout to /dev/null; OUT gets "wall_ms cpu_ms rss_kib".
measure() {
	local out=$1
	shift
	timed "$TMP/time" "$@" >/dev/null 2>"$TMP/err" ||
		die "$* failed: $(tail -n 1 "$TMP/err")"
	tail -n 1 "$TMP/time" | awk '{ printf "%.0f %.0f %d\n", $1 * 1000, ($2 + $3) * 1000, $4 }' >"$out"
}

# run_tool TOOL SCOPE: one capture of SCOPE (machine, or process: cpu_split
# alone); appends outside-ms, cpu-ms and rss to the lists of TOOL_SCOPE.
run_tool() {
	local w c r w2 c2 r2 sel=() psel=(-a)
	[ "$2" = process ] && sel=(-p "$WL_PID") psel=(-p "$WL_PID")
	case $1 in
	sm) measure "$TMP/m" "$SMOLDER" "${sel[@]}" -f 1 ;;
	fp) measure "$TMP/m" "$SMOLDER" "${sel[@]}" --unwind fp -f 1 ;;
	base) measure "$TMP/m" "$BASE" "${sel[@]}" -f 1 ;;
	pr) measure "$TMP/m" "$PEER" "${sel[@]}" -f 1 ;;
	pe)
		measure "$TMP/m1" perf record -q -F 99 "${psel[@]}" -g -o "$TMP/perf.data" -- sleep 1
		measure "$TMP/m2" perf script -i "$TMP/perf.data"
		read -r w c r <"$TMP/m1"
		read -r w2 c2 r2 <"$TMP/m2"
		echo "$((w + w2)) $((c + c2)) $((r > r2 ? r : r2))" >"$TMP/m"
		rm -f "$TMP/perf.data"
		;;
	esac
	read -r w c r <"$TMP/m"
	eval "OUT_$1_$2+=($((w - 1000))) CPU_$1_$2+=($c) RSS_$1_$2+=($r)"
	echo "  $2, $1: outside the capture $((w - 1000)) ms, CPU $c ms, peak RSS $r KiB" >&2
}

echo "smolder one-shot capture: $(uname -r), $(nproc) CPUs, git $(source_rev)"
echo "  perf: $(perf --version 2>&1)"
profile_peer_line "$PEER"
[ -n "$BASE" ] && echo "  SMOLDER_BASE (another smolder build, same options as smolder): $BASE"
echo "  load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

start_workload "$WORKLOAD" 3600

TOOLS="sm fp${BASE:+ base}${PEER:+ pr} pe"
for t in $TOOLS; do
	for sc in machine process; do eval "OUT_${t}_$sc=() CPU_${t}_$sc=() RSS_${t}_$sc=()"; done
done
for ((r = 0; r < ROUNDS; r++)); do
	# shellcheck disable=SC2086 # the tools, a word each
	for t in $(rotated "$r" $TOOLS); do
		run_tool "$t" machine
		run_tool "$t" process
	done
done
stop_workload

# row LABEL METRIC SCOPE: median (range) per tool, then smolder's ratios.
row() {
	local t m v
	printf '| %s |' "$1"
	for t in $TOOLS; do
		eval "v=(\"\${$2_${t}_$3[@]}\")"
		m=$(median "${v[@]}")
		eval "MED_$t=$m"
		printf ' %s (%s) |' "$m" "$(range "${v[@]}")"
	done
	[ -n "$BASE" ] && printf ' %s |' "$(ratio "$MED_sm" "$MED_base")"
	[ -n "$PEER" ] && printf ' %s |' "$(ratio "$MED_sm" "$MED_pr")"
	printf ' %s |\n' "$(ratio "$MED_sm" "$MED_pe")"
}
table() {
	printf '| | `smolder -f 1` | `--unwind fp` |%s%s perf record + script |%s%s smolder / perf |\n' \
		"${BASE:+ SMOLDER_BASE |}" "${PEER:+ \`profile -f 1\` |}" \
		"${BASE:+ smolder / base |}" "${PEER:+ smolder / profile |}"
	printf '| --- |'
	for t in $TOOLS; do printf ' ---: |'; done
	for t in ${BASE:+b} ${PEER:+p} e; do printf ' ---: |'; done
	echo
	row "time outside the capture, ms" OUT "$1"
	row "CPU time, ms" CPU "$1"
	row "peak RSS, KiB" RSS "$1"
}
echo "1. The whole machine for 1 s (perf: -a), cpu_split running; $ROUNDS rounds, median (range):"
table machine
echo
echo "2. cpu_split alone for 1 s (-p PID), the same rounds:"
table process
echo "targets (issue 13): peak RSS <= 10240 KiB, <= 80 ms outside the capture"
echo

# ---- floors ------------------------------------------------------------------
cat >"$TMP/btf.c" <<'C'
#include <bpf/btf.h>
int main(void)
{
	btf__free(btf__load_vmlinux_btf());
	return 0;
}
C
cat >"$TMP/nothing.c" <<'C'
int main(void) { return 0; }
C
echo "Floors ($ROUNDS runs, median (range)):"
if cc -O2 "$TMP/btf.c" -o "$TMP/btf" -Wl,-Bstatic -lbpf -lelf -lz -Wl,-Bdynamic 2>"$TMP/cc.err" &&
	cc -O2 "$TMP/nothing.c" -o "$TMP/nothing"; then
	BW=(); BR=(); NR=()
	for ((r = 0; r < ROUNDS; r++)); do
		measure "$TMP/m" "$TMP/btf"
		read -r w c rss <"$TMP/m"
		BW+=("$w"); BR+=("$rss")
		measure "$TMP/m" "$TMP/nothing"
		read -r w c rss <"$TMP/m"
		NR+=("$rss")
	done
	echo "  libbpf $(dpkg-query -W -f '${Version}' libbpf-dev 2>/dev/null) btf__load_vmlinux_btf() alone ($(stat -c %s /sys/kernel/btf/vmlinux) bytes of BTF): $(median "${BW[@]}") ms ($(range "${BW[@]}")), peak RSS $(median "${BR[@]}") KiB ($(range "${BR[@]}")); an empty program: $(median "${NR[@]}") KiB"
else
	echo "  libbpf alone: not measured (cannot build against Debian's libbpf: $(tail -n 1 "$TMP/cc.err"))"
fi
KW=(); KC=()
for ((r = 0; r < ROUNDS; r++)); do
	measure "$TMP/m" cat /proc/kallsyms
	read -r w c rss <"$TMP/m"
	KW+=("$w"); KC+=("$c")
done
echo "  cat /proc/kallsyms ($(wc -l </proc/kallsyms) lines): $(median "${KW[@]}") ms wall ($(range "${KW[@]}")), $(median "${KC[@]}") ms CPU ($(range "${KC[@]}"))"
