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

# ---- helpers for the symbolization tests (tests/cli/sym_*.sh) ----

# start_cmd COMM COMMAND ARGS...: like start_wl for any command (one that
# may exec on the way, e.g. unshare -m sh -c '...; exec prog'): start it in
# the background, output in $WL_OUT, and wait until the process's comm is
# COMM.  Sets WL_PID.  Call it directly, not in $(...).
start_cmd() {
	local comm=$1 i
	shift
	_wl_n=$((_wl_n + 1))
	WL_OUT="$TMP/wl.$_wl_n.out"
	"$@" >"$WL_OUT" 2>&1 &
	WL_PID=$!
	for i in $(seq 250); do
		[ "$(cat "/proc/$WL_PID/comm" 2>/dev/null)" = "${comm:0:15}" ] && return 0
		sleep 0.02
	done
	echo "$comm did not start: $(head -c 300 "$WL_OUT")" >&2
	return 1
}
# progs_left IDS...: the BPF program ids among IDS that still exist after
# up to 3 s (prints them, each after a space; nothing when all are gone):
# the kernel frees a program once its last perf event and an RCU grace
# period are past, a moment after its process has exited.
progs_left() {
	local i id left
	for i in $(seq 30); do
		left=""
		for id in "$@"; do bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"; done
		[ -z "$left" ] && break
		sleep 0.1
	done
	echo "$left"
}
# wait_for FILE ERE [SECONDS]: wait (default 5 s) until a line of FILE
# matches; a predicate for check, or a guard: wait_for ... || exit 1.
wait_for() {
	local i n=$((${3:-5} * 50))
	for ((i = 0; i < n; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.02
	done
	echo "no line of $(basename "$1") matches /$2/ after ${3:-5} s: $(head -c 300 "$1" 2>/dev/null)"
	return 1
}
# re_escape STRING: an ERE matching STRING literally (C++ names and such).
re_escape() { printf '%s' "$1" | sed -e 's#[][\.*^$+?(){}|]#\\&#g'; }
# comm_stacks FOLDED COMM: the lines of FOLDED whose process frame is COMM
# (or COMM-PID, COMM-PID/TID).
comm_stacks() { grep -E -- "^$(re_escape "$2")(-[0-9/]+)?;" "$1"; }
# share_clean FOLDED ERE: percentage of samples whose stack matches ERE and
# has no "[unknown]" frame: fully symbolized along the expected path.
share_clean() {
	awk -v pat="$2" '{ n = $NF; t += n; if ($0 ~ pat && index($0, "[unknown]") == 0) m += n }
		END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$1"
}
# top_stacks FOLDED [N]: the N (default 3) biggest stacks on one line, to
# say what a failed share check got instead.
top_stacks() { awk '{ print $NF "\t" $0 }' "$1" | sort -nr | head -n "${2:-3}" | cut -f2- | tr '\n' '|'; }
# share_is NAME FOLDED ERE LO HI: check NAME that the share of samples
# matching ERE (fully symbolized, see share_clean) is within LO..HI; on
# failure also print the biggest stacks got.
share_is() {
	local v
	v=$(share_clean "$2" "$3")
	if between "$v" "$4" "$5"; then pass "$1"
	else fail "$1" "got $v%, want $4..$5% of $(total "$2") samples matching /$3/; top stacks: $(top_stacks "$2" | head -c 600)"; fi
}
# func_offsets ELF NAME...: "NAME START END" per function, as file offsets
# in decimal (from ELF's symbols and LOAD program headers): the range a
# "[file+0xOFFSET]" frame of that function falls in.
func_offsets() {
	local elf=$1
	shift
	{
		readelf -lW "$elf" | awk '$1 == "LOAD" { print "LOAD", $2, $3, $5 }'
		nm -S "$elf" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ { print "FUNC", $1, $2, $4 }'
	} | awk -v want=" $* " '
	function hex(s,   i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	$1 == "LOAD" { lo[++nl] = hex($3); off[nl] = hex($2); len[nl] = hex($4); next }
	$1 == "FUNC" && index(want, " " $4 " ") { v = hex($2)
		for (i = 1; i <= nl; i++) if (v >= lo[i] && v < lo[i] + len[i]) { v = v - lo[i] + off[i]; break }
		printf "%s %.0f %.0f\n", $4, v, v + hex($3) }'
}
# offset_share FOLDED FILE OFFSETS NAME...: percentage of samples whose
# "[FILE+0xOFFSET]" frames, leaf first, fall in NAME1 (the leaf's own
# address), NAME2 (a return address: start < offset <= end), ... with the
# ranges from func_offsets (OFFSETS is its output, in a file).
offset_share() {
	local folded=$1 file=$2 offs=$3
	shift 3
	awk -v file="[$file+0x" -v want="$*" '
	function hex(s,   i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	FNR == NR { start[$1] = $2; end[$1] = $3; next }
	{ n = $NF; t += n; sub(/ [0-9]+$/, ""); k = 0
	  for (i = split($0, f, ";"); i > 0; i--) if (index(f[i], file) == 1) {
		o = substr(f[i], length(file) + 1); sub(/\].*/, "", o); fr[++k] = hex(o) }
	  nw = split(want, w, " "); ok = k >= nw
	  for (j = 1; ok && j <= nw; j++) {
		if (!(w[j] in start)) ok = 0
		else if (j == 1) ok = fr[j] >= start[w[j]] && fr[j] < end[w[j]]
		else ok = fr[j] > start[w[j]] && fr[j] <= end[w[j]] }
	  if (ok) m += n }
	END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$offs" "$folded"
}
# no_unnamed_in FOLDED FILE OFFSETS: no "[FILE+0xOFF]" frame has OFF inside
# one of the functions listed in OFFSETS (func_offsets output, in a file;
# start <= OFF <= end, so return addresses count): those should have been
# named.  Frames elsewhere in FILE (a garbage frame pointer during a
# process's startup can point anywhere) are not this predicate's business.
no_unnamed_in() {
	local bad
	bad=$(awk -v file="[$2+0x" '
	function hex(s,   i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	FNR == NR { start[$1] = $2; end[$1] = $3; next }
	{ for (i = split($0, f, ";"); i > 0; i--) if (index(f[i], file) == 1) {
		o = substr(f[i], length(file) + 1); sub(/\].*/, "", o); v = hex(o)
		for (s in start) if (v >= start[s] && v <= end[s]) { print s ": " $0; exit } } }' "$3" "$1")
	[ -z "$bad" ] && return 0
	echo "unnamed frame in $bad" | head -c 400
	return 1
}
# unwind_counter ERRFILE NAME: a number from -v's "smolder: user stacks:"
# line (walked, whole, no_table, depth, unsupported, unreadable, not_loaded).
unwind_counter() {
	local l
	l=$(grep '^smolder: user stacks:' "$1")
	case $2 in
	walked) sed -nE 's/.* ([0-9]+) walked with unwind tables.*/\1/p' <<<"$l" ;;
	whole) sed -nE 's/.* ([0-9]+) of them whole.*/\1/p' <<<"$l" ;;
	no_table) sed -nE 's/.*without a table in ([0-9]+),.*/\1/p' <<<"$l" ;;
	depth) sed -nE 's/.*at 127 frames ([0-9]+).*/\1/p' <<<"$l" ;;
	unsupported) sed -nE 's/.*with an unsupported rule in ([0-9]+);.*/\1/p' <<<"$l" ;;
	unreadable) sed -nE 's/.*cut at unreadable memory ([0-9]+),.*/\1/p' <<<"$l" ;;
	not_loaded) sed -nE 's/.*, not loaded yet in ([0-9]+),.*/\1/p' <<<"$l" ;;
	esac
}
