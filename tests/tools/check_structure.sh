#!/bin/bash
# The source tree's shape (issue 22): check_structure.sh [SRC] prints one
# line per broken rule (nothing when all hold) and exits 1 if any broke.
#  - rank: a file includes headers of its own folder or of a folder of
#    lower rank, never of one above or beside it (RANKS below);
#  - qualified: a project header is included by its folder's name
#    ("symbols/usyms.h"), so every arrow can be found with grep;
#  - private: a header ending in _int.h is included only from its folder;
#  - loop: no module (a file's name without .c/.h) includes itself through
#    others; an _int.h header stands for its includers;
#  - size: no .c file is over 800 lines;
#  - env: struct env (the command line) is known only in cmd/;
#  - skeleton: only capture/ includes the BPF skeleton.
# The headers of include/ (shared with the BPF side) and the generated ones
# in build/ are not src's and are not checked.
SRC=${1:-$(dirname "$0")/../../src}
cd "$SRC" || exit 2

# Folders, bottom to top; folders of one rank may not include each other.
RANKS="lib:0 files:1 profile:1 symbols:2 unwind:2 output:2 capture:3 fold:3 session:4 cmd:5"
rank_of() {
	local r
	for r in $RANKS; do
		[ "${r%%:*}" = "$1" ] && { echo "${r#*:}"; return; }
	done
	echo "?"
}

bad=0
say() { echo "$*"; bad=1; }

# includes FILE: the quoted includes of FILE, one per line.
includes() { sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$1"; }

for f in */*.[ch]; do
	dir=${f%%/*}
	[ "$(rank_of "$dir")" = "?" ] && say "rank: $f is in $dir/, which has no rank"
	for inc in $(includes "$f"); do
		case "$inc" in
		*/*.h) ;;
		*)
			# a project header named without its folder
			ls ./*/"$inc" >/dev/null 2>&1 && say "qualified: $f includes \"$inc\" without its folder"
			continue ;;
		esac
		[ -f "$inc" ] || { say "qualified: $f includes \"$inc\", which is not in src/"; continue; }
		to=${inc%%/*}
		[ "$to" = "$dir" ] && continue
		case "$inc" in *_int.h) say "private: $f includes $inc, private to $to/" ;; esac
		if [ "$(rank_of "$to")" != "?" ] && [ "$(rank_of "$dir")" != "?" ] &&
			[ "$(rank_of "$to")" -ge "$(rank_of "$dir")" ]; then
			say "rank: $f includes $inc: $to/ (rank $(rank_of "$to")) is not below $dir/ (rank $(rank_of "$dir"))"
		fi
	done
done

# Module edges "a b": a includes b's header (through _int.h headers).
module() { local m=${1%.[ch]}; echo "${m%_int}"; }
headers_of() {
	local inc
	for inc in $(includes "$1"); do
		[ -f "$inc" ] || continue
		case "$inc" in *_int.h) headers_of "$inc" ;; *) echo "$inc" ;; esac
	done
}
for f in */*.[ch]; do
	case "$f" in *_int.h) continue ;; esac
	for inc in $(headers_of "$f"); do
		[ "$(module "$f")" = "$(module "$inc")" ] || echo "$(module "$f") $(module "$inc")"
	done
done | sort -u >"${TMPDIR:-/tmp}/structure-edges.$$"
loop=$(tsort "${TMPDIR:-/tmp}/structure-edges.$$" 2>&1 >/dev/null | grep -v 'input contains a loop' |
	sed -E 's/^tsort: //' | tr '\n' ' ')
rm -f "${TMPDIR:-/tmp}/structure-edges.$$"
[ -n "$loop" ] && say "loop: modules include each other: $loop"

for f in */*.c; do
	n=$(wc -l <"$f")
	[ "$n" -gt 800 ] && say "size: $f has $n lines (at most 800)"
done
for f in $(grep -lE 'struct env\b' */*.[ch]); do
	case "$f" in cmd/*) ;; *) say "env: $f knows struct env, which only cmd/ may" ;; esac
done
for f in $(grep -l '#include "smolder.skel.h"' */*.[ch]); do
	case "$f" in capture/*) ;; *) say "skeleton: $f includes the BPF skeleton, which only capture/ may" ;; esac
done
exit $bad
