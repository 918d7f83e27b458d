#!/bin/sh
# Seeds for tests/fuzz/fuzz_cfi.c in DIR (see its header for the input
# format): whole files ('f': a small library built by gcc and clang without
# frame pointers, one whose CFI is in .debug_frame) and CFI sections with
# their vaddr ('e', 'h': .eh_frame; 'd': .debug_frame), among them the
# dynamic loader's and the C library's signal-trampoline CIE and FDE.
# arm64 ones too ('E', 'D', 'H'; 'f'), cross-compiled when
# aarch64-linux-gnu-gcc (A64_CC) is there: the library with and without
# pointer authentication (DW_CFA_AARCH64_negate_ra_state), and the kernel's
# vDSO sigreturn trampoline (tests/workloads/frameless/sigreturn_arm64.S).  And
# whole files of the shapes that made builds work without end (issue 21),
# written by build/tools/hostile_cfi (HOSTILE_CFI), small enough to fuzz:
# CIEs with long augmentations taking turns in one cache slot, more CIEs
# than the cache holds, long initial programs, many tiny FDEs, long FDE
# programs, a compressed .debug_frame.
set -e
DIR=$1
CC=${CC:-gcc}
CLANG=${CLANG:-clang}
A64_CC=${A64_CC:-aarch64-linux-gnu-gcc}
TRAMPOLINE=${TRAMPOLINE:-$(dirname "$0")/../workloads/frameless/sigreturn_arm64.S}
TRAMPOLINE=$(cd "$(dirname "$TRAMPOLINE")" && pwd)/$(basename "$TRAMPOLINE")
HOSTILE_CFI=${HOSTILE_CFI:-$(dirname "$0")/../../build/tools/hostile_cfi}
HOSTILE_CFI=$(cd "$(dirname "$HOSTILE_CFI")" && pwd)/$(basename "$HOSTILE_CFI")
mkdir -p "$DIR"
cd "$DIR"
cat >seed.c <<'SRC'
#include <stddef.h>
extern int ext(int);
static int leaf(int x) { return x * 3 + 1; }
int big(int x) { volatile char b[5000]; b[0] = x; return leaf(x) + b[0]; }
int with_plt(int x) { int r = ext(x); return r + leaf(r); }
SRC
$CC -O2 -fomit-frame-pointer -shared -fPIC -nostdlib seed.c -o so-gcc
$CLANG -O2 -fomit-frame-pointer -shared -fPIC -nostdlib seed.c -o so-clang
$CC -O2 -g -fno-asynchronous-unwind-tables -shared -fPIC -nostdlib seed.c -o so-dbg
A64=
if command -v "$A64_CC" >/dev/null; then
	A64="a64-gcc a64-gcc-pac a64-clang-pac a64-dbg a64-tramp"
	$A64_CC -O2 -fomit-frame-pointer -shared -fPIC -nostdlib seed.c -o a64-gcc
	$A64_CC -O2 -fomit-frame-pointer -mbranch-protection=standard -shared -fPIC \
		-nostdlib seed.c -o a64-gcc-pac
	$CLANG --target=aarch64-linux-gnu -O2 -fomit-frame-pointer -mbranch-protection=standard \
		-shared -fPIC -nostdlib seed.c -o a64-clang-pac
	$A64_CC -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -shared -fPIC \
		-nostdlib seed.c -o a64-dbg
	$A64_CC -shared -nostdlib "$TRAMPOLINE" -o a64-tramp
	# arm64's vDSO without CFI, whose rows come from its code
	$A64_CC -shared -nostdlib "$(dirname "$TRAMPOLINE")/vdso_arm64.S" -o a64-vdso
fi
rm -f seed.c
# sect MODE FILE SECTION OUT [OFFSET LENGTH]: MODE, the section's vaddr in
# 16 hex digits, then its bytes (or LENGTH of them from OFFSET).
sect() {
	addr=$(readelf -SW "$2" | awk -v s="$3" '{ for (i = 1; i < NF; i++) if ($i == s) print $(i + 2) }')
	# objcopy writes a copy of FILE too: here, never beside FILE (libc's
	# and ld.so's are the system's); arm64's is the cross binutils'
	case $1 in
	[EDH]) objcopy=${A64_CC%gcc}objcopy ;;
	*) objcopy=objcopy ;;
	esac
	$objcopy --dump-section "$3=sect.tmp" "$2" copy.tmp
	rm -f copy.tmp
	if [ -n "$5" ]; then
		addr=$(printf '%x' $((0x$addr + $5)))
		dd if=sect.tmp of=sect.cut bs=1 skip="$5" count="$6" 2>/dev/null
		mv sect.cut sect.tmp
	fi
	{ printf '%s%016x' "$1" "0x$addr"; cat sect.tmp; } >"$4"
	rm -f sect.tmp
}
for f in so-gcc so-clang; do
	sect e $f .eh_frame e-$f
	sect h $f .eh_frame h-$f
done
sect d so-dbg .debug_frame d-so-dbg
for f in $A64; do
	case $f in
	a64-dbg) sect D $f .debug_frame D-$f ;;
	*) sect E $f .eh_frame E-$f; sect H $f .eh_frame H-$f ;;
	esac
done
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
sig=$(readelf -W --debug-dump=frames-interp $libc | awk '/CIE "zRS"/ { print $1; exit }')
[ -z "$sig" ] || sect e $libc .eh_frame e-libc-signal $((0x$sig)) 256
for f in so-gcc so-clang so-dbg $A64 ${A64:+a64-vdso}; do
	{ printf f; cat $f; } >f-$f
	rm -f $f
done
sect e /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 .eh_frame e-ld.so
# hostile NAME ARGS...: a hostile_cfi file as seed f-hostile-NAME.
hostile() {
	name=$1
	shift
	"$HOSTILE_CFI" "$@" hostile.tmp
	{ printf f; cat hostile.tmp; } >"f-hostile-$name"
	rm -f hostile.tmp
}
hostile collide -c 2 -a 20000 -f 800 -l 16
hostile collide-empty -c 2 -a 20000 -f 800
hostile many-cies -c 100 -a 200 -f 1000 -l 1
hostile long-init -c 2 -i 20000 -f 800 -l 8
hostile tiny-fdes -c 1 -f 2000 -l 1
hostile long-prog -c 1 -f 20 -l 16 -n 1000
hostile zdebug -c 1 -f 4 -l 16 -z 2000000
