#!/bin/bash
# What an off-CPU graph shows, as a user opening it sees it.
#  - Waiting has a palette of its own: in the SVG of offcpu_split (which
#    computes, sleeps and reads a pipe), every frame from an [off-cpu:*]
#    marker up (the waker's too) is drawn in the waiting palette's colours,
#    and no other frame is.
#  - --wakers names a timer's wakeup woken-by-timer, one frame: the timer
#    interrupt's chain (hrtimer_interrupt, __hrtimer_run_queues, ...) is the
#    same on every sleep.
#  - smolder does not profile itself: a whole-machine --off-cpu capture has
#    no stack of its own process (its ring-buffer waits were once the widest
#    tower), unless -p names it.
source "$(dirname "$0")/../lib.sh"

# ---- the waiting palette ----
# svg_colors SVG: "W|R name fill" per frame, W for a frame at or above an
# [off-cpu:*] marker, R for the others; the tree is read back from the
# drawing as the page's script reads it (children first, root last).
svg_colors() {
	python3 - "$1" <<'PY'
import re, sys
doc = open(sys.argv[1], encoding="utf-8").read()
frames = re.findall(r'<g><title>(.*?) \([\d,.]+ [^()]*\)</title><rect x="[\d.]+" y="(\d+)"'
                    r'[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', doc)
root_y = int(frames[-1][1])
done, out = [], []
for name, y, r, g, b in frames:
    f = {"name": name, "depth": (root_y - int(y)) // 16, "kids": [], "rgb": (r, g, b)}
    while done and done[-1]["depth"] > f["depth"]:
        f["kids"].append(done.pop())
    done.append(f)
def walk(f, waiting):
    waiting = waiting or f["name"].startswith("[off-cpu:")
    out.append("%s %s %s" % ("W" if waiting else "R", f["name"].replace(" ", "_"), ",".join(f["rgb"])))
    for k in f["kids"]:
        walk(k, waiting)
walk(done[-1], False)
print("\n".join(out))
PY
}
# The waiting palette: red 70..110, green red + 70, blue 210..250 (svg.c).
waiting_rgb() { awk -F, '{ exit !($1 >= 70 && $1 <= 110 && $2 == $1 + 70 && $3 >= 210 && $3 <= 250) }' <<<"$1"; }
# all_waiting LIST / none_waiting LIST: every / no frame of "name rgb" lines
# has a waiting colour.
all_waiting() {
	local name rgb n=0
	while read -r name rgb; do
		n=$((n + 1))
		waiting_rgb "$rgb" || { echo "$name is rgb($rgb), not a waiting colour"; return 1; }
	done <<<"$1"
	[ "$n" -gt 0 ] || { echo "no waiting frames"; return 1; }
}
none_waiting() {
	local name rgb
	while read -r name rgb; do
		! waiting_rgb "$rgb" || { echo "$name (running) is rgb($rgb), a waiting colour"; return 1; }
	done <<<"$1"
}

for colors in "" kernel; do
	x=${colors:+_$colors}
	run_sm "pal$x" --off-cpu --wakers -F 499 ${colors:+--colors $colors} -o "$TMP/pal$x.svg" \
		-- "$WL/offcpu_split" 2
	check "offcpu_palette${x}_exit_0" equals "$RC" 0
	svg_colors "$TMP/pal$x.svg" >"$TMP/pal$x.colors"
	waiting=$(sed -n 's/^W //p' "$TMP/pal$x.colors")
	running=$(sed -n 's/^R //p' "$TMP/pal$x.colors")
	echo "palette$x: $(grep -c '^W' "$TMP/pal$x.colors") waiting frames, $(grep -c '^R' "$TMP/pal$x.colors") running"
	# the graph holds both: doze's sleep and compute's running
	check "offcpu_palette${x}_has_both" equals "$(grep -cE '^W \[off-cpu:S\]' "$TMP/pal$x.colors" |
		awk '{ print ($1 > 0) }') $(grep -cE '^R compute ' "$TMP/pal$x.colors" | awk '{ print ($1 > 0) }')" "1 1"
	check "offcpu_palette${x}_waiting_frames" all_waiting "$waiting"
	check "offcpu_palette${x}_running_frames" none_waiting "$running"
done

# ---- --wakers: a timer's wakeup is one frame ----
# doze's 50 ms nanosleeps end by the timer interrupt; the waiting stacks
# under doze end in "[off-cpu:S];woken-by-timer" (a sleep still going on at
# the end has no waker: "[off-cpu:S]" alone).
run_sm timer --off-cpu --wakers -F 499 -f -- "$WL/offcpu_split" 2
F=$TMP/timer.out
check offcpu_wakers_timer_exit_0 equals "$RC" 0
grep -E ';doze;.*\[off-cpu:S\];' "$F" >"$TMP/doze" || true
check offcpu_wakers_timer_woken some_line "$TMP/doze" '\[off-cpu:S\];woken-by-timer [0-9]+$'
check offcpu_wakers_timer_one_frame all_lines "$TMP/doze" '\[off-cpu:S\];woken-by-timer [0-9]+$'
check offcpu_wakers_timer_no_chain no_line "$F" '\[off-cpu:.\];.*(hrtimer_interrupt|__hrtimer_run_queues|hrtimer_wakeup)'
# a task's wakeup keeps its stack: the pipe's writer
check offcpu_wakers_task_keeps_stack some_line "$F" ';wait_pipe;.*\[off-cpu:S\];woken-by:pipe_writer;.*pipe_write'

# ---- smolder leaves itself out ----
# The whole machine, per process: smolder's own pid has no stack, waiting
# (its reads of the ring buffer and its sleeps) or running.  Other
# smolders (other users' captures) are other processes, and may be there.
"$SMOLDER" --off-cpu --per-pid -F 499 -f 2 >"$TMP/self.out" 2>"$TMP/self.err" &
SELF=$!
wait "$SELF"
check offcpu_self_exit_0 equals "$?" 0
check offcpu_self_captured some_line "$TMP/self.out" '\[off-cpu:[SD]\] [0-9]+$'
check offcpu_self_left_out no_line "$TMP/self.out" "^[^;]*-$SELF;"
echo "self: $(grep -c "^[^;]*-$SELF;" "$TMP/self.out") stacks of smolder's own pid $SELF," \
	"$(awk -v p="-$SELF;" 'index($0, p) { t += $NF } END { print t + 0 }' "$TMP/self.out") us"
# -p naming smolder itself profiles it (sh's pid is smolder's after exec)
sh -c 'exec "$0" --off-cpu --per-pid -F 499 -f -p $$ 2' "$SMOLDER" >"$TMP/named.out" 2>"$TMP/named.err" &
NAMED=$!
wait "$NAMED"
check offcpu_self_named_exit_0 equals "$?" 0
check offcpu_self_named_profiled some_line "$TMP/named.out" "^smolder-$NAMED;.*\[off-cpu:[SD]\] [0-9]+$"
