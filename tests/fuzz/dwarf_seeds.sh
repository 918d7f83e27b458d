#!/bin/sh
# Seeds for tests/fuzz/fuzz_dwarf.c in DIR (see its header for the input
# format: a flags byte, then a whole ELF file): small libraries whose code
# runs through inlined helpers, built by gcc and clang (DWARF 5 and 4, and
# with compressed debug sections), and the hostile shapes of
# build/tools/hostile_dwarf (HOSTILE_DWARF), small enough to fuzz: looping
# DIE references, unit lengths that lie, endless line programs and huge
# line headers, deep nesting, many units, a wide unit, a section that ends
# in a hole, compressed sections whose size lies.
set -e
DIR=$1
CC=${CC:-gcc}
CLANG=${CLANG:-clang}
HOSTILE_DWARF=${HOSTILE_DWARF:-$(dirname "$0")/../../build/tools/hostile_dwarf}
HOSTILE_DWARF=$(cd "$(dirname "$HOSTILE_DWARF")" && pwd)/$(basename "$HOSTILE_DWARF")
mkdir -p "$DIR"
cd "$DIR"
cat >seed.c <<'SRC'
#define INLINE static inline __attribute__((always_inline))
INLINE unsigned mix(unsigned x) { x ^= x >> 7; return x * 0x9e3779b1u; }
INLINE unsigned twice(unsigned x) { for (int i = 0; i < 2; i++) x = mix(x + i); return x; }
__attribute__((noinline)) unsigned hot(unsigned x) { return twice(x) + mix(x); }
SRC
# seed FLAGS NAME FILE: the flags byte, then the file.
seed() {
	printf "\\$(printf '%03o' "$1")" >"$2"
	cat "$3" >>"$2"
	rm -f "$3"
}
lib="-O2 -shared -fPIC -nostdlib"
$CC $lib -g seed.c -o so && seed 0 gcc so
$CC $lib -gdwarf-4 seed.c -o so && seed 1 gcc-dwarf4 so
$CC $lib -g -gz seed.c -o so && seed 1 gcc-gz so
$CC $lib -g -gz seed.c -o so && seed 5 gcc-gz-names-only so
$CLANG $lib -g seed.c -o so && seed 0 clang so
$CLANG $lib -gdwarf-4 seed.c -o so && seed 3 clang-dwarf4 so
$CC $lib -g0 seed.c -o plain.so
rm -f seed.c
# hostile NAME ARGS...: a hostile_dwarf file, untrusted.
hostile() {
	name=$1
	shift
	"$HOSTILE_DWARF" "$@" plain.so so && seed 1 "hostile-$name" so
}
hostile cycle cycle
hostile length length
hostile length64 -n 64 length
hostile line -s 2000 line
hostile line-length -n 1 -s 2000 line
hostile lhead -n 200 lhead
hostile lhead-length -n 0 lhead
hostile deep -n 3000 deep
hostile units -n 200 units
hostile wide -n 200 wide
hostile sparse -s 8192 sparse
hostile zlib zlib
hostile zbomb -s 1000000 zbomb
rm -f plain.so
