# Helpers for the Python frame tests, tests/cli/python_*.sh (issue 23;
# sourced after lib.sh).  The workloads are tests/workloads/python/*.py,
# run by every CPython the machines promise: pyenv's 3.8 to 3.13 (shared
# libpython, PIE, .symtab) and Debian's /usr/bin/python3.11 (static
# libpython, non-PIE, dynamic symbols only, no frame pointers).  One that
# is missing is a FAIL, not a skip: every machine, CI's too, has them.
PYDIR=$TOP/tests/workloads/python
PF="/usr/bin/python3 $TOP/tests/tools/pyfolded.py"
PYENV_ROOT=${PYENV_ROOT:-/root/.pyenv}

# PYTHONS: tag -> interpreter; PY_TAGS: the tags present, in order.
declare -A PYTHONS=(
	[py38]=$PYENV_ROOT/versions/3.8.18/bin/python3
	[py39]=$PYENV_ROOT/versions/3.9.18/bin/python3
	[py310]=$PYENV_ROOT/versions/3.10.13/bin/python3
	[py311]=$PYENV_ROOT/versions/3.11.7/bin/python3
	[py312]=$PYENV_ROOT/versions/3.12.1/bin/python3
	[py313]=$PYENV_ROOT/versions/3.13.0/bin/python3
	[deb311]=/usr/bin/python3.11
)
PY_TAGS=()
# need_pythons PREFIX [TAG...]: the interpreters (default all) into
# PY_TAGS; a FAIL line for each one missing.
need_pythons() {
	local prefix=$1 tag
	shift
	for tag in ${@:-py38 py39 py310 py311 py312 py313 deb311}; do
		if [ -x "${PYTHONS[$tag]}" ]; then PY_TAGS+=("$tag")
		else fail "${prefix}_${tag}_present" "${PYTHONS[$tag]} missing (pyenv install; every machine has it)"; fi
	done
	[ ${#PY_TAGS[@]} -gt 0 ] || exit 1
}

# start_py TAG SCRIPT ARGS...: runs the workload SCRIPT (in PYDIR) with
# TAG's interpreter in the background, waits until it has exec'd; sets
# WL_PID and PY_PID[TAG], its output in WL_OUT and PY_OUT[TAG].
declare -A PY_PID PY_OUT
start_py() {
	local tag=$1 script=$2
	shift 2
	start_cmd "$(basename "${PYTHONS[$tag]}")" ${PY_NICE:+nice -n "$PY_NICE"} "${PYTHONS[$tag]}" \
		"$PYDIR/$script" "$@" || exit 1
	PY_PID[$tag]=$WL_PID
	PY_OUT[$tag]=$WL_OUT
}
# py_pids TAG...: their PIDs, comma-separated (for -p).
py_pids() {
	local tag out=
	for tag in "$@"; do out+=${out:+,}${PY_PID[$tag]}; done
	echo "$out"
}
# proc_re PID: pyfolded.py's --proc for --per-pid (comm-PID) or
# --per-thread (comm-PID/TID) frames of that process.
proc_re() { echo "[^;]*-$1(/[0-9]+)?"; }
# fig KEY FIGURES: the value of KEY=VALUE in pyfolded.py's line.
fig() { sed -nE "s/(^|.* )$1=([^ ]*).*/\2/p" <<<"$2"; }
# the leaf's Python path for the split workload
SPLIT_PATHS=('<module>;main;run;alpha' '<module>;main;run;beta;gamma' '<module>;main;run;delta')
# sm_ok NAME: run_sm NAME exited 0; if not, says its exit code and stderr.
sm_ok() {
	[ "$RC" = 0 ] && return 0
	echo "exit $RC: $(head -c 300 "$TMP/$1.err" | tr '\n' '|')"
	return 1
}
# stop_pys: ends the workloads started so far (before measuring: busy
# workloads would slow the measures' own start-up on 2 CPUs).
stop_pys() {
	local tag
	for tag in "${!PY_PID[@]}"; do kill "${PY_PID[$tag]}" 2>/dev/null; done
	wait 2>/dev/null
}
