#!/bin/bash
# The folded reader's bounds, and that smolder reads back what it writes.
# A count past 10^18 (past int64, or infinity as strtod reads 400 digits)
# is one line and exit 2, skipping or not: that line is a stack.  A diff
# whose sums pass 10^18, or whose -n scaling makes tiny decimals, is
# written as text smolder reads back (no "1e+20", no "1e-05", no "inf").
# A line longer than 4 MiB: with --strict, one line and exit 2 without
# reading the rest of it (a line just over the cap, and a 256 MiB line
# with no newline read from a pipe in bounded memory); without, it is
# skipped, its rest read and dropped in the same bounded memory.
source "$(dirname "$0")/../lib.sh"

# bad NAME ERE ARGS...: smolder flamegraph ARGS is exit 2 with one line matching ERE.
bad() {
	local name=$1 ere=$2
	shift 2
	run_sm "$name" flamegraph -o "$TMP/$name.svg" "$@"
	check "$name" equals "$RC $(one_error "$TMP/$name.err" >/dev/null && echo one-line) $(grep -cE -- "$ere" "$TMP/$name.err") $([ -e "$TMP/$name.svg" ] && echo written)" \
		"2 one-line 1 "
}

printf 'a;b 99999999999999999999\n' >"$TMP/int64.folded"
bad count_past_int64 'line 1 of .*int64\.folded: a count over 10\^18' "$TMP/int64.folded"
printf '# a header\na;b 1\na;c 99999999999999999999\n' >"$TMP/int64b.folded"
bad count_past_int64_skipping 'line 3 of .*int64b\.folded: a count over 10\^18' "$TMP/int64b.folded"
{ printf 'a;b 1\na;c '; printf '9%.0s' $(seq 400); echo; } >"$TMP/inf.folded"
bad count_infinite 'line 2 of .*inf\.folded: a count over 10\^18' "$TMP/inf.folded"
printf 'a;b 1\na;c 3 1e+20\n' >"$TMP/exp.folded"
bad count_exponent 'line 2 of .*exp\.folded: ' --strict "$TMP/exp.folded"
# flamegraph.pl reads no count in "1e+20" either: skipped, and said.
run_sm exp_skip flamegraph --format folded "$TMP/exp.folded"
check count_exponent_skipped equals "$RC $(cat "$TMP/exp_skip.out") $(grep -c 'skipped 1 line .*line 2 of .*"a;c 3 1e+20"' "$TMP/exp_skip.err")" \
	"0 a;b 1 1"

# What smolder writes, smolder reads: sums past the bound, tiny decimals.
printf 'a;b 1000000000000000000\na;b 1000000000000000000\na;c 1\n' >"$TMP/big.folded"
printf 'a;b 3\na;d 0.00001\n' >"$TMP/small.folded"
run_sm sum diff --format folded "$TMP/big.folded" "$TMP/big.folded"
check diff_sum_exit_0 equals "$RC" 0
check diff_sum_clamped equals "$(head -n 1 "$TMP/sum.out")" "a;b 1000000000000000000 1000000000000000000"
run_sm sum_back flamegraph --format folded "$TMP/sum.out"
check diff_sum_read_back equals "$RC $(cat "$TMP/sum_back.out")" "0 $(cat "$TMP/sum.out")"
run_sm norm diff -n --format folded "$TMP/big.folded" "$TMP/small.folded"
check diff_norm_exit_0 equals "$RC" 0
check diff_norm_no_exponent no_line "$TMP/norm.out" '[eE]|inf|nan'
run_sm norm_back flamegraph --format folded "$TMP/norm.out"
check diff_norm_read_back equals "$RC $(cat "$TMP/norm_back.out")" "0 $(cat "$TMP/norm.out")"
run_sm norm_svg flamegraph -o "$TMP/norm.svg" "$TMP/norm.out"
check diff_norm_drawn equals "$RC" 0

# A line just over the cap, and one exactly at it (4 MiB = 4194304 bytes).
/usr/bin/python3 -c 'import sys; n = int(sys.argv[1]); sys.stdout.write("a;" + "x" * (n - 4) + " 1\n")' 4194305 >"$TMP/over.folded"
bad line_over_cap 'line 1 of .*over\.folded: longer than 4 MiB' --strict "$TMP/over.folded"
# Skipping: the long line goes (quoted by its start), the next one is read.
echo 'a;b 5' >>"$TMP/over.folded"
run_sm over_skip flamegraph --format folded "$TMP/over.folded"
check line_over_cap_skipped equals "$RC $(cat "$TMP/over_skip.out") $(grep -c '^smolder: skipped 1 line .*line 1 of .*over\.folded: "a;xxx*\.\.\."' "$TMP/over_skip.err")" \
	"0 a;b 5 1"
/usr/bin/python3 -c 'import sys; n = int(sys.argv[1]); sys.stdout.write("a;" + "x" * (n - 4) + " 1\n")' 4194304 >"$TMP/at.folded"
run_sm at_cap flamegraph -o "$TMP/at.svg" "$TMP/at.folded"
check line_at_cap_read equals "$RC" 0

# 256 MiB without a newline, from a pipe: the error comes after 4 MiB, and
# the memory stays bounded (the old reader held the whole line: ~512 MiB).
# Skipping, the whole line is read and dropped in the same memory.
long_pipe() {
	local name=$1
	shift
	/usr/bin/python3 -c '
import sys
chunk = b"x" * (1 << 20)
try:
    for _ in range(256):
        sys.stdout.buffer.write(chunk)
except BrokenPipeError:
    pass' 2>/dev/null | /usr/bin/time -f '%M' -o "$TMP/$name.rss" "$SMOLDER" flamegraph "$@" -o "$TMP/$name.svg" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=${PIPESTATUS[1]}
}
long_pipe pipe --strict
check long_pipe_exit_2 equals "$RC" 2
check long_pipe_one_line some_line "$TMP/pipe.err" '^smolder: line 1 of stdin: longer than 4 MiB'
check long_pipe_rss_kib within "$(tail -n 1 "$TMP/pipe.rss")" 0 32768
long_pipe pipe_skip
check long_pipe_skip_exit_2 equals "$RC" 2
check long_pipe_skip_one_line one_error "$TMP/pipe_skip.err"
check long_pipe_skip_said some_line "$TMP/pipe_skip.err" '^smolder: no stacks in standard input .*skipped 1 line .*line 1 of stdin: "x+\.\.\."'
check long_pipe_skip_rss_kib within "$(tail -n 1 "$TMP/pipe_skip.rss")" 0 32768
