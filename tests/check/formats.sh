#!/bin/bash
# Known truth for the speedscope and pprof outputs: what each file carries,
# read back by the formats' own tools (go tool pprof; speedscope's JSON
# schema through python3-jsonschema) and turned into folded stacks by
# tests/formats/stacks.py, must be the folded input stack for stack, with
# the same total.  Inputs: synthetic folded files with a known split, odd
# names, hostile names, decimal counts, 100,000 stacks.  A capture written
# as pprof, folded and speedscope at once: tests/cli/formats_capture.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_formats.sh"

# Without the converter nothing below can run: one FAIL saying so.
if ! "$SMOLDER" flamegraph --help 2>&1 | grep -q -- '--format'; then
	fail formats_flamegraph_command "smolder has no 'flamegraph' subcommand with --format"
	exit 0
fi
[ -s "$SCHEMA" ] || fail formats_schema "missing $SCHEMA (run scripts/deps.sh)"

# ---- a known split, odd but legal names, a repeated stack ----
S=$TMP/split.folded
printf '%s\n' 'main;run_loop;burn_a;spin 700' 'main;run_loop;burn_b;spin 250' \
	'main;run_loop;burn_a;spin 50' \
	'app;ipt_do_table [ip_tables];std::vector<int>::push_back(int const&) 3' \
	'app;a b  c;x 1' >"$S"
folded_of "$S" "$TMP/split.want"

run_sm ppf flamegraph --format pprof -o "$TMP/split.pb.gz" "$S"
ok_or_err pprof_format_exit_0 "$RC" "$TMP/ppf.err"
check pprof_is_gzip gzip -t "$TMP/split.pb.gz"
pprof_of "$TMP/split.pb.gz" "$TMP/split.pp"
ok_or_err pprof_go_tool_reads "$?" "$TMP/split.pp.err"
check pprof_stacks_equal_input same_stacks "$TMP/split.pp" "$TMP/split.want"
check pprof_total_equals equals "$(stack_total "$TMP/split.pp")" "$(stack_total "$TMP/split.want")"
check pprof_burn_a_share within "$(share "$TMP/split.pp" ";burn_a;")" 74.7 74.7
# Folded files carry no period: sample counts only.
check pprof_sample_types equals "$("$PY" "$STACKS" pprof-types "$TMP/split.pp.raw")" "samples/count"
# -traces is pprof's own leaf-first listing: a second reading.
go tool pprof -symbolize=none -sample_index=samples -traces "$TMP/split.pb.gz" >"$TMP/split.tr" 2>&1
"$PY" "$STACKS" pprof-traces "$TMP/split.tr" >"$TMP/split.trs" 2>&1
check pprof_traces_equal_input same_stacks "$TMP/split.trs" "$TMP/split.want"
check pprof_traces_leaf_first some_line "$TMP/split.tr" '^ +750   spin$'

# The format from the file name.
run_sm ppe flamegraph -o "$TMP/ext.pb.gz" "$S"
pprof_of "$TMP/ext.pb.gz" "$TMP/ext.pp"
check pprof_by_extension same_stacks "$TMP/ext.pp" "$TMP/split.want"

# pprof counts are integers: decimals round to the nearest.
printf '%s\n' 'a;b 2.5' 'a;c 1.4' 'a;d 3' >"$TMP/dec.folded"
printf '%s\n' 'a;b 3' 'a;c 1' 'a;d 3' >"$TMP/dec.want"
run_sm ppd flamegraph --format pprof -o "$TMP/dec.pb.gz" "$TMP/dec.folded"
pprof_of "$TMP/dec.pb.gz" "$TMP/dec.pp"
check pprof_rounds_decimals same_stacks "$TMP/dec.pp" "$TMP/dec.want"

# ---- speedscope ----
run_sm ssf flamegraph --format speedscope -o "$TMP/split.json" "$S"
ok_or_err speedscope_format_exit_0 "$RC" "$TMP/ssf.err"
speedscope_of "$TMP/split.json" "$TMP/split.ss"
ok_or_err speedscope_valid_schema "$?" "$TMP/split.ss.err"
check speedscope_stacks_equal_input same_stacks "$TMP/split.ss" "$TMP/split.want"
check speedscope_total_equals equals "$(stack_total "$TMP/split.ss")" "$(stack_total "$TMP/split.want")"
check speedscope_end_value some_line "$TMP/split.json" '"endValue":1004,'
check speedscope_exporter some_line "$TMP/split.json" '^"exporter":"smolder [0-9]+\.[0-9]+\.[0-9]+",$'
check speedscope_frames_once equals "$(grep -c '^{"name":"spin"}' "$TMP/split.json")" 1

