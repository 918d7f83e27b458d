#!/bin/bash
# smolder -- COMMAND, when the command makes smolder its tracer
# (PTRACE_TRACEME: anti-debugging checks do) or stops itself.
# - Only the command's exit ends the capture: a ptrace stop is no exit.
#   The capture lasts until the command exits, smolder exits with its
#   status, and the profile holds its samples.
# - smolder is no debugger: the traced command is let go with the signal it
#   stopped on (none for execve's SIGTRAP), in any of its threads.
# - A stopped command is said once, in one line, and waited for; at the end
#   of the capture it is continued so that it acts on smolder's SIGTERM.
# - Nothing of the command is left running after smolder exits.
# - A SIGCHLD smolder was started with ignored (and hands on to the command
#   as it was) does not lose the command's status.
# The workload is build/workloads/traceme; the reproduction from issue 21
# is the python one.  Durations are well above the command's life, so that
# a capture ended by the duration cannot pass for one ended by the command.
source "$(dirname "$0")/../lib.sh"
TM="$WL/traceme"

# left ERE: how many processes whose command line matches ERE still run.
left() { pgrep -c -f -- "$1"; }

# --- the reproduction: python3 traced, SIGUSR1, sleeps 2 s, exits 9 ---
PY=$(command -v python3 || echo /usr/bin/python3)
MARK="smolder-traced-$$"
run_sm py -f -F 499 10 -- "$PY" -c 'import ctypes,os,signal,time; ctypes.CDLL(None).ptrace(0,0,0,0); signal.signal(signal.SIGUSR1,lambda*a:0); os.kill(os.getpid(),signal.SIGUSR1); time.sleep(2); os._exit(9)' "$MARK"
check py_traced_status equals "$RC" 9
check py_traced_lasts_until_exit within "$ELAPSED" 2 8
check py_traced_samples within "$(total <(comm_stacks "$TMP/py.out" python3))" 5 100000
check py_traced_none_left equals "$(left "$MARK")" 0

# --- traced in C: a signal, an exec, a thread; and as nobody ---
for mode in signal exec thread; do
	run_sm "$mode" -f -F 499 10 -- "$TM" "$mode" 2 9
	left_now=$(left "^traceme ($mode|burn) 2 9\$|^$TM $mode 2 9\$")
	check "traced_${mode}_status" equals "$RC" 9
	check "traced_${mode}_lasts_until_exit" within "$ELAPSED" 2 8
	check "traced_${mode}_samples" within "$(total <(grep ';traced_burn;' "$TMP/$mode.out"))" 100 100000
	check "traced_${mode}_none_left" equals "$left_now" 0
done
chmod 755 "$TMP"
run_sm nobody -f -F 499 10 -- setpriv --reuid=nobody --regid=nogroup --clear-groups "$TM" signal 2 7
check traced_nobody_status equals "$RC" 7
check traced_nobody_samples within "$(total <(grep '^traceme;.*;traced_burn;' "$TMP/nobody.out"))" 100 100000

# traced and still running when the duration ends: SIGTERM reaches it
run_sm hold -f -F 499 2 -- "$TM" hold 30 9
left_now=$(left "^$TM hold 30 9\$")
check traced_at_end_sigterm equals "$RC" 143
check traced_at_end_ends_in_time within "$ELAPSED" 2 5
check traced_at_end_none_left equals "$left_now" 0

# --- stopped: said once, waited for; continued, it runs to its end ---
for mode in stop tstop; do
	t0=$(date +%s.%N)
	"$SMOLDER" -f -F 499 30 -- "$TM" "$mode" 1 9 >"$TMP/$mode.out" 2>"$TMP/$mode.err" &
	SM=$!
	check "${mode}_said" wait_for "$TMP/$mode.err" 'stopped by SIGSTOP' 10
	CMD=$(pgrep -P "$SM" || echo none)
	check "${mode}_is_stopped" equals "$(awk '{ print $3 }' "/proc/$CMD/stat" 2>&1)" T
	sleep 1 # a stopped command is said once, not at each look
	check "${mode}_said_once_in_one_line" equals "$(grep -c 'stopped' "$TMP/$mode.err") $(grep -cE "^smolder: $(re_escape "$TM") \\(PID $CMD\\) stopped by SIGSTOP: the capture waits for it to exit \\(kill -CONT $CMD resumes it\\)\$" "$TMP/$mode.err")" "1 1"
	kill -CONT "$CMD" 2>/dev/null
	wait "$SM"
	RC=$?
	check "${mode}_continued_status" equals "$RC" 9
	check "${mode}_continued_not_the_duration" within "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" 2 20
	check "${mode}_continued_samples" within "$(total <(grep ';traced_burn;' "$TMP/$mode.out"))" 50 100000
done

# stopped when the duration ends: continued, so that its SIGTERM handler
# runs (exit 100 + 9) and nothing is left stopped
for mode in stop tstop; do
	run_sm "end$mode" -f -F 499 2 -- "$TM" "$mode" 1 9
	left_now=$(left "^$TM $mode 1 9\$")
	check "${mode}_at_end_handler_ran" equals "$RC" 109
	check "${mode}_at_end_ends_in_time" within "$ELAPSED" 2 5
	check "${mode}_at_end_none_left" equals "$left_now" 0
done

# --- SIGCHLD ignored when smolder starts: the status is still the command's,
# and the command (awk, reading its own SigIgn: SIGCHLD is bit 17 - 1, in
# the fifth hex digit from the right) still gets SIGCHLD ignored ---
perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV or die' "$SMOLDER" -o "$TMP/chld.folded" -- \
	awk '/^SigIgn:/ { d = substr($2, length($2) - 4, 1); print "chld ignored " (index("13579bdf", d) > 0); exit 3 }' /proc/self/status \
	>"$TMP/chld.out" 2>"$TMP/chld.err"
RC=$?
check sigchld_ignored_status_kept equals "$RC" 3
check sigchld_ignored_handed_on equals "$(cat "$TMP/chld.out")" "chld ignored 1"
