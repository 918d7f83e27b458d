#!/bin/bash
# User-supplied strings in the outputs: --title, --subtitle and --countname
# hold markup, quotes, a CDATA end, control characters and ill-formed
# UTF-8.  The SVG must stay well-formed XML with only the writer's own
# elements (one <script>, no on* attribute) and show each string as text;
# speedscope's JSON must parse and carry the title as the profile's name;
# pprof's comment carries the title as valid UTF-8 that go tool pprof
# reads.  From `smolder flamegraph` and `smolder diff`; from a capture in
# tests/cli/escape_capture.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_escape.sh"
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
mkdir -p "$HOME"

printf 'main;a 3\nmain;b 1\n' >"$TMP/in.folded"

run_sm fg flamegraph --title "$TITLE" --subtitle "$SUB" --countname "$COUNT" \
	-o "$TMP/fg.svg" -o "$TMP/fg.speedscope.json" -o "$TMP/fg.pb.gz" "$TMP/in.folded"
check flamegraph_exit_0 equals "$RC" 0
check flamegraph_svg_not_injected svg_ok "$TMP/fg.svg"
check speedscope_parses_with_title equals "$(json_name "$TMP/fg.speedscope.json")" "$fixed_title ($SUB)"
go tool pprof -comments "$TMP/fg.pb.gz" >"$TMP/fg.comments" 2>"$TMP/fg.perr"
check pprof_reads_with_title equals "$(head -n 1 "$TMP/fg.comments")" "$fixed_title"
check pprof_valid_utf8 "$PY" -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$TMP/fg.comments"

printf 'main;a 1\nmain;c 2\n' >"$TMP/after.folded"
run_sm diff diff --title "$TITLE" --subtitle "$SUB" --countname "$COUNT" -o "$TMP/diff.svg" \
	"$TMP/in.folded" "$TMP/after.folded"
check diff_exit_0 equals "$RC" 0
check diff_svg_not_injected svg_ok "$TMP/diff.svg"
