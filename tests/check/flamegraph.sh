#!/bin/bash
# smolder flamegraph and smolder diff as commands: the folded grammar's
# errors and exit codes, lines that are not stacks skipped and said (or,
# with --strict, errors), several inputs and outputs, formats by name and by
# --format, diff's counts.  A capture writing several formats at once:
# tests/cli/flamegraph_capture.sh.  The pictures themselves are checked by
# svg.sh, formats.sh and tests/cli/svg_browser.sh.
source "$(dirname "$0")/../lib.sh"

printf 'main;burn_a;spin 75\nmain;burn_b;spin 25\n' >"$TMP/ab.folded"
printf 'main;burn_a;spin 30\nmain;burn_c 70.5\n' >"$TMP/cd.folded"

# --- errors: one line, exit 2, nothing written ---
: >"$TMP/empty.folded"
run_sm empty flamegraph -o "$TMP/empty.svg" "$TMP/empty.folded"
check fg_empty_exit_2 equals "$RC" 2
check fg_empty_one_error one_error "$TMP/empty.err"
check fg_empty_names_file some_line "$TMP/empty.err" "no stacks in .*empty\.folded"
check fg_empty_no_file test ! -e "$TMP/empty.svg"
# --strict: a line that is not a stack is an error naming the line.
printf 'a;b 1\n\na;c\n' >"$TMP/nocount.folded"
run_sm nocount flamegraph --strict "$TMP/nocount.folded"
check fg_nocount_exit_2 equals "$RC" 2
check fg_nocount_one_error one_error "$TMP/nocount.err"
check fg_nocount_line_number some_line "$TMP/nocount.err" "line 3 of .*nocount\.folded: no sample count"
check fg_nocount_no_output equals "$(wc -c <"$TMP/nocount.out")" 0
# Without it the line is skipped, as flamegraph.pl skips it, and said.
run_sm nocount_skip flamegraph --format folded "$TMP/nocount.folded"
check fg_nocount_skip_exit_0 equals "$RC" 0
check fg_nocount_skip_stacks equals "$(cat "$TMP/nocount_skip.out")" "a;b 1"
check fg_nocount_skip_said equals "$(cat "$TMP/nocount_skip.err")" \
	"smolder: skipped 1 line that is not \"stack count\" (first: line 3 of $TMP/nocount.folded: \"a;c\")"
run_sm nocount_quiet flamegraph -q --format folded "$TMP/nocount.folded"
check fg_nocount_skip_quiet equals "$RC $(wc -c <"$TMP/nocount_quiet.err")" "0 0"
printf '# only: a header\nnot a stack\n' >"$TMP/nostack.folded"
run_sm nostack flamegraph -o "$TMP/nostack.svg" "$TMP/nostack.folded"
check fg_only_skipped_exit_2 equals "$RC" 2
check fg_only_skipped_one_error one_error "$TMP/nostack.err"
check fg_only_skipped_says_both some_line "$TMP/nostack.err" \
	'^smolder: no stacks in .*nostack\.folded .*skipped 2 lines .*line 1 of .*: "# only: a header"'
check fg_only_skipped_no_file test ! -e "$TMP/nostack.svg"
"$SMOLDER" flamegraph </dev/null >"$TMP/stdin.out" 2>"$TMP/stdin.err"
check fg_empty_stdin_exit_2 equals "$?" 2
check fg_empty_stdin_error some_line "$TMP/stdin.err" "no stacks in standard input"
run_sm missing flamegraph "$TMP/does-not-exist"
check fg_missing_file_exit_2 equals "$RC" 2
check fg_missing_file_error one_error "$TMP/missing.err"
run_sm badfmt flamegraph --format gif "$TMP/ab.folded"
check fg_bad_format_exit_2 equals "$RC" 2
run_sm badpal flamegraph --colors plaid "$TMP/ab.folded"
check fg_bad_palette_exit_2 equals "$RC" 2
run_sm diff1 diff "$TMP/ab.folded"
check diff_needs_two_files equals "$RC" 2
run_sm diffpb diff "$TMP/ab.folded" "$TMP/cd.folded" -o "$TMP/d.pb.gz"
check diff_rejects_pprof equals "$RC" 2
run_sm nodir flamegraph -o "$TMP/no/such/dir/x.svg" "$TMP/ab.folded"
check fg_unwritable_exit_1 equals "$RC" 1
check fg_unwritable_one_error one_error "$TMP/nodir.err"

