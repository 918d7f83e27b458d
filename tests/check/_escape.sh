# Helpers of escape.sh and tests/cli/escape_capture.sh (sourced after
# lib.sh, not run): the hostile strings, and what each output must make of
# them.
PY=/usr/bin/python3

COUNT='x</title><script>alert(1)</script>'
TITLE=$'T"</text><script>alert(2)</script>&amp; ]]> \x01 \xff\xfe end'
SUB="'><svg onload=alert(3)><!--"

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
# json_name FILE [capture]: the file's name, "TITLE (SUBTITLE)", whose
# TITLE its one profile has (a capture's profiles are its processes: only
# the file's name then).
json_name() {
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); print((len(sys.argv) > 2 or d["name"].startswith(d["profiles"][0]["name"] + " (")) and d["name"])' "$@" 2>&1
}
fixed_title=$("$PY" -c 'import sys; print(sys.argv[1].encode("utf-8", "surrogateescape").decode("utf-8", "replace"))' "$TITLE")
