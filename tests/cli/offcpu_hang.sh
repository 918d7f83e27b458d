#!/bin/bash
# Hangs (issue 24): a process blocked in read(2) on a FIFO before smolder
# starts, and still blocked when it ends, shows its whole wait under its
# reading function: `smolder -p PID --off-cpu -f 3` gives ~3 s (within 10%)
# under main;wait_for_input;read down to the pipe read's kernel frames, and
# the summary's "N off-CPU waits (T s)" agrees with the profile.  A wait
# that begins during the capture and lasts past its end has its whole user
# stack (the tables were loaded before sampling began) and counts up to the
# end.  The same for Debian's python3.11 blocked in os.read (Python frames
# for the wait that began during the capture; the one found waiting has its
# native frames only).  Hostile: 3000 threads of a process run as nobody,
# all found waiting at the start, keep the capture bounded.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"

PY=/usr/bin/python3.11
# part FOLDED ERE: microseconds on stacks matching ERE.
part() { awk -v pat="$2" '$0 ~ pat { t += $NF } END { print t + 0 }' "$1"; }
# summary_offcpu ERRFILE: "WAITS SECONDS" from "smolder: N off-CPU waits (T s), ...".
summary_offcpu() { sed -nE 's/^smolder: ([0-9]+) off-CPU waits \(([0-9.]+) s\),.*/\1 \2/p' "$1" | tail -n 1; }
# agrees NAME ERRFILE FOLDED WAITS: the summary says WAITS waits and the
# profile's waiting time (to the millisecond): its [off-cpu:S|D] stacks,
# not the CPU samples it also holds (a woken process can take one).
agrees() {
	local s waited
	s=$(summary_offcpu "$2")
	waited=$(part "$3" '\[off-cpu:[SD]\] [0-9]+$')
	echo "# $1: profile $(total "$3") us on $(wc -l <"$3") stacks, $waited us waiting; summary: ${s:-none} (waits s); smolder ran ${ELAPSED:-?} s"
	check "$1_summary_waits" equals "${s% *}" "$4"
	check "$1_summary_time" within "${s#* }" \
		"$(awk -v t="$waited" 'BEGIN { print t / 1e6 - 0.001 }')" \
		"$(awk -v t="$waited" 'BEGIN { print t / 1e6 + 0.001 }')"
}
# blocked PID: waits until PID sleeps in a pipe read.
blocked() {
	local i
	for i in $(seq 250); do
		grep -q pipe_read "/proc/$1/wchan" 2>/dev/null &&
			[ "$(awk '{ print $3 }' "/proc/$1/stat")" = S ] && return 0
		sleep 0.02
	done
	echo "process $1 is not blocked in a pipe read: $(cat "/proc/$1/wchan" 2>/dev/null)"
	return 1
}
# capture_whole NAME PID: smolder -p PID --off-cpu -f 3, retaken once when
# the capture itself ran long (a busy machine).
capture_whole() {
	local try
	for try in 1 2; do
		run_sm "$1" -p "$2" --off-cpu -f 3
		between "$(total "$TMP/$1.out")" 2700000 3300000 && return
	done
}
# capture_woken NAME PID FIFO: the same, with a line written to FIFO 1 s
# after sampling began (-v says when).
capture_woken() {
	"$SMOLDER" -v -p "$2" --off-cpu -f 3 >"$TMP/$1.out" 2>"$TMP/$1.err" &
	local sm=$!
	wait_for "$TMP/$1.err" '^smolder: sampling [0-9]+ cpus' 10 >/dev/null
	sleep 1
	echo go >"$3"
	wait "$sm"
	RC=$?
	ELAPSED=
}

# ---- a C program, blocked before smolder starts ----
FIFO=$TMP/c.fifo
mkfifo "$FIFO"
start_wl fifo_wait "$FIFO" || exit 1
C=$WL_PID
check offcpu_hang_c_blocked blocked "$C"
capture_whole c "$C"
F=$TMP/c.out
check offcpu_hang_c_exit_0 equals "$RC" 0
check offcpu_hang_c_about_3s within "$(part "$F" '^fifo_wait;.*main;wait_for_input;(__libc_)?read;')" 2700000 3300000
check offcpu_hang_c_whole_stack some_line "$F" '^fifo_wait;_start;__libc_start_main;[^ ]*;main;wait_for_input;(__libc_)?read;entry_SYSCALL[^;]*;[^ ]*;[a-z_]*pipe_read;\[off-cpu:S\] [0-9]+$'
agrees offcpu_hang_c "$TMP/c.err" "$F" 1

