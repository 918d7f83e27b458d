#!/bin/bash
# Addresses that cannot be named say what they are:
#  - a stripped shared library, no debug information: "[libsmfoo.so+0xOFF]"
#    with OFF the file offset of the right function's start (from the
#    unstripped build); its exported lib_burn stays named from .dynsym;
#  - code in anonymous memory: "[anon]";  code in the brk heap: "[heap]".
source "$(dirname "$0")/../lib.sh"

cat >"$TMP/libsmfoo.c" <<'C'
#include <time.h>

volatile unsigned long foo_sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Hidden: not in .dynsym, so once stripped nothing names them. */
__attribute__((noinline, visibility("hidden"))) void foo_leaf(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	foo_sink = acc;
}

__attribute__((noinline, visibility("hidden"))) void foo_mid(double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 10; i++)
			foo_leaf(200000);
}

__attribute__((noinline)) void lib_burn(double seconds)
{
	foo_mid(seconds);
	__asm__ volatile("" ::: "memory");
}
C
mkdir -p "$TMP/full" "$TMP/lib"
gcc -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -shared -fPIC \
	-o "$TMP/full/libsmfoo.so" "$TMP/libsmfoo.c" || { fail unnamed_build "gcc failed"; exit 1; }
strip -s -o "$TMP/lib/libsmfoo.so" "$TMP/full/libsmfoo.so"
check unnamed_lib_stripped no_line <(readelf -SW "$TMP/lib/libsmfoo.so"; nm -D "$TMP/lib/libsmfoo.so") '\.symtab|\.gnu_debug|foo_(leaf|mid)'
func_offsets "$TMP/full/libsmfoo.so" foo_leaf foo_mid >"$TMP/offs"
check unnamed_lib_ranges equals "$(wc -l <"$TMP/offs")" 2

# --- the stripped library, loaded by dlopen_late ---
start_wl dlopen_late 10 "$TMP/lib/libsmfoo.so" || exit 1
P=$WL_PID
wait_for "$WL_OUT" '^started' || exit 1
kill -USR1 "$P"
wait_for "$WL_OUT" '^loaded' || exit 1
run_sm l -F 999 -U -f -p "$P" 2
check unnamed_lib_exit_0 equals "$RC" 0
share_is unnamed_lib_format "$TMP/l.out" '^dlopen_late;([^;]*;)*main;call_lib;lib_burn;\[libsmfoo\.so\+0x[0-9a-f]+\];\[libsmfoo\.so\+0x[0-9a-f]+\] [0-9]+$' 90 100
check unnamed_lib_no_names no_line "$TMP/l.out" 'foo_(leaf|mid)'
# each frame is its function's start (nm's, in the unstripped build), so a
# function is one frame (tests/cli/sym_stripped_funcs.sh has more)
LEAF=$(awk '$1 == "foo_leaf" { printf "%x", $2 }' "$TMP/offs")
MID=$(awk '$1 == "foo_mid" { printf "%x", $2 }' "$TMP/offs")
share_is unnamed_lib_offsets "$TMP/l.out" ";lib_burn;\\[libsmfoo\\.so\\+0x$MID\\];\\[libsmfoo\\.so\\+0x$LEAF\\] [0-9]+$" 90 100
kill "$P"
wait "$P" 2>/dev/null

# --- [anon] and [heap]: generated code, no map file ---
start_wl jit_perfmap 10 nomap || exit 1
P=$WL_PID
wait_for "$WL_OUT" '^jit ' || exit 1
run_sm a -F 999 -U -f -p "$P" 2
check unnamed_anon_exit_0 equals "$RC" 0
share_is unnamed_anon "$TMP/a.out" '^jit_perfmap;([^;]*;)*main;run_jit;\[anon\] [0-9]+$' 90 100
kill "$P"
wait "$P" 2>/dev/null

start_wl jit_perfmap 10 heap || exit 1
P=$WL_PID
wait_for "$WL_OUT" '^jit ' || exit 1
read -r _ start _ <"$WL_OUT"
check unnamed_heap_is_heap some_line <(awk -v a="$start" '
	function hex(s,   i, v) { s = tolower(s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	{ split($1, r, "-"); if (hex(r[1]) <= hex(a) && hex(a) < hex(r[2])) print }' "/proc/$P/maps") 'r-xp .*\[heap\]$'
run_sm h -F 999 -U -f -p "$P" 2
check unnamed_heap_exit_0 equals "$RC" 0
share_is unnamed_heap "$TMP/h.out" '^jit_perfmap;([^;]*;)*main;run_jit;\[heap\] [0-9]+$' 90 100
kill "$P"
wait "$P" 2>/dev/null || true
