#!/bin/bash
# Hostile Python processes (issue 23), run as nobody from a directory the
# test makes: hostile.py's bigname (a 10 MiB co_name), badname (a name of
# lone surrogates, not UTF-8), deep (1,000 nested calls) and two churns
# (code objects made, renamed and freed in a loop, so addresses are
# reused: "evil" as nobody, "good" beside it), with split.py as root.
# nobody can run only Debian's python3.11 (pyenv's live under /root, mode
# 700): the other versions run the same modes as root, whose bytes are as
# hostile.
# One capture of them all (-p, --python-lines) and one of the machine:
#  - each ends within its duration + 1 s, smolder's peak RSS < 128 MiB;
#  - the output is UTF-8 and no frame is over 64 KiB: the 10 MiB name is
#    cut (its frame starts with A's);
#  - nothing is misnamed across processes: no hostile process shows
#    split.py's or the other churn's functions, and the reverse;
#  - a churned function's line lies within its own source (its first line
#    is 1 + N % 1000): a code object's name comes with its own lines;
#  - deep_leaf, the innermost of 1,000 frames, is named.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"
source "$(dirname "$0")/_python.sh"

need_pythons python_hostile py38 py312 py313 deb311
chmod 755 "$TMP"
cp "$PYDIR/hostile.py" "$TMP/"
chmod 644 "$TMP/hostile.py"
# Nine busy interpreters on two CPUs would starve smolder's own start and
# naming, whatever the processes' frames hold: they run at nice 10, so
# that the bounds measure what their frames and code objects cost, not
# CPU time taken (which any busy process takes from every other).
PY_NICE=10
# start_nobody TAG NAME ARGS...: hostile.py ARGS as nobody with TAG's
# interpreter; waits for "ready"; its PID in PY_PID[NAME].
start_nobody() {
	local tag=$1 name=$2
	shift 2
	start_cmd "$(basename "${PYTHONS[$tag]}")" nice -n "$PY_NICE" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"${PYTHONS[$tag]}" "$TMP/hostile.py" "$@" || exit 1
	PY_PID[$name]=$WL_PID
	wait_for "$WL_OUT" '^ready$' 60 || exit 1
}
# start_root TAG NAME ARGS...: the same as root.
start_root() {
	local tag=$1 name=$2
	shift 2
	start_cmd "$(basename "${PYTHONS[$tag]}")" nice -n "$PY_NICE" "${PYTHONS[$tag]}" \
		"$TMP/hostile.py" "$@" || exit 1
	PY_PID[$name]=$WL_PID
	wait_for "$WL_OUT" '^ready$' 60 || exit 1
}
start_nobody deb311 bigdeb bigname 60
start_nobody deb311 baddeb badname 60
start_nobody deb311 deep deep 60
start_nobody deb311 evil churn 60 evil
start_root py312 big312 bigname 60
start_root py38 bad38 badname 60
start_root py313 bad313 badname 60
start_root py38 good churn 60 good
start_py py313 split.py 60
PY_PID[split]=$WL_PID
all=(bigdeb baddeb deep evil big312 bad38 bad313 good split)

timed_sm p -f -F 499 --per-pid --python-lines -p "$(py_pids "${all[@]}")" 3
bounded python_hostile_pid 3
timed_sm m -f -F 499 --per-pid 3
bounded python_hostile_machine 3
stop_pys

for c in p m; do
	check "python_hostile_${c}_utf8" /usr/bin/python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$TMP/$c.out"
	check "python_hostile_${c}_frames_bounded" equals "$(tr ';' '\n' <"$TMP/$c.out" | awk 'length > 65536' | wc -l)" 0
	for n in "${all[@]}"; do grep -E "^[^;]*-${PY_PID[$n]};" "$TMP/$c.out" >"$TMP/$c.$n"; done
	for n in big312 bigdeb; do
		check "python_hostile_${c}_${n}_name_cut" some_line "$TMP/$c.$n" ';big_caller \(hostile\.py(:[0-9]+)?\);AAAAAAAAAAAAAAAA[^;]* \(hostile\.py'
	done
	for n in bigdeb baddeb deep evil big312 bad38 bad313; do
		check "python_hostile_${c}_${n}_not_others_names" no_line "$TMP/$c.$n" '(^|;)((alpha|beta|gamma|delta|run|main) \(split\.py|good_r?[0-9]+ )'
	done
	check "python_hostile_${c}_good_not_evil" no_line "$TMP/$c.good" '(^|;)evil_r?[0-9]+ |hostile\.py:?[0-9]*\);(big|bad|deep)'
	check "python_hostile_${c}_split_not_hostile" no_line "$TMP/$c.split" 'evil_|good_|big_caller|bad_caller|deep_|AAAAAAAA'
	check "python_hostile_${c}_deep_leaf_named" some_line "$TMP/$c.deep" ';deep_leaf \(hostile\.py(:[0-9]+)?\);'
	check "python_hostile_${c}_bad_caller_named" some_line "$TMP/$c.baddeb" ';bad_caller \(hostile\.py(:[0-9]+)?\);'
done
# churned functions' lines (the -p capture, --python-lines)
for n in evil good; do
	r=$(grep -oE "(^|;)${n}_r?[0-9]+ \(${n}_gen\.py:[0-9]+\)" "$TMP/p.$n" |
		sed -E "s/^;?${n}_r?([0-9]+) \\(${n}_gen\\.py:([0-9]+)\\)/\\1 \\2/" |
		awk '{ t++; first = 1 + $1 % 1000; if ($2 < first || $2 > first + 4) bad++ }
			END { printf "%d %d\n", t, bad }')
	echo "# hostile churn $n: frames with lines, out of their function: $r"
	check "python_hostile_churn_${n}_named" within "${r% *}" 1 1000000
	check "python_hostile_churn_${n}_lines_own" equals "${r#* }" 0
done
