#!/usr/bin/env bash
# What inline frames cost (`make bench-inline`, part of `make bench`; issue
# 26's "Cost"): smolder's default (inline chains and lines from DWARF)
# against --no-inline, in the same run, taking turns ROUNDS times (default
# 3) in an order that rotates; figures are medians (range beside them):
#
#   1. build/workloads/inline_split (gcc -O2 -g: three inline chains in one
#      function; its libc's DWARF is libc6-dbg's when installed; a second
#      row runs it in a mount namespace whose /usr/lib/debug is an empty
#      tmpfs, so that libc has no DWARF and the row is its own), a 10 s
#      capture (SECONDS_PER_RUN) at 999 Hz of it alone (-p): the "named and
#      written in" time (-v), smolder's CPU time and peak RSS
#      (/usr/bin/time).  Then the naming alone, without sampling: one
#      capture recorded (SMOLDER_RECORD) and replayed (SMOLDER_REPLAY) in
#      each mode, ROUNDS times, while the process still runs.
#      Targets: at most 2x the naming time, 16 MiB more peak RSS.
#   2. The same for a program linking a large -g library generated here
#      (BIG_UNITS units of BIG_FUNCS functions, each a loop through two
#      always_inline helpers: ~200k lines of C, built -O2 -g by gcc into
#      a shared library, not kept), which calls every function in turn, so
#      the samples fall on thousands of addresses in every unit; beside the
#      figures, the share of the library's samples whose leaf is an inlined
#      helper (named from DWARF, not fallen back to the symbol).
#   3. perf on the same workloads: `perf record --call-graph dwarf -F 999`
#      for the same 10 s, then the wall time of `perf script --inline` and
#      of `perf script --no-inline`, against smolder's naming of its 10 s
#      capture (and of its replay, which names everything: a capture's
#      naming stops at its half second): "we name faster" is the ratio.
#      DWARF call graphs, not -g: on code without frame pointers perf's -g
#      chain is the leaf alone, and perf script --inline then prints no
#      inline frame at all; its times include unwinding each sample's
#      copied stack, which the --no-inline time shows apart.
# smolder captures with -U: kernel frames are not what inline frames change,
# and reading /proc/kallsyms (~0.3 s here) would hide the naming measured.
# SMOLDER=PATH measures another build; PARTS=12 leaves part 3 out.
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=${SMOLDER:-$ROOT/smolder}
INLINE_SPLIT=$ROOT/build/workloads/inline_split
ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_RUN:-10}
HZ=999
BIG_UNITS=${BIG_UNITS:-100}
BIG_FUNCS=${BIG_FUNCS:-80}
PARTS=${PARTS:-123}

need_root
need_built "$SMOLDER"
need_built "$INLINE_SPLIT" workloads
need_time
need_cmd gcc gcc
need_cmd python3 python3
[[ $PARTS != *3* ]] || need_cmd perf linux-perf
make_tmp
exit_on_interrupt

# mode_flag MODE: smolder's flag for "inline" (none) or "no-inline".
mode_flag() { [ "$1" = no-inline ] && echo --no-inline; }
# named_ms ERRFILE: the "N stacks named and written in M ms" of -v: "M N".
named_ms() { sed -n 's/^smolder: \([0-9]*\) stacks named and written in \([0-9]*\) ms.*/\2 \1/p' "$1"; }
# sm_capture TAG MODE PID: a SECS capture of PID; prints "named_ms stacks
# cpu_s rss_kib", its folded output in $TMP/TAG.folded.
sm_capture() {
	local ms st
	# shellcheck disable=SC2046 # the flag, or none
	timed "$TMP/time" "$SMOLDER" -v -U -F "$HZ" -p "$3" $(mode_flag "$2") -f -o "$TMP/$1.folded" "$SECS" \
		2>"$TMP/$1.err" || die "smolder ($1, $2) failed: $(tail -n 1 "$TMP/$1.err")"
	read -r ms st < <(named_ms "$TMP/$1.err")
	echo "${ms:-?} ${st:-?} $(cpu_of "$TMP/time") $(rss_of "$TMP/time")"
}
# sm_replay TAG MODE REC: the recording named again; prints "named_ms wall_ms rss_kib".
sm_replay() {
	local ms st
	# shellcheck disable=SC2046
	SMOLDER_REPLAY=$3 timed "$TMP/time" "$SMOLDER" -v -U $(mode_flag "$2") -f -o "$TMP/$1.folded" \
		2>"$TMP/$1.err" || die "smolder replay ($1, $2) failed: $(tail -n 1 "$TMP/$1.err")"
	read -r ms st < <(named_ms "$TMP/$1.err")
	echo "${ms:-?} $(tail -n 1 "$TMP/time" | awk '{ printf "%.0f", $1 * 1000 }') $(rss_of "$TMP/time")"
}
col() { awk -v i="$1" '{ print $i }'; }

