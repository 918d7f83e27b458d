#!/bin/bash
# Known truth (issue 26): inline_split, built -O2 -g by gcc and by clang,
# spends its CPU 50/30/20 in three chains of always_inline functions that
# only DWARF names (tests/workloads/inline_split.c):
#   main -> outer -> half_leaf | thirty_mid -> thirty_leaf
#                 | twenty_top -> twenty_mid -> twenty_leaf
# For each build, from one capture written as folded, pprof and speedscope:
#  - >= 95% of the outer stacks carry exactly one chain from main on, and
#    the chains split 50/30/20 within 2 points (retaken once when not: a
#    share measured by sampling can miss by chance);
#  - every sampled address of the workload (pprof's leaf locations, at the
#    file's virtual addresses) names the chain and leaf line that
#    `addr2line -f -i` names, for >= 99% of the addresses;
#  - pprof functions carry the source's absolute path (the DWARF's, joined
#    to its compilation directory when relative) and their definition's
#    line;
#    `go tool pprof -list` puts the largest counts on the hot lines and
#    `-lines -top` lists them as inline_split.c:N;
#  - speedscope frames carry the file and a line;
# and in captures of their own: -a suffixes inlined frames _[i],
# --no-inline names outer alone, --lines names the leaf "leaf
# (inline_split.c:N)" with N its hot loop's line.
# The same names from a stripped copy whose DWARF is a build-id debug file
# (in the process's own mount namespace, not the machine's /usr/lib/debug)
# or a .gnu_debuglink file beside it.  And Debian's libc6-dbg: a program
# spending its time in memcpy, strlen and qsort gets libc frames with
# their source files and lines.
source "$(dirname "$0")/../lib.sh"
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
mkdir -p "$HOME"
# Away from the tree the workloads were built in: a source path relative to
# the build's directory must not be found by chance (pprof -list looks in
# the current directory).
cd "$TMP" || exit 1
IC="python3 $TOP/tests/tools/inline_check.py"
SRC=$TOP/tests/workloads/inline_split.c
# fig NAME FIGURES: one "name=value" of a figures line.
fig() { sed -nE "s/.*(^| )$1=([^ ]*).*/\\2/p" <<<"$2"; }
pp() { go tool pprof -symbolize=none "$@" 2>>"$TMP/pprof.err"; }
hot() { grep -n "/\* hot: $1 \*/" "$SRC" | cut -d: -f1; }
HOT_HALF=$(hot half) HOT_THIRTY=$(hot thirty) HOT_TWENTY=$(hot twenty)

# chains_ok FIGURES [MODE]: the chains carry >= 95% and (with no MODE,
# where the split is checked) split 50/30/20 within 2 points.
chains_ok() {
	within "$(fig chain "$1")" 95 100 >/dev/null || return 1
	[ -n "${2:-}" ] && return 0
	within "$(fig half "$1")" 48 52 >/dev/null && within "$(fig thirty "$1")" 28 32 >/dev/null &&
		within "$(fig twenty "$1")" 18 22 >/dev/null
}
# check_chains NAME FIGURES [MIN_SAMPLES]: the chain share and the split.
check_chains() {
	echo "# $1: $2"
	check "${1}_samples" within "$(fig outer "$2")" "${3:-500}" 1000000
	check "${1}_chain_95" within "$(fig chain "$2")" 95 100
	check "${1}_half_50" within "$(fig half "$2")" 48 52
	check "${1}_thirty_30" within "$(fig thirty "$2")" 28 32
	check "${1}_twenty_20" within "$(fig twenty "$2")" 18 22
}
# capture NAME PID SECONDS ARGS...: smolder -U at 999 Hz on PID; checks
# inline_NAME_exit_0.
capture() {
	local name=$1 pid=$2 secs=$3
	shift 3
	run_sm "$name" -F 999 -U -p "$pid" "$@" "$secs"
	if [ "$RC" = 0 ]; then pass "inline_${name}_exit_0"
	else fail "inline_${name}_exit_0" "exit $RC: $(head -c 300 "$TMP/$name.err")"; fi
}
# take NAME PID SECONDS FOLDED MODE ARGS...: a capture whose folded stacks
# are in FOLDED ("-": its standard output), measured by inline_check chains
# in MODE (-, --annot, --lines or --no-inline): the figures in R, the
# folded file in OUT.  Retaken once (as NAME_retake) when they miss: a
# share measured by sampling can miss by chance, and on a loaded machine
# naming can run out of its time before a file's DWARF is read (its frames
# then keep their symbol names, as they should).
take() {
	local name=$1 pid=$2 secs=$3 folded=$4 mode=$5 try
	shift 5
	[ "$mode" = - ] && mode=
	for try in "$name" "${name}_retake"; do
		OUT=$folded
		[ "$OUT" = - ] && OUT=$TMP/$try.out
		capture "$try" "$pid" "$secs" "$@"
		# shellcheck disable=SC2086 # the mode, or none
		R=$($IC chains "$OUT" "$SRC" $mode)
		chains_ok "$R" "$mode" && return 0
		echo "# inline_$try missed ($R)"
	done
}

