#!/bin/bash
# Kernel context frames against real kernel work: loopback TCP for the
# NET_RX softirq (--irq-frames), sync(1) and fsync'd writes for work items
# (--kworker), kernel thread names (--group-threads) and the idle paths of
# --idle-only.  Each capture with the options runs side by side with one
# without them: frames are added above the process frame, samples are
# neither moved to another process nor lost.
source "$(dirname "$0")/../lib.sh"

CTX_RE='^\[(irq|softirq|softirq:[A-Z_0-9]+)\]$'
PERCPU_THREAD_RE='^(kworker|ksoftirqd|migration|cpuhp|idle_inject|rcuc|swapper)/'

# frames FOLDED: "frame2 count" per line (the frame after the process frame).
frame2() { awk '{ n = $NF; sub(/ [^ ]*$/, ""); split($0, f, ";"); print f[2] "\t" n }' "$1"; }
# strip_ctx FOLDED: the file without context frames, i.e. what a capture
# without the options names.
strip_ctx() {
	awk '{ n = $NF; sub(/ [^ ]*$/, ""); k = split($0, f, ";"); out = f[1]
		for (i = 2; i <= k; i++) {
			if (i == 2 && f[i] ~ /^\[(irq|softirq)/) continue
			if (f[2] ~ /^wq:/ && i >= 2 && i <= 4) continue
			out = out ";" f[i] }
		print out " " n }' "$1"
}
# near A B TOL: A is within TOL of B.
near() { within "$1" "$(awk -v b="$2" -v t="$3" 'BEGIN { print b - t }')" "$(awk -v b="$2" -v t="$3" 'BEGIN { print b + t }')"; }
# proc_share FOLDED PROC: percent of samples whose process frame is PROC.
proc_share() { share "$1" "^$(re_escape "$2")[; ]"; }

# ---- NET_RX: loopback traffic ----------------------------------------------
# irq_ratio: the two captures' totals, with the options to without.
irq_ratio() { awk -v a="$(total "$TMP/irq")" -v b="$(total "$TMP/plain")" 'BEGIN { print b ? a / b : 0 }'; }
# irq_pair_agrees: the two captures' totals and the workload's shares
# agree (the side-by-side checks below).
irq_pair_agrees() {
	within "$(irq_ratio)" 0.9 1.1 >/dev/null || return 1
	local proc
	for proc in net_pump pump/1; do
		near "$(proc_share "$TMP/irq.stripped" "$proc")" "$(proc_share "$TMP/plain" "$proc")" 5 >/dev/null || return 1
	done
}
# Two concurrent captures of the same 4 s sample the same work, but on a
# VM the two sampling timers can land in step with the receiving thread's
# bursts differently: one CI run saw 780 against 437 samples of pump/1
# (net_pump's own were 1,970 and 1,967).  With -I both captures count the
# same samples to within 0.3%, and what differs is only whether a sample
# on CPU 1 found pump/1 running or the CPU idle.  So the pair is taken
# again, up to three times, until it agrees; every check below runs on
# the last pair taken.
for attempt in 1 2 3; do
	start_wl net_pump 12 || exit 1
	wait_for "$WL_OUT" '^ready$' || exit 1
	"$SMOLDER" -F 499 -K -f --irq-frames --group-threads 4 >"$TMP/irq" 2>"$TMP/irq.err" &
	"$SMOLDER" -F 499 -K -f 4 >"$TMP/plain" 2>"$TMP/plain.err" &
	wait $(jobs -p | grep -vx "$WL_PID")
	kill "$WL_PID" 2>/dev/null
	wait "$WL_PID" 2>/dev/null
	strip_ctx "$TMP/irq" >"$TMP/irq.stripped"
	echo "# irq attempt $attempt: samples with/without the options $(total "$TMP/irq") / $(total "$TMP/plain");" \
		"pump/1 $(proc_share "$TMP/irq.stripped" pump/1)% / $(proc_share "$TMP/plain" pump/1)%"
	irq_pair_agrees && break
