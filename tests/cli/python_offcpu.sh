#!/bin/bash
# Off-CPU (issue 23): sleeper.py's napper() waits in time.sleep under
# wait_loop.  With --off-cpu, under every CPython, >= 90% of the main
# thread's waiting time reads wait_loop, napper, then time.sleep's native
# frames (one named *sleep*) down to [off-cpu:S].
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_python.sh"

need_pythons python_offcpu
for tag in "${PY_TAGS[@]}"; do start_py "$tag" sleeper.py 60; done
sleep 0.7
run_sm o --off-cpu -f -F 99 --per-pid -p "$(py_pids "${PY_TAGS[@]}")" 3
check python_offcpu_exit_0 sm_ok o
stop_pys
for tag in "${PY_TAGS[@]}"; do
	grep -E "^$(proc_re "${PY_PID[$tag]}");.*\[off-cpu:S\] [0-9]+\$" "$TMP/o.out" >"$TMP/$tag.waits"
	# napper's Python caller is wait_loop: right above it (3.11+: one run
	# of the loop), or with the loop's native frames between (up to 3.10)
	r=$($PF between "$TMP/$tag.waits" 'wait_loop (sleeper.py)' 'napper (sleeper.py)')
	n=$(total "$TMP/$tag.waits")
	under=$(share "$TMP/$tag.waits" ';napper \(sleeper\.py\)(;[^;]*)*;[^;]*sleep[^;]*(;[^;]*)*;\[off-cpu:S\] [0-9]+$')
	echo "# offcpu $tag: $n us waiting; $under% under napper over *sleep*; wait_loop -> napper: $r"
	check "python_offcpu_${tag}_waits" within "$n" 1000000 100000000
	check "python_offcpu_${tag}_napper_over_sleep" within "$under" 90 100
	check "python_offcpu_${tag}_caller_order" within \
		"$(awk -v ok="$(fig ok "$r")" -v adj="$(fig adjacent "$r")" -v n="$(fig inner "$r")" \
			'BEGIN { printf "%.1f", n ? ok + 100 * adj / n : 0 }')" 90 100
done
