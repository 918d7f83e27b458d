#!/usr/bin/env bash
# Unwind tables (`make bench-unwind`): what src/unwind/unwind_table.c builds from
# the CFI of big Debian 12 binaries, and what it costs, with readelf
# decoding the same rows (--debug-dump=frames-interp) in the same run as
# the peer.  Per file: FDEs, CFI rows (before merging), table rows (after
# merging, gaps included), the CFI rows' kinds, distinct rules, table
# bytes, build time (tests/tools/unwind_dump in a fresh process, median of
# 3 runs) and peak RSS (/usr/bin/time -f %M) of the whole tool.  Then the
# tables a C++ process needs: its program and every file ldd lists for it
# (libstdc++, libm, libgcc_s, libc, ld.so).
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
DUMP=$ROOT/build/tools/unwind_dump
need_built "$DUMP" tools
need_time
need_cmd readelf binutils
make_tmp

LIB=/usr/lib/x86_64-linux-gnu
FILES=${UNWIND_FILES:-"$LIB/libc.so.6 $LIB/ld-linux-x86-64.so.2 $LIB/libstdc++.so.6 $LIB/libLLVM-14.so.1 /usr/bin/python3.11"}

# field KEY LINE: a value of unwind_dump -m's key=value line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }'; }

printf '| file | size MB | FDEs | CFI rows | table rows (gaps) | rsp %% | rbp %% | plt/signal/end | unsupported %% | rules | table KiB | build ms | RSS MB | readelf s | readelf RSS MB |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for f in $FILES; do
	[ -r "$f" ] || { echo "bench-unwind: $f missing, left out" >&2; continue; }
	f=$(readlink -f "$f")
	ms=()
	rss=0
	for _ in 1 2 3; do
		line=$(timed "$TMP/dump.time" "$DUMP" -m "$f") || die "unwind_dump $f failed"
		ms+=("$(field ms "$line")")
		r=$(rss_of "$TMP/dump.time")
		[ "${r:-0}" -gt "$rss" ] && rss=$r
	done
	t0=$(now_us)
	timed "$TMP/readelf.time" readelf -wN -W --debug-dump=frames-interp "$f" >/dev/null
	t1=$(now_us)
	cfi=$(field cfi_rows "$line")
	printf '| %s | %.1f | %s | %s | %s (%s) | %s | %s | %s/%s/%s | %s | %s | %.0f | %s | %.1f | %.2f | %.1f |\n' \
		"$(basename "$f")" "$(awk -v b="$(stat -c %s "$f")" 'BEGIN { print b / 1048576 }')" \
		"$(field fdes "$line")" "$cfi" "$(field rows "$line")" "$(field gaps "$line")" \
		"$(pct "$(field rsp "$line")" "$cfi")" "$(pct "$(field rbp "$line")" "$cfi")" \
		"$(field plt "$line")" "$(field signal "$line")" "$(field end "$line")" \
		"$(pct "$(field unsupported "$line")" "$cfi")" "$(field rules "$line")" \
		"$(awk -v b="$(field bytes "$line")" 'BEGIN { print b / 1024 }')" \
		"$(median "${ms[@]}")" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
		"$(secs "$t0" "$t1")" \
		"$(awk -v k="$(rss_of "$TMP/readelf.time")" 'BEGIN { print k / 1024 }')"
done

# A process linking the C and C++ runtimes: its program and every library.
printf '#include <cmath>\n#include <iostream>\n#include <string>\n%s\n' \
	'int main(int c, char **v) { std::string s(v[0]); std::cout << s << std::sqrt(c) << std::endl; }' \
	>"$TMP/cxx.cpp"
g++ -O2 -o "$TMP/cxx" "$TMP/cxx.cpp" || die "g++ failed"
total=0
echo
echo "tables of a C++ process (the program and what ldd lists):"
for f in "$TMP/cxx" $(ldd "$TMP/cxx" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
	line=$("$DUMP" -m "$(readlink -f "$f")") || continue
	b=$(field bytes "$line")
	total=$((total + b))
	printf '  %-40s %8d bytes\n' "$(basename "$(readlink -f "$f")")" "$b"
done
printf '  %-40s %8d bytes (%.2f MiB)\n' total "$total" "$(awk -v b=$total 'BEGIN { print b / 1048576 }')"
