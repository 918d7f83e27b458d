#!/bin/bash
# -o never destroys a file.  Devices and FIFOs are made here with mknod and
# mkfifo (never the system's /dev): a character device like /dev/full or
# /dev/null and a FIFO are written in place and stay what they are; a FIFO
# without a reader is a one-line error, not a hang; a block device is
# refused; a symlink to a regular file writes the file, a symlink to
# /proc/self/fd/1 our standard output, and neither link is replaced; a
# symlink that another user planted in a sticky world-writable directory is
# refused and left as it is (the kernel's protected_symlinks rule).  With
# several -o a failure does not skip the rest.  New files get the umask,
# existing ones keep their mode, stale temporary files of a killed run go
# at start while a live writer's stay.  Most of this needs no capture: the
# output layer is the same for `smolder flamegraph`; one capture checks it.
source "$(dirname "$0")/../lib.sh"
chmod 0711 "$TMP" # the unprivileged user plants its symlink in here

IN=$TMP/in.folded
printf 'main;a 3\nmain;b 1\n' >"$IN"
D=$TMP/dev
mkdir "$D"
mknod "$D/full" c 1 7
mknod "$D/null" c 1 3
mknod "$D/blk" b 7 0
mkfifo "$D/fifo"
# kind PATH: what is at PATH (without following a symlink)
kind() { stat -c %F "$1" 2>/dev/null || echo missing; }
# errors ERRFILE ERE: stderr has exactly one line matching ERE, and no other line
errors_are() {
	local n
	n=$(grep -cE -- "$2" "$1")
	[ "$n" -eq "$(wc -l <"$1")" ] && [ "$n" -ge 1 ] && ! grep -qvE '^smolder: [a-z]' "$1" && return 0
	echo "stderr: $(head -c 400 "$1" | tr '\n' '|')"
	return 1
}

# --- a character device like /dev/full: ENOSPC, one line, still a device ---
run_sm full flamegraph -o "$D/full" "$IN"
check full_exit_1 equals "$RC" 1
check full_one_line one_error "$TMP/full.err"
check full_says_enospc some_line "$TMP/full.err" "cannot write .*/full: no space left on device"
check full_stays_a_device equals "$(kind "$D/full")" "character special file"
# --- like /dev/null: written, still a device ---
run_sm null flamegraph -o "$D/null" "$IN"
check null_exit_0 equals "$RC" 0
check null_stays_a_device equals "$(kind "$D/null")" "character special file"
check null_no_temp_left equals "$(ls "$D" | grep -c tmp)" 0

# --- a FIFO: without a reader an error at once, with one the stacks ---
t0=$(date +%s.%N)
timeout 10 "$SMOLDER" flamegraph -o "$D/fifo" "$IN" >"$TMP/f0.out" 2>"$TMP/f0.err"
RC=$?
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
check fifo_no_reader_exit_1 equals "$RC" 1
check fifo_no_reader_fast within "$el" 0 2
check fifo_no_reader_says_so errors_are "$TMP/f0.err" 'cannot write .*/fifo: a FIFO with no reader \(start its reader first\)'
cat "$D/fifo" >"$TMP/fifo.got" &
R=$!
sleep 0.2
run_sm fifo flamegraph --format folded -o "$D/fifo" "$IN"
wait "$R"
check fifo_reader_exit_0 equals "$RC" 0
check fifo_reader_got_stacks equals "$(cat "$TMP/fifo.got")" "$(cat "$IN")"
check fifo_stays_a_fifo equals "$(kind "$D/fifo")" "fifo"

# --- a block device: refused before anything is opened for writing ---
run_sm blk flamegraph -o "$D/blk" "$IN"
check blk_exit_1 equals "$RC" 1
check blk_refused errors_are "$TMP/blk.err" 'will not write .*/blk: it is a block device'
check blk_stays_a_block_device equals "$(kind "$D/blk")" "block special file"

# --- -o - is standard output ---
run_sm dash flamegraph --format folded -o - "$IN"
check dash_is_stdout equals "$(cat "$TMP/dash.out")" "$(cat "$IN")"

# --- symlinks: to a regular file, the file; to /proc/self/fd/1, stdout ---
echo old >"$TMP/target.folded"
chmod 0640 "$TMP/target.folded"
ln -s target.folded "$TMP/link.folded"
run_sm link flamegraph -o "$TMP/link.folded" "$IN"
check symlink_exit_0 equals "$RC" 0
check symlink_stays_a_link equals "$(kind "$TMP/link.folded")" "symbolic link"
check symlink_target_written equals "$(cat "$TMP/target.folded")" "$(cat "$IN")"
check symlink_target_keeps_mode equals "$(stat -c %a "$TMP/target.folded")" 640
ln -s /proc/self/fd/1 "$TMP/fd1"
run_sm fd1 flamegraph --format folded -o "$TMP/fd1" "$IN"
check fd1_exit_0 equals "$RC" 0
check fd1_stays_a_link equals "$(readlink "$TMP/fd1")" /proc/self/fd/1
check fd1_wrote_stdout equals "$(cat "$TMP/fd1.out")" "$(cat "$IN")"
"$SMOLDER" flamegraph --format folded -o "$TMP/fd1" "$IN" | cat >"$TMP/fd1pipe.out"
check fd1_pipe_wrote_stdout equals "$(cat "$TMP/fd1pipe.out")" "$(cat "$IN")"

