#!/bin/bash
# Through C (issue 23): through_c.py's right_work calls the builtin
# sorted(data, key=keyfn), and keyfn takes the CPU.  Under every CPython,
# >= 95% of keyfn's samples read right_work, then sorted's native frames
# (one named *sort* where the interpreter has its static symbols: pyenv's;
# Debian's python3.11 has only its dynamic ones), then keyfn; keyfn never
# right under right_work with no native frame between.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_python.sh"

need_pythons python_through_c
for tag in "${PY_TAGS[@]}"; do start_py "$tag" through_c.py 60; done
sleep 0.7
run_sm c -f -F 999 --per-pid -p "$(py_pids "${PY_TAGS[@]}")" 5
check python_through_c_exit_0 sm_ok c
stop_pys
for tag in "${PY_TAGS[@]}"; do
	native=sort
	[ "$tag" = deb311 ] && native=.
	r=$($PF between "$TMP/c.out" --proc "$(proc_re "${PY_PID[$tag]}")" --native "$native" \
		'right_work (through_c.py)' 'keyfn (through_c.py)')
	echo "# through_c $tag: $r"
	check "python_through_c_${tag}_keyfn_sampled" within "$(fig inner "$r")" 100 1000000
	check "python_through_c_${tag}_order" within "$(fig ok "$r")" 95 100
	check "python_through_c_${tag}_native_kept" equals "$(fig adjacent "$r")" 0
done
