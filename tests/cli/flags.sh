#!/bin/bash
# Options against workloads with a known shape: -L, --per-cpu/--per-pid/
# --per-thread, -C, -o, -c, -F, the duration argument, SIGINT/SIGTERM,
# --help, --version.
source "$(dirname "$0")/../lib.sh"

# threads: thread_one spins all the time on CPU 0, thread_two half the time
# on CPU 1 (2:1); each prints "NAME TID" when it starts.
start_wl threads 30 pin || exit 1
T=$WL_PID
TOUT=$WL_OUT
start_wl cpu_split 90 || exit 1
A=$WL_PID
for i in $(seq 100); do [ "$(wc -l <"$TOUT")" -ge 2 ] && break; sleep 0.02; done
T1=$(awk '$1 == "thread_one" { print $2 }' "$TOUT")
T2=$(awk '$1 == "thread_two" { print $2 }' "$TOUT")
check threads_workload_tids some_line <(echo "$T1 $T2") '^[0-9]+ [0-9]+$'
sleep 0.2

# --- -L: one thread only ---
run_sm L -f -F 999 -L "$T2" 2
check tid_filter_exit_0 equals "$RC" 0
# thread_two runs about half the time: ~1000 samples in 2 s, never more
# than one CPU's 2000; the whole process would be ~3000.
check tid_filter_samples within "$(total "$TMP/L.out")" 100 1500
check tid_filter_only_that_thread no_line "$TMP/L.out" 'thread_one|spin_one'
check tid_filter_thread_function within "$(share "$TMP/L.out" ';thread_two;spin_two( |;)')" 90 100
check tid_filter_comm all_lines "$TMP/L.out" '^threads;'

# --- --per-thread: comm-PID/TID, each thread function under its own TID ---
run_sm pt -f -F 999 --per-thread -p "$T" 2
P=$TMP/pt.out
check per_thread_frame all_lines "$P" "^threads-$T/($T1|$T2);"
check per_thread_one_tid no_line "$P" "^threads-$T/$T2;.*thread_one"
check per_thread_two_tid no_line "$P" "^threads-$T/$T1;.*thread_two"
check per_thread_both some_line "$P" "^threads-$T/$T2;.*;thread_two;spin_two"
# thread_one gets 2/3 of the process's CPU by construction.
check per_thread_split within "$(share "$P" "^threads-$T/$T1;")" 52 82

# --- --per-cpu and -C: thread_one is pinned to CPU 0, thread_two to CPU 1 ---
run_sm pc -f -F 999 --per-cpu -p "$T" 2
check per_cpu_frame all_lines "$TMP/pc.out" '^cpu_[01];threads;'
check per_cpu_0 some_line "$TMP/pc.out" '^cpu_0;threads;.*;thread_one;'
check per_cpu_1 some_line "$TMP/pc.out" '^cpu_1;threads;.*;thread_two;'
check per_cpu_right_cpu no_line "$TMP/pc.out" '^cpu_1;.*;thread_one;|^cpu_0;.*;thread_two;'
"$SMOLDER" -f -F 999 -C 1 --per-cpu -p "$T" 2 >"$TMP/C1.out" 2>/dev/null &
C1=$!
run_sm C0 -f -F 999 -C 0 --per-cpu --per-thread -p "$T" 2
wait "$C1"
check cpu_filter_exit_0 equals "$RC" 0
check cpu_filter_only_cpu0 all_lines "$TMP/C0.out" "^cpu_0;threads-$T/$T1;"
check cpu_filter_cpu0_thread within "$(share "$TMP/C0.out" ';thread_one;spin_one( |;)')" 90 100
check cpu_filter_only_cpu1 all_lines "$TMP/C1.out" '^cpu_1;threads;'
check cpu_filter_cpu1_thread within "$(share "$TMP/C1.out" ';thread_two;spin_two( |;)')" 90 100
# At most one CPU's worth of samples (999 Hz * 2 s).
check cpu_filter_samples within "$(total "$TMP/C0.out")" 100 2100

