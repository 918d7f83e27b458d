#!/bin/bash
# --kernel-mode and --kernel-threads against real work: cpu_split spins in
# user code only, syscall_heavy spends ~all its time in read(2), a writer
# loop makes the kernel's threads (writeback kworkers, jbd2) work.
# --kernel-mode keeps only samples taken in kernel mode: every stack has
# kernel frames, the spinner is gone, the reader keeps its user frames.
# --kernel-threads keeps only kernel threads: every process left is one
# (PF_KTHREAD in /proc/PID/stat).  What they leave out is said, not lost.
source "$(dirname "$0")/../lib.sh"

PF_KTHREAD=$((0x00200000))

# kthread_pids FOLDED: "PID yes|no|gone" per process frame comm-PID.
kthread_pids() {
	local pid flags
	for pid in $(sed -E 's/^[^;]*-([0-9]+);.*/\1/' "$1" | sort -un); do
		flags=$(sed -E 's/.*\) [A-Za-z] ([-0-9]+ ){5}([0-9]+) .*/\2/' "/proc/$pid/stat" 2>/dev/null)
		if [ -z "$flags" ]; then echo "$pid gone"
		elif ((flags & PF_KTHREAD)); then echo "$pid yes"
		else echo "$pid no $(cat "/proc/$pid/comm" 2>/dev/null)"; fi
	done
}
# all_kthreads FOLDED: each process frame that still exists is a kernel
# thread, and at least one does.
all_kthreads() {
	local v
	v=$(kthread_pids "$1")
	grep -q ' no' <<<"$v" && { echo "user tasks: $(grep ' no' <<<"$v" | head -n 3 | tr '\n' ' ')"; return 1; }
	grep -q ' yes' <<<"$v" || { echo "no kernel thread found: $(head -c 200 "$1")"; return 1; }
}
# leaves_kernel FOLDED: every stack's leaf is a kernel frame (_[k]).
leaves_kernel() {
	local bad
	bad=$(grep -vE -m 1 '_\[k\] [0-9]+$' "$1") || return 0
	echo "a stack with a user leaf: $bad"
	return 1
}
# left_out ERRFILE: N of "smolder: N samples left out by ..." (empty if none).
left_out() { sed -nE 's/^smolder: ([0-9]+) samples left out by .*/\1/p' "$1"; }

start_wl cpu_split 30 || exit 1
SPIN=$WL_PID
start_wl syscall_heavy 30 || exit 1
READER=$WL_PID
# the kernel's own threads at work: fsync'd writes, written back
(while :; do dd if=/dev/zero of="$TMP/w" bs=1M count=16 conv=fsync status=none 2>/dev/null; sync; done) &
WRITER=$!
at_exit "kill $WRITER; wait $WRITER 2>/dev/null"
sleep 0.3

# ---- --kernel-mode, beside -K alone (bcc's: every sample, kernel stacks) ----
# spin_samples FOLDED: cpu_split's samples (bare process frames too).
spin_samples() { grep -E '^cpu_split[; ]' "$1" | awk '{ t += $NF } END { print t + 0 }'; }
# A loaded machine may leave the spinner little CPU: the pair is taken
# again until it had 100 samples without the filter.
for attempt in 1 2 3; do
	"$SMOLDER" -a -f -F 999 --kernel-mode 2 >"$TMP/km" 2>"$TMP/km.err" &
	km=$!
	run_sm plain -K -a -f -F 999 2
	wait "$km"
	km_rc=$?
	spin_before=$(spin_samples "$TMP/plain.out")
	[ "$spin_before" -ge 100 ] && break
done
check kmode_exit_0 equals "$km_rc" 0
check kmode_samples within "$(total "$TMP/km")" 100 100000
# no sample without kernel frames (-a marks each with _[k])
check kmode_every_stack_kernel all_lines "$TMP/km" '_\[k\]'
check kmode_every_leaf_kernel leaves_kernel "$TMP/km"
# -K alone: the spinner's samples in user code are bare process frames;
# with --kernel-mode none is left, only interrupts it took (kernel work
# charged to it, each with a kernel leaf)
spin_user=$(grep -E '^cpu_split [0-9]+$' "$TMP/plain.out" | awk '{ t += $NF } END { print t + 0 }')
spin_after=$(spin_samples "$TMP/km")
check kmode_spinner_before within "$spin_before" 100 100000
check kmode_K_alone_keeps_bare within "$spin_user" 50 100000
comm_stacks "$TMP/km" cpu_split >"$TMP/km.spin"
check kmode_spinner_user_samples_gone leaves_kernel "$TMP/km.spin"
# a sample in the kernel keeps its user stack: the reader's read(2) path
comm_stacks "$TMP/km" syscall_heavy >"$TMP/km.reader"
check kmode_reader_kept within "$(total "$TMP/km.reader")" 50 100000
check kmode_reader_user_frames within "$(share "$TMP/km.reader" ';main;do_reads;.*read_zero_\[k\]')" 70 100
n=$(left_out "$TMP/km.err")
check kmode_left_out_said within "${n:-0}" 100 100000
check kmode_none_lost equals "$(summary_lost "$TMP/km.err")" 0
echo "# kernel-mode (attempt $attempt): $(total "$TMP/km") samples kept, ${n:-?} left out; cpu_split with -K alone $spin_before samples ($spin_user in user code), with --kernel-mode $spin_after"

