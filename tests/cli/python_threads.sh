#!/bin/bash
# Threads (issue 23): threads.py runs two threads busy in their own
# functions (left_loop -> left_leaf, right_loop -> right_leaf) under every
# CPython.  With --per-thread, each thread's samples name its own function
# (>= 95% of them) and never the other's: the stack read is the sampled
# thread's, not the GIL holder's.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_python.sh"

need_pythons python_threads
for tag in "${PY_TAGS[@]}"; do
	start_py "$tag" threads.py 60
	wait_for "$WL_OUT" '^ready$' 10 || exit 1
done
run_sm t -f -F 999 --per-thread -p "$(py_pids "${PY_TAGS[@]}")" 5
check python_threads_exit_0 sm_ok t
stop_pys
for tag in "${PY_TAGS[@]}"; do
	pid=${PY_PID[$tag]}
	for side in left right; do
		other=right
		[ $side = right ] && other=left
		tid=$(awk -v s=$side '$1 == s { print $2 }' "${PY_OUT[$tag]}")
		grep -E "^[^;]*-$pid/$tid;" "$TMP/t.out" >"$TMP/$tag.$side"
		own=$($PF chain "$TMP/$tag.$side" --leaf "${side}_loop \(threads\.py\)" "${side}_leaf \(threads\.py\)")
		mine=$(fig with "$own")
		n=$(total "$TMP/$tag.$side")
		echo "# threads $tag $side (tid $tid): $n samples, $own"
		check "python_threads_${tag}_${side}_samples" within "$n" 100 1000000
		check "python_threads_${tag}_${side}_own_function" within \
			"$(awk -v a="$mine" -v b="$n" 'BEGIN { print b ? 100 * a / b : 0 }')" 95 100
		check "python_threads_${tag}_${side}_own_path" within "$(fig chain "$own")" 95 100
		check "python_threads_${tag}_${side}_not_the_other" no_line "$TMP/$tag.$side" "(^|;)${other}_(loop|leaf) \\(threads\\.py"
	done
done
