#!/usr/bin/env bash
# What a one-shot capture costs around its second (`make bench-oneshot`,
# part of `make bench`): the default `smolder -f -q 1` (DWARF unwinder on)
# against libbpf-tools' `profile -f 1` (LIBBPF_TOOLS_PROFILE=PATH, or built
# from bcc's source beside the project: bench-lib.sh's find_profile_peer)
# and against `perf record -F 99 -a -g -- sleep 1` followed by `perf
# script`, in the same run:
#
#   - peak RSS (/usr/bin/time %M; perf: the larger of its two commands);
#   - time outside the capture: wall time minus the 1 s captured (perf: both
#     commands' wall time, minus 1 s);
#   - CPU time, user + sys (perf: both commands).
#
# Each tool captures twice a round: the whole machine while
# build/workloads/cpu_split runs (the issue's `smolder -f -q 1`: what it
# names depends on what else runs), and cpu_split alone (-p PID: what is
# left is mostly the fixed cost of starting and ending).  SMOLDER_BASE=PATH
# adds another smolder build, run with the same options, to compare builds
# in the same run.  The tools take turns, ROUNDS times (default 7), in an
# order that rotates; the figures are the medians and the ratios are taken
# between medians of the same run, which is what survives a shared, loaded
# machine.  smolder also runs with --unwind fp (no unwind tables built), so
# the table shows what the DWARF unwinder adds.  Targets (issue 27):
# smolder / profile at most 1.00 for time outside the capture and for peak
# RSS.
#
# Then how soon sampling starts (build/workloads/exec_stamp: it stamps
# CLOCK_MONOTONIC at an exec, and writes the 2 ms slot it is in into its
# stack, so that a profile's earliest stack says when its first sample was
# taken):
#
#   3. from the tool's exec to its first sample of a busy process (-F 999
#      -p PID), and, for smolder, to its perf events' attach (its
#      SMOLDER_PHASES "sampling on" line);
#   4. from the tool's exec to its command's exec: `smolder -f -q -o
#      /dev/null -- CMD` against `perf record -q -o /dev/null -- CMD`, CMD
#      exec_stamp itself (a command that does nothing else, like true).
#
# Then the floors no build on this libbpf can go under, measured the same
# way: libbpf parsing the kernel's BTF alone (a four-line static program
# built here against Debian's libbpf 1.1), the same parse from a mapping of
# the file (smolder's way, kernels 6.16 and later), and reading
# /proc/kallsyms (the kernel formats ~120k lines however they are read).
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=${SMOLDER:-$ROOT/smolder}
WORKLOAD=$ROOT/build/workloads/cpu_split
STAMP=$ROOT/build/workloads/exec_stamp
BASE=${SMOLDER_BASE:-}
ROUNDS=${ROUNDS:-7}

need_root
need_built "$SMOLDER"
need_built "$WORKLOAD" workloads
need_built "$STAMP" workloads
need_time
need_cmd perf linux-perf
need_exec_var SMOLDER_BASE "another smolder build"
make_tmp
exit_on_interrupt
find_profile_peer

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
	sm) measure "$TMP/m" "$SMOLDER" "${sel[@]}" -f -q 1 ;;
	fp) measure "$TMP/m" "$SMOLDER" "${sel[@]}" --unwind fp -f -q 1 ;;
	base) measure "$TMP/m" "$BASE" "${sel[@]}" -f -q 1 ;;
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
	printf '| | `smolder -f -q 1` | `--unwind fp` |%s%s perf record + script |%s%s smolder / perf |\n' \
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
echo "targets (issue 27): smolder / profile <= 1.00 for the time outside the capture and for peak RSS"
echo

# ---- 3. from exec to the first sample ------------------------------------------
# first_slot FOLDED: the earliest 2 ms slot among exec_stamp's whole stacks
# (all 11 of its bit frames), or nothing.
first_slot() {
	awk '{
		k = 0; nb = 0; n = split($0, f, ";")
		for (i = 1; i <= n; i++)
			if (f[i] ~ /^bit[0-9]+_[01]$/) {
				nb++; split(substr(f[i], 4), b, "_")
				if (b[2] == "1") k += 2 ^ b[1]
			}
		if (nb == 11 && (best == "" || k < best)) best = k
	} END { if (best != "") print best }' "$1"
}
# ms_since T0_FILE NS: milliseconds from the stamp in T0_FILE to NS.
ms_since() { awk -v a="$(cat "$1")" -v b="$2" 'BEGIN { printf "%.1f\n", (b - a) / 1e6 }'; }

