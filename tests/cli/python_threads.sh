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
# measure TAG SIDE OUT PID WLOUT: "n=N own=PCT path=PCT" for one thread,
# its samples left in $TMP/TAG.SIDE
measure() {
	local tag=$1 side=$2 out=$3 pid=$4 wlout=$5 tid own
	tid=$(awk -v s=$side '$1 == s { print $2 }' "$wlout")
	grep -E "^[^;]*-$pid/$tid;" "$out" >"$TMP/$tag.$side"
	own=$($PF chain "$TMP/$tag.$side" --leaf "${side}_loop \(threads\.py\)" "${side}_leaf \(threads\.py\)")
	echo "# threads $tag $side (tid $tid): $own" >&2
	awk -v a="$(fig with "$own")" -v b="$(fig samples "$own")" -v p="$(fig chain "$own")" \
		'BEGIN { printf "n=%d own=%s path=%s\n", b, b ? 100 * a / b : 0, p }'
}
# good R: both shares within 95..100
good() {
	within "$(fig own "$1")" 95 100 >/dev/null && within "$(fig path "$1")" 95 100 >/dev/null
}
for tag in "${PY_TAGS[@]}"; do
	out=$TMP/t.out pid=${PY_PID[$tag]} wlout=${PY_OUT[$tag]}
	left=$(measure "$tag" left "$out" "$pid" "$wlout")
	right=$(measure "$tag" right "$out" "$pid" "$wlout")
	# Retaken alone, once, when a share misses: eighteen busy threads on
	# two CPUs hand each interpreter's GIL over at the scheduler's whim,
	# and the samples taken in the handover name no Python function.
	if ! good "$left" || ! good "$right"; then
		start_py "$tag" threads.py 8
		wait_for "$WL_OUT" '^ready$' 10 || exit 1
		run_sm "re_$tag" -f -F 999 --per-thread -p "$WL_PID" 4
		stop_pys
		out=$TMP/re_$tag.out pid=$WL_PID wlout=$WL_OUT
		left=$(measure "$tag" left "$out" "$pid" "$wlout")
		right=$(measure "$tag" right "$out" "$pid" "$wlout")
		echo "# threads $tag retaken alone (exit $RC): left $left, right $right"
	fi
	for side in left right; do
		other=right r=$left
		[ $side = right ] && other=left r=$right
		check "python_threads_${tag}_${side}_samples" within "$(fig n "$r")" 100 1000000
		check "python_threads_${tag}_${side}_own_function" within "$(fig own "$r")" 95 100
		check "python_threads_${tag}_${side}_own_path" within "$(fig path "$r")" 95 100
		check "python_threads_${tag}_${side}_not_the_other" no_line "$TMP/$tag.$side" "(^|;)${other}_(loop|leaf) \\(threads\\.py"
	done
done
