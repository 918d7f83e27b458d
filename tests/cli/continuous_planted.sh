#!/bin/bash
# Continuous mode in an output directory other users can write, attacked
# by user nobody, who plants nodes at the names smolder will choose
# (build/workloads/planter: one a millisecond, 3 s ahead of the clock):
# - FIFOs held open for reading with a 4 KiB buffer, in a sticky
#   world-writable directory: smolder never blocks, writes every interval
#   as a file of its own beside them, puts not a byte into a FIFO, and
#   SIGTERM ends it within 1 s;
# - symlinks to a root-only file: in a sticky directory every interval is
#   written beside them and the file stays as it was; a world-writable
#   directory without the sticky bit is refused at once;
# - future-dated names, three empty files (--keep 3) or one of 1 GiB
#   (--max-size 1): only profiles smolder wrote are counted and removed,
#   each removal is named with -v and counted in the summary, and the
#   planted files and a root file smolder did not write stay;
# - 100,000 future-dated files: every interval is still written on time
#   (the directory is not listed while running).
# Every run ends within 1 s of its duration with RSS under 128 MiB (a run
# still going 6 s after its duration is killed, and fails).
source "$(dirname "$0")/../lib.sh"

NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
SHAPE='^smolder-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z(-[A-Za-z0-9]{6})?\.folded$'
chmod 755 "$TMP"
start_wl many_stacks 120 1 || exit 1
W=$WL_PID

# guarded NAME DURATION SETUP ARGS...: SETUP (it makes the directory $D and
# plants what it holds), then smolder ARGS --output-dir $D DURATION,
# SIGKILLed 6 s after its duration; RC, ELAPSED and RSS_KIB as timed_sm
# (_hostile.sh) sets them.  A run that ended by itself but late (a loaded
# machine) is taken again, SETUP and all, up to 3 times.
guarded() {
	local name=$1 secs=$2 setup=$3 try t0 t1
	shift 3
	for try in 1 2 3; do
		$setup "$name.$try"
		t0=$(date +%s.%N)
		/usr/bin/time -f %M -o "$TMP/$name.rss" timeout -s KILL "$((secs + 6))" \
			"$SMOLDER" "$@" --output-dir "$D" "$secs" >"$TMP/$name.out" 2>"$TMP/$name.err"
		RC=$?
		t1=$(date +%s.%N)
		ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }')
		RSS_KIB=$(tail -n 1 "$TMP/$name.rss")
		[ "$RC" = 137 ] || between "$ELAPSED" 0 "$((secs + 1))" && return
		echo "# $name: ended by itself but late, in $ELAPSED s (try $try)"
	done
}
# term_guarded NAME AFTER ARGS...: smolder ARGS in the background, SIGTERM
# after AFTER s (AFTER "first": half a second after its first profile is in
# $D, mid-way through the second interval however long starting took);
# TERM_TOOK is how long it took to exit from there, 99 when it had not
# after 5 s (then it is SIGKILLed).
term_guarded() {
	local name=$1 after=$2 sm t0 i
	shift 2
	"$SMOLDER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	sm=$!
	if [ "$after" = first ]; then
		for ((i = 0; i < 1500 && $(ours "$D" | wc -l) == 0; i++)); do sleep 0.02; done
		sleep 0.5
	else
		sleep "$after"
	fi
	t0=$(date +%s.%N)
	kill -TERM "$sm"
	TERM_TOOK=99
	for ((i = 0; i < 250; i++)); do
		if ! kill -0 "$sm" 2>/dev/null || [ "$(ps -o stat= -p "$sm")" = Z ]; then
			TERM_TOOK=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }')
			break
		fi
		sleep 0.02
	done
	[ "$TERM_TOOK" = 99 ] && kill -KILL "$sm"
	wait "$sm"
	RC=$?
}
# plant SECONDS MODE [FILE]: planter as nobody in $D, SECONDS ahead of the
# clock (a planter still running goes first); sets PL (its pid) and
# PL_OUT.  stop_planter ends it and sets PLANTED (how many names it took)
# and UNREAD (the bytes its FIFOs got).
PL=
plant() {
	stop_planter
	start_cmd planter "${NOBODY[@]}" "$WL/planter" "$D" .folded "$@" || exit 1
	PL=$WL_PID
	PL_OUT=$WL_OUT
	wait_for "$PL_OUT" '^ready [0-9]+$' 30 || exit 1
}
stop_planter() {
	[ -n "$PL" ] || return 0
	kill -TERM "$PL"
	wait "$PL"
	PL=
	PLANTED=$(sed -nE 's/^planted ([0-9]+), .*/\1/p' "$PL_OUT")
	UNREAD=$(sed -nE 's/^planted [0-9]+, unread ([0-9]+) bytes .*/\1/p' "$PL_OUT")
	echo "# planter: $(tail -n 1 "$PL_OUT")"
}
# shared_dir NAME MODE: a new directory $D of that mode
shared_dir() { D=$TMP/$1; mkdir "$D" && chmod "$2" "$D"; }
# ours DIR: smolder's profiles in DIR: regular files of root, of its shape.
ours() { find "$1" -maxdepth 1 -type f -user root -printf '%f\n' | grep -E "$SHAPE" | grep -v '^smolder-2000'; }
sum_ours() { (cd "$1" && ours . | xargs -r cat) | awk '{ t += $NF } END { print t + 0 }'; }
# written_all NAME DIR: every sample counted is in a file of DIR, none lost
written_all() {
	local s l
	s=$(summary_samples "$TMP/$1.err")
	l=$(summary_lost "$TMP/$1.err")
	[ "${l:-x}" = 0 ] || { echo "lost '$l' (want 0): $(grep -m 3 -E 'cannot|lost' "$TMP/$1.err" | tr '\n' ' ' | head -c 300)"; return 1; }
	equals "$(sum_ours "$2")" "$s"
}
# bounds NAME DURATION: ends within 1 s of its duration, RSS under 128 MiB
bounds() {
	check "${1}_ends_in_time" within "$ELAPSED" 0 "$(($2 + 1))"
	check "${1}_rss_under_128MiB" within "${RSS_KIB:-0}" 1 $((128 * 1024))
	echo "# $1: rc $RC, ${ELAPSED} s, peak RSS $((${RSS_KIB:-0} / 1024)) MiB, $(ours "$D" | wc -l) profiles"
}

