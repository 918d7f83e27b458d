#!/bin/bash
# Known truth (issue 27): Debian's libc6-dbg debug file for libc holds a
# zlib-compressed .debug_info (5.8 MB inflated, 2,063 units) and
# .debug_abbrev (1 MB), a .debug_aranges that covers every unit, and no
# abbreviation that points out of its unit.  A capture of libc_heavy
# (memcpy, strlen, qsort) names frames in a handful of libc's units, so
# smolder reads it sparse: -v says how many bytes of the two sections it
# inflated and kept, which must be a small part of their size (today's
# main inflates all of them: it has no such line).  And every sampled libc
# address (pprof's leaf locations) must name the same inline chain and
# innermost line as `addr2line -f -i` on libc (which reads the same debug
# file), for >= 99% of the addresses (the outermost function left out:
# smolder names it from the symbol table), some of them with inlined
# functions.  A one-shot folded capture of
# cpu_split names its libc frames (__libc_start_call_main) sparse too.
source "$(dirname "$0")/../lib.sh"
export HOME="$TMP/home"
mkdir -p "$HOME"
cd "$TMP" || exit 1
IC="python3 $TOP/tests/tools/inline_check.py"
fig() { sed -nE "s/.*(^| )$1=([^ ]*).*/\\2/p" <<<"$2"; }
# sparse_line NAME: "units_kept units bytes_kept bytes_full" of capture
# NAME's last sparse build
sparse_line() {
	sed -nE 's/.*inline frames: ([0-9]+) of ([0-9]+) units of \.debug_info kept, ([0-9]+) of ([0-9]+) bytes.*sparse.*/\1 \2 \3 \4/p' \
		"$TMP/$1.err" | tail -n 1
}
# small KEPT FULL: the bytes kept are under a tenth of the sections'
small() { [ "$1" -gt 0 ] && [ $(($1 * 10)) -lt "$2" ]; }

start_wl libc_heavy 60 || exit 1
P=$WL_PID
wait_for "$WL_OUT" '^ready$' >/dev/null
LIBC=$(awk '$6 ~ /\/libc\.so/ { print $6; exit }' "/proc/$P/maps")
LBID=$(readelf -n "$LIBC" | awk '/Build ID:/ { print $3 }')
DBG=/usr/lib/debug/.build-id/${LBID:0:2}/${LBID:2}.debug
if [ ! -s "$DBG" ]; then
	fail dwarf_sparse_dbg_installed "no debug file for $LIBC (build id $LBID): install libc6-dbg (scripts/deps.sh)"
	exit 0
fi
pass dwarf_sparse_dbg_installed

# retaken once when short of agreeing addresses: naming can run out of its
# time on a loaded machine (frames then keep their symbol names)
for try in libc libc_retake; do
	run_sm "$try" -F 999 -U -v -p "$P" -o "$TMP/$try.pb.gz" 3
	go tool pprof -symbolize=none -raw "$TMP/$try.pb.gz" >"$TMP/$try.raw" 2>>"$TMP/pprof.err"
	a=$($IC addr2line "$TMP/$try.raw" "$LIBC" --inlined)
	echo "# dwarf_sparse_$try: $a; sparse: $(sparse_line "$try")"
	within "$(fig agree "$a")" 99 100 >/dev/null && break
done
check dwarf_sparse_libc_exit_0 equals "$RC" 0
read -r units_kept units bytes_kept bytes_full < <(sparse_line "$try")
check dwarf_sparse_libc_taken within "${units:-0}" 1000 1000000
check dwarf_sparse_libc_bytes_tenth small "${bytes_kept:-0}" "${bytes_full:-0}"
check dwarf_sparse_libc_addresses within "$(fig addresses "$a")" 10 1000000
check dwarf_sparse_libc_addr2line_99 within "$(fig agree "$a")" 99 100
# qsort's msort_with_tmp has merge loops inlined into it
check dwarf_sparse_libc_inlined_chains within "$(fig inlined "$a")" 1 1000000

# the one-shot capture of the issue: folded, no lines
start_wl cpu_split 60 || exit 1
run_sm oneshot -f -v -p "$WL_PID" 1
check dwarf_sparse_oneshot_exit_0 equals "$RC" 0
read -r units_kept units bytes_kept bytes_full < <(sparse_line oneshot)
check dwarf_sparse_oneshot_taken within "${units:-0}" 1000 1000000
check dwarf_sparse_oneshot_bytes_tenth small "${bytes_kept:-0}" "${bytes_full:-0}"
check dwarf_sparse_oneshot_libc_frame some_line "$TMP/oneshot.out" '__libc_start_call_main;main;'
