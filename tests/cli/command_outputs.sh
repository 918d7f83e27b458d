#!/bin/bash
# Outputs that do not surprise, as a user meets them:
# - smolder -f -- sh -c 'echo HELLO; ...' > out.folded: the profile holds
#   no HELLO and parses; HELLO is on stderr (with -o FILE, on stdout);
# - -o x.png, -o out.html: one error naming the known names, no file;
#   .report and --format still reach the report;
# - a COMMAND of 0.3 s of CPU gets over 100 samples without -F (499 Hz),
#   -F still rules, and a CPU-bound command loses nothing at that rate.
source "$(dirname "$0")/../lib.sh"

# parses FOLDED: not empty, and every line is "frames COUNT".
parses() { all_lines "$1" '^[^ ;][^;]*(;[^;]+)* [0-9]+$'; }

# ---- the command's output and the profile on standard output ----
SPIN="echo HELLO; echo HELLO-ERR >&2; \"$WL/cpu_split\" 0.3"
run_sm hello -f -- sh -c "$SPIN"
check out_cmd_exit_0 equals "$RC" 0
check out_hello_not_in_profile no_line "$TMP/hello.out" 'HELLO'
check out_profile_parses parses "$TMP/hello.out"
check out_profile_has_command some_line "$TMP/hello.out" '^cpu_split;'
check out_hello_on_stderr some_line "$TMP/hello.err" '^HELLO$'
check out_hello_err_on_stderr some_line "$TMP/hello.err" '^HELLO-ERR$'
check out_said_once equals "$(grep -c "^smolder: the command's output goes to standard error" "$TMP/hello.err")" 1
# "-o -" is standard output too
run_sm dash -f -o - -- sh -c "$SPIN"
check out_dash_hello_not_in_profile no_line "$TMP/dash.out" 'HELLO'
check out_dash_parses parses "$TMP/dash.out"
# with -o FILE the command keeps its standard output, and nothing is said
run_sm file -f -o "$TMP/file.folded" -- sh -c "$SPIN"
check out_file_hello_on_stdout equals "$(cat "$TMP/file.out")" HELLO
check out_file_parses parses "$TMP/file.folded"
check out_file_not_said no_line "$TMP/file.err" 'standard error'

# ---- output names smolder does not know ----
for name in x.png out.html; do
	rm -f "$TMP/$name"
	run_sm "bad-$name" -F 99 -o "$TMP/$name" 1
	check "out_unknown_${name/./_}_refused" equals "$RC $(one_error "$TMP/bad-$name.err" >/dev/null && echo one-line)" "2 one-line"
	check "out_unknown_${name/./_}_names_forms" some_line "$TMP/bad-$name.err" \
		"^smolder: cannot write .*$name: unknown output format \(use \.folded, \.txt, \.svg, \.speedscope\.json, \.pb\.gz, \.report or \.summary, or --format\)$"
	check "out_unknown_${name/./_}_no_file" equals "$(ls "$TMP" | grep -c "^$name")" 0
done
start_wl cpu_split 30 || exit 1
run_sm rep -F 499 -p "$WL_PID" -o "$TMP/r.report" -o "$TMP/r.png" --format report 1
check out_report_by_format_exit_0 equals "$RC" 0
for f in r.report r.png; do
	# bcc's layout: frames, "    -   comm (PID)", then the count
	check "out_report_${f/./_}" some_line "$TMP/$f" "^    -  +cpu_split \($WL_PID\)$"
done
run_sm rep2 -F 499 -p "$WL_PID" -o "$TMP/r2.report" 1
check out_report_by_name some_line "$TMP/r2.report" "^    -  +cpu_split \($WL_PID\)$"
kill "$WL_PID" 2>/dev/null

# ---- the rate of a COMMAND ----
# cpu_of TIMEFILE: the command's CPU seconds (user + system), as
# /usr/bin/time measured them; samples_near ERRFILE CPU HZ: the summary's
# samples are CPU seconds at HZ (15% for the start and the timer's slack).
cpu_of() { awk '{ print $1 + $2 }' "$1"; }
samples_near() {
	within "$(summary_samples "$1")" "$(awk -v c="$2" -v f="$3" 'BEGIN { printf "%d", c * f * 0.85 }')" \
		"$(awk -v c="$2" -v f="$3" 'BEGIN { printf "%d", c * f * 1.15 + 10 }')"
}
# cpu_time spins for 0.3 s of its own CPU time, however loaded the machine.
run_sm rate -f -- /usr/bin/time -f '%U %S' -o "$TMP/rate.time" "$WL/cpu_time" 0.3
cpu=$(cpu_of "$TMP/rate.time")
n=$(summary_samples "$TMP/rate.err")
echo "# a command of $cpu s of CPU: ${n:-?} samples"
check rate_command_exit_0 equals "$RC" 0
check rate_command_100_samples within "${n:-0}" 100 100000
check rate_command_499hz samples_near "$TMP/rate.err" "$cpu" 499
check rate_command_none_lost equals "$(summary_lost "$TMP/rate.err")" 0
check rate_command_profile some_line "$TMP/rate.out" '^cpu_time;.*main;spin_until'
run_sm rate49 -f -F 49 -- /usr/bin/time -f '%U %S' -o "$TMP/rate49.time" "$WL/cpu_time" 0.3
# at most 49 Hz's share of its CPU time (a few samples: the slack is wide,
# still a tenth of what 499 Hz takes)
check rate_F_overrides within "$(summary_samples "$TMP/rate49.err")" 1 \
	"$(awk -v c="$(cpu_of "$TMP/rate49.time")" 'BEGIN { printf "%d", c * 49 * 1.5 + 3 }')"

# A CPU-bound command on every CPU, through 10,000 distinct stacks, at
# the command's rate: every sample kept.
run_sm loss -f -- /usr/bin/time -f '%U %S' -o "$TMP/loss.time" "$WL/many_stacks" 4
cpu=$(cpu_of "$TMP/loss.time")
echo "# many_stacks 4 s as a command: $cpu s of CPU, $(summary_samples "$TMP/loss.err") samples, $(summary_lost "$TMP/loss.err") lost"
check rate_command_loss_exit_0 equals "$RC" 0
check rate_command_many_499hz samples_near "$TMP/loss.err" "$cpu" 499
check rate_command_many_none_lost equals "$(summary_lost "$TMP/loss.err")" 0
