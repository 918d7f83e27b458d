#!/bin/bash
# The man page (smolder --man, what make install installs as smolder.1):
# groff and man render it without a warning, and it says what every --help
# page says (each usage form, paragraph, heading, option with its text and
# example, compared as rendered text) and lists no option that no --help
# lists: the two are one source and cannot drift.
source "$(dirname "$0")/../lib.sh"

run_sm man --man
check man_exit_0 equals "$RC:$(head -c 300 "$TMP/man.err")" "0:"
check man_is_roff some_line "$TMP/man.out" '^\.TH SMOLDER 1 '
MAN=$TMP/man.out

groff -man -Tutf8 -ww "$MAN" >"$TMP/groff.utf8" 2>"$TMP/groff.err"
check man_groff_renders_clean equals "$?:$(head -c 300 "$TMP/groff.err")" "0:"
check man_groff_has_text within "$(wc -l <"$TMP/groff.utf8")" 300 2000
if command -v man >/dev/null; then
	MAN_KEEP_STDERR=1 MANWIDTH=80 man --warnings=w -l "$MAN" >"$TMP/man.txt" 2>"$TMP/man-l.err"
	check man_l_renders_clean equals "$?:$(head -c 300 "$TMP/man-l.err")" "0:"
	check man_l_has_options some_line "$TMP/man.txt" '^ +-p, --pid PID'
else
	echo "SKIP man_l_renders_clean: man-db is not installed (scripts/deps.sh installs it)"
fi

# The page as one line of text: no font changes, runs of spaces and line
# ends as one space, but a word the formatter broke after its own hyphen
# (queued-|by:COMM) joined again (the page turns hyphenation off).
groff -man -Tascii "$MAN" 2>/dev/null | col -bx |
	awk '{ sub(/^ +/, ""); if (held ~ /[[:alnum:]]-$/) held = held $0; else { print held; held = $0 } }
		END { print held }' | tr -s ' \n' '  ' >"$TMP/man.flat"

# help_parts PAGE: what a --help page says, one "KIND<TAB>text" per line:
# usage forms, paragraphs, headings, options (with their text) and examples
# (with theirs), each flattened.  Blocks are separated by blank lines.
help_parts() {
	awk -v RS= '
	function flat(s) { gsub(/[ \n]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
	function emit(kind, s) { if (s != "") print kind "\t" flat(s) }
	{
		n = split($0, line, "\n")
		if (line[1] ~ /^usage: /) {
			for (i = 1; i <= n; i++) { s = line[i]; sub(/^(usage:)? +/, "", s); emit("usage", s) }
			next
		}
		if (line[1] !~ /^ / && $0 !~ /\n /) { emit("paragraph", $0); next }
		i = 1
		if (line[1] !~ /^ /) {
			h = line[1]; sub(/:$/, "", h)
			example = h ~ /^Examples?$/
			if (!example) emit("heading", h)
			i = 2
		}
		entry = ""
		for (; i <= n; i++) {
			if (match(line[i], /^ +/) && RLENGTH <= 6) { # not a continuation
				emit(example ? "example" : "option", entry)
				entry = line[i]
				if (example) sub(/   +/, " ", entry)
			} else {
				entry = entry " " line[i]
			}
		}
		emit(example ? "example" : "option", entry)
	}'
}

missing=
for page in "" flamegraph diff; do
	"$SMOLDER" $page --help >"$TMP/help.$page" 2>&1
	help_parts <"$TMP/help.$page" >"$TMP/parts.$page"
	while IFS=$'\t' read -r kind text; do
		grep -qF -- "$text" "$TMP/man.flat" || missing="$missing|${page:-capture} $kind: $text"
	done <"$TMP/parts.$page"
done
check man_holds_every_help_part equals "missing:${missing:0:600}" "missing:"
check man_parts_counted within "$(cat "$TMP"/parts.* | grep -c '^option')" 80 200

# Every option the page lists (its list entries' tags) is one --help lists.
sed -n '/^\.TP$/{n;p}' "$MAN" | sed -E 's/\\f[BIR]//g; s/\\-/-/g' |
	grep -oE '(^|, )-[-a-zA-Z0-9]*' | sed 's/^, //' | sort -u >"$TMP/man.opts"
cat "$TMP"/parts.* | awk -F'\t' '$1 == "option" { print $2 }' |
	grep -oE '^-[-a-zA-Z0-9]*(, --[-a-z0-9]+)?' | tr ',' '\n' | tr -d ' ' | sort -u >"$TMP/help.opts"
check man_options_are_help_options equals "$(comm -3 "$TMP/man.opts" "$TMP/help.opts" | tr '\n\t' ' ')" ""
check man_options_counted within "$(wc -l <"$TMP/man.opts")" 60 200
