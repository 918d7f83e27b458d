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


MODES=${UNWIND_MODES:-leaf bigframe recurse plt signal sigentry threads dlopen jit}
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
			check "${cc}_recurse_depth_limit_counted" within "$(unwind_counter "$ERR" depth)" $((tot * 9 / 10)) "$tot"
		fi
		if [ "$mode" = jit ]; then
			# the JIT frame is walked by frame pointer, and counted so
			check "${cc}_jit_counted_no_table" within "$(unwind_counter "$ERR" no_table)" $((tot * 9 / 10)) "$tot"
		fi
	done
done

# Built without asynchronous unwind tables (by gcc, and by clang: test
# names clang_noasync_..., clang_nodebug_...): the program's own CFI is only
# in its debug file's .debug_frame.  With the debug file beside it, exact.
for cc in gcc clang; do
	if [ "$cc" = gcc ]; then bin=unwind_paths-noasync p=
	else bin=unwind_paths-noasync-$cc p=${cc}_; fi
	unwound "${p}noasync" "$WL/$bin" leaf
	read -r tot ex trunc wrong pct example <<<"$RES"
	echo "# unwind: $cc noasync with debug file: $tot samples, exact $ex ($pct%), truncated $trunc, wrong $wrong"
	check "${p}noasync_debug_frame_wrong_0" equals "$wrong" 0
	check "${p}noasync_debug_frame_exact_99" within "$pct" 99 100

	# Without it: frame pointers, counted as "no table" for nearly every stack.
	mkdir -p "$TMP/${p}nodebug"
	cp "$WL/$bin" "$TMP/${p}nodebug/"
	unwound "${p}nodebug" "$TMP/${p}nodebug/$bin" leaf
	read -r tot ex trunc wrong pct example <<<"$RES"
	echo "# unwind: $cc noasync without debug file: $tot samples, exact $ex ($pct%), truncated $trunc, wrong $wrong, counted no table $(unwind_counter "$ERR" no_table)"
	check "${p}nodebug_fallback_counted" within "$(unwind_counter "$ERR" no_table)" $((tot * 9 / 10)) "$tot"
	check "${p}nodebug_not_exact" within "$pct" 0 10
done

# --unwind fp: today's walk, the old truncated stacks, no unwinder counters.
unwound fp "$WL/unwind_paths-gcc" leaf --unwind fp
read -r tot ex trunc wrong pct example <<<"$RES"
echo "# unwind: --unwind fp, gcc leaf: $tot samples, exact $ex ($pct%), truncated $trunc, wrong $wrong"
check fp_truncated within "$pct" 0 5
check fp_no_unwinder_line no_line "$ERR" '^smolder: user stacks:'

# The counters agree with the stacks: a leaf run is whole but for the first
# samples (before the tables are in).
unwound counters "$WL/unwind_paths-clang" leaf
check counters_walked equals "$(unwind_counter "$ERR" walked)" "$(summary_samples "$ERR")"
check counters_whole within "$(unwind_counter "$ERR" whole)" $(($(summary_samples "$ERR") * 99 / 100)) "$(summary_samples "$ERR")"
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

# The command line: one-line usage errors naming the choices.
run_sm usage_unwind --unwind lbr 1
check usage_unwind_exit_2 equals "$RC" 2
check usage_unwind_one_line one_error "$TMP/usage_unwind.err"
check usage_unwind_names_choices some_line "$TMP/usage_unwind.err" "unknown unwinder 'lbr' \(expected dwarf or fp\)"
for v in 0 2048 1x; do
	run_sm "usage_memory_$v" --unwind-memory "$v" 1
	check "usage_memory_${v}_exit_2" equals "$RC" 2
	check "usage_memory_${v}_one_line" one_error "$TMP/usage_memory_$v.err"
done