# --- folded in, folded out: the same stacks and counts, files concatenated ---
run_sm rt flamegraph --format folded "$TMP/ab.folded" "$TMP/cd.folded"
check fg_roundtrip_exit_0 equals "$RC" 0
check fg_roundtrip_same equals "$(cat "$TMP/rt.out")" "$(cat "$TMP/ab.folded" "$TMP/cd.folded")"
check fg_roundtrip_total equals "$(total "$TMP/rt.out")" 200.5
printf 'java;Foo::bar(int, char) const;a "quoted" <name> & more 7\n' >"$TMP/sp.folded"
"$SMOLDER" flamegraph -o "$TMP/sp.txt" - <"$TMP/sp.folded"
check fg_stdin_dash_and_spaces equals "$(cat "$TMP/sp.txt")" "$(cat "$TMP/sp.folded")"

# --- formats by name, --format overriding, several -o in one run ---
run_sm multi flamegraph -o "$TMP/m.svg" -o "$TMP/m.folded" -o "$TMP/m.speedscope.json" \
	-o "$TMP/m.pb.gz" -o "$TMP/m.other" "$TMP/ab.folded"
check fg_multi_exit_0 equals "$RC" 0
check fg_multi_svg some_line "$TMP/m.svg" "<svg"
check fg_multi_other_is_svg some_line "$TMP/m.other" "<svg"
check fg_multi_folded equals "$(total "$TMP/m.folded")" 100
check fg_multi_speedscope some_line "$TMP/m.speedscope.json" '"type": ?"sampled"'
check fg_multi_pprof_gzip equals "$(head -c 2 "$TMP/m.pb.gz" | od -An -tx1 | tr -d ' ')" 1f8b
run_sm fmt flamegraph --format folded -o "$TMP/f.svg" "$TMP/ab.folded"
check fg_format_overrides_name equals "$(total "$TMP/f.svg")" 100
check fg_no_temp_files_left equals "$(ls "$TMP" | grep -c '\.tmp\.')" 0

# --- diff: AFTER's counts, BEFORE's beside them, -n scales BEFORE ---
run_sm d diff --format folded "$TMP/ab.folded" "$TMP/cd.folded"
check diff_exit_0 equals "$RC" 0
check diff_grown_stack some_line "$TMP/d.out" '^main;burn_c 0 70\.5$'
check diff_shrunk_stack some_line "$TMP/d.out" '^main;burn_b;spin 25 0$'
check diff_both_stack some_line "$TMP/d.out" '^main;burn_a;spin 75 30$'
run_sm dn diff -n --format folded "$TMP/ab.folded" "$TMP/cd.folded"
check diff_normalized_totals equals "$(awk '{ b += $(NF-1); a += $NF } END { print b, a }' "$TMP/dn.out")" "100.5 100.5"
run_sm dsvg diff "$TMP/ab.folded" "$TMP/cd.folded"
check diff_svg_to_stdout some_line "$TMP/dsvg.out" "<svg"
printf 'main;x 1 2\n' >"$TMP/two.folded"
run_sm dtwo diff "$TMP/two.folded" "$TMP/ab.folded"
check diff_rejects_two_count_input equals "$RC" 2
# diff skips too, one line per input; --strict stops at the first.
printf '# before\nmain;burn_a;spin 50\nfoo\n' >"$TMP/hdr.folded"
run_sm dskip diff --format folded "$TMP/hdr.folded" "$TMP/ab.folded"
check diff_skip_exit_0 equals "$RC" 0
check diff_skip_stack some_line "$TMP/dskip.out" '^main;burn_a;spin 50 75$'
check diff_skip_said equals "$(grep -c 'skipped 2 lines .*line 1 of .*hdr\.folded: "# before"' "$TMP/dskip.err") $(wc -l <"$TMP/dskip.err")" "1 1"
run_sm dstrict diff --strict "$TMP/hdr.folded" "$TMP/ab.folded"
check diff_strict_exit_2 equals "$RC" 2
check diff_strict_names_line some_line "$TMP/dstrict.err" 'line 1 of .*hdr\.folded: no sample count'
