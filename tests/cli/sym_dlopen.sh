#!/bin/bash
# A library mapped while the capture runs.  dlopen_late burns CPU in its own
# functions (sampled: the process's mappings are known without the
# library), then on SIGUSR1 dlopen()s a library built here and spends the
# rest of its time in the library's lib_burn:
#   main -> before_dlopen -> pre_leaf,  then  main -> call_lib -> lib_burn
# lib_burn must be named even though the library was not mapped when the
# process was first seen.
source "$(dirname "$0")/../lib.sh"

cat >"$TMP/libsmdl.c" <<'C'
#include <time.h>

volatile unsigned long lib_sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The leaf: a volatile stack slot keeps its frame-pointer prologue. */
__attribute__((noinline)) void lib_burn(double seconds)
{
	double end = now() + seconds;
	volatile unsigned long acc = 0;

	while (now() < end)
		for (unsigned long i = 0; i < 2000000; i++)
			acc += i ^ (acc >> 3);
	lib_sink = acc;
}
C
gcc -O1 -g -fno-omit-frame-pointer -fno-inline -shared -fPIC \
	-o "$TMP/libsmdl.so" "$TMP/libsmdl.c" || { fail dlopen_build "gcc failed"; exit 1; }

start_wl dlopen_late 8 "$TMP/libsmdl.so" || exit 1
P=$WL_PID
wait_for "$WL_OUT" '^started' || exit 1
"$SMOLDER" -F 999 -U -f -p "$P" 3 >"$TMP/d.out" 2>"$TMP/d.err" &
SM=$!
sleep 1 # ~1 s of samples before the library exists
check dlopen_not_mapped_yet no_line "/proc/$P/maps" 'libsmdl'
kill -USR1 "$P"
check dlopen_loaded wait_for "$WL_OUT" '^loaded'
wait "$SM"
check dlopen_exit_0 equals "$?" 0
F=$TMP/d.out
echo "# dlopen: $(total "$F") samples"
# Sampled before the dlopen (about a third of the capture) ...
share_is dlopen_before_named "$F" '^dlopen_late;([^;]*;)*main;before_dlopen;pre_leaf [0-9]+$' 15 50
# ... and after it, in the library, named from the library's symbols.
share_is dlopen_lib_burn_named "$F" '^dlopen_late;([^;]*;)*main;call_lib;lib_burn [0-9]+$' 45 85
func_offsets "$TMP/libsmdl.so" lib_burn >"$TMP/lib.offs"
check dlopen_no_unnamed_lib no_unnamed_in "$F" libsmdl.so "$TMP/lib.offs"
# Together the two phases are nearly everything: nothing else is unnamed.
share_is dlopen_both_phases "$F" '^dlopen_late;([^;]*;)*main;(before_dlopen;pre_leaf|call_lib;lib_burn) [0-9]+$' 95 100