for cc in gcc clang; do
	name=inline_split
	[ $cc = clang ] && name=inline_split_clang
	BIN=$WL/$name
	start_wl "$name" 60 || exit 1
	P=$WL_PID
	wait_for "$WL_OUT" '^ready$' >/dev/null || { fail "inline_${cc}_start" "no ready"; continue; }
	sleep 0.2

	# --- one capture, three formats ---
	F=$TMP/$cc
	take "$cc" "$P" 5 "$F.folded" - -o "$F.folded" -o "$F.pb.gz" -o "$F.speedscope.json"
	check_chains "inline_${cc}" "$R" 1000

	# every sampled address against addr2line
	pp -raw "$F.pb.gz" >"$F.raw"
	a=$($IC addr2line "$F.raw" "$BIN")
	echo "# inline_${cc}_addr2line: $a"
	check "inline_${cc}_addr2line_addresses" within "$(fig addresses "$a")" 10 1000000
	check "inline_${cc}_addr2line_99" within "$(fig agree "$a")" 99 100
	fn=$($IC functions "$F.raw" "$SRC")
	echo "# inline_${cc}_pprof_functions: $fn"
	check "inline_${cc}_pprof_functions" equals "$(fig ok "$fn")/$(fig functions "$fn")" 7/7

	# go tool pprof -list: outer's largest count is on its call of the
	# half chain, half_leaf's on its hot loop
	pp -list '^outer$' "$F.pb.gz" >"$F.list_outer"
	pp -list '^half_leaf$' "$F.pb.gz" >"$F.list_half"
	lo=$($IC list "$F.list_outer")
	lh=$($IC list "$F.list_half")
	echo "# inline_${cc}_list: outer $lo; half_leaf $lh"
	check "inline_${cc}_list_outer_source" some_line "$F.list_outer" "^ROUTINE =+ outer in .*inline_split\.c$"
	check "inline_${cc}_list_outer_top_call" equals "$(fig top_cum "$lo")" \
		"$(grep -n 'half_leaf(5 \* quarter);' "$SRC" | cut -d: -f1)"
	check "inline_${cc}_list_half_hot_line" equals "$(fig top_flat "$lh")" "$HOT_HALF"
	check "inline_${cc}_list_has_source" some_line "$F.list_half" "^ .* $HOT_HALF:.*hot: half"
	pp -lines -top "$F.pb.gz" >"$F.top"
	check "inline_${cc}_top_lines" equals \
		"$(grep -oE '(half_leaf|thirty_leaf|twenty_leaf) [^ ]*inline_split\.c:[0-9]+' "$F.top" | head -n 3 |
			sed -E 's/ .*:/:/' | tr '\n' ' ')" \
		"half_leaf:$HOT_HALF thirty_leaf:$HOT_THIRTY twenty_leaf:$HOT_TWENTY "

	# speedscope: the inlined frames carry their file and a line
	s=$($IC speedscope "$F.speedscope.json")
	echo "# inline_${cc}_speedscope: $s"
	for f in half_leaf thirty_mid thirty_leaf twenty_top twenty_mid twenty_leaf outer; do
		check "inline_${cc}_speedscope_$f" some_line <(tr ' ' '\n' <<<"$s") "^$f=inline_split\.c:[1-9][0-9]*$"
	done

	# --- -a, --no-inline, --lines ---
	take "${cc}_a" "$P" 2 - --annot -f -a
	echo "# inline_${cc}_annotated: $R"
	check "inline_${cc}_annotated_95" within "$(fig chain "$R")" 95 100
	check "inline_${cc}_annotated_outer_plain" no_line "$OUT" ';outer_\[i\]'
	take "${cc}_n" "$P" 2 - --no-inline -f --no-inline
	echo "# inline_${cc}_no_inline: $R"
	check "inline_${cc}_no_inline_95" within "$(fig chain "$R")" 95 100
	check "inline_${cc}_no_inline_none" no_line "$OUT" '(half|thirty|twenty)_'
	take "${cc}_l" "$P" 2 - --lines -f --lines
	echo "# inline_${cc}_lines: $R"
	check "inline_${cc}_lines_95" within "$(fig chain "$R")" 95 100
	check "inline_${cc}_lines_leaf" some_line "$OUT" ";outer;half_leaf \(inline_split\.c:$HOT_HALF\) [0-9]+$"
	kill "$P" 2>/dev/null
	wait "$P" 2>/dev/null
	$IC tails "$F.folded" >"$F.tails"
