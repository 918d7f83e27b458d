#!/bin/bash
# smolder's table of CPython layouts (src/interp/python/py_layout.c, as
# build/tools/py_layout prints a row) against each supported version's own
# headers: tests/tools/py_offsets.c, compiled against the installed
# CPython's include/pythonX.Y with Py_BUILD_CORE, prints every field by
# offsetof() and sizeof().  One FAIL line a field that differs, naming the
# version; a supported version not installed is said in a SKIP line.  The
# versions smolder does not support have no row.
source "$(dirname "$0")/../lib.sh"
PYENV=${PYENV_ROOT:-/root/.pyenv}
LAYOUT=$TOP/build/tools/py_layout
[ -x "$LAYOUT" ] || { fail py_layout_tool "build/tools/py_layout is not built (make check-build)"; exit 0; }

# install_of X.Y: the newest installed X.Y.Z's directory, or nothing.
install_of() {
	ls -d "$PYENV"/versions/"$1".[0-9]* 2>/dev/null | sort -V | tail -n 1
}

for mm in 3.8 3.9 3.10 3.11 3.12 3.13; do
	dir=$(install_of "$mm")
	inc=$dir/include/python$mm
	if [ -z "$dir" ] || [ ! -f "$inc/Python.h" ] || [ ! -d "$inc/internal" ]; then
		echo "SKIP py_layout_$mm: no CPython $mm headers under $PYENV/versions (pyenv install $mm)"
		continue
	fi
	if ! gcc -std=gnu11 -w -DPy_BUILD_CORE -I"$inc" -I"$inc/internal" \
		"$TOP/tests/tools/py_offsets.c" -o "$TMP/offsets-$mm" 2>"$TMP/cc-$mm.err"; then
		fail "py_layout_$mm" "py_offsets.c does not compile against $inc: $(head -c 300 "$TMP/cc-$mm.err" | tr '\n' ' ')"
		continue
	fi
	"$TMP/offsets-$mm" | sort >"$TMP/headers-$mm"
	"$LAYOUT" "$mm" | sort >"$TMP/table-$mm"
	# name, what the headers say, what the table says ("-": not printed)
	join -a 1 -a 2 -e - -o 0,1.2,2.2 "$TMP/headers-$mm" "$TMP/table-$mm" |
		awk '$2 != $3' >"$TMP/diff-$mm"
	fields=$(wc -l <"$TMP/headers-$mm")
	if [ -s "$TMP/diff-$mm" ]; then
		while read -r name want got; do
			fail "py_layout_${mm}_$name" "headers of $(basename "$dir") say $want, the table $got"
		done <"$TMP/diff-$mm"
	elif [ "$fields" -lt 30 ]; then
		fail "py_layout_$mm" "only $fields fields printed"
	else
		pass "py_layout_$mm"
	fi
done

# No row, whatever is installed: the loader must leave these unnamed.
for mm in 2.7 3.6 3.7 3.14; do
	out=$("$LAYOUT" "$mm")
	check "py_layout_unsupported_$mm" equals "$?:$out" "1:unsupported $mm"
done
