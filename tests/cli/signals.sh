#!/bin/bash
# Start-up and signals.  --btf with a FIFO (or a device) is one line at
# once, not a hang with SIGTERM blocked.  A SIGTERM that arrives during
# start-up (sent before exec, with SIGTERM blocked, so it is pending when
# smolder starts) ends the run when start-up is over, with one line.  SIGHUP ends
# a capture and a continuous run like SIGTERM, writing what was collected,
# unless it was ignored when smolder started (nohup).  A --stack-storage-size
# whose maps take over 256 MiB of kernel memory says how much.
source "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3

# --- --btf FIFO / device: refused at once ---
mkfifo "$TMP/btf.fifo"
mknod "$TMP/btf.null" c 1 3
for f in fifo null; do
	run_sm "btf_$f" --btf "$TMP/btf.$f" -f -o "$TMP/btf_$f.folded" 1 </dev/null
	check "btf_${f}_refused" equals "$RC $(one_error "$TMP/btf_$f.err" >/dev/null && echo one-line) $(grep -c "cannot read BTF from .*btf\.$f: not a regular file" "$TMP/btf_$f.err")" "1 one-line 1"
	check "btf_${f}_at_once" within "$ELAPSED" 0 2
done

# --- SIGTERM during start-up ---
cat >"$TMP/pending.py" <<'EOF'
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
os.kill(os.getpid(), signal.SIGTERM)
os.execv(sys.argv[1], sys.argv[1:])
EOF
t0=$(date +%s.%N)
timeout 10 "$PY" "$TMP/pending.py" "$SMOLDER" -f -o "$TMP/early.folded" 10 >"$TMP/early.out" 2>"$TMP/early.err"
RC=$?
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
check startup_signal_exit_1 equals "$RC" 1
check startup_signal_one_line one_error "$TMP/early.err"
check startup_signal_says_so some_line "$TMP/early.err" '^smolder: stopped by SIGTERM during start-up: nothing written$'
check startup_signal_prompt within "$el" 0 3
check startup_signal_no_file test ! -e "$TMP/early.folded"

# --- SIGHUP ends a capture like SIGTERM ---
start_wl cpu_split 30 || exit 1
W=$WL_PID
"$SMOLDER" -F 99 -p "$W" -f -o "$TMP/hup.folded" >"$TMP/hup.out" 2>"$TMP/hup.err" &
S=$!
sleep 1.5
kill -HUP "$S"
wait "$S"
check hup_capture_exit_0 equals "$?" 0
check hup_capture_written within "$(total "$TMP/hup.folded")" 20 200
check hup_capture_summary some_line "$TMP/hup.err" '^smolder: [0-9]+ samples, 0 lost'

# --- ignored at start (nohup): the capture runs its duration ---
(trap '' HUP && exec "$SMOLDER" -F 99 -p "$W" -f -o "$TMP/nohup.folded" 2) >/dev/null 2>"$TMP/nohup.err" &
S=$!
t0=$(date +%s.%N)
sleep 0.7
kill -HUP "$S"
wait "$S"
RC=$?
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
check nohup_capture_exit_0 equals "$RC" 0
check nohup_capture_ran_its_duration within "$el" 1.9 4
check nohup_capture_written within "$(total "$TMP/nohup.folded")" 100 300

# --- SIGHUP ends a continuous run, writing its last interval ---
D=$TMP/cont
"$SMOLDER" --continuous --interval 60 --output-dir "$D" -F 99 -p "$W" >"$TMP/c.out" 2>"$TMP/c.err" &
S=$!
sleep 1.5
kill -HUP "$S"
wait "$S"
check hup_continuous_exit_0 equals "$?" 0
check hup_continuous_one_file equals "$(ls "$D" | grep -c '^smolder-.*\.folded$')" 1
check hup_continuous_has_samples within "$(cat "$D"/smolder-*.folded | total /dev/stdin)" 20 200

# --- a stack storage size that costs: said, with the figure ---
run_sm big --stack-storage-size 1048576 -F 99 -p "$W" -f 0.3
check big_stack_storage_runs equals "$RC" 0
check big_stack_storage_warns some_line "$TMP/big.err" '^smolder: --stack-storage-size 1048576 takes about 4[0-9]{2} MiB of kernel memory \(the default, 32768, takes 1[0-9] MiB'
run_sm default -F 99 -p "$W" -f 0.3
check default_stack_storage_quiet no_line "$TMP/default.err" 'kernel memory'