done

# --- separate debug files: the gcc build stripped ---
mkdir -p "$TMP/bid" "$TMP/dl"
strip -s -o "$TMP/bid/inl_bid" "$WL/inline_split"
objcopy --only-keep-debug "$WL/inline_split" "$TMP/bid/debugfile"
BUILD_ID=$(readelf -n "$WL/inline_split" | awk '/Build ID:/ { print $3 }')
objcopy --only-keep-debug "$WL/inline_split" "$TMP/dl/inl_link.debug"
strip -s -o "$TMP/dl/inl_link" "$WL/inline_split"
(cd "$TMP/dl" && objcopy --add-gnu-debuglink=inl_link.debug inl_link)
for b in bid/inl_bid dl/inl_link; do
	check "inline_stripped_${b%%/*}" no_line <(readelf -SW "$TMP/$b"; nm -D "$TMP/$b") '\.symtab|\.debug_|outer|half_leaf'
done
check inline_debuglink_names some_line <(readelf -p .gnu_debuglink "$TMP/dl/inl_link") 'inl_link\.debug'
check inline_debug_has_dwarf some_line <(readelf -SW "$TMP/bid/debugfile" 2>/dev/null) '\.debug_info'
# The build-id file exists only inside the process's mount namespace.
DBG=/usr/lib/debug/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}.debug
check inline_buildid_absent_outside test ! -e "$DBG"

# stripped NAME COMM PID: its chains, split and names as unstripped.
stripped() {
	sleep 0.2
	take "$1" "$3" 4 - - -f
	check_chains "inline_$1" "$R"
	check "inline_$1_same_names" equals "$($IC tails "$OUT" | tr '\n' ' ')" \
		"$(tr '\n' ' ' <"$TMP/gcc.tails")"
	take "$1_l" "$3" 2 - --lines -f --lines
	check "inline_$1_lines" some_line "$OUT" \
		"^$2;([^;]*;)*main;outer;half_leaf \\(inline_split\\.c:$HOT_HALF\\) [0-9]+\$"
	kill "$3" 2>/dev/null
	wait "$3" 2>/dev/null
}
start_cmd inl_bid unshare -m --propagation private sh -c \
	'mount -t tmpfs smolder-dbg /usr/lib/debug && mkdir -p "${3%/*}" &&
	cp "$1" "$3" && exec "$2" 60' sh "$TMP/bid/debugfile" "$TMP/bid/inl_bid" "$DBG" || exit 1
P=$WL_PID
check inline_buildid_inside test -e "/proc/$P/root$DBG"
check inline_buildid_still_absent_outside test ! -e "$DBG"
stripped buildid inl_bid "$P"
start_cmd inl_link "$TMP/dl/inl_link" 60 || exit 1
stripped debuglink inl_link "$WL_PID"