# first_sample TOOL: one -F 999 capture of a fresh exec_stamp --slots;
# appends the ms from the tool's exec to its first sample to FIRST_TOOL
# and, for smolder, to its perf events' attach to ON_TOOL.
first_sample() {
	local wp k on bin=$SMOLDER opt=()
	"$STAMP" --slots "$TMP/s0" 4 &
	wp=$!
	sleep 0.3
	[ "$1" = base ] && bin=$BASE
	[ "$1" = fp ] && opt=(--unwind fp)
	case $1 in
	pr) "$STAMP" --exec "$TMP/t0" "$PEER" -F 999 -p "$wp" -f 1 >"$TMP/fs.folded" 2>"$TMP/fs.err" ;;
	*) SMOLDER_PHASES=1 "$STAMP" --exec "$TMP/t0" "$bin" "${opt[@]}" -F 999 -p "$wp" -f \
		-o "$TMP/fs.folded" 1 2>"$TMP/fs.err" ;;
	esac || die "$1 failed: $(tail -n 1 "$TMP/fs.err")"
	kill "$wp" 2>/dev/null
	wait "$wp" 2>/dev/null
	k=$(first_slot "$TMP/fs.folded")
	[ -n "$k" ] || die "$1 took no whole sample of exec_stamp"
	eval "FIRST_$1+=($(ms_since "$TMP/t0" "$(awk -v s="$(cat "$TMP/s0")" -v k="$k" 'BEGIN { printf "%.0f", s + (k + 0.5) * 2e6 }')"))"
	on=$(sed -n 's/^smolder: phase sampling on: .*(monotonic \([0-9.]*\) s).*/\1/p' "$TMP/fs.err")
	[ -n "$on" ] && eval "ON_$1+=($(ms_since "$TMP/t0" "$(awk -v t="$on" 'BEGIN { printf "%.0f", t * 1e9 }')"))"
	echo "  first sample, $1: slot $k" >&2
}

FS_TOOLS="sm fp${BASE:+ base}${PEER:+ pr}"
for t in $FS_TOOLS; do eval "FIRST_$t=() ON_$t=()"; done
for ((r = 0; r < ROUNDS; r++)); do
	# shellcheck disable=SC2086 # the tools, a word each
	for t in $(rotated "$r" $FS_TOOLS); do first_sample "$t"; done
done
echo "3. From exec to the first sample of a busy process (-F 999 -p PID, exec_stamp --slots), ms; $ROUNDS rounds, median (range):"
printf '| | `smolder -f -q 1` | `--unwind fp` |%s%s\n' "${BASE:+ SMOLDER_BASE |}" "${PEER:+ \`profile -f 1\` | smolder / profile |}"
printf '| --- | ---: | ---: |%s%s\n' "${BASE:+ ---: |}" "${PEER:+ ---: | ---: |}"
for m in ON FIRST; do
	[ $m = ON ] && printf '| perf events attached |' || printf '| first sample (2 ms slots) |'
	for t in $FS_TOOLS; do
		eval "v=(\"\${${m}_${t}[@]}\")"
		# shellcheck disable=SC2154 # v is set by the eval
		if [ ${#v[@]} -gt 0 ]; then printf ' %s (%s) |' "$(median "${v[@]}")" "$(range "${v[@]}")"; else printf ' n/a |'; fi
		eval "MED_$t=$(median "${v[@]:-0}")"
	done
	[ -n "$PEER" ] && { [ $m = FIRST ] && printf ' %s |' "$(ratio "$MED_sm" "$MED_pr")" || printf ' |'; }
	echo
done
echo

# ---- 4. from exec to the command's exec ----------------------------------------
# cmd_exec TOOL: TOOL running exec_stamp as its command; appends the ms
# from the tool's exec to the command's to CMD_TOOL, and the whole run's
# wall ms to WALL_TOOL.
cmd_exec() {
	rm -f "$TMP/c"
	case $1 in
	sm) timed "$TMP/time" "$STAMP" --exec "$TMP/t0" "$SMOLDER" -f -q -o /dev/null -- "$STAMP" "$TMP/c" ;;
	base) timed "$TMP/time" "$STAMP" --exec "$TMP/t0" "$BASE" -f -q -o /dev/null -- "$STAMP" "$TMP/c" ;;
	pe) timed "$TMP/time" "$STAMP" --exec "$TMP/t0" perf record -q -o /dev/null -- "$STAMP" "$TMP/c" ;;
	esac >/dev/null 2>"$TMP/err" || die "$1 -- exec_stamp failed: $(tail -n 1 "$TMP/err")"
	[ -s "$TMP/c" ] || die "$1 did not run its command"
	eval "CMD_$1+=($(ms_since "$TMP/t0" "$(cat "$TMP/c")")) WALL_$1+=($(tail -n 1 "$TMP/time" | awk '{ printf "%.0f", $1 * 1000 }'))"
}
CX_TOOLS="sm${BASE:+ base} pe"
for t in $CX_TOOLS; do eval "CMD_$t=() WALL_$t=()"; done
for ((r = 0; r < ROUNDS; r++)); do
	# shellcheck disable=SC2086 # the tools, a word each
	for t in $(rotated "$r" $CX_TOOLS); do cmd_exec "$t"; done
