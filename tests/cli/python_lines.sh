#!/bin/bash
# Line numbers (issue 23): lines.py's hot() spends nearly all its time on
# the line marked HOT-LINE, called from main on the line marked CALL-LINE
# (lines.py --selfcheck: 98-100% on each).  Under every CPython:
#  - --python-lines: hot's most sampled line is HOT-LINE (>= 70% of its
#    samples), main's is CALL-LINE (>= 90%);
#  - pprof (same processes, no option): go tool pprof -list shows hot's
#    samples on HOT-LINE, main's on CALL-LINE;
#  - speedscope: hot's frame carries lines.py and a line of hot().
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_python.sh"

marked() { grep -n "# $1\$" "$PYDIR/lines.py" | cut -d: -f1; }
HOT=$(marked HOT-LINE)
CALL=$(marked CALL-LINE)
DEF=$(grep -n '^def hot(' "$PYDIR/lines.py" | cut -d: -f1)
need_pythons python_lines
for tag in "${PY_TAGS[@]}"; do start_py "$tag" lines.py 60; done
sleep 0.7

run_sm l -f -F 999 --per-pid --python-lines -p "$(py_pids "${PY_TAGS[@]}")" 4
check python_lines_exit_0 sm_ok l
# pprof and speedscope, one process at a time (pprof merges equal
# functions of the processes: one file each keeps them apart)
for tag in "${PY_TAGS[@]}"; do
	run_sm "p_$tag" -F 999 -p "${PY_PID[$tag]}" -o "$TMP/$tag.pb.gz" -o "$TMP/$tag.speedscope.json" 1.5
	check "python_lines_pprof_${tag}_exit_0" sm_ok "p_$tag"
done
stop_pys
for tag in "${PY_TAGS[@]}"; do
	proc=$(proc_re "${PY_PID[$tag]}")
	h=$($PF lines "$TMP/l.out" --proc "$proc" 'hot (lines.py)')
	m=$($PF lines "$TMP/l.out" --proc "$proc" 'main (lines.py)')
	echo "# lines $tag: hot (HOT-LINE $HOT): $h; main (CALL-LINE $CALL): $m"
	check "python_lines_${tag}_hot_sampled" within "$(fig with "$h")" 100 1000000
	check "python_lines_${tag}_hot_line" equals "$(fig top "$h")" "$HOT"
	check "python_lines_${tag}_hot_line_share" within "$(fig share "$h")" 70 100
	check "python_lines_${tag}_call_line" equals "$(fig top "$m")" "$CALL"
	check "python_lines_${tag}_call_line_share" within "$(fig share "$m")" 90 100
done

# --- pprof and speedscope ---
# list_top FILE FUNC: the line of FUNC's listing with the most samples
# (flat for hot, the leaf; cum for main), as "LINE COUNT".
list_top() {
	awk -v col="$3" '
		# a listing value ("103.10ms", "1.01s", ".") in milliseconds
		function ms(v) {
			if (v == ".") return 0
			if (v ~ /ms$/) return v + 0
			if (v ~ /us$/) return v / 1000
			if (v ~ /ns$/) return v / 1e6
			if (v ~ /s$/) return v * 1000
			return v + 0
		}
		/^ROUTINE/ { on = 1; next }
		on && match($0, /^ +[0-9.]+[a-z]*|^ +\./) && $3 ~ /^[0-9]+:/ {
			v = ms($col); ln = $3; sub(/:.*/, "", ln)
			if (v > best) { best = v; top = ln } }
		END { print top + 0, best + 0 }' "$1"
}
for tag in "${PY_TAGS[@]}"; do
	go tool pprof -symbolize=none -source_path "$PYDIR" -list '^hot$' "$TMP/$tag.pb.gz" >"$TMP/$tag.hot.list" 2>&1
	go tool pprof -symbolize=none -source_path "$PYDIR" -list '^main$' "$TMP/$tag.pb.gz" >"$TMP/$tag.main.list" 2>&1
	read -r hl hn <<<"$(list_top "$TMP/$tag.hot.list" hot 1)"
	read -r ml mn <<<"$(list_top "$TMP/$tag.main.list" main 2)"
	echo "# pprof -list $tag: hot's top line $hl ($hn samples), main's $ml ($mn)"
	check "python_lines_pprof_${tag}_hot_line" equals "$hl" "$HOT"
	check "python_lines_pprof_${tag}_call_line" equals "$ml" "$CALL"
	check "python_lines_pprof_${tag}_source_shown" some_line "$TMP/$tag.hot.list" "^ +[0-9.]+[a-z]* +[0-9.]+[a-z]* +$HOT:.*# HOT-LINE\$"
	ss=$(/usr/bin/python3 - "$TMP/$tag.speedscope.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(print("unreadable: %s" % e))
hot = [f for f in doc["shared"]["frames"] if f["name"].split(" (")[0] == "hot"]
print(" ".join("%s:%s" % (f.get("file", "-"), f.get("line", "-")) for f in hot) or "none")
PY
)
	echo "# speedscope $tag: hot frames at $ss"
	check "python_lines_speedscope_${tag}_file_line" within \
		"$(sed -nE 's/^[^ ]*lines\.py:([0-9]+)( .*)?$/\1/p' <<<"$ss")" "$DEF" "$HOT"
done
