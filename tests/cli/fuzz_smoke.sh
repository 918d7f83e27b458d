#!/bin/bash
# The libFuzzer targets (tests/fuzz) build and survive a short run from their
# seeds: FUZZ_SMOKE_SECONDS (10) each, as many at once as there are CPUs, so
# the whole test stays within about 40 s.  A crash or a hang (5 s per input)
# fails with the sanitizer's first lines; the input that did it is kept as
# build/fuzz/crash-NAME-*, to replay with build/fuzz/NAME FILE.  Longer runs:
# make fuzz; the seeds alone (make check): tests/check/fuzz_seeds.sh.
source "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1
SECS=${FUZZ_SMOKE_SECONDS:-10}

if ! make --no-print-directory fuzzers >"$TMP/build.log" 2>&1; then
	fail "fuzz targets build" "$(tail -n 5 "$TMP/build.log" | tr '\n' ' ')"
	exit 0
fi

# run NAME: fuzz from the seeds; new inputs go to a scratch directory so the
# seed corpus stays as generated.
run() {
	mkdir -p "$TMP/new-$1"
	"build/fuzz/$1" "$TMP/new-$1" "build/fuzz/corpus-$1" \
		-max_total_time="$SECS" -timeout=5 -rss_limit_mb=1024 \
		-artifact_prefix="build/fuzz/crash-$1-" >"$TMP/$1.log" 2>&1
	echo $? >"$TMP/$1.rc"
}

# report NAME: one PASS/FAIL line from the run's log.
report() {
	local name=$1 rc runs why
	rc=$(cat "$TMP/$name.rc" 2>/dev/null)
	runs=$(sed -nE 's/^Done ([0-9]+) runs.*/\1/p' "$TMP/$name.log" | tail -n 1)
	if [ "$rc" = 0 ] && [ -n "$runs" ]; then
		pass "fuzz $name: $runs runs, no crash"
		return
	fi
	why=$(grep -m 1 -A 6 -E '^==[0-9]+==|runtime error|ERROR: libFuzzer|^SUMMARY' \
		"$TMP/$name.log" | head -c 600 | tr '\n' ' ')
	[ -n "$why" ] || why="exit $rc: $(tail -n 3 "$TMP/$name.log" | tr '\n' ' ')"
	fail "fuzz $name" "$why $(grep -o 'Test unit written to .*' "$TMP/$name.log" | head -n 1)"
}

names=()
for f in tests/fuzz/fuzz_*.c; do
	names+=("$(basename "$f" .c)")
done
cpus=$(nproc 2>/dev/null || echo 1)
for name in "${names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$cpus" ]; do
		wait -n
	done
	run "$name" &
done
wait
for name in "${names[@]}"; do
	report "$name"
done
