#!/bin/bash
# The DWARF unwinder's fallbacks against tests/workloads/frameless/
# unwind_fallbacks (gcc and clang, -O2 -fomit-frame-pointer), whose hot
# leaves are hand-written with CFI the unwinder cannot use, under call
# chains known by construction (classified by tests/unwind_classify.awk):
#  - an unsupported rule (CFA, or the return address, by a DWARF
#    expression): counted as such in -v's summary; the leaf keeps a frame
#    pointer, so the fallback finds its true caller and the stacks stay
#    whole (exact >= 99% of the samples taken once the tables are in),
#    with no wrong caller;
#  - unreadable memory (CFA = rbp + 16 with rbp at a PROT_NONE page):
#    counted as "cut at unreadable memory", the stack cut at the leaf, no
#    garbage frame, and smolder exits 0.
source "$(dirname "$0")/../lib.sh"

SECONDS_PER_RUN=${UNWIND_SECONDS:-2}
[ "$(uname -m)" = x86_64 ] || { echo "# unwind_fallbacks: x86_64 only, skipped"; exit 0; }


# unwound NAME BINARY MODE: runs BINARY MODE, profiles it (-v, user stacks,
# 999 Hz) into $TMP/NAME.out/.err; sets RES to the classification
# ("TOTAL EXACT TRUNCATED WRONG EXACT% WRONG_EXAMPLE"), WL_RC to the
# workload's exit code.
unwound() {
	local name=$1 bin=$2 mode=$3
	"$bin" "$mode" $((SECONDS_PER_RUN + 2)) >"$TMP/$name.wl" 2>&1 &
	local pid=$!
	sleep 0.3
	run_sm "$name" -v -U -F 999 -f -p "$pid" "$SECONDS_PER_RUN"
	wait "$pid"
	WL_RC=$?
	RES=$(awk -f "$TOP/tests/unwind_classify.awk" "$TMP/$name.out")
}

# Whole stacks: the process frame, then _start ... main -> the known chain.
declare -A CHAIN=(
	[cfaexpr]='main;run_cfa_expr;mid_cfa_expr;spin_cfa_expr'
	[raexpr]='main;run_ra_expr;mid_ra_expr;spin_ra_expr'
)
for cc in gcc clang; do
	for mode in cfaexpr raexpr; do
		n=$cc-$mode
		unwound "$n" "$WL/unwind_fallbacks-$cc" "$mode"
		read -r tot ex trunc wrong pct example <<<"$RES"
		unsup=$(unwind_counter "$TMP/$n.err" unsupported)
		echo "# unwind_fallbacks: $cc $mode: $tot samples, exact $ex ($pct%), truncated $trunc, wrong caller $wrong${wrong:+ (e.g. $example)}, counted unsupported $unsup"
		check "${n}_exit_0" equals "$RC" 0
		check "${n}_workload_exit_0" equals "$WL_RC" 0
		check "${n}_wrong_callers_0" equals "$wrong" 0
		# The first samples come before the program's table is in (on a
		# loaded machine, tens of ms): exact >= 99% of the samples after
		# it, and those before it few.
		nl=$(unwind_counter "$TMP/$n.err" not_loaded)
		loaded_pct=$(awk -v e="$ex" -v t="$tot" -v n="$nl" 'BEGIN { if (t - n > 0) printf "%.1f\n", 100 * e / (t - n); else print 0 }')
		if [ "$tot" -gt 200 ] && between "$loaded_pct" 99 100; then
			pass "${n}_exact_99_once_loaded"
		else
			fail "${n}_exact_99_once_loaded" "exact $ex of $tot samples, $nl before the tables; top stacks: $(top_stacks "$TMP/$n.out" 2 | cut -c1-400)"
		fi
		check "${n}_few_before_tables" within "$nl" 0 $((tot * 5 / 100))
		# nearly every sample is in the hand-written leaf, whole
		share_is "${n}_whole_through_leaf" "$TMP/$n.out" "^unwind_fallback;_start;([^;]+;)*${CHAIN[$mode]} [0-9]+\$" 95 100
		check "${n}_counted_unsupported" within "$unsup" $((tot * 9 / 10)) "$tot"
		check "${n}_counted_whole" equals "$(unwind_counter "$TMP/$n.err" whole)" "$ex"
	done

	n=$cc-unreadable
	unwound "$n" "$WL/unwind_fallbacks-$cc" unreadable
	read -r tot ex trunc wrong pct example <<<"$RES"
	unr=$(unwind_counter "$TMP/$n.err" unreadable)
	echo "# unwind_fallbacks: $cc unreadable: $tot samples, exact $ex, truncated $trunc, wrong caller $wrong${wrong:+ (e.g. $example)}, counted unreadable $unr"
	check "${n}_exit_0" equals "$RC" 0
	check "${n}_summary" some_line "$TMP/$n.err" '^smolder: [0-9]+ samples, [0-9]+ lost'
	check "${n}_workload_exit_0" equals "$WL_RC" 0
	check "${n}_wrong_callers_0" equals "$wrong" 0
	check "${n}_samples" within "$tot" 200 100000
	check "${n}_counted_unreadable" within "$unr" $((tot * 9 / 10)) "$tot"
	# cut at the leaf: nothing read from the unreadable page became a frame
	share_is "${n}_cut_at_leaf" "$TMP/$n.out" '^unwind_fallback;spin_unreadable [0-9]+$' 90 100
done
