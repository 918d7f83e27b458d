#!/bin/bash
# Pictures that say what they show (issue 24): a capture's SVG subtitle,
# speedscope name and pprof comment name the command, the duration, the
# rate, the host, the kernel, and the sample and lost counts; the counts
# are the folded total of the same run (a second -o), the duration the
# time the command ran, the start the time it was launched.  A foreign
# folded file's subtitle names the file and its sample count.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../check/_formats.sh"

t0=$(date +%s)
run_sm cap -F 199 -o "$TMP/c.svg" -o "$TMP/c.folded" -o "$TMP/c.speedscope.json" \
	-o "$TMP/c.pb.gz" -- "$WL/cpu_split" 2
ok_or_err capture_exit_0 "$RC" "$TMP/cap.err"
N=$(total "$TMP/c.folded")
sed -n 's/.*<text id="subtitle"[^>]*>\([^<]*\)<.*/\1/p' "$TMP/c.svg" >"$TMP/sub"
echo "# subtitle: $(cat "$TMP/sub")"
sub=$(cat "$TMP/sub")
# "-- CMD ARGS, 2026-11-28 10:02:00Z, 2.00 s at 199 Hz on HOST (Linux REL): N samples, M lost"
check subtitle_names_command some_line "$TMP/sub" "^-- $(re_escape "$WL/cpu_split") 2, "
check subtitle_samples_equal_folded_total equals "$(sed -nE 's/.*: ([0-9]+) samples, [0-9]+ lost$/\1/p' "$TMP/sub")" "$N"
check subtitle_lost_is_summary_lost equals "$(sed -nE 's/.* ([0-9]+) lost$/\1/p' "$TMP/sub")" "$(summary_lost "$TMP/cap.err")"
check subtitle_duration within "$(sed -nE 's/.*, ([0-9.]+) s at .*/\1/p' "$TMP/sub")" 1.9 2.6
check subtitle_rate some_line "$TMP/sub" ' at 199 Hz '
check subtitle_host_kernel some_line "$TMP/sub" " on $(re_escape "$(uname -n)") \(Linux $(re_escape "$(uname -r)")\): "
start=$(sed -nE 's/.*, ([0-9-]+ [0-9:]+Z), .*/\1/p' "$TMP/sub")
check subtitle_start within "$(date -u -d "${start% *}T${start#* }" +%s 2>/dev/null || echo x)" "$t0" "$((t0 + 2))"
# and what the summary counted, the lost ones aside
check subtitle_samples_equal_summary equals "$N" "$(($(summary_samples "$TMP/cap.err") - $(summary_lost "$TMP/cap.err")))"
check some_samples within "$N" 20 100000

# speedscope's name: the profile's, then the same line
name=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$TMP/c.speedscope.json")
check speedscope_name_is_subtitle equals "$name" "smolder ($sub)"
# pprof: a comment holding the same line (go tool pprof -raw: "Comment: ..."),
# and time_nanos the start
if command -v go >/dev/null; then
	go tool pprof -symbolize=none -raw "$TMP/c.pb.gz" >"$TMP/raw" 2>"$TMP/raw.err"
	check pprof_comment_is_subtitle some_line "$TMP/raw" "^Comment: $(re_escape "$sub")$"
	ptime=$(sed -n 's/^Time: \([0-9-]* [0-9:]*\).*/\1/p' "$TMP/raw")
	check pprof_time_is_start equals "$(date -u -d "$ptime" +%Y-%m-%d\ %H:%M:%S 2>&1)Z" "$start"
else
	fail pprof_comment_is_subtitle "go not found (scripts/deps.sh installs golang-go)"
fi

# -p: the targets as given
start_wl cpu_split 4 || exit 1
run_sm p -F 99 -p "$WL_PID" -o "$TMP/p.svg" 1
check subtitle_names_pid some_line "$TMP/p.svg" "<text id=\"subtitle\"[^>]*>-p $WL_PID, "
# --subtitle still wins
run_sm own -F 99 -p "$WL_PID" --subtitle "mine" -o "$TMP/own.svg" 1
check own_subtitle_kept some_line "$TMP/own.svg" '<text id="subtitle"[^>]*>mine</text>'

# a foreign folded file: its name and its sample count
printf 'main;a 5\nmain;b 7\n' >"$TMP/foreign.folded"
run_sm fg flamegraph -o "$TMP/f.svg" "$TMP/foreign.folded"
check foreign_subtitle some_line "$TMP/f.svg" "<text id=\"subtitle\"[^>]*>$(re_escape "$TMP/foreign.folded"): 12 samples</text>"
