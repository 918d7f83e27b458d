#!/bin/bash
# The options around Python frames (issue 23), on split.py under pyenv's
# 3.12 and Debian's python3.11 at once:
#  - --no-python: no Python frame, the native _PyEval_EvalFrameDefault
#    frames back (the old stacks);
#  - -a: every Python frame ends in _[py], no native one does;
#  - --per-thread: the process frame is comm-PID/TID, Python frames kept.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_python.sh"

need_pythons python_options py312 deb311
for tag in "${PY_TAGS[@]}"; do start_py "$tag" split.py 60; done
sleep 0.7
pids=$(py_pids "${PY_TAGS[@]}")
run_sm off -f -F 499 --per-pid --no-python -p "$pids" 2
check python_options_no_python_exit_0 sm_ok off
run_sm ann -f -F 499 --per-pid -a -p "$pids" 2
check python_options_annotated_exit_0 sm_ok ann
run_sm thr -f -F 499 --per-thread -p "$pids" 2
check python_options_per_thread_exit_0 sm_ok thr
stop_pys
for tag in "${PY_TAGS[@]}"; do
	p=${PY_PID[$tag]}
	grep -E "^[^;]*-$p;" "$TMP/off.out" >"$TMP/off.$tag"
	check "python_options_no_python_${tag}_no_python_frames" no_line "$TMP/off.$tag" ' \([^;()]*\.py(:[0-9]+)?\)(_\[py\])?(;| [0-9]+$)'
	check "python_options_no_python_${tag}_eval_frames_back" within "$(share "$TMP/off.$tag" ';_PyEval_EvalFrameDefault(;| )')" 90 100
	grep -E "^[^;]*-$p;" "$TMP/ann.out" >"$TMP/ann.$tag"
	check "python_options_annotated_${tag}_py_suffix" within "$(share "$TMP/ann.$tag" ';alpha \(split\.py\)_\[py\](;| )')" 40 60
	check "python_options_annotated_${tag}_all_python_frames" no_line "$TMP/ann.$tag" ' \(split\.py\)(;| [0-9]+$)'
	check "python_options_annotated_${tag}_native_not_py" no_line "$TMP/ann.$tag" ';Py_RunMain_\[py\]'
	grep -E "^[^;]*-$p/$p;" "$TMP/thr.out" >"$TMP/thr.$tag"
	r=$($PF paths "$TMP/thr.$tag" --file split.py "${SPLIT_PATHS[@]}")
	echo "# per-thread $tag: $r"
	check "python_options_per_thread_${tag}_frame" within "$(total "$TMP/thr.$tag")" 100 1000000
	check "python_options_per_thread_${tag}_python_path" within "$(fig path "$r")" 95 100
done
