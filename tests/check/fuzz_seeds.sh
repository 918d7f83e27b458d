#!/bin/bash
# The libFuzzer targets (tests/fuzz) build and run every input of their seed
# corpora (-runs=0: the seeds, no mutation) without a sanitizer report:
# the hostile shapes among the seeds (tests/fuzz/cfi_seeds.sh, the mangled
# names, the injections) are each a case the fast tier keeps.  A crash
# fails with the sanitizer's first lines and keeps the input as
# build/fuzz/crash-NAME-*, to replay with build/fuzz/NAME FILE.  Fuzzing
# from the seeds: tests/cli/fuzz_smoke.sh, make fuzz.
source "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1

if ! make --no-print-directory fuzzers >"$TMP/build.log" 2>&1; then
	fail "fuzz targets build" "$(tail -n 5 "$TMP/build.log" | tr '\n' ' ')"
	exit 0
fi

# Whoever builds makes the seeds.  cfi_seeds.sh reads the system's libc and
# ld.so and must write only in its directory: run as nobody (as itself when
# not root) in a directory it owns, with its own copies of the script and
# of hostile_cfi, it makes the seeds the build made.
mkdir -p "$TMP/cfi/seeds"
cp tests/fuzz/cfi_seeds.sh build/tools/hostile_cfi tests/workloads/frameless/sigreturn_arm64.S \
	tests/workloads/frameless/vdso_arm64.S \
	"$TMP/cfi/"
as_user=()
if [ "$(id -u)" = 0 ]; then
	chmod 0711 "$TMP"
	chown -R nobody:nogroup "$TMP/cfi"
	as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
(cd "$TMP/cfi" && "${as_user[@]}" env HOSTILE_CFI="$TMP/cfi/hostile_cfi" \
	TRAMPOLINE="$TMP/cfi/sigreturn_arm64.S" sh cfi_seeds.sh "$TMP/cfi/seeds" >"$TMP/cfi.log" 2>&1)
check "fuzz cfi seeds made unprivileged" equals \
	"$?: $(ls "$TMP/cfi/seeds" | tr '\n' ' ')$(head -c 300 "$TMP/cfi.log" | tr '\n' ' ')" \
	"0: $(ls build/fuzz/corpus-fuzz_cfi | tr '\n' ' ')"

for f in tests/fuzz/fuzz_*.c; do
	name=$(basename "$f" .c)
	seeds=$(find "build/fuzz/corpus-$name" -type f ! -name '.*' | wc -l)
	# new inputs (none without mutation) would go to the first directory
	mkdir -p "$TMP/new-$name"
	"build/fuzz/$name" -runs=0 -timeout=5 -rss_limit_mb=1024 \
		-artifact_prefix="build/fuzz/crash-$name-" \
		"$TMP/new-$name" "build/fuzz/corpus-$name" >"$TMP/$name.log" 2>&1
	rc=$?
	runs=$(sed -nE 's/^Done ([0-9]+) runs.*/\1/p' "$TMP/$name.log" | tail -n 1)
	if [ "$rc" = 0 ] && [ "$seeds" -gt 0 ] && [ -n "$runs" ]; then
		pass "fuzz $name seeds: $seeds inputs, no crash"
		continue
	fi
	why=$(grep -m 1 -A 6 -E '^==[0-9]+==|runtime error|ERROR: libFuzzer|^SUMMARY' \
		"$TMP/$name.log" | head -c 600 | tr '\n' ' ')
	[ -n "$why" ] || why="exit $rc, $seeds seeds: $(tail -n 3 "$TMP/$name.log" | tr '\n' ' ')"
	fail "fuzz $name seeds" "$why $(grep -o 'Test unit written to .*' "$TMP/$name.log" | head -n 1)"
done