done

check irq_total_is_counted equals "$(total "$TMP/irq") $(summary_lost "$TMP/irq.err")" \
	"$(summary_samples "$TMP/irq.err") 0"
grep -E '^(net_pump|pump/1)[; ]' "$TMP/irq" >"$TMP/irq.wl"
netrx=$(share "$TMP/irq.wl" '^[^;]+;\[softirq:NET_RX\];')
echo "# net_pump: NET_RX frames on $netrx% of its samples"
check irq_netrx_frames_seen within "$netrx" 5 100
# Known truth: NET_RX's handler is net_rx_action.  Every stack under the
# frame runs it (or, at its edges, the softirq loop itself, the retpoline
# thunk of its indirect call, or our own tracepoint hook), and every stack
# running it has the frame.
grep -E ';\[softirq:NET_RX\];' "$TMP/irq" >"$TMP/irq.netrx"
grep -vE ';net_rx_action[; ]|;(handle_softirqs|__do_softirq|(__pi_)?__x86_indirect_thunk_[a-z0-9]+) [0-9]+$|;(__)?bpf_trace_|;bpf_prog_' \
	"$TMP/irq.netrx" >"$TMP/irq.bad"
check irq_netrx_frame_runs_handler equals "$(head -c 300 "$TMP/irq.bad")" ""
check irq_handler_has_netrx_frame equals "$(grep -E ';net_rx_action[; ]' "$TMP/irq" |
	grep -vE '^[^;]+;\[softirq:NET_RX\];' | head -c 300)" ""
# Context frames are the second frame and nowhere else.
check irq_frames_only_above_process equals "$(awk '{ sub(/ [^ ]*$/, ""); k = split($0, f, ";")
	for (i = 1; i <= k; i++) if (i != 2 && f[i] ~ /^\[(irq|softirq)/) n++ } END { print n + 0 }' "$TMP/irq")" 0
check irq_frame_names_known equals "$(frame2 "$TMP/irq" | cut -f1 | grep -E '^\[' |
	grep -cvE "$CTX_RE")" 0
# The same samples as a capture without the options, side by side: the
# totals agree, and so do the workload's shares.  (Finer shares, such as
# net_rx_action's, differ between two captures by up to 14 points on this
# VM, whose timer interrupts land late and in step with the traffic; the
# checks above pin those down exactly within one capture.)
ratio=$(irq_ratio)
echo "# samples with/without the options: $(total "$TMP/irq") / $(total "$TMP/plain")"
check irq_totals_match_plain within "$ratio" 0.9 1.1
for proc in net_pump pump/1; do
	a=$(proc_share "$TMP/irq.stripped" "$proc")
	b=$(proc_share "$TMP/plain" "$proc")
	check "irq_share_of_${proc%/*}_matches_plain" near "$a" "$b" 5
done
# --group-threads leaves user threads alone, whatever their names.
check group_keeps_user_thread_pump1 some_line "$TMP/irq" '^pump/1[; ]'
check group_no_percpu_thread_names equals "$(cut -d';' -f1 "$TMP/irq" | grep -cE "$PERCPU_THREAD_RE")" 0

