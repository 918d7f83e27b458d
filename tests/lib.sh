# Shared helpers for the CLI tests (sourced, not run).
# Each test prints "PASS name" or "FAIL name: why"; tests/run.sh counts them.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SMOLDER="$TOP/smolder"
WL="$TOP/build/workloads"
TMP=$(mktemp -d /tmp/smolder-test.XXXXXX)
trap 'rm -rf "$TMP"; kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# check NAME COMMAND...: PASS when the command succeeds.
check() {
	local name=$1; shift
	if "$@" >"$TMP/check.out" 2>&1; then pass "$name"
	else fail "$name" "$(head -c 400 "$TMP/check.out" | tr '\n' ' ')"; fi
}
# share FOLDED PATTERN: percentage of samples whose stack matches the ERE.
share() {
	awk -v pat="$2" '{ n = $NF; t += n; if ($0 ~ pat) m += n }
		END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$1"
}
# total FOLDED: number of samples in a folded file.
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
# between VALUE LO HI: numeric bounds check (floats allowed).
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
