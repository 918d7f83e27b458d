#!/bin/bash
# --serve's fleet labels and cgroup= (issue 25): every sample carries its
# process's cgroup v2 path (label cgroup), as /proc/PID/cgroup says; pid
# and thread labels only with --serve-pid-labels; cgroup=PATH keeps the
# samples of the processes in that cgroup or below it, and a cgroup that
# does not exist is a 400.  cpu_split (burn_a, burn_b) runs in a cgroup
# made here, cpu_time (spin_until, burn) outside it.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_serve.sh"
if ! command -v go >/dev/null || ! command -v curl >/dev/null; then
	fail serve_labels_deps "go or curl not found (scripts/deps.sh installs golang-go)"
	exit 0
fi
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$CG2" ]; then
	fail serve_labels_deps "no cgroup2 mount (mount -t cgroup2 none /sys/fs/cgroup/unified)"
	exit 0
fi
NAME=smolder-test-$$
CG=$CG2/$NAME
mkdir "$CG" "$CG/inner" || exit 1
# processes go back to the root cgroup first: a cgroup with tasks cannot go
at_exit "for p in \$(cat '$CG/inner/cgroup.procs' '$CG/cgroup.procs' 2>/dev/null); do echo \$p >'$CG2/cgroup.procs'; done; kill \$(jobs -p) 2>/dev/null; wait 2>/dev/null; rmdir '$CG/inner' '$CG'"

start_wl cpu_split 60 || exit 1
IN=$WL_PID
echo "$IN" >"$CG/inner/cgroup.procs" || exit 1
start_wl cpu_time 60 || exit 1
OUT=$WL_PID
IN_CG=$(sed -n 's/^0:://p' "/proc/$IN/cgroup")
OUT_CG=$(sed -n 's/^0:://p' "/proc/$OUT/cgroup")
echo "cpu_split $IN in $IN_CG, cpu_time $OUT in $OUT_CG"

