#!/bin/bash
# User-supplied strings in the outputs: --title, --subtitle and --countname
# hold markup, quotes, a CDATA end, control characters and ill-formed
# UTF-8.  The SVG must stay well-formed XML with only the writer's own
# elements (one <script>, no on* attribute) and show each string as text;
# speedscope's JSON must parse and carry the title as the profile's name;
# pprof's comment carries the title as valid UTF-8 that go tool pprof
# reads.  From `smolder flamegraph`, `smolder diff` and a capture.
source "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
mkdir -p "$HOME"

COUNT='x</title><script>alert(1)</script>'
TITLE=$'T"</text><script>alert(2)</script>&amp; ]]> \x01 \xff\xfe end'
SUB="'><svg onload=alert(3)><!--"
printf 'main;a 3\nmain;b 1\n' >"$TMP/in.folded"

# svg_ok FILE: well-formed, only the writer's elements, one script, no
# on* attribute; the title, subtitle and count name shown as text (ill-formed
# UTF-8 and control characters as U+FFFD).
svg_ok() {
	"$PY" - "$1" "$TITLE" "$SUB" "$COUNT" <<'EOF'
import sys, xml.dom.minidom
path, title, sub, count = sys.argv[1:5]
fix = lambda s: s.encode("utf-8", "surrogateescape").decode("utf-8", "replace").replace("\x01", "\ufffd")
doc = xml.dom.minidom.parse(path)
known = {"svg", "style", "defs", "linearGradient", "stop", "rect", "text", "g", "title", "script"}
names = [e.tagName for e in doc.getElementsByTagName("*")]
bad = [n for n in names if n not in known]
handlers = [a for e in doc.getElementsByTagName("*") for a in e.attributes.keys() if a.lower().startswith("on")]
texts = {e.getAttribute("id"): "".join(c.data for c in e.childNodes if c.nodeType == c.TEXT_NODE)
         for e in doc.getElementsByTagName("text") if e.getAttribute("id")}
titles = ["".join(c.data for c in t.childNodes) for t in doc.getElementsByTagName("title")]
why = []
if bad: why.append("unknown elements %s" % bad[:3])
if names.count("script") != 1: why.append("%d scripts" % names.count("script"))
if handlers: why.append("handlers %s" % handlers)
if texts.get("title") != fix(title): why.append("title %r" % texts.get("title"))
if sub and texts.get("subtitle") != fix(sub): why.append("subtitle %r" % texts.get("subtitle"))
if not any((" " + count + ", ").replace("(", "[").replace(")", "]") in t for t in titles):
    why.append("count name not in the tooltips: %r" % titles[:1])
print("; ".join(why))
sys.exit(1 if why else 0)
EOF
}
# json_name FILE: speedscope's profile name, or why it does not parse.
# json_name FILE [capture]: the file's name, which its one profile has too
# (a capture's profiles are its processes: only the file's name then).
json_name() {
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); print((len(sys.argv) > 2 or d["name"] == d["profiles"][0]["name"]) and d["name"])' "$@" 2>&1
}
fixed_title=$("$PY" -c 'import sys; print(sys.argv[1].encode("utf-8", "surrogateescape").decode("utf-8", "replace"))' "$TITLE")

run_sm fg flamegraph --title "$TITLE" --subtitle "$SUB" --countname "$COUNT" \
	-o "$TMP/fg.svg" -o "$TMP/fg.speedscope.json" -o "$TMP/fg.pb.gz" "$TMP/in.folded"
check flamegraph_exit_0 equals "$RC" 0
check flamegraph_svg_not_injected svg_ok "$TMP/fg.svg"
check speedscope_parses_with_title equals "$(json_name "$TMP/fg.speedscope.json")" "$fixed_title"
go tool pprof -comments "$TMP/fg.pb.gz" >"$TMP/fg.comments" 2>"$TMP/fg.perr"
check pprof_reads_with_title equals "$(head -n 1 "$TMP/fg.comments")" "$fixed_title"
check pprof_valid_utf8 "$PY" -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$TMP/fg.comments"

printf 'main;a 1\nmain;c 2\n' >"$TMP/after.folded"
run_sm diff diff --title "$TITLE" --subtitle "$SUB" --countname "$COUNT" -o "$TMP/diff.svg" \
	"$TMP/in.folded" "$TMP/after.folded"
check diff_exit_0 equals "$RC" 0
check diff_svg_not_injected svg_ok "$TMP/diff.svg"

# A capture writes through the same writers.
run_sm cap -F 99 --title "$TITLE" --subtitle "$SUB" --countname "$COUNT" -o "$TMP/cap.svg" \
	-o "$TMP/cap.speedscope.json" 1
check capture_exit_0 equals "$RC" 0
check capture_svg_not_injected svg_ok "$TMP/cap.svg"
check capture_speedscope_parses equals "$(json_name "$TMP/cap.speedscope.json" capture)" "$fixed_title"
