#!/bin/bash
# The DWARF unwinder (--unwind dwarf, the default) against the frameless
# workloads (tests/workloads/frameless: -O2 -fomit-frame-pointer, by gcc and
# by clang), whose call graph is known by construction.  Every sample's user
# stack (root first, from the folded output) is classified:
#  - wrong: a known function whose caller frame is not one of its known
#    callers, or a frame no function names ([unknown], [file+0x...]; only
#    glibc's signal trampoline may be one, as on_prof's caller);
#  - exact: not wrong, and whole: from _start (or __clone3 for threads) to
#    the leaf, or the 127 innermost frames of the 200-deep recursion;
#  - truncated: the rest (right as far as it goes).
# For every mode and both compilers: wrong 0, exact >= 99%.  Also: the
# build without asynchronous unwind tables, with its debug file (CFI from
# .debug_frame: exact) and without (the fallback, counted as "no table");
# --unwind fp on the same binaries (the old truncated stacks); the same
# classification of `perf record --call-graph dwarf` as a sanity check; the
# fallback counters.
source "$(dirname "$0")/../lib.sh"

SECONDS_PER_RUN=${UNWIND_SECONDS:-2}

# PLT stubs have no symbols: "FILE START END" of the .plt sections of libc and
# the workloads, where an unnamed leaf frame is a stub (msort's memcpy).
for f in /lib/x86_64-linux-gnu/libc.so.6 "$WL"/unwind_paths-gcc "$WL"/unwind_paths-clang; do
	readelf -SW "$f" 2>/dev/null | awk -v f="$(basename "$f")" '
		function hex(s,   i, v) { s = tolower(s); v = 0
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		{ sub(/^ *\[ *[0-9]+\] */, "") }
		$1 ~ /^\.plt/ { printf "%s %d %d\n", f, hex($4), hex($4) + hex($5) }'
done >"$TMP/plts"

# classify FOLDED: "TOTAL EXACT TRUNCATED WRONG EXACT% WRONG_EXAMPLE"
classify() {
	awk -v plts="$TMP/plts" '
	function hex(s,   i, v) { s = tolower(s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	function plt_stub(fr,   file, off, i) {
		file = substr(fr, 2, index(fr, "+0x") - 2); off = fr
		sub(/^.*\+0x/, "", off); sub(/\]$/, "", off); off = hex(off)
		for (i = 1; i <= np; i++)
			if (pf[i] == file && off >= ps[i] && off < pe[i])
				return 1
		return 0
	}
	BEGIN {
		while ((getline l < plts) > 0) { split(l, a, " "); np++; pf[np] = a[1]; ps[np] = a[2]; pe[np] = a[3] }
		c["hot_leaf"] = "chain_b|big_frame|recurse|run_plt|on_prof|jit_callback"
		c["chain_b"] = "chain_a"
		c["chain_a"] = "run_leaf"
		c["run_leaf"] = "run_mode|main|run_signal|thread_main|run_jit"
		c["big_frame"] = "run_mode|main"
		c["recurse"] = "recurse|run_mode|main"
		c["run_plt"] = "run_mode|main"
		c["by_value"] = "msort_with_tmp[.a-z0-9]*|qsort_r|__qsort_r|__GI___qsort_r"
		c["on_prof"] = "__restore_rt|\\[libc\\.so\\.6\\+0x[0-9a-f]+\\]"
		c["run_signal"] = "run_mode|main"
		c["run_threads"] = "run_mode|main"
		c["run_dlopen"] = "run_mode|main"
		c["dl_entry"] = "run_dlopen"
		c["dl_work"] = "dl_entry"
		c["run_jit"] = "run_mode|main"
		c["jit_trampoline"] = "run_jit"
		c["jit_callback"] = "jit_trampoline"
		c["thread_main"] = "start_thread"
		c["start_thread"] = "__clone3|clone3|__clone"
		c["run_mode"] = "main"
		c["main"] = "__libc_start_call_main"
		c["__libc_start_call_main"] = "__libc_start_main|__libc_start_main_impl"
		c["__libc_start_main"] = "_start"
		c["__libc_start_main_impl"] = "_start"
	}
	{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, f, ";") # f[1] is the process frame
		t += n; bad = ""
		for (i = 2; i <= k && bad == ""; i++) {
			if (f[i] ~ /^\[/ && !(i < k && f[i + 1] == "on_prof" && f[i] ~ c["on_prof"]) &&
			    !(i == k && plt_stub(f[i])))
				bad = f[i]
			else if ((f[i] in c) && i > 2 && f[i - 1] !~ ("^(" c[f[i]] ")$"))
				bad = f[i - 1] "->" f[i]
		}
		if (bad != "") { w += n; if (ex == "") ex = bad; next }
		if (f[2] == "_start" || f[2] == "__clone3" || (k - 1 == 127 && f[k] ~ /^(recurse|hot_leaf)$/))
			e += n
		else
			tr += n
	}
	END { printf "%d %d %d %d %.1f %s\n", t, e, tr, w, t ? 100 * e / t : 0, ex == "" ? "-" : ex }' "$1"
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
