#!/bin/bash
# Runs every test: unit test binaries, then the CLI tests that drive the real
# binary against real workloads, then the kernel matrix (when qemu is
# there).  Ends with "N passed, N failed".  SMOLDER_TESTS=ERE runs only the
# CLI tests whose path matches (and the matrix if "kernels" matches).
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
# The kernel matrix: Debian's kernels booted under qemu, one PASS, FAIL or
# SKIP line per kernel, counted with the rest (a skipped kernel never passes).
if [ -z "$SMOLDER_TESTS" ] || echo "kernels" | grep -qE "$SMOLDER_TESTS"; then
	echo "== scripts/test-kernels.sh"
	if command -v qemu-system-x86_64 >/dev/null; then
		timeout 1500 scripts/test-kernels.sh 2>&1 | tee -a "$log"
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
rm -f "$log"
[ "$skipped" -gt 0 ] && echo "$skipped skipped (not counted as passed)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
