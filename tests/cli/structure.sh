#!/bin/bash
# The source's shape, as issue 13 fixed it: no include loop among src/'s
# headers and files, only main.c and cli.c (and cli.h itself) know the
# command line's cli.h, and no .c file in src/ is over 800 lines.
source "$(dirname "$0")/../lib.sh"
cd "$TOP/src" || exit 1

# Edges "a b": module a includes b's header.  A module is a file's name
# without .c/.h, so foo.c -> foo.h is not an edge.  An internal header
# foo_int.h is shared by the files of one part: it is not a module of its
# own, its includes count as its includers'.
module() { echo "${1%.[ch]}"; }
headers_of() { # the project headers FILE includes, through internal ones
	local inc
	for inc in $(sed -nE 's/^#include "([a-z0-9_]+\.h)".*/\1/p' "$1"); do
		[ -f "$inc" ] || continue
		case "$inc" in *_int.h) headers_of "$inc" ;; *) echo "$inc" ;; esac
	done
}
edges() {
	local f inc
	for f in *.c *.h; do
		case "$f" in *_int.h) continue ;; esac
		for inc in $(headers_of "$f"); do
			[ "$(module "$f")" = "$(module "$inc")" ] || echo "$(module "$f") $(module "$inc")"
		done
	done | sort -u
}
edges >"$TMP/edges"
# tsort prints "tsort: -: input contains a loop:" and the loop's members.
loops=$(tsort "$TMP/edges" 2>&1 >/dev/null | tr '\n' ' ')
check structure_no_include_loop equals "$loops" ""
check structure_cli_h_only_above equals \
	"$(grep -l '#include "cli.h"' *.c *.h | grep -vxE 'cli\.c|main\.c' | tr '\n' ' ')" ""
check structure_c_files_at_most_800_lines equals \
	"$(wc -l *.c | awk '$2 != "total" && $1 > 800 { printf "%s:%d ", $2, $1 }')" ""