# measure NAME PID [LEAF_RE FILE_RE]: part 1 or 2's rows for the workload
# PID: captures and replays in both modes; LEAF_RE: the inlined leaves whose
# share of the samples in frames of FILE_RE is shown.
measure() {
	local name=$1 pid=$2 r l mode
	local -A MS CPU RSS RMS RWALL RRSS STACKS
	for ((r = 0; r < ROUNDS; r++)); do
		for mode in $(rotated "$r" inline no-inline); do
			l=$(sm_capture "$name-$mode" "$mode" "$pid")
			echo "    $name $mode capture: named_ms stacks cpu_s rss_kib = $l" >&2
			MS[$mode]+="$(col 1 <<<"$l") "; STACKS[$mode]=$(col 2 <<<"$l")
			CPU[$mode]+="$(col 3 <<<"$l") "; RSS[$mode]+="$(col 4 <<<"$l") "
		done
	done
	SMOLDER_RECORD=$TMP/$name.rec "$SMOLDER" -U -F "$HZ" -p "$pid" -f -o /dev/null "$SECS" 2>/dev/null ||
		die "smolder could not record $name"
	for ((r = 0; r < ROUNDS; r++)); do
		for mode in $(rotated "$r" inline no-inline); do
			l=$(sm_replay "$name-replay-$mode" "$mode" "$TMP/$name.rec")
			echo "    $name $mode replay: named_ms wall_ms rss_kib = $l" >&2
			RMS[$mode]+="$(col 1 <<<"$l") "; RWALL[$mode]+="$(col 2 <<<"$l") "; RRSS[$mode]+="$(col 3 <<<"$l") "
		done
	done
	for mode in inline no-inline; do
		# shellcheck disable=SC2086 # the lists' words
		printf '| %s | %s | %s | %s (%s) | %s (%s) | %s (%s) | %s (%s) | %s (%s) |\n' "$name" "$mode" \
			"${STACKS[$mode]}" "$(median ${MS[$mode]})" "$(range ${MS[$mode]})" \
			"$(median ${CPU[$mode]})" "$(range ${CPU[$mode]})" "$(median ${RSS[$mode]})" "$(range ${RSS[$mode]})" \
			"$(median ${RMS[$mode]})" "$(range ${RMS[$mode]})" "$(median ${RRSS[$mode]})" "$(range ${RRSS[$mode]})"
	done
	# shellcheck disable=SC2086
	{
		echo "$name inline / no-inline: naming $(ratio "$(median ${MS[inline]})" "$(median ${MS[no-inline]})")x" \
			"(replayed $(ratio "$(median ${RMS[inline]})" "$(median ${RMS[no-inline]})")x; target <= 2)," \
			"peak RSS +$((($(median ${RSS[inline]}) - $(median ${RSS[no-inline]})) / 1024)) MiB" \
			"(replayed +$((($(median ${RRSS[inline]}) - $(median ${RRSS[no-inline]})) / 1024)) MiB; target <= 16)"
		[ -n "${3:-}" ] && echo "$name: $(leaf_share "$TMP/$name-inline.folded" "$3" "$4")% of its samples in $4 end in an inlined helper ($3) in a capture, $(leaf_share "$TMP/$name-replay-inline.folded" "$3" "$4")% replayed, $(leaf_share "$TMP/$name-no-inline.folded" "$3" "$4")% with --no-inline"
	} >>"$TMP/summary"
	# shellcheck disable=SC2086
	NAMED_MS[$name]=$(median ${MS[inline]}) REPLAY_MS[$name]=$(median ${RMS[inline]})
}
declare -A NAMED_MS REPLAY_MS PERF
# leaf_share FOLDED LEAF_RE FRAME_RE: % of the samples with a frame matching
# FRAME_RE whose leaf matches LEAF_RE.
leaf_share() {
	awk -v leaf="$2" -v fr="$3" '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		if ($0 !~ fr) next; t += n; if (f[k] ~ leaf) m += n }
		END { if (t) printf "%.1f", 100 * m / t; else print "n/a" }' "$1"
}