# ---- work items: sync(1) and fsync ---------------------------------------
# Many small dirty files give the flusher work to do; then sync(1) queues
# it.  The fsync'd file's block I/O completes in interrupt context.
DIR="$TOP/build/kcontext.d"
at_exit "rm -rf '$DIR'"
mkdir -p "$DIR"
# A work item queued from interrupt context (the fsync'd file's I/O completing).
KW_FROM_IRQ_RE='^kworker;wq:[^;]+;[^;]+;queued-by:\[(irq|softirq:[A-Z_]+)\];'
# kw_shares FOLDED_GROUPED FOLDED_PLAIN: the kworkers' shares in the two captures.
kw_shares() {
	kwa=$(proc_share "$1" kworker)
	kwb=$(awk '{ n = $NF; t += n; if ($0 ~ /^kworker\//) m += n } END { printf "%.1f\n", t ? 100 * m / t : 0 }' "$2")
}
# The two captures side by side split kworker time alike only when their
# timers sample its bursts alike (see the NET_RX pair above), and the
# flusher's and the interrupt's items must fall inside the capture: up to
# three pairs, until both are seen and the shares agree; every check below
# runs on the last pair taken.
for attempt in 1 2 3; do
	"$SMOLDER" -F 999 -K -f --kworker --group-threads 9 >"$TMP/kw" 2>"$TMP/kw.err" &
	kw=$!
	"$SMOLDER" -F 999 -K -f 9 >"$TMP/kwplain" 2>"$TMP/kwplain.err" &
	kwplain=$!
	sleep 1.5
	syncs=
	for i in 1 2; do
		dd if=/dev/zero of="$DIR/big" bs=1M count=100 conv=fsync status=none
		for f in $(seq 3000); do echo "$f" >"$DIR/f$f"; done
		sync &
		syncs="$syncs|$!"
		wait $!
	done
	wait "$kw" "$kwplain"
	syncs=${syncs#|}
	sync_re="^kworker;wq:writeback;wb_workfn;queued-by:sync-($syncs);"
	kw_shares "$TMP/kw" "$TMP/kwplain"
	echo "# kworker attempt $attempt: kworker share $kwa% / $kwb% (grouped / plain)"
	grep -qE "$sync_re" "$TMP/kw" && grep -qE "$KW_FROM_IRQ_RE" "$TMP/kw" &&
		near "$kwa" "$kwb" 10 >/dev/null && break
done
echo "# work items (samples): $(awk '{ n = $NF; sub(/ [^ ]*$/, ""); split($0, f, ";")
	if (f[2] ~ /^wq:/) s[f[2] ";" f[3] ";" f[4]] += n } END { for (k in s) print s[k], k }' "$TMP/kw" |
	sort -rn | head -n 5 | tr '\n' '|')"

check kw_total_is_counted equals "$(total "$TMP/kw") $(summary_lost "$TMP/kw.err")" \
	"$(summary_samples "$TMP/kw.err") 0"
# Known truth: sync(1) queues the flusher's work on the writeback workqueue.
check kw_sync_queues_writeback some_line "$TMP/kw" "$sync_re"
# The function named from the tracepoints is the one the kworker's own
# stack calls from process_one_work (but in our own tracepoint hooks at
# the item's edges, with the RCU read-side guard the tracepoint call
# takes around them, and in the retpoline thunk of the indirect call).  An
# item that a kworker began before its first tracepoint of the capture is
# named from the worker's own current item, which the kernel sets before it
# drops the pool lock: a sample in that unlock is at the item's edge too.
# A work function that ends in a tail call leaves its callee's frame there
# instead of its own: bpf_prog_free_deferred (another capture's programs
# being freed) jumps to vfree, wb_update_bandwidth_workfn to
# wb_update_bandwidth (a callee named by the work function's prefix), and
# one that re-arms itself last (vmstat_shepherd's schedule_delayed_work)
# to queue_delayed_work_on or its kin.
read -r same differ < <(awk '{ n = $NF; sub(/ [^ ]*$/, ""); k = split($0, f, ";")
	if (f[2] !~ /^wq:/) next
	for (i = 5; i < k; i++) if (f[i] == "process_one_work") {
		if (f[i + 1] == f[3]) s += n
		else if (f[4] == "queued-by:[unknown]" && f[i + 1] == "_raw_spin_unlock_irq") s += 0
		else if (f[3] == "bpf_prog_free_deferred" && f[i + 1] ~ /^vfree/) s += 0
		else if (f[i + 1] ~ /^(queue_delayed_work_on|queue_work_on|mod_delayed_work_on)$/) s += 0
		else if (length(f[i + 1]) >= 8 && index(f[3], f[i + 1]) == 1) s += 0
		else if (f[i + 1] !~ /^((__)?bpf_|__rcu_read_(un)?lock|(__pi_)?__x86_indirect_thunk)/) { d += n; print > "/dev/stderr" }
		break }
	} END { print s + 0, d + 0 }' "$TMP/kw" 2>"$TMP/kw.differ")
