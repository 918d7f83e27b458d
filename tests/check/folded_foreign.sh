#!/bin/bash
# smolder flamegraph on the folded files other profilers write, as
# flamegraph.pl takes them: every stack drawn with its count, every line
# that is not a stack skipped and said in one line that quotes the first.
#
# - perf record -g and perf's own stackcollapse script (Debian's
#   linux-perf), on cpu_split: real output, 75% under burn_a (a capture:
#   tests/cli/folded_foreign_perf.sh).
# - Made here from the formats as their tools document them (no one's
#   files are copied; with no network, the details are from memory of
#   their documentation): stackcollapse-perf.pl's (comm-PID/TID, _[k]
#   kernel and _[j] JIT annotations, [unknown]); async-profiler's collapsed
#   output (thread frames, _[j] _[i] _[k] _[0] _[1] annotations,
#   nanosecond totals); austin's (P<pid>;T<iid>:<tid>;file:function:line
#   frames, "# key: value" metadata before and after the samples, whose
#   "# duration: 2000000" flamegraph.pl would draw as a frame); py-spy's
#   --format raw ("function (file:line)" frames, a quoted command line in
#   the process frame).
#
# The totals are known by construction: the stack lines and the other
# lines of each input are written apart and counted apart.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_folded_foreign.sh"

# ---- stackcollapse-perf.pl --tid --kernel --jit style ----
cat >"$TMP/scp.stacks" <<'EOF'
java-4321/4325;start_thread;thread_native_entry;JavaThread::run;Interpreter_[j];com.example.Main::loop_[j];com.example.Main::burn_[j] 75
java-4321/4325;start_thread;thread_native_entry;JavaThread::run;Interpreter_[j];com.example.Main::loop_[j];com.example.Main::idle_[j] 25
swapper-0/0;secondary_startup_64_[k];start_secondary_[k];cpu_startup_entry_[k];do_idle_[k];default_idle_call_[k] 40
gzip-777/777;[unknown];__libc_start_main;main;deflate;longest_match 30
gzip-777/777;[unknown];__libc_start_main;main;write;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];ksys_write_[k] 5
EOF
printf '%s\n' 'stackcollapse-perf.pl: unknown line format' >"$TMP/scp.other"
drawn stackcollapse_perf "$TMP/scp.stacks" "$TMP/scp.other"
check stackcollapse_perf_burn_share within "$(share "$TMP/stackcollapse_perf.out" '::burn_\[j\] ')" 42 43

# ---- async-profiler -o collapsed --threads --total (nanoseconds) ----
cat >"$TMP/ap.stacks" <<'EOF'
[main tid=4322];java/lang/Thread.run_[j];com/example/App.main_[j];com/example/App.burnA_[j];java/lang/Math.sqrt_[i] 750000000
[main tid=4322];java/lang/Thread.run_[j];com/example/App.main_[j];com/example/App.burnB_[1] 200000000
[main tid=4322];java/lang/Thread.run_[j];com/example/App.main_[j];com/example/App.log_[0];java/io/FileOutputStream.writeBytes;Java_java_io_FileOutputStream_writeBytes;__GI___libc_write;entry_SYSCALL_64_after_hwframe_[k];ksys_write_[k] 40000000
[GC Thread#0 tid=4330];thread_native_entry;WorkerThread::run;G1ParTask::work;std::vector<G1Task*, std::allocator<G1Task*> >::push_back 10000000
EOF
# as async-profiler writes it: nothing to skip, nothing said
: >"$TMP/ap.other"
drawn async_profiler "$TMP/ap.stacks" "$TMP/ap.other"
check async_profiler_burn_a_share equals "$(share "$TMP/async_profiler.out" 'burnA_')" 75.0

# ---- austin (CPU mode): metadata before and after the samples ----
cat >"$TMP/austin.stacks" <<'EOF'
P4321;T0:4321;/app/main.py:<module>:30;/app/main.py:main:24;/app/work.py:burn_a:5 150000
P4321;T0:4321;/app/main.py:<module>:30;/app/main.py:main:25;/app/work.py:burn_b:11 50000
P4321;T0:4327;/usr/lib/python3.11/threading.py:_bootstrap:995;/usr/lib/python3.11/threading.py:run:975;/app/io.py:poll:8 20000
EOF
printf '%s\n' '# austin: 3.6.0' '# interval: 100' '# mode: cpu' '# python: 3.11.7' \
	'# duration: 2000000' '# samples: 2200' '# saturation: 0/2200' '# errors: 0/2200' >"$TMP/austin.other"
drawn austin "$TMP/austin.stacks" "$TMP/austin.other"
check austin_burn_a_share within "$(share "$TMP/austin.out" ':burn_a:')" 68.1 68.2
# flamegraph.pl would read "# duration: 2000000" as a frame; --strict still
# stops at the first line, naming it, as smolder did before.
run_sm austin_strict flamegraph --strict "$TMP/austin.in"
check austin_strict_exit_2 equals "$RC" 2
check austin_strict_names_line some_line "$TMP/austin_strict.err" "^smolder: line 1 of .*austin\.in: no sample count"

# ---- py-spy record --format raw --threads ----
cat >"$TMP/pyspy.stacks" <<'EOF'
process 4321:"python3 /app/main.py --fast";thread (0x7F3A2B1C0740);<module> (/app/main.py:30);main (/app/main.py:24);burn_a (/app/work.py:5) 300
process 4321:"python3 /app/main.py --fast";thread (0x7F3A2B1C0740);<module> (/app/main.py:30);main (/app/main.py:25);burn_b (/app/work.py:11) 100
process 4321:"python3 /app/main.py --fast";thread (0x7F3A29FFF6C0);_bootstrap (/usr/lib/python3.11/threading.py:995);run (/usr/lib/python3.11/threading.py:975);poll (/app/io.py:8) 12
EOF
printf '%s\n' 'py-spy> Sampling process 100 times a second. Press Control-C to exit.' >"$TMP/pyspy.other"
drawn pyspy_raw "$TMP/pyspy.stacks" "$TMP/pyspy.other"
check pyspy_raw_burn_a_share within "$(share "$TMP/pyspy_raw.out" 'burn_a \(')" 72.8 72.9

# ---- several files, one line for all of them ----
run_sm several flamegraph --format folded "$TMP/austin.in" "$TMP/pyspy_raw.in"
check several_total equals "$RC $(total "$TMP/several.out")" "0 $(($(total "$TMP/austin.stacks") + $(total "$TMP/pyspy.stacks")))"
check several_one_line equals "$(cat "$TMP/several.err")" \
	"smolder: skipped 9 lines that are not \"stack count\" (first: line 1 of $TMP/austin.in: \"# austin: 3.6.0\")"
