#!/bin/bash
# Inline frames read the DWARF of every mapped file, whoever owns it: a
# crafted one cannot crash, stall or bloat a capture.  A busy program (built
# here without DWARF) gets crafted DWARF from build/tools/hostile_dwarf and
# runs as nobody, who owns the file (it is untrusted):
#  - deep: 200,000 nested blocks over its code (libdw's dwarf_getscopes
#    recursed once a level: smolder died of SIGSEGV);
#  - altlink: a .gnu_debugaltlink naming a FIFO nobody made (libdw opened
#    it itself, as root, and blocked for good: the capture never ended);
#  - line: an 8 MiB line program of one row a byte (libdw took 862 MB and
#    15 s for it);
#  - units: 200,000 units (1.2 KiB each in libdw);
#  - abbrev: 1,000 units sharing one table of 100,000 abbreviations (libdw
#    parses it for each: 5 MB a unit);
#  - sparse: a .debug_info of 1 GB, a hole past its first unit.
# Expect each capture (3 s) to end within 4 s with RSS under 128 MiB, the
# program sampled, its frames named by its symbol (hot) or by the crafted
# DWARF's own names (outer), and -v to count the file.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"

cat >"$TMP/busy.c" <<'SRC'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) unsigned long hot(unsigned long n)
{
	unsigned long a = 0;
	for (unsigned long i = 0; i < n; i++)
		a += i * i ^ (a >> 3);
	return a;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);
	unsigned long a = 0;
	puts("ready");
	fflush(stdout);
	while (time(NULL) < end)
		a += hot(1000000);
	return (int)(a & 1);
}
SRC
gcc -O2 -g0 "$TMP/busy.c" -o "$TMP/busy"
check dwarf_busy_built equals "$?" 0
chmod 755 "$TMP"
mkfifo "$TMP/fifo"

# capture NAME: smolder -v on the crafted program as nobody, 3 s, killed
# after 20 s if it hangs; ELAPSED, RSS_KIB, RC as timed_sm sets them.
capture() {
	local name=$1 t0 t1 attempt
	for attempt in 1 2 3; do
		start_cmd "h-$name" setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$TMP/h-$name" 30 || return
		wait_for "$WL_OUT" '^ready$' 10 || return
		t0=$(date +%s.%N)
		timeout -s KILL 20 /usr/bin/time -f %M -o "$TMP/$name.rss" \
			"$SMOLDER" -v -f -F 499 -p "$WL_PID" 3 >"$TMP/$name.out" 2>"$TMP/$name.err"
		RC=$?
		t1=$(date +%s.%N)
		kill "$WL_PID" 2>/dev/null
		wait "$WL_PID" 2>/dev/null
		ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }')
		RSS_KIB=$(tail -n 1 "$TMP/$name.rss" 2>/dev/null)
		echo "# $name attempt $attempt: exit $RC, $ELAPSED s, peak RSS $((${RSS_KIB:-0} / 1024)) MiB"
		# retaken only when over its time bound (other load on the machine)
		if [ "$RC" != 0 ] || between "$ELAPSED" 0 4; then return; fi
	done
}

for shape in "deep -n 200000" "altlink -p $TMP/fifo" "line" "units -n 200000" "abbrev" \
	"sparse"; do
	set -- $shape
	name=$1
	shift
	"$TOP/build/tools/hostile_dwarf" "$@" "$name" "$TMP/busy" "$TMP/h-$name"
	check "dwarf_${name}_made" equals "$?" 0
	chown nobody:nogroup "$TMP/h-$name"
	capture "$name"
	bounded "dwarf_$name" 3
	check "dwarf_${name}_sampled" some_line "$TMP/$name.out" '^h-[a-z]+;(.*;)?(hot|outer)( |;)'
	check "dwarf_${name}_counted" some_line "$TMP/$name.err" '^smolder: inline frames: [1-9]'
done