# Short-lived processes: 30 of 40 ms each, started one after another while
# smolder runs.  Each is announced at exec, so its mappings are in the
# kernel before its first sample, and its files' tables (the program's
# since the first run, libc's and ld.so's from the start) are loaded
# already: >= 95% of the samples in the hot leaf are whole, from _start, and
# no caller is ever wrong.  The rest is how fast the loader reacts to the
# libraries ld.so maps, seen only at their first sample: on a busy machine
# the first samples of main may come before (on a quiet one, 99% here, and
# 97% of all their samples, start-up included).
run_sm_bg() { "$SMOLDER" "$@" >"$TMP/short.out" 2>"$TMP/short.err" & SM_PID=$!; }
run_sm_bg -U -F 999 -f 8
sleep 2
for i in $(seq 30); do "$WL/unwind_paths-gcc" leaf 0.04; sleep 0.05; done
wait "$SM_PID"
grep '^unwind_paths-gc;' "$TMP/short.out" >"$TMP/short.folded"
grep -E ';hot_leaf [0-9]+$' "$TMP/short.folded" >"$TMP/short.hot"
read -r tot ex trunc wrong pct example <<<"$(classify "$TMP/short.folded")"
hot=$(share_clean "$TMP/short.hot" '^unwind_paths-gc;_start;__libc_start_main;__libc_start_call_main;main;run_mode;run_leaf;chain_a;chain_b;hot_leaf [0-9]+$')
echo "# unwind: 30 processes of 40 ms: $tot samples, exact $ex ($pct%), truncated $trunc, wrong $wrong; in the hot leaf: $(total "$TMP/short.hot") samples, $hot% whole"
check short_lived_wrong_0 equals "$wrong" 0
check short_lived_hot_samples within "$(total "$TMP/short.hot")" 200 100000
share_is short_lived_hot_whole_95 "$TMP/short.hot" '^unwind_paths-gc;_start;__libc_start_main;__libc_start_call_main;main;run_mode;run_leaf;chain_a;chain_b;hot_leaf [0-9]+$' 95 100
check short_lived_mostly_exact within "$pct" 85 100

# A budget too small for a 100 MB library's table: counted, said once, the
# rest still whole; and building that table costs little memory.
if [ -e /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 ] && command -v python3 >/dev/null; then
	cat >"$TMP/llvm.py" <<'PY'
import ctypes, time
ctypes.CDLL("libLLVM-14.so.1")
print("ready", flush=True)
t = time.time()
while time.time() - t < 15:
    sum(range(10000))
PY
	start_cmd python3 python3 "$TMP/llvm.py" || exit 1
	wait_for "$WL_OUT" '^ready' 10 || exit 1
	# --no-python: whole native stacks reach the interpreter's loop
	run_sm llvm_fp -v --unwind fp -U -f --no-python -p "$WL_PID" 2
	run_sm llvm -v -U -f --no-python -p "$WL_PID" 2
	run_sm llvm_small -v -U -f --no-python --unwind-memory 4 -p "$WL_PID" 2
	kill "$WL_PID"
	wait "$WL_PID" 2>/dev/null
	rss() { sed -nE 's/.*peak RSS ([0-9]+) KiB.*/\1/p' "$1"; }
	echo "# unwind: python3 with libLLVM-14: peak RSS $(rss "$TMP/llvm.err") KiB with tables, $(rss "$TMP/llvm_fp.err") KiB without; $(grep '^smolder: unwind tables' "$TMP/llvm.err")"
	check llvm_tables_built some_line "$TMP/llvm.err" '^smolder: unwind tables: [0-9]+ files \([0-9]{4,} KiB\), .* 0 did not fit'
	check llvm_rss_bounded within "$(($(rss "$TMP/llvm.err") - $(rss "$TMP/llvm_fp.err")))" -100000 32768
	check llvm_small_exit_0 equals "$RC" 0
	check llvm_small_counted some_line "$TMP/llvm_small.err" '^smolder: unwind tables: .* [1-9][0-9]* did not fit.* \(at most 4 MiB\)'
	check llvm_small_said_once equals "$(grep -c 'does not fit in --unwind-memory (4 MiB)' "$TMP/llvm_small.err")" 1
	check llvm_small_python_whole within "$(share "$TMP/llvm_small.out" '^python3;_start;.*;_PyEval_EvalFrameDefault')" 80 100
fi

# Continuous mode: tables stay across intervals (built once), and the status
# line shows them.
start_wl unwind_paths-gcc leaf 8 || exit 1
run_sm cont -vv -U --continuous --interval 1 --output-dir "$TMP/cont" -p "$WL_PID" 3.5
kill "$WL_PID" 2>/dev/null
wait "$WL_PID" 2>/dev/null
check cont_exit_0 equals "$RC" 0
check cont_status_tables some_line "$TMP/cont.err" '^smolder: [0-9:]+Z \+[0-9]+s: .* processes, tables [0-9]+ files [0-9]+ KiB, RSS'
check cont_built_once equals "$(grep -c 'unwind table of .*/unwind_paths-gcc: .* built and loaded' "$TMP/cont.err")" 1
last=$(ls "$TMP/cont"/smolder-*.folded 2>/dev/null | sort | tail -n 2 | head -n 1)
if [ -n "$last" ]; then
	read -r tot ex trunc wrong pct example <<<"$(classify "$last")"
	check cont_later_interval_exact within "$pct" 99 100
else
	fail cont_later_interval_exact "no profiles in $TMP/cont"
fi
