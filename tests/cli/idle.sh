#!/bin/bash
# Idle loop versus interrupt work on an idle CPU.  idle_irq keeps CPU 0
# idle except for block-completion softirqs that run on its idle task
# (swapper/0).  Three captures of the whole machine run side by side:
#   default      no idle loop, but the softirq work on swapper is there
#   -I           everything
#   --idle-only  only the idle loop, never the softirq work
# The -I capture is the reference: its swapper stacks split into idle-loop
# stacks and interrupt stacks, and the other two views must show each part.
source "$(dirname "$0")/../lib.sh"

# Frames of interrupt/softirq work, and of the idle task's own loop.
IRQ='(^|;)(handle_softirqs|__do_softirq|do_softirq|__irq_exit_rcu|irq_exit_rcu|sysvec_[a-z_]+|asm_sysvec_[a-z_]+|common_interrupt|asm_common_interrupt|blk_done_softirq|run_timer_softirq|rcu_core|net_rx_action|tasklet_action)(;| )'
IDLE='(^|;)(do_idle|cpu_startup_entry|cpu_idle_poll[.a-z0-9]*|schedule_idle|cpuidle_enter|cpuidle_enter_state|default_enter_idle|default_idle|default_idle_call|arch_cpu_idle|pv_native_safe_halt|native_safe_halt|acpi_idle_enter|acpi_safe_halt|poll_idle|mwait_idle[a-z_]*|intel_idle[a-z_]*|haltpoll[a-z_]*)(;| )'
SWAPPER='^swapper/[0-9]+;'

