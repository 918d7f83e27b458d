#!/bin/bash
# Files opened on a process's behalf are opened O_PATH first, and only
# read when they are regular files (issue 12: a debug-link candidate that
# was a symlink to a device made smolder open the device).  Each case
# plants, as the unprivileged process's user would, a symlink or a bind
# mount leading to a FIFO made in the test directory: a writer waits in
# open(2) on the FIFO, and is released if smolder ever opens it for
# reading (a device's open cannot be seen; a FIFO's can; another profiler
# sampling the whole machine may open it too, so a capture that saw it
# opened is tried again, up to three times).  Device nodes are made with
# mknod in the test directory, never the system's /dev.
#  - debuglink: the .gnu_debuglink candidate beside a stripped binary is a
#    symlink to the FIFO, the one in .debug/ a symlink to a character
#    device node (5,2: a ptmx);
#  - buildid: /usr/lib/debug/.build-id/xx/rest.debug, in the process's
#    own mount namespace, is a symlink to the FIFO;
#  - root fallback: smolder without CAP_CHECKPOINT_RESTORE (so no
#    /proc/PID/map_files) reaches a mapped file by its path under
#    /proc/PID/root, where the process's mount namespace has the FIFO
#    bind-mounted over it;
#  - a debug-link target of 2 GB (sparse) is not read whole for its CRC
#    (main: a 2 s capture took 10 s): the capture ends in time, with a note.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"
SRC=$WL/dbg_split
chmod 755 "$TMP"
mkdir -p "$TMP/fifo" "$TMP/dev" && mkfifo "$TMP/fifo/f" && chmod 666 "$TMP/fifo/f"
mknod "$TMP/dev/ptmx" c 5 2

# A writer blocked until someone opens the FIFO for reading; the state
# file says whether it was.
arm_fifo() {
	rm -f "$TMP/fifo.opened"
	(exec 3>"$TMP/fifo/f" && echo opened >"$TMP/fifo.opened") &
	WRITER=$!
}
# fifo_opened: whether the FIFO was opened since arm_fifo; releases the writer.
fifo_opened() {
	local r=1
	sleep 0.2
	[ -e "$TMP/fifo.opened" ] && r=0
	: <>"$TMP/fifo/f"
	wait "$WRITER" 2>/dev/null
	return $r
}
# capture_fifo NAME COMMAND...: runs the capture (its output in
# $TMP/NAME.out and .err, RC) with the FIFO armed; FIFO_OPENED says whether
# it was opened.  Another profiler on a shared machine (an older smolder
# sampling everything) may open it too: the capture is tried up to 3
# times, and the FIFO counts as opened only if it was every time.
capture_fifo() {
	local name=$1 try
	shift
	for try in 1 2 3; do
		arm_fifo
		"$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
		RC=$?
		fifo_opened || { FIFO_OPENED=no; return; }
		echo "# $name: the FIFO was opened (try $try)"
	done
	FIFO_OPENED=yes
}

# stripped DIR NAME LINK: a stripped dbg_split DIR/NAME whose debug link
# names LINK (made real for its CRC, then left to the caller).
stripped() {
	mkdir -p "$1"
	objcopy --only-keep-debug "$SRC" "$1/$3"
	strip -s -o "$1/$2" "$SRC"
	(cd "$1" && objcopy --add-gnu-debuglink="$3" "$2")
	rm -f "$1/$3"
}

# --- debuglink candidates: a symlink to the FIFO, one to a device node ---
stripped "$TMP/dl" prog prog.debug
mkdir -p "$TMP/dl/.debug"
ln -s "$TMP/fifo/f" "$TMP/dl/prog.debug"
ln -s "$TMP/dev/ptmx" "$TMP/dl/.debug/prog.debug"
chown -hR nobody:nogroup "$TMP/dl"
start_cmd prog setpriv --reuid=nobody --regid=nogroup --clear-groups "$TMP/dl/prog" 10 || exit 1
capture_fifo dl "$SMOLDER" -F 499 -f -p "$WL_PID" 2
check debuglink_exit_0 equals "$RC" 0
check debuglink_offset_frames some_line "$TMP/dl.out" '^prog;.*\[prog\+0x[0-9a-f]+\]'
check debuglink_fifo_not_opened equals "$FIFO_OPENED" no
kill "$WL_PID" 2>/dev/null

