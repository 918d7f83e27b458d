#!/bin/bash
# The documents: the README stays what a newcomer reads first (at most 250
# lines, the two commands first), and no link in it or in docs/ is broken:
# every relative link names a file that exists and, with #anchor, a
# heading of that file whose GitHub anchor that is.
source "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1

check readme_at_most_250_lines within "$(wc -l <README.md)" 1 250
check readme_starts_with_the_two_commands equals \
	"$(sed -n '/^```sh$/,/^```$/p' README.md | grep -oE '^sudo make [a-z]+' | head -n 2 | tr '\n' ' ')" \
	"sudo make demo sudo make test "

# anchors FILE: the anchors GitHub makes of FILE's headings (lower case,
# punctuation but - and _ dropped, spaces as -), outside code blocks.
anchors() {
	awk '/^```/ { code = !code } !code && /^#+ / { sub(/^#+ /, ""); print }' "$1" |
		tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}

bad=
links=0
for doc in README.md docs/*.md; do
	# [text](target) outside code spans and blocks, not a URL
	for target in $(awk '/^```/ { code = !code; next } !code' "$doc" | sed -E 's/`[^`]*`//g' |
		grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//' | grep -vE '^[a-z]+://'); do
		links=$((links + 1))
		file=${target%%#*}
		anchor=
		[[ $target == *#* ]] && anchor=${target#*#}
		path=$(dirname "$doc")/$file
		[ -z "$file" ] && path=$doc
		if [ ! -e "$path" ]; then
			bad="$bad $doc:$target(no file)"
		elif [ -n "$anchor" ] && ! anchors "$path" | grep -qxF -- "$anchor"; then
			bad="$bad $doc:$target(no heading)"
		fi
	done
done
check docs_links_resolve equals "broken:$bad" "broken:"
check docs_links_counted within "$links" 20 1000
