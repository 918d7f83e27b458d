#!/bin/bash
# Runs every test: unit test binaries, then the CLI tests that drive the real
# binary against real workloads.  Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 2
log=$(mktemp)
for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	echo "== $t"
	"$t" 2>&1 | tee -a "$log"
	[ "${PIPESTATUS[0]}" -gt 1 ] && echo "FAIL $t: crashed" | tee -a "$log"
done
for t in tests/cli/*.sh; do
	[ -f "$t" ] || continue
	case "$t" in */_*) continue;; esac
	if [ -n "$SMOLDER_TESTS" ] && ! echo "$t" | grep -qE "$SMOLDER_TESTS"; then continue; fi
	echo "== $t"
	timeout 600 bash "$t" 2>&1 | tee -a "$log"
	rc=${PIPESTATUS[0]}
	[ "$rc" -ne 0 ] && echo "FAIL $t: exited $rc" | tee -a "$log"
done
passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
