#!/bin/bash
# --off-cpu against known truth: offcpu_split's main thread spends its time
# 30/50/20 computing (compute), sleeping in nanosleep (doze) and blocked
# reading a pipe (wait_pipe) that its "pipe_writer" thread writes after
# 20 ms.  Checks the shares, that the thread's total is its wall time, the
# stacks and markers, --wakers (and a task named like an interrupt), -U/-K,
# that CPU-only captures load no off-CPU program, and the option errors.
source "$(dirname "$0")/../lib.sh"

# thread_share FOLDED ERE: percent of the main thread's time on stacks matching ERE.
thread_share() {
	awk -v pat="$2" '/^offcpu_split;/ { t += $NF; if ($0 ~ pat) m += $NF }
		END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$1"
}
thread_total() { awk '/^offcpu_split;/ { t += $NF } END { print t + 0 }' "$1"; }

start_wl offcpu_split 60 || exit 1
P=$WL_PID
sleep 0.5

# --- one-shot, exact: shares and the thread's total ---
# -- COMMAND: the capture spans the thread's life, which it measures itself:
# its wall time less the time it waited runnable on a busy machine's run
# queue (neither on the CPU nor waiting in S or D).
run_sm a --off-cpu -f -F 499 -- "$WL/offcpu_split" 4
F=$TMP/a.out
check offcpu_exit_0 equals "$RC" 0
check offcpu_compute_share within "$(thread_share "$F" ';compute( |;|$)')" 27 33
check offcpu_doze_share within "$(thread_share "$F" ';doze;')" 47 53
check offcpu_pipe_share within "$(thread_share "$F" ';wait_pipe;')" 17 23
want=$(sed -nE 's/^offcpu_split: wall ([0-9.]+) run_delay ([0-9.]+)$/\1 \2/p' "$TMP/a.err" |
	awk '{ printf "%.0f\n", ($1 - $2) * 1e6 }')
got=$(thread_total "$F")
check offcpu_thread_total_is_wall_time within "$got" "$(awk -v w="$want" 'BEGIN { print w * 0.9 }')" \
	"$(awk -v w="$want" 'BEGIN { print w * 1.1 }')"
# microseconds: a CPU sample at 499 Hz weighs 2004 us
check offcpu_counts_are_us some_line "$F" ';compute [0-9]+$'
check offcpu_doze_stack some_line "$F" '^offcpu_split;.*main;run_rounds;doze;.*nanosleep.*;schedule;__schedule;\[off-cpu:S\] [0-9]+$'
check offcpu_pipe_stack some_line "$F" '^offcpu_split;.*main;run_rounds;wait_pipe;(__libc_)?read;.*;schedule;__schedule;\[off-cpu:S\] [0-9]+$'
check offcpu_marker_is_leaf no_line "$F" '\[off-cpu:[SD]\];'
# the off-CPU stacks (taken in smolder's sched_switch program) without its
# frames; a CPU sample may land in smolder's exit program on an exiting
# thread (once in CI: ...do_exit;__traceiter_sched_process_exit;
# bpf_trace_run2;lookup_nulls_elem_raw), which is time the CPU spent there
grep '\[off-cpu:' "$F" >"$TMP/a.offcpu"
check offcpu_no_bpf_frames no_line "$TMP/a.offcpu" 'bpf_prog_|bpf_trace_run'
check offcpu_compute_runs no_line "$F" ';compute;[^ ]*\[off-cpu'
check offcpu_summary some_line "$TMP/a.err" '^smolder: [0-9]+ off-CPU waits \([0-9.]+ s\), 0 lost \(pending map full 0, count map full 0, stack map full 0\)$'
check offcpu_sample_summary some_line "$TMP/a.err" '^smolder: [0-9]+ samples, [0-9]+ lost'

# --- --wakers: the pipe wait names its writer ---
run_sm w --off-cpu --wakers -f -F 499 -p "$P" 3
W=$TMP/w.out
check offcpu_wakers_exit_0 equals "$RC" 0
check offcpu_wakers_pipe_writer some_line "$W" ';wait_pipe;.*\[off-cpu:S\];woken-by:pipe_writer;.*(try_to_wake_up|wake_up)[^;]* [0-9]+$'
check offcpu_wakers_pipe_share within "$(thread_share "$W" ';wait_pipe;.*woken-by:pipe_writer')" 15 23
check offcpu_wakers_pipe_writer_writes some_line "$W" 'woken-by:pipe_writer;.*pipe_write'

# --- --wakers: a thread named "[irq]" (any task may name itself so) is a
# task waker, woken-by:[irq]; the timer interrupts that end doze's sleeps
# are woken-by-timer, which no task name can make.  With -U too, where no
# kernel frame shows which is which: the waker's stack still tells a timer ---
start_wl offcpu_split named '[irq]' 60 || exit 1
N=$WL_PID
sleep 0.5
for u in "" -U; do
	x=${u:+_user_only}
	run_sm "named$x" --off-cpu --wakers $u -f -F 499 -p "$N" 3
	F=$TMP/named$x.out
	check "offcpu_wakers_named_irq${x}_exit_0" equals "$RC" 0
	check "offcpu_wakers_named_irq${x}_is_a_task" within "$(thread_share "$F" ';wait_pipe;.*\[off-cpu:S\];woken-by:\[irq\]( |;)')" 15 23
	# doze's wakeups are the timer's (the share of its woken time: a sleep
	# going on at the end has no waker yet)
	doze=$(thread_share "$F" ';doze;.*\[off-cpu:S\];woken-by')
	irq=$(thread_share "$F" ';doze;.*\[off-cpu:S\];woken-by-timer( |;)')
	check "offcpu_wakers_real_irq${x}_is_an_interrupt" within "$(awk -v a="$irq" -v b="$doze" 'BEGIN { print b ? 100 * a / b : 0 }')" 95 100
	check "offcpu_wakers_named_irq${x}_not_an_interrupt" no_line "$F" ';wait_pipe;.*woken-by-(irq|softirq|timer)'
	check "offcpu_wakers_real_irq${x}_not_a_task" no_line "$F" ';doze;.*woken-by:\[irq\]'