done
echo "4. \`-- COMMAND\`: smolder -f -q -o /dev/null -- CMD against perf record -q -o /dev/null -- CMD (CMD: exec_stamp, which only stamps its exec), ms; $ROUNDS rounds, median (range):"
printf '| | `smolder -f -q -- CMD` |%s `perf record -q -- CMD` | smolder / perf |\n' "${BASE:+ SMOLDER_BASE |}"
printf '| --- | ---: |%s ---: | ---: |\n' "${BASE:+ ---: |}"
for m in CMD WALL; do
	[ $m = CMD ] && printf "| to the command's exec |" || printf '| the whole run (wall) |'
	for t in $CX_TOOLS; do
		eval "v=(\"\${${m}_${t}[@]}\")"
		printf ' %s (%s) |' "$(median "${v[@]}")" "$(range "${v[@]}")"
		eval "MED_$t=$(median "${v[@]}")"
	done
	printf ' %s |\n' "$(ratio "$MED_sm" "$MED_pe")"
done
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
# the same parse from a read-only mapping of the file, as smolder does it
# (src/capture/vmlinux_btf.c): libbpf's copy alone
cat >"$TMP/btf_map.c" <<'C'
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/btf.h>
int main(void)
{
	struct stat st;
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);
	void *p = fd < 0 || fstat(fd, &st) ? MAP_FAILED
					   : mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		return 1;
	btf__free(btf__new(p, st.st_size));
	return 0;
}
C
cat >"$TMP/nothing.c" <<'C'
int main(void) { return 0; }
C
echo "Floors ($ROUNDS runs, median (range)):"
if cc -O2 "$TMP/btf.c" -o "$TMP/btf" -Wl,-Bstatic -lbpf -lelf -lz -Wl,-Bdynamic 2>"$TMP/cc.err" &&
	cc -O2 "$TMP/btf_map.c" -o "$TMP/btf_map" -Wl,-Bstatic -lbpf -lelf -lz -Wl,-Bdynamic 2>>"$TMP/cc.err" &&
	cc -O2 "$TMP/nothing.c" -o "$TMP/nothing"; then
	BW=(); BR=(); MW=(); MR=(); NR=()
	MAPPED=$("$TMP/btf_map" 2>/dev/null && echo yes)
	for ((r = 0; r < ROUNDS; r++)); do
		measure "$TMP/m" "$TMP/btf"
		read -r w c rss <"$TMP/m"
		BW+=("$w"); BR+=("$rss")
		if [ -n "$MAPPED" ]; then
			measure "$TMP/m" "$TMP/btf_map"
			read -r w c rss <"$TMP/m"
			MW+=("$w"); MR+=("$rss")
		fi
		measure "$TMP/m" "$TMP/nothing"
		read -r w c rss <"$TMP/m"
		NR+=("$rss")
	done
	echo "  libbpf $(dpkg-query -W -f '${Version}' libbpf-dev 2>/dev/null) btf__load_vmlinux_btf() alone ($(stat -c %s /sys/kernel/btf/vmlinux) bytes of BTF): $(median "${BW[@]}") ms ($(range "${BW[@]}")), peak RSS $(median "${BR[@]}") KiB ($(range "${BR[@]}")); an empty program: $(median "${NR[@]}") KiB"
	if [ ${#MW[@]} -gt 0 ]; then
		echo "  the same parsed from a mapping of /sys/kernel/btf/vmlinux (smolder's way): $(median "${MW[@]}") ms ($(range "${MW[@]}")), peak RSS $(median "${MR[@]}") KiB ($(range "${MR[@]}"))"
	else
		echo "  the same parsed from a mapping: not measured (this kernel cannot map /sys/kernel/btf/vmlinux: 6.16 and later can)"
	fi
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
