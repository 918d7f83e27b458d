#!/bin/bash
# tests/tools/pyfolded.py, which the Python frame tests (tests/cli/
# python_*.sh) measure with, against stacks written by hand: right ones
# count, and each kind of wrong one (a wrong caller, a Python frame left
# as _PyEval_EvalFrameDefault, no entry frame, frames merged out of order)
# is caught.
source "$(dirname "$0")/../lib.sh"
PF="/usr/bin/python3 $TOP/tests/tools/pyfolded.py"
fig() { sed -nE "s/.*(^| )$1=([^ ]*).*/\2/p" <<<"$2"; }

E='python3-7;_start;Py_BytesMain;Py_RunMain;PyEval_EvalCode'
M="$E;<module> (split.py);main (split.py);run (split.py)"
cat >"$TMP/split.folded" <<END
$M;alpha (split.py);time_thread_time;clock_gettime 50
$M;beta (split.py);_PyFunction_Vectorcall;gamma (split.py) 25
$M;delta (split.py) 20
$M;gamma (split.py) 2
$E;_PyEval_EvalFrameDefault 2
$M;beta (split.py);_PyEval_EvalFrameDefault 1
other-8;_start;Py_RunMain;<module> (split.py);main (split.py);run (split.py);alpha (split.py) 40
END
r=$($PF paths "$TMP/split.folded" --proc 'python3-7' --file split.py \
	'<module>;main;run;alpha' '<module>;main;run;beta;gamma' '<module>;main;run;delta')
check pyfolded_paths_samples equals "$(fig samples "$r")" 100
check pyfolded_paths_path equals "$(fig path "$r")" 95.0
check pyfolded_paths_python equals "$(fig python "$r")" 98.0
check pyfolded_paths_eval_left equals "$(fig eval_left "$r")" 3.0
check pyfolded_paths_wrong_caller equals "$(fig wrong "$r")" 2
check pyfolded_paths_leaf_alpha equals "$(fig leaf_alpha "$r")" 52.6
check pyfolded_paths_leaf_gamma equals "$(fig leaf_gamma "$r")" 26.3
printf '%s\n' "python3-7;<module> (split.py);main (split.py);run (split.py);alpha (split.py) 9" >"$TMP/noentry.folded"
r=$($PF paths "$TMP/noentry.folded" --file split.py '<module>;main;run;alpha')
check pyfolded_paths_needs_entry equals "$(fig path "$r")" 0.0

cat >"$TMP/c.folded" <<END
p-1;Py_RunMain;right_work (through_c.py);builtin_sorted;list_sort;keyfn (through_c.py) 8
p-1;Py_RunMain;right_work (through_c.py);keyfn (through_c.py) 1
p-1;Py_RunMain;right_work (through_c.py);PyObject_Call;keyfn (through_c.py) 1
p-1;Py_RunMain;right_work (through_c.py);builtin_sorted 5
END
r=$($PF between "$TMP/c.folded" 'right_work (through_c.py)' 'keyfn (through_c.py)' --native sort)
check pyfolded_between equals "$r" "samples=15 inner=10 ok=80.0 adjacent=1"

cat >"$TMP/l.folded" <<END
p-1;Py_RunMain;main (lines.py:23);hot (lines.py:16) 90
p-1;Py_RunMain;main (lines.py:23);hot (lines.py:15) 10
p-1;Py_RunMain;main (lines.py:23)_[py];hot (lines.py)_[py] 5
END
r=$($PF lines "$TMP/l.folded" 'hot (lines.py)')
check pyfolded_lines equals "$r" "samples=105 with=105 noline=5 top=16 share=85.7 lines=16:85.7,15:9.5"

cat >"$TMP/a.folded" <<END
p-1;Py_RunMain;run (asyncio/runners.py);_run_once (asyncio/base_events.py);task_step;driver (coro.py);crunch (coro.py) 9
p-1;Py_RunMain;driver (coro.py);crunch (coro.py) 1
p-1;Py_RunMain;_run_once (asyncio/base_events.py);crunch (coro.py);other (coro.py) 1
END
r=$($PF chain "$TMP/a.folded" --leaf '(.*\.)?_run_once \(asyncio/base_events\.py\)' 'driver \(coro\.py\)' 'crunch \(coro\.py\)')
check pyfolded_chain equals "$r" "samples=11 with=11 chain=81.8"

cat >"$TMP/x.folded" <<END
p-1;py::main:/w/split.py;main (split.py);py::alpha:/w/split.py;alpha (split.py) 60
p-1;py::main:/w/split.py;main (split.py);py::delta:/w/split.py;delta (split.py) 30
p-1;py::main:/w/split.py;main (split.py);py::delta:/w/split.py;alpha (split.py) 10
END
check pyfolded_leaves equals "$($PF leaves "$TMP/x.folded")" "samples=100 hot=alpha,delta agree=90.0"
check pyfolded_leaves_perf equals "$($PF leaves --perf "$TMP/x.folded" --min 50)" "samples=100 hot=alpha agree=90.0"