done
kill "$N" 2>/dev/null

# --- -U: the marker right after the user leaf; -K: after the kernel's ---
run_sm u --off-cpu -U -f -F 499 -p "$P" 2
check offcpu_user_only_marker some_line "$TMP/u.out" '^offcpu_split;.*;doze;nap;[^;]*nanosleep[^;]*(;[^;]*nanosleep[^;]*)*;\[off-cpu:S\] [0-9]+$'
check offcpu_user_only_no_kernel no_line "$TMP/u.out" 'schedule'
run_sm k --off-cpu -K -f -F 499 -p "$P" 2
check offcpu_kernel_only_marker some_line "$TMP/k.out" '^offcpu_split;entry_SYSCALL[^;]*;.*;__schedule;\[off-cpu:S\] [0-9]+$'

# --- --per-thread: the thread frame; the writer apart ---
run_sm t --off-cpu --per-thread -f -F 499 -p "$P" 2
check offcpu_per_thread some_line "$TMP/t.out" "^offcpu_split-$P/$P;.*;doze;.*\[off-cpu:S\] [0-9]+\$"
check offcpu_per_thread_writer some_line "$TMP/t.out" "^pipe_writer-$P/[0-9]+;.*\[off-cpu:S\] [0-9]+\$"

# --- --unwind fp: the same waits, frame-pointer stacks ---
run_sm fp --off-cpu --unwind fp -f -F 499 -p "$P" 2
check offcpu_fp_doze some_line "$TMP/fp.out" '^offcpu_split;.*;run_rounds;doze;.*;__schedule;\[off-cpu:S\] [0-9]+$'

# --- --cgroup: only the waits of tasks in the cgroup ---
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$CG2" ] && mkdir "$CG2/smolder-offcpu.$$" 2>/dev/null; then
	CG=$CG2/smolder-offcpu.$$
	at_exit "for p in \$(cat '$CG/cgroup.procs' 2>/dev/null); do echo \$p >'$CG2/cgroup.procs'; done; kill \$(jobs -p) 2>/dev/null; wait 2>/dev/null; rmdir '$CG'"
	start_wl offcpu_split 30 || exit 1
	IN=$WL_PID
	echo "$IN" >"$CG/cgroup.procs"
	run_sm cg --off-cpu --per-pid -f -F 199 --cgroup "$CG" 2
	check offcpu_cgroup_only_inside all_lines "$TMP/cg.out" "^(offcpu_split|pipe_writer)-$IN;"
	check offcpu_cgroup_waits some_line "$TMP/cg.out" "^offcpu_split-$IN;.*;doze;.*\[off-cpu:S\] [0-9]+\$"
	kill "$IN" 2>/dev/null
else
	fail offcpu_cgroup "no cgroup2 mount to make a cgroup in"
fi

# --- D state: a vfork parent waits uninterruptibly for its child ---
start_wl offcpu_split vfork 30 || exit 1
V=$WL_PID
sleep 0.3
run_sm d --off-cpu -f -F 99 -p "$V" 2
# (glibc's vfork pops its return address: the unwinder may lose vfork_waits)
check offcpu_d_state some_line "$TMP/d.out" '^offcpu_split;.*main;[^ ]*vfork;[^ ]*;schedule;__schedule;\[off-cpu:D\] [0-9]+$'
kill "$V" 2>/dev/null

# --- without --off-cpu, no off-CPU program is loaded: the programs this
# smolder holds (its fds' prog_id), not the machine's, where an earlier
# capture's may still be on their way out ---
"$SMOLDER" -F 49 2 >/dev/null 2>&1 &
S=$!
sleep 1.2
names=$(cat /proc/"$S"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -u |
	while read -r id; do bpftool prog show id "$id" 2>/dev/null | head -n 1; done)
wait "$S"
check offcpu_loaded_some_program some_line <(echo "$names") 'name do_sample'
check offcpu_not_loaded_without_option no_line <(echo "$names") 'name (on_switch|on_waking|offcpu_waiting)'

# --- option errors: one line, exit 2 ---
run_sm e1 --wakers 1
check offcpu_wakers_needs_off_cpu equals "$RC" 2
check offcpu_wakers_needs_off_cpu_msg one_error "$TMP/e1.err"
run_sm e2 --off-cpu --off-cpu-min-us 100 --off-cpu-max-us 10 1
check offcpu_min_over_max equals "$RC" 2
check offcpu_min_over_max_msg one_error "$TMP/e2.err"
run_sm e3 --off-cpu --off-cpu-sample 0 1
check offcpu_sample_zero equals "$RC" 2
check offcpu_sample_zero_msg one_error "$TMP/e3.err"
run_sm e4 --off-cpu --idle-only 1
check offcpu_idle_only equals "$RC" 2
