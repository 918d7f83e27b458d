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

# ---- helpers for the CLI tests that drive ./smolder against workloads ----

# start_wl NAME ARGS...: start build/workloads/NAME in the background (its
# stdout+stderr go to $WL_OUT) and wait until it has exec'd.  Sets WL_PID.
# Call it directly, not in $(...), so that the EXIT trap can kill it.
_wl_n=0
start_wl() {
	local name=$1 i
	shift
	_wl_n=$((_wl_n + 1))
	WL_OUT="$TMP/wl.$_wl_n.out"
	"$WL/$name" "$@" >"$WL_OUT" 2>&1 &
	WL_PID=$!
	for i in $(seq 250); do
		[ "$(cat "/proc/$WL_PID/comm" 2>/dev/null)" = "${name:0:15}" ] && return 0
		sleep 0.02
	done
	echo "workload $name did not start" >&2
	return 1
}
# run_sm NAME ARGS...: run smolder ARGS with stdout in $TMP/NAME.out and
# stderr in $TMP/NAME.err; sets RC (exit code) and ELAPSED (seconds).
run_sm() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$SMOLDER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
	t1=$(date +%s.%N)
	ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }')
}
# at_exit COMMAND: also run COMMAND when the test exits (before the cleanup
# lib.sh already does).
_at_exit=
at_exit() {
	_at_exit="$1; $_at_exit"
	trap "$_at_exit"' rm -rf "$TMP"; kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT
}
# summary_samples ERRFILE / summary_lost ERRFILE: the numbers in smolder's
# stderr summary "smolder: N samples, M lost (...)" (empty if missing).
summary_samples() { sed -nE 's/^smolder: ([0-9]+) samples, ([0-9]+) lost.*/\1/p' "$1" | tail -n 1; }
summary_lost() { sed -nE 's/^smolder: ([0-9]+) samples, ([0-9]+) lost.*/\2/p' "$1" | tail -n 1; }

# Predicates for check: they succeed or print why not.
# within VALUE LO HI: between, saying what it got.
within() {
	local x
	for x in "$1" "$2" "$3"; do
		[[ $x =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]] || { echo "not a number: '$x' (in: '$1' within '$2'..'$3')"; return 1; }
	done
	between "$1" "$2" "$3" && return 0
	echo "got '$1', want $2..$3"
	return 1
}
# equals GOT WANT
equals() {
	[ "$1" = "$2" ] && return 0
	echo "got '$1', want '$2'"
	return 1
}
# all_lines FILE ERE: FILE is not empty and every line matches.
all_lines() {
	local bad
	[ -s "$1" ] || { echo "$(basename "$1") is empty"; return 1; }
	bad=$(grep -vE -m 1 -- "$2" "$1") || return 0
	echo "line not matching /$2/: $bad"
	return 1
}
# no_line FILE ERE: no line matches.
no_line() {
	local bad
	bad=$(grep -E -m 1 -- "$2" "$1") || return 0
	echo "line matching /$2/: $bad"
	return 1
}
# some_line FILE ERE: at least one line matches.
some_line() {
	grep -qE -- "$2" "$1" && return 0
	echo "no line of $(basename "$1") ($(wc -l <"$1") lines) matches /$2/: $(head -c 300 "$1")"
	return 1
}
# one_error ERRFILE: stderr is exactly one line "smolder: <lowercase>...".
one_error() {
	[ "$(wc -l <"$1")" -eq 1 ] && grep -qE '^smolder: [a-z]' "$1" && return 0
	echo "stderr is not one 'smolder: ...' line: $(head -c 300 "$1")"
	return 1
}
# stacks FOLDED ERE: number of distinct lines (stacks) matching.
stacks() { grep -cE -- "$2" "$1"; }
