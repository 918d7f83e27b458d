#!/bin/bash
# The DWARF unwinder in a container: a frameless program (unwind_paths,
# -O2 -fomit-frame-pointer) runs in its own mount namespace, in a tmpfs
# tree that only the namespace sees, with its own copies of the C library
# (in a directory the host does not have) and of the dynamic loader.  The
# program's path in there is the host path of the gcc build, but the file
# there is the clang build: tables (or names) read from the host's file at
# that path would be another program's.  Only the process's own view
# (/proc/PID/map_files, /proc/PID/root) reaches the right files.  Twice:
#  - pivot: the tree becomes the namespace's root (pivot_root, the host's
#    tree unmounted), as container runtimes do; /proc/PID/maps shows the
#    container's paths, which on the host are absent or another file;
#  - chroot: chroot into the tree; /proc/PID/maps shows the paths from the
#    namespace's root (the tree's mount point, empty on the host), which
#    are not the paths in the process's root either.
# Known truth: whole stacks (_start ... main -> run_leaf -> chain_a ->
# chain_b -> hot_leaf) on >= 95% of samples and no wrong caller with
# --unwind dwarf (the default); --unwind fp does not give them.
source "$(dirname "$0")/../lib.sh"

SECONDS_PER_RUN=${UNWIND_SECONDS:-2}
command -v chroot >/dev/null && command -v unshare >/dev/null ||
	{ echo "# unwind_container: no chroot or unshare, skipped"; exit 0; }

classify() { awk -f "$TOP/tests/unwind_classify.awk" "$1"; }

ROOT=$TMP/ctroot     # empty on the host; a tmpfs in the namespace
LIBDIR=/smolder-ct-lib # only in the container
PROG=$WL/unwind_paths-gcc # the gcc build on the host, the clang one inside
INTERP=$(readelf -lW "$WL/unwind_paths-clang" | sed -nE 's/.*Requesting program interpreter: (.*)\]/\1/p')
LIBS=$(ldd "$WL/unwind_paths-clang" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }')
mkdir -p "$ROOT"
check ct_host_has_no_libdir test ! -e "$LIBDIR"
check ct_builds_differ test -n "$(cmp "$WL/unwind_paths-gcc" "$WL/unwind_paths-clang")"

# In the namespace: mount, copy, enter the tree and exec (unshare, sh and
# chroot exec: the PID stays).  The mount goes away with the namespace.
# pivot: /proc mounted (umount needs it) and the host's tree unmounted,
# with the host's mount, umount and libraries.
CT_SETUP='root=$1 interp=$2 prog=$3 src=$4; shift 4
	mount -t tmpfs smolder-ct "$root" &&
	mkdir -p "$root'$LIBDIR'" "$root$(dirname "$interp")" "$root$(dirname "$prog")" &&
	cp "$interp" "$root$interp" && cp "$@" "$root'$LIBDIR'/" && cp "$src" "$root$prog" &&
	export LD_LIBRARY_PATH='$LIBDIR' &&'
CT_SECONDS=$((2 * SECONDS_PER_RUN + 4))
CT_RUN_chroot="$CT_SETUP"' exec chroot "$root" "$prog" leaf '$CT_SECONDS
CT_RUN_pivot="$CT_SETUP"' mkdir "$root/.old" "$root/proc" && cd "$root" &&
	pivot_root . .old && host_libs=/.old/lib/x86_64-linux-gnu:/.old/usr/lib/x86_64-linux-gnu &&
	LD_LIBRARY_PATH=$host_libs /.old/usr/bin/mount -t proc proc /proc &&
	LD_LIBRARY_PATH=$host_libs /.old/usr/bin/umount -l /.old &&
	exec "$prog" leaf '$CT_SECONDS

for kind in pivot chroot; do
	n=ct_$kind
	mkdir -p "$ROOT"
	eval "run=\$CT_RUN_$kind"
	start_cmd unwind_paths-gcc unshare -m --propagation private sh -c "$run" sh \
		"$ROOT" "$INTERP" "$PROG" "$WL/unwind_paths-clang" $LIBS || exit 1
	P=$WL_PID
	sleep 0.3
	if [ $kind = pivot ]; then
		check ${n}_maps_show_container_paths some_line "/proc/$P/maps" " $LIBDIR/libc\.so\.6\$"
		check ${n}_host_tree_gone test ! -e "/proc/$P/root$ROOT"
	else
		check ${n}_maps_show_namespace_paths some_line "/proc/$P/maps" " $ROOT$LIBDIR/libc\.so\.6\$"
	fi
	check ${n}_host_root_empty test -z "$(ls -A "$ROOT")"
	check ${n}_program_is_clang_build cmp "/proc/$P/root$PROG" "$WL/unwind_paths-clang"

	run_sm $n -v -U -F 999 -f -p "$P" "$SECONDS_PER_RUN"
	check ${n}_exit_0 equals "$RC" 0
	read -r tot ex trunc wrong pct example <<<"$(classify "$TMP/$n.out")"
	echo "# unwind_container: $kind, dwarf: $tot samples, exact $ex ($pct%), truncated $trunc, wrong caller $wrong${wrong:+ (e.g. $example)}"
	check ${n}_wrong_callers_0 equals "$wrong" 0
	if [ "$tot" -gt 200 ] && between "$pct" 95 100; then
		pass ${n}_whole_95
	else
		fail ${n}_whole_95 "exact $pct% of $tot samples; top stacks: $(top_stacks "$TMP/$n.out" 2 | cut -c1-400)"
	fi
	share_is ${n}_whole_to_hot_leaf "$TMP/$n.out" \
		'^unwind_paths-gc;_start;__libc_start_main;(__libc_start_call_main|\[libc\.so\.6\+0x[0-9a-f]+\]);main;(run_mode;)?run_leaf;chain_a;chain_b;hot_leaf [0-9]+$' 95 100
	check ${n}_tables_loaded some_line "$TMP/$n.err" '^smolder: unwind tables: [1-9][0-9]* files'

	# The same process by frame pointers: the frameless stacks are cut.
	run_sm ${n}_fp -U -F 999 -f --unwind fp -p "$P" "$SECONDS_PER_RUN"
	check ${n}_fp_exit_0 equals "$RC" 0
	read -r tot ex trunc wrong pct example <<<"$(classify "$TMP/${n}_fp.out")"
	echo "# unwind_container: $kind, fp: $tot samples, exact $ex ($pct%), truncated $trunc, wrong caller $wrong"
	check ${n}_fp_samples within "$tot" 200 100000
	check ${n}_fp_not_whole within "$pct" 0 5

	kill "$P" 2>/dev/null
	wait "$P" 2>/dev/null
	check ${n}_root_gone_with_namespace test -z "$(ls -A "$ROOT")"
done