# label_values RAW KEY: the distinct values of label KEY in go tool pprof
# -raw's samples ("key:[value]"), one a line
label_values() { grep -oE "(^| )$2:\[[^]]*\]" "$1" | sed -E "s/^ ?$2:\[(.*)\]$/\1/" | sort -u; }
# funcs RAW: the functions of the profile's locations
funcs() { awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 } l && /^ *[0-9]+: 0x/ { print $4 }' "$1" | sort -u; }
# samples RAW: how many sample lines (one per stack and label set)
samples() { awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /^ *[0-9]+ +[0-9]+: /' "$1" | wc -l; }

start_serve s -F 199 || exit 1

# --- cgroup=: the parent of the workload's cgroup holds it ---
go tool pprof -raw "$URL/debug/pprof/profile?seconds=2&cgroup=/$NAME" >"$TMP/in.raw" 2>"$TMP/in.err"
check filter_exit_0 equals "$?" 0
echo "cgroup=/$NAME: $(samples "$TMP/in.raw") samples, cgroups: $(label_values "$TMP/in.raw" cgroup | tr '\n' ' ')"
check filter_has_burn_a some_line <(funcs "$TMP/in.raw") '^burn_a$'
check filter_no_outside no_line <(funcs "$TMP/in.raw") '^spin_until$'
check filter_cgroup_label equals "$(label_values "$TMP/in.raw" cgroup | tr '\n' ' ')" "$IN_CG "
check filter_no_pid_label no_line "$TMP/in.raw" '(^| )pid:'

# --- no filter: each process's cgroup, as /proc/PID/cgroup says ---
go tool pprof -raw "$URL/debug/pprof/profile?seconds=2" >"$TMP/all.raw" 2>"$TMP/all.err"
check all_exit_0 equals "$?" 0
label_values "$TMP/all.raw" cgroup >"$TMP/all.cg"
echo "all: $(samples "$TMP/all.raw") samples, $(wc -l <"$TMP/all.cg") cgroups"
check all_has_inside some_line "$TMP/all.cg" "^$(re_escape "$IN_CG")\$"
check all_has_outside some_line "$TMP/all.cg" "^$(re_escape "$OUT_CG")\$"
check all_has_spin_until some_line <(funcs "$TMP/all.raw") '^spin_until$'
# every sample of a process (not the idle task) has a cgroup
check all_every_sample_labelled equals "$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /^ *[0-9]+ +[0-9]+: / && !/cgroup:\[/ && /process:\[(cpu_split|cpu_time)\]/' "$TMP/all.raw" | wc -l)" 0
check all_no_pid_label no_line "$TMP/all.raw" '(^| )pid:'
check all_no_thread_label no_line "$TMP/all.raw" '(^| )thread:'

# --- a cgroup that is not one: 400, as go tool pprof can print it ---
bad_cgroup() {
	curl -s -D "$TMP/$1.h" -o "$TMP/$1.body" "$URL/debug/pprof/profile?seconds=1&cgroup=$2"
	tr -d '\r' <"$TMP/$1.h" >"$TMP/$1.hdr"
	check "${1}_400" some_line "$TMP/$1.hdr" '^HTTP/1\.1 400 '
	check "${1}_text_plain" some_line "$TMP/$1.hdr" '^Content-Type: text/plain'
	check "${1}_x_go_pprof" some_line "$TMP/$1.hdr" '^X-Go-Pprof: 1$'
	check "${1}_body" some_line "$TMP/$1.body" '^smolder: cgroup must be'
}
bad_cgroup bad_missing "/$NAME-missing"
bad_cgroup bad_relative "$NAME"
bad_cgroup bad_dotdot "/$NAME/../.."
bad_cgroup bad_file "/$NAME/cgroup.procs"
check metrics_cgroup_other equals "$(metric smolder_cgroup_other_samples_total)" 0

stop_serve

# --- the bound: 270 cgroups, a shell in each that burns some CPU once the
# window is open (all at once: they wait on a fifo) and then sleeps, so
# that it is there to be named: at most 256 values, then "other" ---
at_exit "for d in '$CG'/many*; do for p in \$(cat \$d/cgroup.procs 2>/dev/null); do kill \$p; echo \$p >'$CG2/cgroup.procs'; done; done 2>/dev/null; sleep 0.2; rmdir '$CG'/many* 2>/dev/null"
mkfifo "$TMP/go"
for i in $(seq 270); do
	mkdir "$CG/many$i" || break
	sh -c "echo \$\$ >'$CG/many$i/cgroup.procs'; read x <'$TMP/go'; i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done; exec sleep 60" &
done
for i in $(seq 100); do
	[ "$(cat "$CG"/many*/cgroup.procs | wc -l)" -ge 270 ] && break
	sleep 0.1
done
sleep 0.5 # each is then at its read
start_serve b -F 999 || exit 1
go tool pprof -raw "$URL/debug/pprof/profile?seconds=6&cgroup=/$NAME" >"$TMP/many.raw" 2>"$TMP/many.err" &
PP=$!
sleep 1
: >"$TMP/go"
wait "$PP"
label_values "$TMP/many.raw" cgroup >"$TMP/many.cg"
OTHER=$(metric smolder_cgroup_other_samples_total)
echo "270 cgroups: $(wc -l <"$TMP/many.cg") cgroup values, $OTHER samples of \"other\""
check bound_at_most_257_values within "$(wc -l <"$TMP/many.cg")" 2 257
check bound_other_value some_line "$TMP/many.cg" '^other$'
check bound_other_counted within "$OTHER" 1 1000000
stop_serve

# --- --serve-pid-labels: pid and thread labels are back ---
start_serve p -F 199 --serve-pid-labels || exit 1
go tool pprof -raw "$URL/debug/pprof/profile?seconds=2&cgroup=/$NAME" >"$TMP/pid.raw" 2>"$TMP/pid.err"
check pid_option_exit_0 equals "$?" 0
check pid_option_pid_label equals "$(label_values "$TMP/pid.raw" pid | tr '\n' ' ')" "$IN "
check pid_option_cgroup_label equals "$(label_values "$TMP/pid.raw" cgroup | tr '\n' ' ')" "$IN_CG "
stop_serve

# --- a one-shot pprof keeps its pid labels and has the cgroup ones ---
run_sm one -F 199 -p "$IN" -o "$TMP/one.pb.gz" 1
go tool pprof -raw "$TMP/one.pb.gz" >"$TMP/one.raw" 2>/dev/null
check oneshot_pid_label equals "$(label_values "$TMP/one.raw" pid | tr '\n' ' ')" "$IN "
check oneshot_cgroup_label equals "$(label_values "$TMP/one.raw" cgroup | tr '\n' ' ')" "$IN_CG "