# --- a symlink planted by another user in a sticky world-writable dir ---
S=$TMP/sticky
mkdir "$S"
chmod 1777 "$S"
echo precious >"$TMP/victim"
setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$TMP/victim" "$S/out.folded"
setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$TMP" "$S/dir"
run_sm planted flamegraph --format folded -o "$S/out.folded" "$IN"
check planted_exit_1 equals "$RC" 1
check planted_refused errors_are "$TMP/planted.err" "will not write through .*/out\.folded: .* is a symlink of uid 65534 in a sticky world-writable directory"
check planted_victim_intact equals "$(cat "$TMP/victim")" precious
check planted_link_left equals "$(kind "$S/out.folded") $(stat -c %U "$S/out.folded")" "symbolic link nobody"
run_sm planted_dir flamegraph --format folded -o "$S/dir/victim" "$IN"
check planted_dir_refused equals "$RC $(grep -c 'will not write through' "$TMP/planted_dir.err")" "1 1"
check planted_dir_victim_intact equals "$(cat "$TMP/victim")" precious
# our own symlink there is followed
ln -s "$TMP/mine.folded" "$S/mine.folded"
run_sm own flamegraph --format folded -o "$S/mine.folded" "$IN"
check own_symlink_followed equals "$RC $(cat "$TMP/mine.folded" | wc -l)" "0 2"

# --- modes: the umask for new files, the old mode for existing ones ---
(umask 027 && "$SMOLDER" flamegraph -o "$TMP/new.svg" "$IN")
check new_file_gets_umask equals "$(stat -c %a "$TMP/new.svg")" 640
echo x >"$TMP/keep.svg"
chmod 0604 "$TMP/keep.svg"
"$SMOLDER" flamegraph -o "$TMP/keep.svg" "$IN"
check existing_file_keeps_mode equals "$(stat -c %a "$TMP/keep.svg")" 604
check existing_file_rewritten some_line "$TMP/keep.svg" '<svg'

# --- stale temporary files beside a target: a killed run's go, a live writer's stay ---
W=$TMP/w
mkdir "$W"
for t in Stale1 Fresh1 Lockd1 Other1; do head -c 1000 /dev/urandom >"$W/p.svg.tmp.$t"; done
touch -d '-2 hours' "$W/p.svg.tmp.Stale1" "$W/p.svg.tmp.Lockd1" "$W/p.svg.tmp.Other1"
chown nobody "$W/p.svg.tmp.Other1"
flock "$W/p.svg.tmp.Lockd1" sleep 30 &
sleep 0.2
run_sm sweep flamegraph -o "$W/p.svg" "$IN"
check sweep_exit_0 equals "$RC" 0
ls "$W" | sort | tr '\n' ' ' >"$TMP/left"
check sweep_removes_only_stale equals "$(cat "$TMP/left")" "p.svg p.svg.tmp.Fresh1 p.svg.tmp.Lockd1 p.svg.tmp.Other1 "

# --- several -o: each failure one line, the rest written, exit 1 ---
run_sm multi flamegraph -o "$D/full" -o "$TMP/m.svg" -o "$TMP/no/dir/x.folded" \
	-o "$TMP/m.folded" "$IN" 2>/dev/null
check multi_check_refuses_at_start equals "$RC $(wc -l <"$TMP/multi.err")" "1 1"
run_sm multi2 flamegraph -o "$D/full" -o "$TMP/m.svg" -o "$D/fifo" -o "$TMP/m.folded" "$IN"
check multi_exit_1 equals "$RC" 1
check multi_each_failure_one_line equals "$(grep -c '/full: no space' "$TMP/multi2.err") $(grep -c '/fifo: a FIFO with no reader' "$TMP/multi2.err") $(wc -l <"$TMP/multi2.err")" "1 1 2"
check multi_rest_written equals "$(grep -c '<svg' "$TMP/m.svg") $(total "$TMP/m.folded")" "1 4"

# --- the same from a capture: devices stay devices, the rest is written ---
# (with a workload running: an idle machine gives no samples, and an empty
# profile fits even in a full device)
start_wl cpu_split 3 || exit 1
run_sm cap -F 99 -f -o "$D/full" -o "$TMP/cap.folded" -o "$D/null" 1
check capture_exit_1 equals "$RC" 1
check capture_full_one_line equals "$(grep -c '^smolder: cannot write' "$TMP/cap.err")" 1
check capture_rest_written within "$(total "$TMP/cap.folded")" 1 100000
check capture_devices_stay equals "$(kind "$D/full"),$(kind "$D/null")" "character special file,character special file"
run_sm cap_planted -F 99 -f -o "$S/out.folded" 5
check capture_planted_refused_before_sampling equals "$RC $(grep -c 'will not write through' "$TMP/cap_planted.err")" "1 1"
check capture_planted_fast within "$ELAPSED" 0 2
check capture_planted_victim_intact equals "$(cat "$TMP/victim")" precious
