#!/bin/bash
# The DWARF unwinder (--unwind dwarf, the default) against the frameless
# workloads (tests/workloads/frameless: -O2 -fomit-frame-pointer, by gcc and
# by clang), whose call graph is known by construction.  Every sample's user
# stack is classified by tests/unwind_classify.awk: wrong (a frame under a
# caller that is not its caller), exact (whole, from _start or __clone3, or
# the 127 innermost frames of the deep recursion) or truncated.
# For every mode and both compilers: wrong 0, exact >= 99%.  Also: the
# build without asynchronous unwind tables, with its debug file (CFI from
# .debug_frame: exact) and without (the fallback, counted as "no table");
# --unwind fp on the same binaries (the old truncated stacks); the same
# classification of `perf record --call-graph dwarf` as a sanity check; the
# fallback counters.
source "$(dirname "$0")/../lib.sh"

SECONDS_PER_RUN=${UNWIND_SECONDS:-2}

# classify FOLDED: "TOTAL EXACT TRUNCATED WRONG EXACT% WRONG_EXAMPLE"
classify() {
	awk -f "$TOP/tests/unwind_classify.awk" "$1"
}

# unwound NAME BINARY MODE [SMOLDER OPTIONS...]: runs BINARY MODE and profiles
# it (user stacks, 999 Hz); sets RES to classify's output and ERR to stderr.
unwound() {
	local name=$1 bin=$2 mode=$3
	shift 3
	"$bin" "$mode" $((SECONDS_PER_RUN + 2)) >"$TMP/$name.wl" 2>&1 &
	local pid=$!
	sleep 0.3
	run_sm "$name" -v -U -F 999 -f -p "$pid" "$@" "$SECONDS_PER_RUN"
	wait "$pid"
	ERR="$TMP/$name.err"
	RES=$(classify "$TMP/$name.out")
}

# counter ERRFILE NAME: a number from -v's "user stacks: ..." line.
counter() {
	local l
	l=$(grep '^smolder: user stacks:' "$1")
	case $2 in
	walked) sed -nE 's/.* ([0-9]+) walked with unwind tables.*/\1/p' <<<"$l" ;;
	whole) sed -nE 's/.* ([0-9]+) of them whole.*/\1/p' <<<"$l" ;;
	no_table) sed -nE 's/.*without a table in ([0-9]+),.*/\1/p' <<<"$l" ;;
	depth) sed -nE 's/.*at 127 frames ([0-9]+).*/\1/p' <<<"$l" ;;
	esac
}

MODES=${UNWIND_MODES:-leaf bigframe recurse plt signal threads dlopen jit}
for cc in ${UNWIND_CCS:-gcc clang}; do
	for mode in $MODES; do
		unwound "$cc-$mode" "$WL/unwind_paths-$cc" "$mode"
		read -r tot ex trunc wrong pct example <<<"$RES"
		echo "# unwind: $cc $mode: $tot samples, exact $ex ($pct%), truncated $trunc, wrong caller $wrong${wrong:+ (e.g. $example)}"
		check "${cc}_${mode}_exit_0" equals "$RC" 0
		check "${cc}_${mode}_wrong_callers_0" equals "$wrong" 0
		if [ "$tot" -gt 200 ] && between "$pct" 99 100; then
			pass "${cc}_${mode}_exact_99"
		else
			fail "${cc}_${mode}_exact_99" "exact $pct% of $tot samples; top stacks: $(top_stacks "$TMP/$cc-$mode.out" 2 | cut -c1-400)"
		fi
		if [ "$mode" = recurse ]; then
			check "${cc}_recurse_depth_limit_counted" within "$(counter "$ERR" depth)" $((tot * 9 / 10)) "$tot"
		fi
		if [ "$mode" = jit ]; then
			# the JIT frame is walked by frame pointer, and counted so
			check "${cc}_jit_counted_no_table" within "$(counter "$ERR" no_table)" $((tot * 9 / 10)) "$tot"
		fi
	done
done

# Built without asynchronous unwind tables: the program's own CFI is only in
# its debug file's .debug_frame.  With the debug file beside it, exact.
unwound noasync "$WL/unwind_paths-noasync" leaf
read -r tot ex trunc wrong pct example <<<"$RES"
echo "# unwind: noasync with debug file: $tot samples, exact $ex ($pct%), truncated $trunc, wrong $wrong"
check noasync_debug_frame_wrong_0 equals "$wrong" 0
check noasync_debug_frame_exact_99 within "$pct" 99 100