# The file must be on a block device that does O_DIRECT: build/ (not /tmp).
DATA="$TOP/build/idle_irq.dat"
at_exit "rm -f '$DATA'"
# Bring block completions to the reader's CPU (see tests/workloads/idle_irq.c).
dev=$(findmnt -no SOURCE -T "$TOP/build" 2>/dev/null)
q=/sys/class/block/${dev##*/}/queue/rq_affinity
[ -e "$q" ] || q=/sys/class/block/${dev##*/}/../queue/rq_affinity
if [ -w "$q" ]; then
	old=$(cat "$q")
	at_exit "echo $old > '$q'"
	echo 2 >"$q"
fi

# CPU 0 idle time (idle + iowait jiffies) from /proc/stat: the oracle for
# how much idle loop there was to sample.
cpu0() { awk '$1 == "cpu0" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
# The idle views need an idle CPU 0: give other work on the machine up to
# 30 s to calm down (1 s with CPU 0 at least 70% idle).
for i in $(seq 30); do
	read -r i0 a0 < <(cpu0)
	sleep 1
	read -r i1 a1 < <(cpu0)
	between "$(awk -v i=$((i1 - i0)) -v a=$((a1 - a0)) 'BEGIN { print a ? i / a : 0 }')" 0.7 1 && break
done

start_wl idle_irq 30 "$DATA" 0 || exit 1
for i in $(seq 500); do grep -q ready "$WL_OUT" && break; sleep 0.05; done
check idle_workload_ready some_line "$WL_OUT" '^ready$'
sleep 0.3

# sum FOLDED MATCH_ERE [NOMATCH_ERE]: samples on stacks matching (and not).
sum() { awk -v m="$2" -v x="${3:-^\$NEVER}" '$0 ~ m && $0 !~ x { t += $NF } END { print t + 0 }' "$1"; }

# This VM (a Firecracker guest with vCPU packing) does not reliably deliver
# cpu-clock timer interrupts to a halted vCPU: an idle CPU is sometimes
# sampled at the full rate and sometimes hardly at all, for perf as much as
# for smolder (an idle CPU 1 never is); a timer interrupt held back while
# the vCPU halts fires when the next interrupt's softirq re-enables
# interrupts, so that sample lands in handle_softirqs.  Each capture has its
# own timers, so how many idle samples each view gets varies from capture
# to capture: the views are not compared by count.  The captures are
# repeated, up to 6 times, until all three views were sampled while CPU 0
# was idle; the checks below then run on that attempt (and fail if none got
# there).
for attempt in 1 2 3 4 5 6; do
	read -r i0 a0 < <(cpu0)
	"$SMOLDER" -f -F 999 4 >"$TMP/def" 2>"$TMP/def.err" &
	"$SMOLDER" -f -F 999 -I 4 >"$TMP/inc" 2>"$TMP/inc.err" &
	"$SMOLDER" -f -F 999 --idle-only 4 >"$TMP/only" 2>"$TMP/only.err" &
	wait $(jobs -p | grep -vx "$WL_PID")
	read -r i1 a1 < <(cpu0)
	idle0=$(awk -v i=$((i1 - i0)) -v a=$((a1 - a0)) 'BEGIN { print a ? i / a : 0 }')
	secs=$(awk -v a=$((a1 - a0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { print a / hz }')
	# Expected samples of the idle task: at least 40% of CPU 0's idle time.
	want_idle=$(awk -v f="$idle0" -v s="$secs" 'BEGIN { printf "%d", 0.4 * f * s * 999 }')
	inc_irq=$(sum "$TMP/inc" "$SWAPPER.*$IRQ")
	inc_idle=$(sum "$TMP/inc" "$SWAPPER" "$IRQ")
	inc_swapper=$((inc_irq + inc_idle))
	def_irq=$(sum "$TMP/def" "$SWAPPER.*$IRQ")
	only_all=$(total "$TMP/only")
	echo "# idle attempt $attempt: cpu0 idle $idle0 of ${secs}s; -I: swapper $inc_swapper (want >= $want_idle): irq $inc_irq, idle loop $inc_idle (want >= 100); default: swapper irq $def_irq; --idle-only: $only_all"
	between "$idle0" 0.3 1 && [ "$inc_swapper" -ge "$want_idle" ] && [ "$inc_idle" -ge 100 ] &&
		[ "$only_all" -ge 200 ] && [ "$def_irq" -ge 30 ] &&
		grep -qE "$SWAPPER.*;blk_done_softirq(;| )" "$TMP/inc" &&
		grep -qE "$SWAPPER.*;blk_done_softirq(;| )" "$TMP/def" && break
done
check idle_captures_ran equals "$(cat "$TMP/def.err" "$TMP/inc.err" "$TMP/only.err" | grep -cE '^smolder: [0-9]+ samples')" 3
# Without idle time on CPU 0 there is nothing to test: say so once.
if ! between "$idle0" 0.3 1; then
	fail idle_cpu0_was_idle "CPU 0 was idle only $(awk -v f="$idle0" 'BEGIN { printf "%d%%", 100 * f }') of the capture (by /proc/stat): the machine is busy with other work, the idle views cannot be checked; busiest: $(ps -eo pcpu,comm --sort=-pcpu | sed -n '2,4p' | tr -s ' \n' ' ')"
	exit 0
fi
pass idle_cpu0_was_idle

# Reference (-I): the workload did make softirq work on the idle task, and
# the idle loop was sampled with its frames.
check idle_ref_softirq_on_swapper within "$inc_irq" 30 100000
# At least a good part of CPU 0's idle time shows as samples of the idle
# task (other CPUs may add theirs).  How they split between the idle loop
# and interrupt work is the hypervisor's doing (a timer held back while the
# vCPU halts fires in handle_softirqs, see above): CI's machines gave 275
# to 500 idle-loop samples of 2,000 to 2,900 on swapper where this one
# gives most to the idle loop.  So the idle time is checked against all of
# swapper, and the idle loop only for being clearly there.
check idle_ref_swapper_covers_idle within "$inc_swapper" "$want_idle" 100000
check idle_ref_idle_loop within "$inc_idle" 100 100000
check idle_ref_idle_frames some_line "$TMP/inc" "$SWAPPER.*(^|;)do_idle;"
check idle_ref_block_softirq some_line "$TMP/inc" "$SWAPPER.*;blk_done_softirq(;| )"
check idle_ref_other_tasks some_line "$TMP/inc" '^idle_irq;'

# Default: the softirq work on swapper is shown...
check idle_default_softirq_on_swapper within "$def_irq" 30 100000
check idle_default_block_softirq some_line "$TMP/def" "$SWAPPER.*;blk_done_softirq(;| )"
# ...and the bare idle loop is not: every swapper stack is interrupt work.
check idle_default_no_idle_loop no_line <(grep -E "$SWAPPER" "$TMP/def" | grep -vE "$IRQ") "$IDLE"
# (A swapper stack with neither kind of frame is a kernel stack the unwinder
# cut short, e.g. "swapper/0;__pi___x86_indirect_thunk_rax": rare.)
check idle_default_truncated_rare within "$(sum "$TMP/def" "$SWAPPER" "$IRQ|$IDLE")" 0 "$((def_irq / 50 + 2))"
check idle_default_other_tasks some_line "$TMP/def" '^idle_irq;'

# --idle-only: only the idle task in its idle loop, no interrupt work.
check idle_only_samples within "$only_all" 200 100000
check idle_only_swapper all_lines "$TMP/only" "$SWAPPER"
check idle_only_idle_loop all_lines "$TMP/only" "$IDLE"
check idle_only_no_irq_work no_line "$TMP/only" "$IRQ"