# --- Debian's libc6-dbg: libc frames with their files and lines ---
start_wl libc_heavy 60 || exit 1
P=$WL_PID
wait_for "$WL_OUT" '^ready$' >/dev/null
LIBC=$(awk '$6 ~ /\/libc\.so/ { print $6; exit }' "/proc/$P/maps")
LBID=$(readelf -n "$LIBC" | awk '/Build ID:/ { print $3 }')
if [ -s "/usr/lib/debug/.build-id/${LBID:0:2}/${LBID:2}.debug" ]; then
	pass inline_libc_dbg_installed
	# retaken once when short of lines, as take does
	for try in libc libc_retake; do
		capture "$try" "$P" 3 --lines -o "$TMP/libc.folded" -o "$TMP/libc.pb.gz"
		pp -raw "$TMP/libc.pb.gz" >"$TMP/libc.raw"
		r=$($IC libc "$TMP/libc.raw")
		echo "# inline_$try: $r"
		within "$(fig with_line "$r")" 95 100 >/dev/null && break
	done
	check inline_libc_samples within "$(fig samples "$r")" 500 1000000
	check inline_libc_with_line_95 within "$(fig with_line "$r")" 95 100
	for f in 'memmove-vec-unaligned-erms\.S' 'strlen-[a-z0-9]+\.S' 'msort\.c'; do
		check "inline_libc_pprof_${f%%[-\\]*}" some_line <(fig files "$r" | tr , '\n') "^$f\$"
		check "inline_libc_lines_${f%%[-\\]*}" some_line "$TMP/libc.folded" " \($f:[1-9][0-9]*\) [0-9]+\$"
	done
else
	fail inline_libc_dbg_installed "no debug file for $LIBC (build id $LBID): install libc6-dbg (scripts/deps.sh)"
fi

# --- a library mapped but never run: its DWARF is not read ---
# A capture names the stacks sampled so far in its quiet time, so that only
# files with sampled code have their DWARF read (libc6-dbg's libc alone is
# 10 MB inflated): with a -g library preloaded that nothing calls, one more
# file has DWARF and none more is read.
mkdir -p "$TMP/unused"
printf 'static inline __attribute__((always_inline)) int twice(int x) { return 2 * x; }\nint unused_fn(int x) { return twice(x) + 1; }\n' \
	>"$TMP/unused/unused.c"
gcc -O2 -g -shared -fPIC -o "$TMP/unused/libunused.so" "$TMP/unused/unused.c"
# dwarf_counts NAME: "files read" of the -v line of capture NAME
dwarf_counts() {
	sed -nE 's/.*inline frames: ([0-9]+) files with DWARF \(([0-9]+) read.*/\1 \2/p' "$TMP/$1.err"
}
start_wl inline_split 60 || exit 1
wait_for "$WL_OUT" '^ready$' >/dev/null
capture unused_base "$WL_PID" 3 -v -o "$TMP/unused_base.folded"
read -r base_files base_read < <(dwarf_counts unused_base)
start_cmd inline_split env LD_PRELOAD="$TMP/unused/libunused.so" "$WL/inline_split" 60 || exit 1
wait_for "$WL_OUT" '^ready$' >/dev/null
check inline_unused_mapped some_line "/proc/$WL_PID/maps" 'libunused\.so$'
capture unused "$WL_PID" 3 -v -o "$TMP/unused.folded"
read -r files read < <(dwarf_counts unused)
echo "# inline_unused: files with DWARF ${base_files:-?} -> ${files:-?}, read ${base_read:-?} -> ${read:-?}"
check inline_unused_one_more_file equals "$files" "$((${base_files:-0} + 1))"
check inline_unused_not_read equals "$read" "${base_read:--1}"
check inline_unused_chains_still within "$(fig chain "$($IC chains "$TMP/unused.folded" "$SRC")")" 95 100

