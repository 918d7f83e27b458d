#!/usr/bin/env bash
# Unwind tables (`make bench-unwind`): what src/unwind_table.c builds from
# the CFI of big Debian 12 binaries, and what it costs, with readelf
# decoding the same rows (--debug-dump=frames-interp) in the same run as
# the peer.  Per file: FDEs, CFI rows (before merging), table rows (after
# merging, gaps included), the CFI rows' kinds, distinct rules, table
# bytes, build time (tests/tools/unwind_dump in a fresh process, median of
# 3 runs) and peak RSS (/usr/bin/time -f %M) of the whole tool.  Then the
# tables a C++ process needs: its program and every file ldd lists for it
# (libstdc++, libm, libgcc_s, libc, ld.so).
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
DUMP=$PWD/build/tools/unwind_dump
die() { echo "bench-unwind: $*" >&2; exit 1; }
[ -x "$DUMP" ] || die "build/tools/unwind_dump is missing (run make tools)"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
command -v readelf >/dev/null || die "readelf is missing (apt-get install binutils)"
TMP=$(mktemp -d /tmp/smolder-bench-unwind.XXXXXX) || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT

LIB=/usr/lib/x86_64-linux-gnu
FILES=${UNWIND_FILES:-"$LIB/libc.so.6 $LIB/ld-linux-x86-64.so.2 $LIB/libstdc++.so.6 $LIB/libLLVM-14.so.1 /usr/bin/python3.11"}

# field KEY LINE: a value of unwind_dump -m's key=value line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }'; }
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

printf '| file | size MB | FDEs | CFI rows | table rows (gaps) | rsp %% | rbp %% | plt/signal/end | unsupported %% | rules | table KiB | build ms | RSS MB | readelf s | readelf RSS MB |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for f in $FILES; do
	[ -r "$f" ] || { echo "bench-unwind: $f missing, left out" >&2; continue; }
	f=$(readlink -f "$f")
	ms=()
	rm -f "$TMP"/rss.*
	for i in 1 2 3; do
		line=$(/usr/bin/time -f %M -o "$TMP/rss.dump.$i" "$DUMP" -m "$f") || die "unwind_dump $f failed"
		ms+=("$(field ms "$line")")
	done
	rss=$(sort -n "$TMP"/rss.dump.* | tail -n 1)
	t0=${EPOCHREALTIME/./}
	/usr/bin/time -f %M -o "$TMP/rss.readelf" readelf -wN -W --debug-dump=frames-interp "$f" >/dev/null
	t1=${EPOCHREALTIME/./}
	cfi=$(field cfi_rows "$line")
	printf '| %s | %.1f | %s | %s | %s (%s) | %s | %s | %s/%s/%s | %s | %s | %.0f | %s | %.1f | %.2f | %.1f |\n' \
		"$(basename "$f")" "$(awk -v b="$(stat -c %s "$f")" 'BEGIN { print b / 1048576 }')" \
		"$(field fdes "$line")" "$cfi" "$(field rows "$line")" "$(field gaps "$line")" \
		"$(pct "$(field rsp "$line")" "$cfi")" "$(pct "$(field rbp "$line")" "$cfi")" \
		"$(field plt "$line")" "$(field signal "$line")" "$(field end "$line")" \
		"$(pct "$(field unsupported "$line")" "$cfi")" "$(field rules "$line")" \
		"$(awk -v b="$(field bytes "$line")" 'BEGIN { print b / 1024 }')" \
		"$(median3 "${ms[@]}")" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e6 }')" \
		"$(awk -v k="$(cat "$TMP/rss.readelf")" 'BEGIN { print k / 1024 }')"
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
