#!/bin/bash
# What a capture's pprof file says besides its stacks, read back by
# go tool pprof: the main binary as the first mapping (cpu_split's path
# and its build id, as readelf reads it; pprof's "File:"), kernel frames
# in a [kernel.kallsyms] mapping, duration_nanos (Duration:) and the
# period, and per-sample labels process, pid, thread and cpu whose totals
# (-tags, -tagfocus) are the folded output's, written by the same capture.
source "$(dirname "$0")/../lib.sh"
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
mkdir -p "$HOME"
if ! command -v go >/dev/null; then
	fail pprof_labels_deps "go not found (scripts/deps.sh installs golang-go)"
	exit 0
fi
pp() { go tool pprof -symbolize=none "$@" 2>>"$TMP/pprof.err"; }

run_sm cap -F 499 --per-thread --per-cpu -o "$TMP/c.pb.gz" -o "$TMP/c.folded" -- "$WL/cpu_split" 2
check capture_exit_0 equals "$RC" 0
# the command's PID, as the folded process frames (comm-PID/TID) say it
P=$(sed -n 's/^cpu_[0-9]*;cpu_split-\([0-9]*\)\/.*/\1/p' "$TMP/c.folded" | sort -u)
pp -raw "$TMP/c.pb.gz" >"$TMP/raw"
BID=$(readelf -n "$WL/cpu_split" | sed -n 's/.*Build ID: //p')
check main_binary_mapping some_line "$TMP/raw" "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $(re_escape "$WL/cpu_split") $BID \[FN\]$"
pp -top "$TMP/c.pb.gz" >"$TMP/top"
check top_names_file some_line "$TMP/top" '^File: cpu_split$'
check top_names_build_id some_line "$TMP/top" "^Build ID: $BID$"
check duration within "$(sed -n 's/^Duration: //p' "$TMP/raw")" 1.8 4
check period equals "$(sed -n 's/^Period: //p' "$TMP/raw")" $((1000000000 / 499))
check period_type equals "$(sed -n 's/^PeriodType: //p' "$TMP/raw")" "cpu nanoseconds"

# -tags in samples: each label's totals are the folded file's
pp -sample_index=samples -tags "$TMP/c.pb.gz" >"$TMP/tags"
N=$(total "$TMP/c.folded")
# tag_total KEY VALUE: the sample count -tags gives KEY=VALUE
tag_total() { awk -v k=" $1:" -v v="$2" '$0 ~ "^" k { on = 1; next } /^ [a-z]+:/ { on = 0 } on && $NF == v { print $1 + 0; exit }' "$TMP/tags"; }
check label_process equals "$(tag_total process cpu_split)" "$(total <(grep -E '^cpu_[0-9]+;cpu_split-' "$TMP/c.folded"))"
check label_pid equals "$(tag_total pid "$P")" "$N"
check label_thread equals "$(tag_total thread "$P")" "$N"
sum=0
for c in $(sed -n 's/^cpu_\([0-9]*\);.*/\1/p' "$TMP/c.folded" | sort -u); do
	want=$(awk -v c="cpu_$c;" 'index($0, c) == 1 { t += $NF } END { print t + 0 }' "$TMP/c.folded")
	check "label_cpu_$c" equals "$(tag_total cpu "$c")" "$want"
	sum=$((sum + want))
done
check label_cpus_cover equals "$sum" "$N"
# -tagfocus filters on them, as fleet backends do
pp -sample_index=samples -tagfocus=pid="$P" -top "$TMP/c.pb.gz" >"$TMP/focus"
check tagfocus_keeps_all some_line "$TMP/focus" "% of $N total$"
pp -sample_index=samples -tagfocus=process=nosuchcomm -top "$TMP/c.pb.gz" >"$TMP/focus0"
check tagfocus_drops_others no_line "$TMP/focus0" 'burn_a'