# --- compressed DWARF: only the sections chains read are inflated ---
# libdw inflates every compressed debug section at its start; those no
# chain reads are set aside (location lists always, .debug_line unless
# lines are shown): -v says the bytes inflated and set aside for the file,
# which must be the inflated sizes readelf gives for those sections.
# .debug_info and .debug_abbrev, and .debug_line when lines are shown,
# are read sparse (issue 27: only the units chains are named in): not in
# those bytes, -v says their full size in a line of its own.
mkdir -p "$TMP/gz"
objcopy --compress-debug-sections=zlib "$WL/inline_split" "$TMP/gz/inline_gz"
# "NAME SIZE" for each compressed debug section of inline_gz, SIZE inflated
# (readelf -t prints it, in hex, after the compression's name)
readelf -SW -t "$TMP/gz/inline_gz" | awk '$2 ~ /^\.debug_/ { n = $2 }
	n != "" && /^ +ZLIB, / { s = $2; sub(/,$/, "", s); print n, s; n = "" }' |
	while read -r n s; do echo "$n $((16#$s))"; done >"$TMP/gz/sizes"
# gz_sum kept|aside REGEX: the inflated bytes of the sections set aside
# (REGEX matches them), or of those kept.
gz_sum() {
	awk -v re="$2" -v kept="$1" '{ aside = $1 ~ re } (kept == "kept") != aside { t += $2 }
		END { print t + 0 }' "$TMP/gz/sizes"
}
UNREAD='^\.debug_(loc|loclists|frame|pubnames|macinfo|macro)$'
check inline_gz_compressed some_line "$TMP/gz/sizes" '^\.debug_info [1-9]'
check inline_gz_has_loclists some_line "$TMP/gz/sizes" '^\.debug_loclists [1-9]'
check inline_gz_has_line some_line "$TMP/gz/sizes" '^\.debug_line [1-9]'
start_cmd inline_gz "$TMP/gz/inline_gz" 60 || exit 1
P=$WL_PID
wait_for "$WL_OUT" '^ready$' >/dev/null
# inflated_said NAME: "inflated aside" of take NAME's -v line for
# inline_gz (of its retake when there was one)
inflated_said() {
	local e=$TMP/$1.err
	[ -e "$TMP/$1_retake.err" ] && e=$TMP/$1_retake.err
	sed -nE 's/.*inline frames of [^ ]*inline_gz: ([0-9]+) bytes of compressed DWARF inflated, ([0-9]+) not.*/\1 \2/p' \
		"$e" | head -n 1
}
take gz_f "$P" 4 - - -v -f
read -r inflated aside < <(inflated_said gz_f)
echo "# inline_gz_f: inflated ${inflated:-?}, set aside ${aside:-?} ($(tr '\n' ' ' <"$TMP/gz/sizes"))"
SPARSE='|^\.debug_(info|abbrev)$'
check inline_gz_f_inflated equals "${inflated:-?}" "$(gz_sum kept "$UNREAD|^\\.debug_line\$$SPARSE")"
# sparse_full NAME: the full size of the sections read sparse, -v says
sparse_full() {
	local e=$TMP/$1.err
	[ -e "$TMP/$1_retake.err" ] && e=$TMP/$1_retake.err
	sed -nE 's/.*inline frames: [0-9]+ of [0-9]+ units of \.debug_info kept, [0-9]+ of ([0-9]+) bytes.*/\1/p' "$e" | head -n 1
}
check inline_gz_f_sparse equals "$(sparse_full gz_f)" "$(gz_sum aside "^\\.debug_(info|abbrev)\$")"
check inline_gz_f_aside equals "${aside:-?}" "$(gz_sum aside "$UNREAD|^\\.debug_line\$")"
check_chains inline_gz_f "$R"
take gz_l "$P" 2 - --lines -v -f --lines
read -r inflated aside < <(inflated_said gz_l)
echo "# inline_gz_l: inflated ${inflated:-?}, set aside ${aside:-?}"
check inline_gz_l_inflated equals "${inflated:-?}" "$(gz_sum kept "$UNREAD|^\\.debug_line\$$SPARSE")"
check inline_gz_l_sparse equals "$(sparse_full gz_l)" "$(gz_sum aside "^\\.debug_(info|abbrev|line)\$")"
check inline_gz_l_aside equals "${aside:-?}" "$(gz_sum aside "$UNREAD")"
check inline_gz_l_lines_leaf some_line "$OUT" ";outer;half_leaf \(inline_split\.c:$HOT_HALF\) [0-9]+$"
kill "$P" 2>/dev/null
wait "$P" 2>/dev/null || true # killed: 143 is not this test's result
