#!/bin/bash
# Runs the tests and ends with "N passed, N failed" (exit 1 on any failure).
# Two tiers, told apart by where a test lives:
#  - the fast tier (tests/run.sh --check, make check): the scripts of
#    tests/check/ and the unit tests of build/tests/ (tests/unit/test_*.c,
#    the unwinder replay).  They need neither root nor BPF, and run as many
#    at once as there are CPUs (CHECK_JOBS=N: N), each one's output printed
#    whole, in order.
#  - everything (tests/run.sh, make test): those unit tests, then those of
#    build/tests/root/ (tests/unit/root/test_*.c), which load BPF or plant
#    other users' files, the scripts of tests/check/, then
#    those of tests/cli/, which drive the real binary against real
#    workloads (most capture, as root), and the kernel matrix (when qemu is
#    there); one at a time, their output as it comes.
# SMOLDER_TESTS=ERE runs only the scripts whose path matches (and the matrix
# if "kernels" matches); the unit tests always run.
cd "$(dirname "$0")/.." || exit 2
case "$1" in
--check) tier=check ;;
"") tier=all ;;
*) echo "usage: tests/run.sh [--check]" >&2; exit 2 ;;
esac
log=$(mktemp)
outs=$(mktemp -d)
trap 'rm -rf "$log" "$outs"' EXIT

# unit_tests DIR: the unit test binaries in build/DIR (tests/unit/test_*.c
# and the unwinder replay build to build/tests, tests/unit/root/test_*.c to
# build/tests/root); not one left in build/tests from a test since moved to
# tests/unit/root/, which needs root.
unit_tests() {
	local t
	for t in build/"$1"/test_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		[ "$1" = tests ] && [ -f "tests/unit/root/${t##*/}.c" ] && continue
		echo "$t"
	done
}
# scripts DIR: the scripts of tests/DIR that SMOLDER_TESTS selects; files
# starting with _ are helpers the scripts source.
scripts() {
	local t
	for t in tests/"$1"/*.sh; do
		[ -f "$t" ] || continue
		case "$t" in */_*) continue ;; esac
		if [ -z "$SMOLDER_TESTS" ] || echo "$t" | grep -qE "$SMOLDER_TESTS"; then echo "$t"; fi
	done
}
if [ "$tier" = all ]; then
	mapfile -t tests < <(unit_tests tests; unit_tests tests/root; scripts check; scripts cli)
else
	# The scripts first: the long tests are among them, and a long test
	# started last would leave the other CPUs idle.
	mapfile -t tests < <(scripts check; unit_tests tests)
fi

# run_one TEST: its output, and a FAIL line if it crashed or its script
# did not end well (a unit test exits 1 when it printed a FAIL line).
run_one() {
	local t=$1 rc
	case "$t" in
	*.sh)
		timeout 600 bash "$t" 2>&1
		rc=$?
		[ "$rc" -ne 0 ] && echo "FAIL $t: exited $rc" ;;
	*)
		timeout 600 "$t" 2>&1
		rc=$?
		[ "$rc" -gt 1 ] && echo "FAIL $t: crashed (exit $rc)" ;;
	esac
}

# run_parallel N: runs the tests N at a time, each one's output (and time)
# in $outs/I; prints them in the order the tests were started, each as
# soon as it and those before it are done.
run_parallel() {
	local n=$1 i next=0 t0
	for i in "${!tests[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$n" ]; do
			wait -n
			print_done
		done
		(
			t0=$EPOCHREALTIME
			run_one "${tests[i]}" >"$outs/$i"
			awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' >"$outs/$i.t" &&
				mv "$outs/$i.t" "$outs/$i.time" # whole when seen
		) &
	done
	wait
	print_done
}
# print_done: the outputs of the tests done since, in order (next: the
# first not printed yet).
print_done() {
	while [ -e "$outs/$next.time" ]; do
		echo "== ${tests[next]} ($(cat "$outs/$next.time") s)"
		tee -a "$log" <"$outs/$next"
		next=$((next + 1))
	done
}

if [ "$tier" = all ]; then
	for t in "${tests[@]}"; do
		echo "== $t"
		run_one "$t" | tee -a "$log"
	done
else
	jobs_at_once=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 1)}
	start=$EPOCHREALTIME
	run_parallel "$jobs_at_once"
	awk -v a="$start" -v b="$EPOCHREALTIME" -v n="${#tests[@]}" -v j="$jobs_at_once" \
		'BEGIN { printf "fast tier: %d tests in %.1f s, %d at a time\n", n, b - a, j }'
fi

# The kernel matrix: Debian's kernels booted under qemu, one PASS, FAIL or
# SKIP line per kernel, counted with the rest (a skipped kernel never passes).
if [ "$tier" = all ] && { [ -z "$SMOLDER_TESTS" ] || echo "kernels" | grep -qE "$SMOLDER_TESTS"; }; then
	echo "== scripts/test-kernels.sh"
	if command -v qemu-system-x86_64 >/dev/null; then
		# (x86_64's guests take about 7 minutes here, arm64's about 12)
		timeout 2400 scripts/test-kernels.sh 2>&1 | tee -a "$log"
		rc=${PIPESTATUS[0]}
		# 1: kernels failed (their lines say which); else the script could not run
		[ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && echo "FAIL scripts/test-kernels.sh: exited $rc" | tee -a "$log"
	else
		echo "SKIP kernel matrix: qemu-system-x86_64 not found (scripts/deps.sh installs qemu-system-x86)" | tee -a "$log"
	fi
fi
passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^SKIP ' "$log")
[ "$skipped" -gt 0 ] && echo "$skipped skipped (not counted as passed)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
