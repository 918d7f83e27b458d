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
# It runs in make check's fast tier, nine times a run of tests/cli's
# structure test: the per-include work is shell builtins over tables read
# once, with no command substitution in a loop (a fork each, which made a
# run take seconds).
SRC=${1:-$(dirname "$0")/../../src}
cd "$SRC" || exit 2

# Folders, bottom to top; folders of one rank may not include each other.
RANKS="lib:0 files:1 profile:1 symbols:2 unwind:2 output:2 capture:3 fold:3 session:4 cmd:5"
declare -A rank
for r in $RANKS; do
	rank[${r%%:*}]=${r#*:}
done

bad=0
say() { echo "$*"; bad=1; }

# The quoted includes of every file, "FILE INC" a line, read once.
declare -A incs named
for f in */*; do
	named[${f#*/}]=1
done
while read -r f inc; do
	incs[$f]+="$inc "
done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/; T; F; p' */*.[ch] |
	paste -d ' ' - -)

for f in */*.[ch]; do
	dir=${f%%/*}
	from=${rank[$dir]-?}
	[ "$from" = "?" ] && say "rank: $f is in $dir/, which has no rank"
	for inc in ${incs[$f]}; do
		case "$inc" in
		*/*.h) ;;
		*)
			# a project header named without its folder
			[ -n "${named[$inc]}" ] && say "qualified: $f includes \"$inc\" without its folder"
			continue ;;
		esac
		[ -f "$inc" ] || { say "qualified: $f includes \"$inc\", which is not in src/"; continue; }
		to=${inc%%/*}
		[ "$to" = "$dir" ] && continue
		case "$inc" in *_int.h) say "private: $f includes $inc, private to $to/" ;; esac
		r=${rank[$to]-?}
		if [ "$r" != "?" ] && [ "$from" != "?" ] && [ "$r" -ge "$from" ]; then
			say "rank: $f includes $inc: $to/ (rank $r) is not below $dir/ (rank $from)"
		fi
	done
done

# Module edges "a b": a includes b's header (through _int.h headers).
# module_of PATH: sets module, PATH without .c/.h and _int.
module_of() { module=${1%.[ch]}; module=${module%_int}; }
# headers_of FILE: appends FILE's headers, through its _int.h ones, to hdrs.
headers_of() {
	local inc
	for inc in ${incs[$1]}; do
		[ -f "$inc" ] || continue
		case "$inc" in *_int.h) headers_of "$inc" ;; *) hdrs+=("$inc") ;; esac
	done
}
edges="${TMPDIR:-/tmp}/structure-edges.$$"
for f in */*.[ch]; do
	case "$f" in *_int.h) continue ;; esac
	hdrs=()
	headers_of "$f"
	module_of "$f"
	from=$module
	for inc in "${hdrs[@]}"; do
		module_of "$inc"
		[ "$from" = "$module" ] || echo "$from $module"
	done
done | sort -u >"$edges"
loop=$(tsort "$edges" 2>&1 >/dev/null | grep -v 'input contains a loop' |
	sed -E 's/^tsort: //' | tr '\n' ' ')
rm -f "$edges"
[ -n "$loop" ] && say "loop: modules include each other: $loop"

while read -r n f; do
	[ "$f" = total ] && continue
	[ "$n" -gt 800 ] && say "size: $f has $n lines (at most 800)"
done < <(wc -l */*.c)
for f in $(grep -lE 'struct env\b' */*.[ch]); do
	case "$f" in cmd/*) ;; *) say "env: $f knows struct env, which only cmd/ may" ;; esac
done
for f in $(grep -l '#include "smolder.skel.h"' */*.[ch]); do
	case "$f" in capture/*) ;; *) say "skeleton: $f includes the BPF skeleton, which only capture/ may" ;; esac
done
exit $bad