# --- -o FILE, and the duration argument ---
run_sm o -f -F 499 -p "$A" -o "$TMP/o.folded" 2
check output_file_exit_0 equals "$RC" 0
check output_file_stdout_empty equals "$(wc -c <"$TMP/o.out")" 0
check output_file_content all_lines "$TMP/o.folded" '^cpu_split;.* [0-9]+$'
check output_file_split within "$(share "$TMP/o.folded" ';burn_a;')" 62 88
check duration_2s within "$ELAPSED" 1.9 4.5
run_sm o2 -F 499 -p "$A" -o "$TMP/o.report" 1
check output_file_report some_line "$TMP/o.report" "^    -                cpu_split \\($A\\)$"
check duration_1s within "$ELAPSED" 0.9 3.5

# --- -F and -c: sample counts follow the rate (captures run side by side) ---
"$SMOLDER" -f -F 999 -p "$A" 2 >"$TMP/f999" 2>/dev/null &
"$SMOLDER" -f -F 249 -p "$A" 2 >"$TMP/f249" 2>/dev/null &
"$SMOLDER" -f -p "$A" 2 >"$TMP/fdef" 2>/dev/null &
"$SMOLDER" -f -c 1000000 -p "$A" 2 >"$TMP/c1ms" 2>/dev/null &
"$SMOLDER" -f -c 4000000 -p "$A" 2 >"$TMP/c4ms" 2>/dev/null &
wait $(jobs -p | grep -vxE "$T|$A")
n999=$(total "$TMP/f999")
n249=$(total "$TMP/f249")
c1=$(total "$TMP/c1ms")
c4=$(total "$TMP/c4ms")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print b ? a / b : 0 }'; }
# One busy thread: at most ~1 sample per period of CPU time.
check freq_999_count within "$n999" 300 2200
check freq_ratio_999_249 within "$(ratio "$n999" "$n249")" 3.0 5.3
check freq_default_49 within "$(total "$TMP/fdef")" 15 115
check count_1ms within "$c1" 300 2200
check count_ratio_1ms_4ms within "$(ratio "$c1" "$c4")" 3.0 5.3
check count_output all_lines "$TMP/c4ms" '^cpu_split;'

# --- SIGINT / SIGTERM end an open-ended run and still print everything ---
for sig in INT TERM; do
	"$SMOLDER" -f -F 499 -p "$A" >"$TMP/sig.out" 2>"$TMP/sig.err" &
	S=$!
	sleep 2
	t0=$(date +%s.%N)
	kill -"$sig" "$S"
	for i in $(seq 100); do kill -0 "$S" 2>/dev/null || break; sleep 0.05; done
	t1=$(date +%s.%N)
	if kill -0 "$S" 2>/dev/null; then kill -KILL "$S"; fi
	wait "$S"
	rc=$?
	check "sig${sig}_exit_0" equals "$rc" 0
	check "sig${sig}_quick" within "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 0 2
	check "sig${sig}_output" within "$(share "$TMP/sig.out" ';burn_a;')" 62 88
	check "sig${sig}_samples" within "$(total "$TMP/sig.out")" 150 1200
	check "sig${sig}_summary" some_line "$TMP/sig.err" '^smolder: [0-9]+ samples, [0-9]+ lost'
done

# --- --help, --version ---
run_sm help --help
check help_exit_0 equals "$RC" 0
missing=
for opt in -p -L -U -K -F -c -d -a -I --idle-only -f -C --stack-storage-size -o \
	--per-cpu --per-pid --per-thread; do
	grep -qE -- "(^|[ ,])$opt([ ,=]|\$)" "$TMP/help.out" || missing="$missing $opt"
done
check help_mentions_options equals "missing:$missing" "missing:"
run_sm h -h
check help_short_same equals "$(md5sum <"$TMP/h.out")" "$(md5sum <"$TMP/help.out")"
run_sm version --version
check version_exit_0 equals "$RC" 0
check version_format all_lines "$TMP/version.out" '^smolder [0-9]+\.[0-9]+\.[0-9]+'
