#!/bin/bash
# A file's identity is what its owner cannot set (issue 21, defect 3).  As
# nobody, an attacker runs a program that defines EVIL_SPOOFED_NAME, padded
# to the size of the real program, with its mtime set to a fixed date, and
# removes it; root then copies the real program into the same directory
# with the same mtime (as tar or dpkg would) and runs it.  ext4 hands the
# freed inode to the new file, so device, inode, size and mtime are all
# the attacker's.  Main named 592 of the real program's samples
# main;EVIL_SPOOFED_NAME and unwound them with the attacker's rows.  The
# capture covers both runs, so the attacker's names and table are cached
# when the real program starts.
source "$(dirname "$0")/../lib.sh"

D="$TMP/app-dir"
mkdir -p "$D"
chown nobody:nogroup "$D"
chmod 755 "$TMP"
# Two programs whose spin function has other names: the real one's is
# real_work, the attacker's EVIL_SPOOFED_NAME.  Built without frame
# pointers, so the unwinder's table decides the caller.
cat >"$TMP/prog.c" <<'C'
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
__attribute__((noinline)) void WORK(double end) { volatile unsigned long x = 0; while (now() < end) for (int i = 0; i < 100000; i++) x += i; }
int main(int argc, char **argv) { WORK(now() + atof(argv[1])); return 0; }
C
gcc -O2 -fomit-frame-pointer -DWORK=real_work "$TMP/prog.c" -o "$TMP/real" || exit 1
gcc -O2 -fomit-frame-pointer -DWORK=EVIL_SPOOFED_NAME -fno-asynchronous-unwind-tables \
	"$TMP/prog.c" -o "$TMP/evil" || exit 1
size=$(stat -c %s "$TMP/real")
[ "$(stat -c %s "$TMP/evil")" -gt "$size" ] && size=$(stat -c %s "$TMP/evil")
truncate -s "$size" "$TMP/real" "$TMP/evil"
chmod 755 "$TMP/real" "$TMP/evil"
check identity_same_size equals "$(stat -c %s "$TMP/evil")" "$(stat -c %s "$TMP/real")"

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# attempt N: one capture over both runs; REUSED says whether ext4 gave the
# real program the attacker's inode (the attack needs it).
attempt() {
	"$SMOLDER" -F 499 --per-pid -f 6 >"$TMP/id.out" 2>"$TMP/id.err" &
	SM=$!
	sleep 0.5
	as_nobody cp "$TMP/evil" "$D/app"
	as_nobody touch -d @1700000000 "$D/app"
	evil_ino=$(stat -c %i "$D/app")
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$D/app" 1.5 &
	EVIL_PID=$!
	wait "$EVIL_PID"
	as_nobody rm -f "$D/app"
	cp "$TMP/real" "$D/app"
	touch -d @1700000000 "$D/app"
	real_ino=$(stat -c %i "$D/app")
	"$D/app" 2 &
	REAL_PID=$!
	wait "$REAL_PID"
	rm -f "$D/app"
	wait "$SM"
	RC=$?
	REUSED=$([ "$evil_ino" = "$real_ino" ] && echo yes || echo no)
	echo "# identity attempt $1: inode $evil_ino then $real_ino (reused: $REUSED), rc $RC"
}
for n in 1 2 3; do
	attempt "$n"
	[ "$REUSED" = yes ] && break
done
check identity_inode_reused equals "$REUSED" yes
check identity_exit_0 equals "$RC" 0
grep -E "^app-$EVIL_PID;" "$TMP/id.out" >"$TMP/evil.out"
grep -E "^app-$REAL_PID;" "$TMP/id.out" >"$TMP/real.out"
# Both ran long enough to be sampled and named: the attacker 1.5 s, the
# real program 2 s.  (The attacker's file has no CFI for its own code, so
# no caller is found above its leaf: its table is all gaps.)
check identity_attacker_named some_line "$TMP/evil.out" '^app-[0-9]+;EVIL_SPOOFED_NAME [0-9]+$'
check identity_real_sampled within "$(total "$TMP/real.out")" 200 100000
evil=$(awk '/EVIL_SPOOFED_NAME/ { n += $NF } END { print n + 0 }' "$TMP/real.out")
echo "# identity: the real program's $(total "$TMP/real.out") samples, $evil named EVIL_SPOOFED_NAME"
check identity_real_not_named_by_attacker no_line "$TMP/real.out" 'EVIL_SPOOFED_NAME'
# Its own name, under its caller: its table is its own, not the attacker's.
share_is identity_real_named_whole "$TMP/real.out" '^app-[0-9]+;([^;]*;)*main;real_work [0-9]+$' 95 100