# --- FIFOs at every name, 3 s ahead, sticky world-writable dir ---
fifo_dir() { shared_dir "$1" 1777; plant 3 fifo; }
guarded fifo 3 fifo_dir --continuous --interval 1 -F 99 -p "$W"
check fifo_exit_0 equals "$RC" 0
bounds fifo 3
check fifo_every_interval_written within "$(ours "$D" | wc -l)" 3 4
check fifo_every_sample_written written_all fifo "$D"
check fifo_taken_names_said some_line "$TMP/fifo.err" '^smolder: .*smolder-[0-9T.]+Z\.folded is taken by a fifo of uid 65534'
stop_planter
check fifo_fifos_stay equals "$(find "$D" -maxdepth 1 -type p -user nobody | wc -l)" "$PLANTED"
check fifo_not_a_byte_in_a_fifo equals "$UNREAD" 0
# SIGTERM after the first interval, whose profile is well over 4 KiB
fifo_dir fifoterm
term_guarded fifoterm first --continuous --interval 1 --output-dir "$D" -F 99 -p "$W"
check fifo_sigterm_ends_within_1s within "$TERM_TOOK" 0 1
check fifo_sigterm_exit_0 equals "$RC" 0
echo "# fifo: SIGTERM ended it in ${TERM_TOOK} s (rc $RC), $(ours "$D" | wc -l) profiles"
check fifo_sigterm_intervals_written within "$(ours "$D" | wc -l)" 2 3
stop_planter
check fifo_sigterm_not_a_byte_in_a_fifo equals "$UNREAD" 0

# --- symlinks to a root-only file, 3 s ahead ---
S=$TMP/secret
mkdir -m 700 "$S"
echo "root-only file, not to be written" >"$S/target"
chmod 600 "$S/target"
target_was=$(stat -c '%i %s %Y' "$S/target"; cat "$S/target")
target_same() { equals "$(stat -c '%i %s %Y' "$S/target"; cat "$S/target")" "$target_was"; }
links_to() { find "$1" -maxdepth 1 -type l -user nobody -lname "$S/target" | wc -l; }

# in a sticky world-writable directory: written beside them
links_dir() { shared_dir "$1" 1777; plant 3 symlink "$S/target"; }
guarded links 3 links_dir --continuous --interval 1 -F 99 -p "$W"
check links_exit_0 equals "$RC" 0
bounds links 3
check links_target_unchanged target_same
check links_every_interval_written within "$(ours "$D" | wc -l)" 3 4
check links_every_sample_written written_all links "$D"
stop_planter
check links_stay equals "$(links_to "$D")" "$PLANTED"

