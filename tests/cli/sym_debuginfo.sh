#!/bin/bash
# Stripped binaries named from separate debug information, found in the
# process's own root (/proc/PID/root).  dbg_split's functions are all
# static but main, so a stripped copy names nothing by itself (no .symtab,
# and .dynsym does not hold them); each variant must give the exact path
#   main -> dbg_loop -> dbg_three/dbg_one -> dbg_leaf   (75/25)
# Variants, each in its own capture (so one cannot borrow another's find):
#  debuglink         .gnu_debuglink, the debug file next to the binary
#  debuglink_subdir  .gnu_debuglink, the debug file in .debug/ beside it
#  buildid           no debuglink: /usr/lib/debug/.build-id/xx/rest.debug,
#                    on a tmpfs mounted over /usr/lib/debug in the
#                    process's own mount namespace only
#  minidebuginfo     no separate file: an xz-compressed ELF in the
#                    .gnu_debugdata section with the static FUNC symbols
#                    (built like Fedora's, see the GDB manual)
source "$(dirname "$0")/../lib.sh"

SRC=$WL/dbg_split
mkdir -p "$TMP/dl" "$TMP/sub/.debug" "$TMP/bid" "$TMP/mdi"

# -- debuglink: dl_next + dl_next.debug --
objcopy --only-keep-debug "$SRC" "$TMP/dl/dl_next.debug"
strip -s -o "$TMP/dl/dl_next" "$SRC"
(cd "$TMP/dl" && objcopy --add-gnu-debuglink=dl_next.debug dl_next)
# -- debuglink_subdir: dl_sub + .debug/dl_sub.debug --
objcopy --only-keep-debug "$SRC" "$TMP/sub/.debug/dl_sub.debug"
strip -s -o "$TMP/sub/dl_sub" "$SRC"
(cd "$TMP/sub" && objcopy --add-gnu-debuglink=.debug/dl_sub.debug dl_sub)
# -- buildid: bid_only; the debug file goes in the namespace only --
strip -s -o "$TMP/bid/bid_only" "$SRC"
objcopy --only-keep-debug "$SRC" "$TMP/bid/debugfile"
BUILD_ID=$(readelf -n "$SRC" | awk '/Build ID:/ { print $3 }')
# -- minidebuginfo: mdi_only --
B=$TMP/mdi/mdi_only
cp "$SRC" "$B"
nm -D "$B" --format=posix --defined-only | awk '{ print $1 }' | sort >"$TMP/mdi/dynsyms"
nm "$B" --format=posix --defined-only |
	awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' | sort >"$TMP/mdi/funcsyms"
comm -13 "$TMP/mdi/dynsyms" "$TMP/mdi/funcsyms" >"$TMP/mdi/keep"
objcopy --only-keep-debug "$B" "$TMP/mdi/debug"
objcopy -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols="$TMP/mdi/keep" "$TMP/mdi/debug" "$TMP/mdi/mini"
strip --strip-all --remove-section .comment "$B"
xz "$TMP/mdi/mini"
objcopy --add-section .gnu_debugdata="$TMP/mdi/mini.xz" "$B"

# Preconditions: the binaries name nothing themselves; the debug data is
# where each variant says.
for b in dl/dl_next sub/dl_sub bid/bid_only mdi/mdi_only; do
	check "debuginfo_stripped_${b%%/*}" no_line <(readelf -SW "$TMP/$b"; nm -D "$TMP/$b") '\.symtab|dbg_(leaf|loop|one|three)'
done
check debuginfo_link_names some_line <(readelf -p .gnu_debuglink "$TMP/dl/dl_next") 'dl_next\.debug'
check debuginfo_link_names_sub some_line <(readelf -p .gnu_debuglink "$TMP/sub/dl_sub") ' dl_sub\.debug'
check debuginfo_buildid_no_link no_line <(readelf -SW "$TMP/bid/bid_only") 'gnu_debuglink|gnu_debugdata'
check debuginfo_buildid_found within "${#BUILD_ID}" 40 40
check debuginfo_mdi_section some_line <(readelf -SW "$B") '\.gnu_debugdata'
check debuginfo_mdi_has_static some_line <(xz -dc "$TMP/mdi/mini.xz" >"$TMP/mdi/mini.elf"; nm "$TMP/mdi/mini.elf") ' t dbg_leaf$'

PATH_RE='main;dbg_loop;dbg_(three|one);dbg_leaf [0-9]+$'
# profile NAME COMM PID: capture 2 s of PID and check the names.
profile() {
	local name=$1 comm=$2 pid=$3
	sleep 0.2
	run_sm "$name" -F 999 -U -f -p "$pid" 2
	check "debuginfo_${name}_exit_0" equals "$RC" 0
	share_is "debuginfo_${name}_names" "$TMP/$name.out" "^$comm;([^;]*;)*$PATH_RE" 95 100
	share_is "debuginfo_${name}_split" "$TMP/$name.out" ";dbg_loop;dbg_three;dbg_leaf [0-9]+\$" 65 85
	check "debuginfo_${name}_no_unnamed" no_line "$TMP/$name.out" "\\[$comm\\+0x"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
}

start_cmd dl_next "$TMP/dl/dl_next" 10 || exit 1
profile debuglink dl_next "$WL_PID"

start_cmd dl_sub "$TMP/sub/dl_sub" 10 || exit 1
profile debuglink_subdir dl_sub "$WL_PID"

# The build-id file exists only inside the process's mount namespace.
DBG=/usr/lib/debug/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}.debug
check debuginfo_buildid_absent_outside test ! -e "$DBG"
start_cmd bid_only unshare -m --propagation private sh -c \
	'mount -t tmpfs smolder-dbg /usr/lib/debug && mkdir -p "${3%/*}" &&
	cp "$1" "$3" && exec "$2" 10' sh "$TMP/bid/debugfile" "$TMP/bid/bid_only" "$DBG" || exit 1
P=$WL_PID
check debuginfo_buildid_inside test -e "/proc/$P/root$DBG"
check debuginfo_buildid_still_absent_outside test ! -e "$DBG"
profile buildid bid_only "$P"

start_cmd mdi_only "$B" 10 || exit 1
profile minidebuginfo mdi_only "$WL_PID"