# ---- the same process: woken 1 s in, then blocked again to the end ----
capture_woken cw "$C" "$FIFO"
F=$TMP/cw.out
check offcpu_hang_woken_exit_0 equals "$RC" 0
first=$(part "$F" '^fifo_wait;.*main;wait_for_input;(__libc_)?read;')
check offcpu_hang_woken_first_wait within "$first" 700000 1500000
# the new wait: whole (from _start) with the tables loaded before sampling
more=$(part "$F" '^fifo_wait;_start;__libc_start_main;[^ ]*;main;handle_input;wait_for_more;(__libc_)?read;.*pipe_read;')
check offcpu_hang_woken_second_whole within "$more" 1500000 2300000
check offcpu_hang_woken_to_the_end within "$(total "$F")" 2700000 3300000
check offcpu_hang_woken_no_cut_stack no_line "$F" '^fifo_wait;(__libc_)?read;'
agrees offcpu_hang_woken "$TMP/cw.err" "$F" 2
kill "$C" 2>/dev/null

# ---- Debian's python3.11, blocked in os.read before smolder starts ----
if [ -x "$PY" ]; then
	PFIFO=$TMP/py.fifo
	mkfifo "$PFIFO"
	start_cmd python3.11 "$PY" "$TOP/tests/workloads/python/fifo_wait.py" "$PFIFO" || exit 1
	Y=$WL_PID
	check offcpu_hang_py_blocked blocked "$Y"
	capture_whole py "$Y"
	F=$TMP/py.out
	check offcpu_hang_py_exit_0 equals "$RC" 0
	check offcpu_hang_py_about_3s within "$(part "$F" '^python3\.11;_start;.*;(__libc_)?read;entry_SYSCALL[^;]*;.*pipe_read;\[off-cpu:S\] [0-9]+$')" 2700000 3300000
	agrees offcpu_hang_py "$TMP/py.err" "$F" 1
	# woken 1 s in: wait_for_more's wait has its Python frames
	capture_woken pyw "$Y" "$PFIFO"
	F=$TMP/pyw.out
	check offcpu_hang_py_woken_exit_0 equals "$RC" 0
	check offcpu_hang_py_woken_python_frame within "$(part "$F" ';main \(fifo_wait\.py\);wait_for_more \(fifo_wait\.py\);.*(__libc_)?read;.*\[off-cpu:S\] [0-9]+$')" 1500000 2300000
	check offcpu_hang_py_woken_to_the_end within "$(total "$F")" 2700000 3300000
	kill "$Y" 2>/dev/null
else
	fail offcpu_hang_py_present "$PY missing (Debian 12's python3.11; every machine has it)"
fi

# ---- --cgroup: the iterator cannot tell a task's cgroup; -v says so once ----
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$CG2" ] && mkdir "$CG2/smolder-hang.$$" 2>/dev/null; then
	at_exit "rmdir '$CG2/smolder-hang.$$'"
	run_sm cg -v --off-cpu --cgroup "$CG2/smolder-hang.$$" -f 1
	check offcpu_hang_cgroup_exit_0 equals "$RC" 0
	check offcpu_hang_cgroup_said_once equals \
		"$(grep -c '^smolder: with --cgroup or --cgroupmap, a task waiting when the capture begins is seen only once it runs again$' "$TMP/cg.err")" 1
else
	fail offcpu_hang_cgroup "no cgroup2 mount to make a cgroup in"
fi

# ---- hostile: 3000 threads of nobody's, waiting when the capture starts ----
# (blocked all along: the cost measured is the start's, not that of 60,000
# switches a second, which offcpu_limits.sh bounds)
chmod 755 "$TMP"
start_cmd offcpu_split setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$WL/offcpu_split" blocked 3000 60 || exit 1
H=$WL_PID
for i in $(seq 250); do [ "$(ls "/proc/$H/task" 2>/dev/null | wc -l)" -gt 3000 ] && break; sleep 0.02; done
timed_sm many -v -p "$H" --off-cpu -f 2
bounded offcpu_hang_many_waiting 2
check offcpu_hang_many_waiting_found some_line "$TMP/many.err" '^smolder: off-CPU: [0-9]{3,} threads in scope were waiting when the capture began'
grep -E 'waiting when the capture began|not walked' "$TMP/many.err" | sed 's/^/# /'
kill "$H" 2>/dev/null