echo "# work function = frame after process_one_work: $same samples, differs: $differ"
check kw_function_matches_stack within "$same" 1 1e9
check kw_function_never_differs equals "$differ $(head -c 400 "$TMP/kw.differ")" "0 "
# Samples in a work item's own code carry its frames: no stack goes from
# process_one_work into a work function without them, but for an
# interrupt on top (not the item's work).  (process_one_work's own helpers
# before an item starts are not the item's.)
read -r named unnamed < <(awk 'NR == FNR { split($0, f, ";"); if (f[2] ~ /^wq:/) fn[f[3]] = 1; next }
	{ n = $NF; split($0, f, ";")
	if (!match($0, /;process_one_work;[^; ]+/)) next
	if (!(substr($0, RSTART + 18, RLENGTH - 18) in fn)) next
	if ($0 ~ /;(asm_common_interrupt|asm_sysvec_[a-z_0-9]+|handle_softirqs|__do_softirq);/) next
	if (f[2] ~ /^wq:/) a += n; else { b += n; print > "/dev/stderr" } } END { print a + 0, b + 0 }' \
	"$TMP/kw" "$TMP/kw" 2>"$TMP/kw.unnamed")
echo "# work item code: $named samples named, $unnamed not: $(head -c 300 "$TMP/kw.unnamed")"
check kw_items_named equals "$unnamed $(head -c 400 "$TMP/kw.unnamed")" "0 "
check kw_items_seen within "$named" 1 1e9
check kw_frame_shape equals "$(awk '{ sub(/ [^ ]*$/, ""); split($0, f, ";"); if (f[2] ~ /^wq:/ &&
	(f[1] != "kworker" || f[4] !~ /^queued-by:([^;]+-[0-9]+|kworker|\[(irq|softirq:[A-Z_0-9]+|unknown)\])$/)) n++ }
	END { print n + 0 }' "$TMP/kw")" 0
# fsync'd writes complete in interrupt context, which queues more work.
check kw_queued_from_interrupt some_line "$TMP/kw" "$KW_FROM_IRQ_RE"
check group_kworker_grouped equals "$(cut -d';' -f1 "$TMP/kw" | grep -cE "$PERCPU_THREAD_RE")" 0
check group_plain_keeps_names some_line "$TMP/kwplain" '^kworker/[u0-9R]'
check group_kworker_share_matches_plain near "$kwa" "$kwb" 10 # bursty: see above

# ---- idle paths --------------------------------------------------------------
# Idle CPUs are sampled unreliably on this VM (see idle.sh): up to 4 tries
# for enough idle samples to check.
for attempt in 1 2 3 4; do
	"$SMOLDER" -F 999 --idle-only -f 3 >"$TMP/idle" 2>"$TMP/idle.err"
	[ "$(total "$TMP/idle")" -ge 300 ] && break
done
echo "# idle attempt $attempt: $(total "$TMP/idle") samples; $(grep -A9 'idle time by path' "$TMP/idle.err" | tr '\n' '|')"
check idle_total_is_counted equals "$(total "$TMP/idle")" "$(summary_samples "$TMP/idle.err")"
check idle_every_sample_has_path equals "$(awk '{ split($0, f, ";"); if (f[2] !~ /^\[idle:(halt|mwait|poll|cpuidle|inject|other)\]$/) n++ }
	END { print n + 0 }' "$TMP/idle")" 0
