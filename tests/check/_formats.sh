# Helpers of formats.sh and tests/cli/formats_capture.sh (sourced after
# lib.sh, not run): each format read back by its own tools into folded
# stacks (tests/formats/stacks.py), to compare with the folded input.

# Debian's python3 has jsonschema; the python3 first in PATH may not.
PY=/usr/bin/python3
STACKS="$TOP/tests/formats/stacks.py"
SCHEMA="$TOP/build/deps/speedscope-file-format-schema.json"
# go tool pprof wants a home and a build cache; keep them in $TMP.
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
mkdir -p "$HOME"

# same_stacks GOT WANT: the two stack listings (stacks.py output) are equal.
same_stacks() {
	[ -s "$2" ] || { echo "$(basename "$2") is empty"; return 1; }
	cmp -s "$1" "$2" && return 0
	echo "$(wc -l <"$1") vs $(wc -l <"$2") stacks; first difference: $(diff "$1" "$2" | head -n 4 | tr '\n' '|' | head -c 400)"
	return 1
}
# folded_of FOLDED OUT: the input's stacks, summed and sorted.
folded_of() { "$PY" "$STACKS" folded "$1" >"$2"; }
# speedscope_of FILE OUT [SCHEMA]: validates FILE, and its stacks in OUT.
speedscope_of() { "$PY" "$STACKS" speedscope "$1" "${3:-$SCHEMA}" >"$2" 2>"$2.err"; }
# pprof_of FILE OUT [INDEX]: go tool pprof -raw's reading of FILE (sample
# value INDEX) as stacks in OUT, and -raw's text in OUT.raw.
pprof_of() {
	go tool pprof -symbolize=none -raw "$1" >"$2.raw" 2>"$2.err" &&
		"$PY" "$STACKS" pprof-raw "$2.raw" "${3:-0}" >"$2" 2>>"$2.err"
}
# ok_or_err NAME RC ERRFILE: PASS when RC is 0, else FAIL with the error.
ok_or_err() {
	if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "exit $2: $(head -c 300 "$3" | tr '\n' ' ')"; fi
}
# stack_total STACKS: the sum of a stack listing's counts.
stack_total() { awk '{ t += $NF } END { printf "%.6f\n", t }' "$1"; }