# ---- the large library --------------------------------------------------------
# gen_big DIR: DIR/u*.c, one table of every function (table.c) and main.c.
gen_big() {
	python3 - "$1" "$BIG_UNITS" "$BIG_FUNCS" <<'PY'
import os, sys
d, units, funcs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = 0
for u in range(units):
    out = ["/* generated by scripts/bench-inline.sh: unit %d */" % u, ""]
    for f in range(funcs):
        p = "u%d_f%d" % (u, f)
        k = (u * 7919 + f * 104729) % 60 + 3
        out += [
            "static inline __attribute__((always_inline)) unsigned long %s_mix(unsigned long x)" % p,
            "{",
            "\tx ^= x >> %d;" % (k % 31 + 1),
            "\tx *= 0x9e3779b97f4a7c15ul + %dul;" % (2 * k),
            "\tx ^= x >> %d;" % (k % 29 + 2),
            "\treturn x;",
            "}",
            "",
            "static inline __attribute__((always_inline)) unsigned long %s_step(unsigned long x, unsigned long i)" % p,
            "{",
            "\tunsigned long y = %s_mix(x + i);" % p,
            "",
            "\tif (y & %d)" % (1 << (k % 5)),
            "\t\ty = %s_mix(y ^ %dul);" % (p, k * 977),
            "\treturn y;",
            "}",
            "",
            "unsigned long big_%s(unsigned long n)" % p,
            "{",
            "\tvolatile unsigned long acc = %d;" % k,
            "",
            "\tfor (unsigned long i = 0; i < n; i++)",
            "\t\tacc = %s_step(acc, i);" % p,
            "\treturn acc;",
            "}",
            "",
        ]
    lines += len(out)
    open(os.path.join(d, "u%d.c" % u), "w").write("\n".join(out) + "\n")
with open(os.path.join(d, "table.c"), "w") as t:
    names = ["big_u%d_f%d" % (u, f) for u in range(units) for f in range(funcs)]
    t.write("".join("unsigned long %s(unsigned long);\n" % n for n in names))
    t.write("unsigned long (*const big_funcs[])(unsigned long) = {\n%s};\n" %
            "".join("\t%s,\n" % n for n in names))
    t.write("const unsigned big_nfuncs = %d;\n" % len(names))
with open(os.path.join(d, "main.c"), "w") as m:
    m.write("""#include <stdlib.h>
extern unsigned long (*const big_funcs[])(unsigned long);
extern const unsigned big_nfuncs;
volatile unsigned long sink;
int main(void)
{
	for (;;)
		for (unsigned i = 0; i < big_nfuncs; i++)
			sink += big_funcs[i](2000);
}
""")
print(lines)
PY
}
# build_big DIR: DIR/libbig.so (-O2 -g) and DIR/bigmain linking it.
build_big() {
	local d=$1
	(cd "$d" && printf '%s\n' u*.c table.c | xargs -P "$(nproc)" -n 4 gcc -O2 -g -fPIC -c) ||
		die "gcc could not build the generated library"
	gcc -shared -o "$d/libbig.so" "$d"/*.o || die "cannot link libbig.so"
	gcc -O2 -g -o "$d/bigmain" "$d/main.c" -L"$d" -lbig -Wl,-rpath,"$d" || die "cannot link bigmain"
}

# ---- perf -----------------------------------------------------------------------
# perf_names NAME PID: perf record (DWARF call graphs) of PID for SECS, then perf script
# --inline and --no-inline timed; prints "samples inline_s no_inline_s".
perf_names() {
	local pin
	perf record -q --call-graph dwarf -F "$HZ" -o "$TMP/$1.perf" -p "$2" -- sleep "$SECS" >/dev/null 2>&1 ||
		die "perf record failed"
	timed "$TMP/ptime" perf script --inline -i "$TMP/$1.perf" >/dev/null 2>&1 ||
		die "perf script --inline failed"
	pin=$(tail -n 1 "$TMP/ptime" | col 1)
	timed "$TMP/ptime" perf script --no-inline -i "$TMP/$1.perf" >/dev/null 2>&1 ||
		die "perf script --no-inline failed"
	echo "$(perf script -F comm -i "$TMP/$1.perf" 2>/dev/null | wc -l) $pin $(tail -n 1 "$TMP/ptime" | col 1)"
}

echo "smolder inline frames cost: $(machine), git $(source_rev)"
echo "  $SECS s captures at $HZ Hz, $ROUNDS rounds (median, range)"
echo
: >"$TMP/summary"
echo "| workload | mode | stacks | named and written ms | smolder CPU s | peak RSS KiB | replayed: named ms | replayed: peak RSS KiB |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
if [[ $PARTS == *1* ]]; then
	start_workload "$INLINE_SPLIT" 3600
	measure inline_split "$WL_PID" '_leaf$' '(^|;)outer(;| )'
	[[ $PARTS == *3* ]] && PERF[inline_split]=$(perf_names inline_split "$WL_PID")
	stop_workload
	# unshare execs sh, which execs the workload: one pid throughout
	# shellcheck disable=SC2016 # expanded by that sh
	start_workload unshare -m --propagation private sh -c \
		'mount -t tmpfs smolder-bench /usr/lib/debug && exec "$0" 3600' "$INLINE_SPLIT"
	measure inline_split-no-libc-dwarf "$WL_PID" '_leaf$' '(^|;)outer(;| )'
	stop_workload
fi
if [[ $PARTS == *2* ]]; then
	mkdir -p "$TMP/big"
	echo "  generating $BIG_UNITS x $BIG_FUNCS functions..." >&2
	BIG_LINES=$(gen_big "$TMP/big")
	t0=$(now_us)
	build_big "$TMP/big"
	echo "  built in $(secs "$t0" "$(now_us)" 0) s" >&2
	start_workload "$TMP/big/bigmain"
	measure bigmain "$WL_PID" '_(mix|step)$' 'big_u[0-9]+_f[0-9]+'
	[[ $PARTS == *3* ]] && PERF[bigmain]=$(perf_names bigmain "$WL_PID")
	stop_workload
fi
echo
cat "$TMP/summary"
[[ $PARTS == *2* ]] && echo "bigmain's library: $BIG_LINES lines of C in $BIG_UNITS units, $((BIG_UNITS * BIG_FUNCS)) functions, libbig.so $(($(stat -c %s "$TMP/big/libbig.so") / 1024)) KiB with its DWARF"
if [[ $PARTS == *3* ]]; then
	echo
	echo "| workload | perf samples | perf script --inline s | perf script --no-inline s | smolder named ms (capture, replayed) | perf --inline / smolder (capture, replayed) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	for w in inline_split bigmain; do
		[ -n "${PERF[$w]:-}" ] || continue
		read -r ps pin pno <<<"${PERF[$w]}"
		printf '| %s | %s | %s | %s | %s, %s | %sx, %sx |\n' "$w" "$ps" "$pin" "$pno" "${NAMED_MS[$w]}" \
			"${REPLAY_MS[$w]}" "$(ratio "$(awk -v s="$pin" 'BEGIN { print s * 1000 }')" "${NAMED_MS[$w]}")" \
			"$(ratio "$(awk -v s="$pin" 'BEGIN { print s * 1000 }')" "${REPLAY_MS[$w]}")"
	done
fi