# Without it: frame pointers, counted as "no table" for nearly every stack.
mkdir -p "$TMP/nodebug"
cp "$WL/unwind_paths-noasync" "$TMP/nodebug/"
unwound nodebug "$TMP/nodebug/unwind_paths-noasync" leaf
read -r tot ex trunc wrong pct example <<<"$RES"
echo "# unwind: noasync without debug file: $tot samples, exact $ex ($pct%), truncated $trunc, wrong $wrong, counted no table $(counter "$ERR" no_table)"
check nodebug_fallback_counted within "$(counter "$ERR" no_table)" $((tot * 9 / 10)) "$tot"
check nodebug_not_exact within "$pct" 0 10

# --unwind fp: today's walk, the old truncated stacks, no unwinder counters.
unwound fp "$WL/unwind_paths-gcc" leaf --unwind fp
read -r tot ex trunc wrong pct example <<<"$RES"
echo "# unwind: --unwind fp, gcc leaf: $tot samples, exact $ex ($pct%), truncated $trunc, wrong $wrong"
check fp_truncated within "$pct" 0 5
check fp_no_unwinder_line no_line "$ERR" '^smolder: user stacks:'

# The counters agree with the stacks: a leaf run is whole but for the first
# samples (before the tables are in).
unwound counters "$WL/unwind_paths-clang" leaf
check counters_walked equals "$(counter "$ERR" walked)" "$(summary_samples "$ERR")"
check counters_whole within "$(counter "$ERR" whole)" $(($(summary_samples "$ERR") * 99 / 100)) "$(summary_samples "$ERR")"
check counters_tables_line some_line "$ERR" '^smolder: unwind tables: [0-9]+ files \([0-9]+ KiB\), .* KiB of kernel memory \(at most 64 MiB\)'

# Samples in the kernel: the user registers saved on kernel entry start the
# walk (syscall_heavy issues read(2) from do_reads).
start_wl syscall_heavy $((SECONDS_PER_RUN + 2)) || exit 1
run_sm kernel -F 999 -d -f -p "$WL_PID" "$SECONDS_PER_RUN"
kill "$WL_PID" 2>/dev/null
wait "$WL_PID" 2>/dev/null
v=$(awk '/;-;.*;read_zero( |;)/ { t += $NF; if ($0 ~ /^syscall_heavy;_start;__libc_start_main;(__libc_start_call_main|\[libc\.so\.6\+0x[0-9a-f]+\]);main;do_reads;-;/) m += $NF }
	END { if (t < 100) print "too few: " t; else printf "%.1f\n", 100 * m / t }' "$TMP/kernel.out")
echo "# unwind: syscall_heavy in read(2): $v% of its stacks with whole user frames"
check kernel_entry_user_regs within "$v" 97 100

# perf's DWARF unwinding of the same program, classified the same way.
if command -v perf >/dev/null; then
	for mode in leaf plt; do
		"$WL/unwind_paths-gcc" "$mode" $((SECONDS_PER_RUN + 2)) >/dev/null 2>&1 &
		pid=$!
		sleep 0.3
		perf record -q -o "$TMP/perf.data" -F 499 --call-graph dwarf -p "$pid" -- sleep "$SECONDS_PER_RUN" >/dev/null 2>&1
		wait "$pid"
		perf script -i "$TMP/perf.data" --no-inline -F ip,sym 2>/dev/null | awk '
			NF >= 2 { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); sub(/@.*/, "", s); fr[++n] = s; next }
			NF == 0 && n { l = "perf"; for (i = n; i > 0; i--) l = l ";" fr[i]; print l " 1"; n = 0 }
			END { if (n) { l = "perf"; for (i = n; i > 0; i--) l = l ";" fr[i]; print l " 1" } }' >"$TMP/perf.folded"
		read -r ptot pex ptr pw ppct pexample <<<"$(classify "$TMP/perf.folded")"
		[ -s "$TMP/gcc-$mode.out" ] || unwound "gcc-$mode" "$WL/unwind_paths-gcc" "$mode"
		read -r tot ex trunc wrong pct example <<<"$(classify "$TMP/gcc-$mode.out")"
		echo "# unwind: gcc $mode: perf --call-graph dwarf exact $ppct% of $ptot (wrong $pw), smolder $pct% of $tot"
		if [ "$ptot" -gt 100 ]; then
			check "perf_$mode" within "$pct" "$(awk -v p="$ppct" 'BEGIN { print p - 1 }')" 100
		else
			fail "perf_$mode" "perf recorded $ptot samples"
		fi
	done
fi