# in a world-writable directory without the sticky bit: refused
open_dir() { shared_dir "$1" 0777; plant 3 symlink "$S/target"; }
guarded open 3 open_dir --continuous --interval 1 -F 99 -p "$W"
check open_target_unchanged target_same
check open_dir_refused equals "$RC" 1
check open_refused_at_once within "$ELAPSED" 0 1
check open_refusal_one_line one_error "$TMP/open.err"
check open_refusal_names_fix some_line "$TMP/open.err" 'sticky bit.*chmod'
check open_nothing_written equals "$(ours "$D" | wc -l)" 0
stop_planter
check open_links_stay equals "$(links_to "$D")" "$PLANTED"

# --- future-dated names: --keep counts and removes only smolder's own ---
# removed_named NAME DIR N: N "removed" lines (-v), each naming a profile
# now gone
removed_named() {
	local f n=0
	for f in $(sed -nE 's/^smolder: removed (smolder-[^ ]+) .*/\1/p' "$TMP/$1.err"); do
		[ -e "$2/$f" ] && { echo "$f was reported removed but is there"; return 1; }
		n=$((n + 1))
	done
	equals "$n" "$3"
}
summary_removed() { sed -nE 's/^smolder: ([0-9]+) profiles written to .*, ([0-9]+) old ones removed$/\2/p' "$TMP/$1.err"; }
summary_written() { sed -nE 's/^smolder: ([0-9]+) profiles written to .*/\1/p' "$TMP/$1.err"; }
keep_dir() {
	shared_dir "$1" 1777
	for i in 1 2 3; do "${NOBODY[@]}" touch "$D/smolder-2999123${i}T235959.000Z.folded"; done
	echo "a root file smolder did not write" >"$D/smolder-20000101T000000.000Z.folded"
}
guarded keep 3 keep_dir -v --continuous --interval 0.5 --keep 3 -F 49 -p "$W"
check keep_exit_0 equals "$RC" 0
bounds keep 3
n=$(summary_written keep)
check keep_wrote_every_interval within "${n:-0}" 5 7
check keep_keeps_newest_3_of_its_own equals "$(ours "$D" | wc -l)" 3
check keep_planted_stay equals "$(find "$D" -user nobody -name 'smolder-2999*' | wc -l)" 3
check keep_other_root_file_stays test -e "$D/smolder-20000101T000000.000Z.folded"
check keep_summary_counts_removed equals "$(summary_removed keep)" "$((${n:-0} - 3))"
check keep_each_removal_named removed_named keep "$D" "$((${n:-0} - 3))"

# --- one 1 GiB future-dated file: --max-size counts only smolder's own ---
maxsize_dir() { shared_dir "$1" 1777; "${NOBODY[@]}" truncate -s 1G "$D/smolder-29991231T235959.000Z.folded"; }
guarded maxsize 3 maxsize_dir -v --continuous --interval 0.5 --max-size 1 -F 49 -p "$W"
check maxsize_exit_0 equals "$RC" 0
bounds maxsize 3
n=$(summary_written maxsize)
check maxsize_wrote_every_interval within "${n:-0}" 5 7
check maxsize_keeps_all_of_its_own equals "$(ours "$D" | wc -l)" "${n:-x}"
check maxsize_planted_stays equals "$(stat -c '%U %s' "$D/smolder-29991231T235959.000Z.folded")" "nobody 1073741824"
check maxsize_summary_none_removed equals "$(summary_removed maxsize)" 0

# --- 100,000 future-dated files (a tmpfs of our own, to plant them fast):
# the directory is never listed while running, so every interval is on
# time, and --keep counts only smolder's own ---
M=$TMP/crowded
mkdir "$M" && mount -t tmpfs -o size=64m,nr_inodes=200k,mode=1777 tmpfs "$M" ||
	{ fail crowded_mount "cannot mount a tmpfs"; exit 0; }
at_exit "umount -l '$M'"
crowded_dir() { D=$M/$1; mkdir "$D" && chmod 1777 "$D" && plant 100 future; }
guarded crowded 3 crowded_dir -v --continuous --interval 0.5 --keep 3 -F 49 -p "$W"
check crowded_exit_0 equals "$RC" 0
bounds crowded 3
n=$(summary_written crowded)
check crowded_wrote_every_interval within "${n:-0}" 5 7
check crowded_keeps_newest_3_of_its_own equals "$(ours "$D" | wc -l)" 3
stop_planter
check crowded_planted_stay equals "$(find "$D" -user nobody -name 'smolder-2999*' | wc -l)" "$PLANTED"
