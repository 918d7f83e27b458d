#!/bin/bash
# Cross-check with perf's own Python frames (issue 23): CPython 3.12 and
# 3.13 run with -X perf route every Python call through a trampoline that
# /tmp/perf-PID.map names "py::QUALNAME:FILE", a native frame smolder
# already names.  In the same capture, smolder's innermost Python frame
# and the innermost py:: frame must name the same hot functions (>= 5% of
# samples each: alpha, gamma, delta) and agree sample by sample (>= 90%).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_python.sh"

need_pythons python_perf_crosscheck py312 py313
for tag in "${PY_TAGS[@]}"; do
	start_cmd python3 "${PYTHONS[$tag]}" -X perf "$PYDIR/split.py" 60 || exit 1
	PY_PID[$tag]=$WL_PID
	at_exit "rm -f /tmp/perf-$WL_PID.map"
done
sleep 1
run_sm x -f -F 999 --per-pid -p "$(py_pids "${PY_TAGS[@]}")" 4
check python_perf_crosscheck_exit_0 sm_ok x
stop_pys
for tag in "${PY_TAGS[@]}"; do
	proc=$(proc_re "${PY_PID[$tag]}")
	mine=$($PF leaves "$TMP/x.out" --proc "$proc")
	perf=$($PF leaves "$TMP/x.out" --proc "$proc" --perf)
	echo "# perf crosscheck $tag: smolder's Python leaves: $mine; py:: leaves: $perf"
	check "python_perf_crosscheck_${tag}_perf_frames" equals "$(fig hot "$perf")" alpha,delta,gamma
	check "python_perf_crosscheck_${tag}_same_hot_functions" equals "$(fig hot "$mine")" "$(fig hot "$perf")"
	check "python_perf_crosscheck_${tag}_agree" within "$(fig agree "$mine")" 90 100
done
