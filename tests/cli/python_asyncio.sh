#!/bin/bash
# Coroutines (issue 23): coro.py runs asyncio.run(driver()), which awaits
# crunch(), a coroutine computing between yields.  Under every CPython,
# >= 95% of crunch's samples read the event loop's frames
# (BaseEventLoop._run_once in asyncio/base_events.py), then driver, then
# crunch as the innermost Python frame.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_python.sh"

need_pythons python_asyncio
for tag in "${PY_TAGS[@]}"; do start_py "$tag" coro.py 60; done
sleep 0.7
run_sm a -f -F 999 --per-pid -p "$(py_pids "${PY_TAGS[@]}")" 5
check python_asyncio_exit_0 sm_ok a
stop_pys
for tag in "${PY_TAGS[@]}"; do
	r=$($PF chain "$TMP/a.out" --proc "$(proc_re "${PY_PID[$tag]}")" --leaf \
		'(.*\.)?run_until_complete \(asyncio/base_events\.py\)' '(.*\.)?_run_once \(asyncio/base_events\.py\)' \
		'driver \(coro\.py\)' 'crunch \(coro\.py\)')
	echo "# asyncio $tag: $r"
	check "python_asyncio_${tag}_crunch_sampled" within "$(fig with "$r")" 100 1000000
	check "python_asyncio_${tag}_under_event_loop" within "$(fig chain "$r")" 95 100
done