run_sm sse flamegraph -o "$TMP/ext.speedscope.json" "$S"
speedscope_of "$TMP/ext.speedscope.json" "$TMP/ext.ss"
check speedscope_by_extension same_stacks "$TMP/ext.ss" "$TMP/split.want"

# Decimal counts stay as they are in speedscope.
run_sm ssd flamegraph --format speedscope -o "$TMP/dec.json" "$TMP/dec.folded"
speedscope_of "$TMP/dec.json" "$TMP/dec.ss"
folded_of "$TMP/dec.folded" "$TMP/dec.fwant"
check speedscope_keeps_decimals same_stacks "$TMP/dec.ss" "$TMP/dec.fwant"

# ---- hostile names: the files stay valid, the names survive (ill-formed
# UTF-8 as U+FFFD, the way Python's decoder replaces it) ----
H=$TMP/hostile.folded
printf 'q"b;back\\slash;c\001\037\177\tx;</script>;"},{"name":"evil;\377\376;\342\202;\355\240\200;\360\237\230\200ok 5\n' >"$H"
printf 'main;\\u0000;%%s%%n;{"a":[1]} 2\n' >>"$H"
folded_of "$H" "$TMP/hostile.want"
run_sm ssh flamegraph --format speedscope -o "$TMP/hostile.json" "$H"
speedscope_of "$TMP/hostile.json" "$TMP/hostile.ss"
ok_or_err speedscope_hostile_valid_json "$?" "$TMP/hostile.ss.err"
check speedscope_hostile_names_survive same_stacks "$TMP/hostile.ss" "$TMP/hostile.want"
check speedscope_no_script_end no_line "$TMP/hostile.json" '</script>'
run_sm pph flamegraph --format pprof -o "$TMP/hostile.pb.gz" "$H"
pprof_of "$TMP/hostile.pb.gz" "$TMP/hostile.pp"
ok_or_err pprof_hostile_reads "$?" "$TMP/hostile.pp.err"
check pprof_hostile_names_survive same_stacks "$TMP/hostile.pp" "$TMP/hostile.want"

# ---- 100,000 stacks of 20-40 frames over 400 names ----
B=$TMP/big.folded
awk 'BEGIN { srand(7)
	for (i = 0; i < 400; i++) name[i] = "fn_" i "_" substr("abcdefghijklmnopqrstuvw", 1, i % 23)
	for (l = 0; l < 100000; l++) {
		d = 20 + int(rand() * 21); s = name[int(rand() * 400)]
		for (j = 1; j < d; j++) s = s ";" name[int(rand() * 400)]
		print s, 1 + int(rand() * 1000) } }' >"$B"
folded_of "$B" "$TMP/big.want"
run_sm ppb flamegraph -o "$TMP/big.pb.gz" "$B"
echo "# 100,000 stacks: pprof in $ELAPSED s ($(stat -c %s "$TMP/big.pb.gz") bytes)"
check pprof_big_fast within "$ELAPSED" 0 10
pprof_of "$TMP/big.pb.gz" "$TMP/big.pp"
check pprof_big_stacks_equal same_stacks "$TMP/big.pp" "$TMP/big.want"
run_sm ssb flamegraph -o "$TMP/big.speedscope.json" "$B"
echo "# 100,000 stacks: speedscope in $ELAPSED s ($(stat -c %s "$TMP/big.speedscope.json") bytes)"
check speedscope_big_fast within "$ELAPSED" 0 10
# No schema here: jsonschema takes ~14 s on this; the small files cover it.
speedscope_of "$TMP/big.speedscope.json" "$TMP/big.ss" -
check speedscope_big_stacks_equal same_stacks "$TMP/big.ss" "$TMP/big.want"
check speedscope_big_frames_once equals "$(grep -c '^{"name":' "$TMP/big.speedscope.json")" 400