# ---- --kernel-threads ----
run_sm kt -K -f -F 999 --per-pid --kernel-threads 2
check kthreads_exit_0 equals "$RC" 0
check_all_kthreads() { all_kthreads "$TMP/kt.out"; }
check kthreads_only check_all_kthreads
check kthreads_no_workload no_line "$TMP/kt.out" "^(cpu_split|syscall_heavy|dd|sync)-"
n=$(left_out "$TMP/kt.err")
check kthreads_left_out_said within "${n:-0}" 100 100000
echo "# kernel-threads: $(total "$TMP/kt.out") samples of $(sed -E 's/-[0-9]+;.*//' "$TMP/kt.out" | sort -u | wc -l) kernel threads, ${n:-?} left out"

# ---- the summary: what the docs' awk computed, by kworker work item ----
run_sm sum -K --kworker --group-threads --kernel-threads -F 999 -o "$TMP/kw.folded" \
	-o "$TMP/kw.summary" 3
check summary_exit_0 equals "$RC" 0
check summary_header some_line "$TMP/kw.summary" '^ +samples +% +process;context$'
tail -n +2 "$TMP/kw.summary" >"$TMP/kw.rows"
check summary_rows all_lines "$TMP/kw.rows" '^ +[0-9]+ +[0-9.]+%  [^ ]'
check summary_total equals "$(awk '{ t += $1 } END { print t + 0 }' "$TMP/kw.rows")" "$(total "$TMP/kw.folded")"
check summary_hottest_first equals "$(awk '{ print $1 }' "$TMP/kw.rows" | sort -c -rn 2>&1)" ""
# each work item's row is the samples of the folded stacks under it
summary_rows_agree() {
	local count head want bad=0 rows=0
	while read -r count _ head; do
		[[ $head == kworker\;wq:* ]] || continue
		rows=$((rows + 1))
		want=$(awk -v h="$head;" 'index($0, h) == 1 { t += $NF } END { print t + 0 }' "$TMP/kw.folded")
		[ "$want" = "$count" ] || { echo "$head: $count in the summary, $want folded"; bad=1; }
	done <"$TMP/kw.rows"
	[ "$rows" -gt 0 ] || { echo "no work item row: $(head -c 300 "$TMP/kw.summary")"; return 1; }
	return $bad
}
check summary_work_items summary_rows_agree
echo "# summary: $(wc -l <"$TMP/kw.rows") rows, $(grep -c 'wq:' "$TMP/kw.rows") work items"

# ---- with --off-cpu: the waits of kernel threads, none of user tasks ----
run_sm ktoff -f --per-pid --off-cpu --kernel-threads 2
check kthreads_offcpu_exit_0 equals "$RC" 0
grep -F '[off-cpu:' "$TMP/ktoff.out" >"$TMP/ktoff.waits"
check kthreads_offcpu_waits some_line "$TMP/ktoff.waits" '\[off-cpu:[SD]\]'
check_offcpu_kthreads() { all_kthreads "$TMP/ktoff.waits"; }
check kthreads_offcpu_only check_offcpu_kthreads

# ---- --kernel-mode with --off-cpu: every wait is in the kernel, kept ----
start_wl threads 30 || exit 1
T=$WL_PID
wait_for "$WL_OUT" '^thread_two [0-9]+$' || exit 1
run_sm kmoff -a -f --off-cpu --kernel-mode -p "$T" 2
check kmode_offcpu_exit_0 equals "$RC" 0
check kmode_offcpu_waits_kept some_line "$TMP/kmoff.out" ';thread_two;.*\[off-cpu:S\]'
# the spinning thread runs user code (~60% of the time without the
# filter): only its interrupts are left
check kmode_offcpu_spin_gone within "$(share "$TMP/kmoff.out" ';spin_one[; ]')" 0 10
grep -F ';spin_one' "$TMP/kmoff.out" >"$TMP/kmoff.spin"
check kmode_offcpu_spin_in_kernel leaves_kernel "$TMP/kmoff.spin"
kill "$T" 2>/dev/null

# ---- what cannot be asked ----
run_sm uk -U --kernel-threads 1
check kthreads_not_with_U equals "$RC $(one_error "$TMP/uk.err" >/dev/null && echo one-line)" "2 one-line"
run_sm ck --kernel-threads -- true
check kthreads_not_with_command equals "$RC $(grep -c 'kernel-threads' "$TMP/ck.err")" "2 1"