# kernel stacks of a process that lives in read(2) (no single main binary
# without one command or -p PID: the kernel's mapping comes first): every
# location but the process frame is in the kernel's mapping
start_wl syscall_heavy 5 || exit 1
S=$WL_PID
start_wl cpu_split 5 || exit 1
run_sm k -K -F 199 -p "$S,$WL_PID" -o "$TMP/k.pb.gz" -o "$TMP/k.folded" 1
check kernel_frames_taken some_line "$TMP/k.folded" '^syscall_heavy;.*;'
kill "$S" "$WL_PID"
pp -raw "$TMP/k.pb.gz" >"$TMP/kraw"
check machine_first_mapping_kernel some_line "$TMP/kraw" '^1: .* \[kernel\.kallsyms\] '
sed 's/ [0-9.]*$//' "$TMP/k.folded" | cut -d';' -f1 | sort -u >"$TMP/kprocs"
sed -n '/^Locations/,/^Mappings/p' "$TMP/kraw" | grep -E '^ +[0-9]+: ' |
	awk 'NR == FNR { proc[$0] = 1; next } { n = $0; sub(/^ +[0-9]+: 0x[0-9a-f]+ (M=[0-9]+ )?/, "", n); sub(/ :0 s=0$/, "", n); if (!(n in proc)) print }' "$TMP/kprocs" - >"$TMP/klocs"
check kernel_locations_mapped all_lines "$TMP/klocs" ' M=1 '
# a folded file converted has no capture: no labels, no mappings
run_sm fg flamegraph --format pprof -o "$TMP/f.pb.gz" "$TMP/c.folded"
pp -raw "$TMP/f.pb.gz" >"$TMP/fraw"
check converted_no_labels no_line "$TMP/fraw" 'process:'

# --- speedscope: a profile per process, or per thread, hottest first ---
SCHEMA="$TOP/build/deps/speedscope-file-format-schema.json"
[ -s "$SCHEMA" ] || SCHEMA=- # formats.sh says when it is missing
start_wl threads 15 || exit 1
T=$WL_PID
start_wl cpu_split 15 || exit 1
C=$WL_PID
run_sm ss -F 499 --per-thread -p "$T,$C" -o "$TMP/t.speedscope.json" -o "$TMP/t.folded" 2
/usr/bin/python3 "$TOP/tests/formats/stacks.py" speedscope-profiles "$TMP/t.speedscope.json" "$SCHEMA" >"$TMP/profiles" 2>"$TMP/profiles.err"
# the folded file's totals by process frame (comm-PID/TID), hottest first
awk '{ split($1, f, ";"); t[f[1]] += $NF } END { for (k in t) print t[k] "\t" k }' "$TMP/t.folded" |
	sort -k1,1nr -k2 | awk -F'\t' '{ n = split($2, a, "-"); id = a[n]; name = substr($2, 1, length($2) - length(id) - 1); print name " (" id ")\t" $1 }' >"$TMP/want"
check speedscope_thread_profiles within "$(wc -l <"$TMP/profiles")" 3 64
check speedscope_profiles_are_threads equals "$(sort "$TMP/profiles")" "$(sort "$TMP/want")"
check speedscope_hottest_first equals "$(cut -f2 "$TMP/profiles" | sort -nr | head -n 1)" "$(head -n 1 "$TMP/profiles" | cut -f2)"
check speedscope_profiles_total equals "$(cut -f2 "$TMP/profiles" | awk '{ t += $1 } END { print t }')" "$(total "$TMP/t.folded")"
run_sm sp -F 499 --per-pid -p "$T,$C" -o "$TMP/p.speedscope.json" 1
/usr/bin/python3 "$TOP/tests/formats/stacks.py" speedscope-profiles "$TMP/p.speedscope.json" "$SCHEMA" >"$TMP/pprofiles"
check speedscope_process_profiles equals "$(cut -f1 "$TMP/pprofiles" | sort | tr '\n' ' ')" "$(printf '%s\n' "cpu_split ($C)" "threads ($T)" | sort | tr '\n' ' ')"