# --- build-id file: a symlink to the FIFO in the process's namespace ---
stripped "$TMP/bid" bidprog unused.debug
objcopy --remove-section .gnu_debuglink "$TMP/bid/bidprog"
BUILD_ID=$(readelf -n "$SRC" | awk '/Build ID:/ { print $3 }')
DBG=/usr/lib/debug/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}.debug
check buildid_absent_outside test ! -e "$DBG"
start_cmd bidprog unshare -m --propagation private sh -c \
	'mount -t tmpfs smolder-dbg /usr/lib/debug && mkdir -p "${3%/*}" &&
	ln -s "$1" "$3" && exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$2" 10' \
	sh "$TMP/fifo/f" "$TMP/bid/bidprog" "$DBG" || exit 1
check buildid_planted test -L "/proc/$WL_PID/root$DBG"
capture_fifo bid "$SMOLDER" -F 499 -f -p "$WL_PID" 2
check buildid_exit_0 equals "$RC" 0
check buildid_offset_frames some_line "$TMP/bid.out" '^bidprog;.*\[bidprog\+0x[0-9a-f]+\]'
check buildid_fifo_not_opened equals "$FIFO_OPENED" no
kill "$WL_PID" 2>/dev/null

# --- the /proc/PID/root fallback: the FIFO bind-mounted over a mapped file ---
"$TOP/build/tools/many_syms" "$TMP/lib.so" 1000 && chmod 644 "$TMP/lib.so"
start_cmd sh unshare -m --propagation private sh -c \
	'setpriv --reuid=nobody --regid=nogroup --clear-groups "$1" 20 elf "$2" >"$4" 2>&1 &
	while ! grep -q ready "$4"; do sleep 0.05; done
	mount --bind "$3" "$2" && echo mounted >>"$4" && wait' \
	sh "$WL/hostile" "$TMP/lib.so" "$TMP/fifo/f" "$TMP/root.ready" || exit 1
wait_for "$TMP/root.ready" '^mounted$' 30 || exit 1
HP=$(pgrep -P "$WL_PID" -x hostile)
check root_fallback_mounted some_line <(stat -L -c %F "/proc/$HP/root$TMP/lib.so" 2>&1) 'fifo'
check root_fallback_mapped some_line "/proc/$HP/maps" "r-xp .* $TMP/lib.so\$"
caps=bpf,perfmon,sys_ptrace,dac_read_search,syslog
capture_fifo root setpriv --reuid=nobody --regid=nogroup --clear-groups \
	--inh-caps="-all,+${caps//,/,+}" --ambient-caps="-all,+${caps//,/,+}" \
	--bounding-set="-all,+${caps//,/,+}" "$SMOLDER" -F 499 -f -p "$HP" 2
check root_fallback_exit_0 equals "$RC:$(grep -v '^libbpf' "$TMP/root.err" | grep -iE 'cannot|denied' | head -c 200)" "0:"
range=$(awk -v f="$TMP/lib.so" '$NF == f { print $1; exit }' "/proc/$HP/maps")
check root_fallback_no_map_files test -n "$range" -a -z "$(setpriv --reuid=nobody --regid=nogroup \
	--clear-groups --inh-caps="-all,+${caps//,/,+}" --ambient-caps="-all,+${caps//,/,+}" \
	head -c 4 "/proc/$HP/map_files/$range" 2>/dev/null)"
check root_fallback_offset_frames some_line "$TMP/root.out" ';run_code;\[lib\.so\+0x10[0-9a-f]{2}\] [0-9]+$'
check root_fallback_fifo_not_opened equals "$FIFO_OPENED" no
kill "$HP" "$WL_PID" 2>/dev/null

# --- a 2 GB sparse debug-link target: not read whole for its CRC ---
stripped "$TMP/big" bigprog bigprog.debug
truncate -s 2G "$TMP/big/bigprog.debug"
chown -hR nobody:nogroup "$TMP/big"
start_cmd bigprog setpriv --reuid=nobody --regid=nogroup --clear-groups "$TMP/big/bigprog" 10 || exit 1
run_sm big -F 499 -f -p "$WL_PID" 2
check sparse_debug_exit_0 equals "$RC" 0
check sparse_debug_in_time within "$ELAPSED" 0 3
check sparse_debug_noted some_line "$TMP/big.err" "note: debug file .*/bigprog\\.debug not used: larger than 512 MiB"
kill "$WL_PID" 2>/dev/null