# Each path's stacks run that path's code.
HALT=';(default_idle|default_enter_idle|arch_cpu_idle|(pv_)?native_safe_halt|acpi_safe_halt|native_halt|cpu_do_idle)[; ]'
POLL=';(poll_idle|cpu_idle_poll[.a-z0-9]*)[; ]'
check idle_halt_runs_halt equals "$(grep -F '[idle:halt]' "$TMP/idle" | grep -cvE "$HALT")" 0
check idle_poll_runs_poll equals "$(grep -F '[idle:poll]' "$TMP/idle" | grep -cvE "$POLL")" 0
check idle_other_is_rare within "$(share "$TMP/idle" ';\[idle:other\];')" 0 10
# The table on stderr: the machine's cpuidle driver, and per CPU the same
# samples as the folded stacks (ms = samples * 1000 / 999).
driver=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
check idle_table_names_driver some_line "$TMP/idle.err" "idle time by path, ms \\(cpuidle driver $driver\\)"
want=$(awk '{ n = $NF; split($0, f, ";"); sub(/^swapper\//, "", f[1]); c[f[1]] += n } END {
	for (k in c) printf "%s %.1f\n", k, c[k] * 1000 / 999 }' "$TMP/idle" | sort)
got=$(awk '/idle time by path/ { on = 1; getline; next } on && $1 ~ /^[0-9]+$/ && $2 != "-" {
	t = 0; for (i = 2; i <= NF; i++) t += $i; printf "%s %.1f\n", $1, t } on && $1 == "all" { on = 0 }' "$TMP/idle.err" | sort)
echo "# idle per cpu: folded '$(echo $want)' table '$(echo $got)'"
# every CPU sampled has a row; one without idle samples shows "-" and is said
nocpu=$(awk '/idle time by path/ { on = 1; getline; next } on && $1 ~ /^[0-9]+$/ && $2 == "-" { printf "%s%s", s, $1; s = "," } on && $1 == "all" { on = 0 }' "$TMP/idle.err")
check idle_table_every_cpu equals "$(awk '/idle time by path/ { on = 1; getline; next } on && $1 ~ /^[0-9]+$/ { n++ } on && $1 == "all" { on = 0 } END { print n }' "$TMP/idle.err")" "$(nproc)"
if [ -n "$nocpu" ]; then
	# why, by the kernel's count of its idle time (idle_unknown.sh checks the verdicts)
	check idle_table_unknown_said some_line "$TMP/idle.err" "^smolder: (cpu $nocpu (had no idle time|idled [0-9]+ ms)|no idle samples on cpu $nocpu \(-\))"
else
	check idle_table_unknown_not_said no_line "$TMP/idle.err" '^smolder: (cpu [0-9,]+ (had no idle time|idled [0-9]+ ms)|no idle samples on cpu)'
fi
check idle_table_matches_folded eval "awk -v a='$(echo $want)' -v b='$(echo $got)' 'BEGIN {
	na = split(a, x, \" \"); nb = split(b, y, \" \"); if (na != nb || na == 0) exit 1
	for (i = 1; i <= na; i += 2) { if (x[i] != y[i]) exit 1; d = x[i + 1] - y[i + 1]; if (d > 0.6 || d < -0.6) exit 1 } }'"

# ---- continuous mode: work item names across intervals ---------------------
# The loader empties the kernel's table of work item names every interval;
# items still running are named again, so no interval has unnamed items.
mkdir -p "$DIR" "$TMP/cont"
"$SMOLDER" --continuous --output-dir "$TMP/cont" --interval 1 -F 999 -K --kworker -q 5 \
	2>"$TMP/cont.err" &
cont=$!
sleep 1
for i in 1 2 3; do
	for f in $(seq 1500); do echo "$i $f" >"$DIR/f$f"; done
	sync
done
wait "$cont"
cat "$TMP"/cont/smolder-*.folded >"$TMP/cont.all" 2>/dev/null
echo "# continuous: $(ls "$TMP/cont" | wc -l) files, $(grep -c ';wq:' "$TMP/cont.all") work item stacks"
check kw_continuous_items_named some_line "$TMP/cont.all" '^kworker/[^;]+;wq:[^[;]+;[a-z_0-9]+;queued-by:'
check kw_continuous_none_unknown equals "$(grep -c 'wq:\[unknown\]' "$TMP/cont.all")" 0
