#!/bin/bash
# The source tree's shape (issues 13 and 22), as tests/tools/check_structure.sh
# judges it: folders by stage whose includes point only down or within,
# folder-qualified includes, _int.h headers private to their folder, no
# include loop, no .c file over 800 lines, struct env only in cmd/.  Then
# the checker is shown to catch each kind of break, planted in a copy.
source "$(dirname "$0")/../lib.sh"
CHECK="$TOP/tests/tools/check_structure.sh"

"$CHECK" "$TOP/src" >"$TMP/src.out" 2>&1
check structure_holds equals "$?:$(head -c 400 "$TMP/src.out" | tr '\n' ' ')" "0:"
check structure_folders_ranked equals \
	"$(cd "$TOP/src" && ls -d */ | tr -d / | tr '\n' ' ')" \
	"capture cmd files fold interp lib output profile serve session symbols unwind "

# plant NAME FILE LINE: a copy of src/ with LINE added to FILE, checked.
plant() {
	rm -rf "$TMP/planted" && cp -r "$TOP/src" "$TMP/planted"
	printf '%s\n' "$3" >>"$TMP/planted/$2"
	"$CHECK" "$TMP/planted" >"$TMP/$1.out" 2>&1
	echo "$?" >"$TMP/$1.rc"
}
plant up lib/log.c '#include "cmd/cli.h"'
check structure_catches_upward_include equals "$(cat "$TMP/up.rc")" 1
check structure_names_upward_include some_line "$TMP/up.out" '^rank: lib/log.c includes cmd/cli.h'
plant beside output/destination.c '#include "symbols/usyms.h"'
check structure_catches_include_beside some_line "$TMP/beside.out" '^rank: output/destination.c includes symbols/usyms.h'
plant private session/finish.c '#include "unwind/unwind_maps_int.h"'
check structure_catches_foreign_int_h equals "$(cat "$TMP/private.rc")" 1
check structure_names_foreign_int_h some_line "$TMP/private.out" '^private: session/finish.c includes unwind/unwind_maps_int.h'
# a subfolder's files have their folder's rank and are named by their path
plant nested_up interp/python/py_layout.c '#include "capture/capture.h"'
check structure_catches_nested_upward_include some_line "$TMP/nested_up.out" \
	'^rank: interp/python/py_layout.c includes capture/capture.h: capture/ \(rank 3\) is not below interp/'
plant nested_in lib/log.c '#include "interp/python/py_layout.h"'
check structure_catches_include_of_nested some_line "$TMP/nested_in.out" '^rank: lib/log.c includes interp/python/py_layout.h'
plant nested_unqualified interp/python/py_layout.c '#include "py_layout.h"'
check structure_catches_nested_unqualified some_line "$TMP/nested_unqualified.out" \
	'^qualified: interp/python/py_layout.c includes "py_layout.h"'
plant unqualified lib/clock.c '#include "log.h"'
check structure_catches_unqualified some_line "$TMP/unqualified.out" '^qualified: lib/clock.c includes "log.h"'
# a loop within one folder breaks no rank
rm -rf "$TMP/planted" && cp -r "$TOP/src" "$TMP/planted"
echo '#include "lib/clock.h"' >>"$TMP/planted/lib/grow.h"
echo '#include "lib/grow.h"' >>"$TMP/planted/lib/clock.h"
"$CHECK" "$TMP/planted" >"$TMP/loop.out" 2>&1
check structure_catches_loop equals "$?" 1
check structure_names_loop some_line "$TMP/loop.out" '^loop: .*\b(clock|lib/clock)\b.*\b(grow|lib/grow)\b|^loop: .*grow.*clock'
rm -rf "$TMP/planted" && cp -r "$TOP/src" "$TMP/planted"
seq 801 >>"$TMP/planted/lib/utf8.c"
"$CHECK" "$TMP/planted" >"$TMP/size.out" 2>&1
check structure_catches_long_file some_line "$TMP/size.out" '^size: lib/utf8.c has [0-9]+ lines'
plant env capture/capture.c 'static struct env *planted;'
check structure_catches_env_outside_cmd some_line "$TMP/env.out" '^env: capture/capture.c knows struct env'
plant skel fold/fold.c '#include "smolder.skel.h"'
check structure_catches_skeleton_outside_capture some_line "$TMP/skel.out" '^skeleton: fold/fold.c includes the BPF skeleton'
