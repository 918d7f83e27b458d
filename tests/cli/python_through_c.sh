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
# between TAG FILE PID: right_work -> native (sort) -> keyfn figures
through() {
	local native=sort
	[ "$1" = deb311 ] && native=. # stripped: sort's frames are [python3.11+0x...]
	$PF between "$2" --proc "$(proc_re "$3")" --native "$native" \
		'right_work (through_c.py)' 'keyfn (through_c.py)'
}
for tag in "${PY_TAGS[@]}"; do
	f=c pid=${PY_PID[$tag]}
	r=$(through "$tag" "$TMP/c.out" "$pid")
	echo "# through_c $tag: $r"
	# Retaken alone, once, when it misses: seven processes' unwind tables
	# built at once leave the last ones' first samples without native
	# frames, sort's among them (the unwinder's start, not Python frames).
	if ! within "$(fig ok "$r")" 95 100 >/dev/null || [ "$(fig adjacent "$r")" != 0 ]; then
		start_py "$tag" through_c.py 8
		sleep 0.5
		run_sm "re_$tag" -f -F 999 --per-pid -p "$WL_PID" 4
		stop_pys
		f=re_$tag pid=$WL_PID
		r=$(through "$tag" "$TMP/re_$tag.out" "$pid")
		echo "# through_c $tag retaken alone (exit $RC): $r"
	fi
	check "python_through_c_${tag}_keyfn_sampled" within "$(fig inner "$r")" 100 1000000
	check "python_through_c_${tag}_order" within "$(fig ok "$r")" 95 100
	# keyfn right under right_work with sort's frames gone, among the
	# samples whose native stack was walked whole (Py_RunMain on it: the
	# others, the unwinder's first ones, have no native frames to keep)
	grep -E ';Py_(RunMain|BytesMain);' "$TMP/${f:-c}.out" >"$TMP/$tag.whole"
	check "python_through_c_${tag}_native_kept" \
		equals "$(fig adjacent "$(through "$tag" "$TMP/$tag.whole" "$pid")")" 0
done
