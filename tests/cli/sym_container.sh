#!/bin/bash
# A process in its own mount namespace, like a container's: a tmpfs is
# mounted over /opt in the namespace only, and cpu_split is copied there as
# /opt/smolder-ns-test/bin/prog, a path that does not exist outside it.
# Its frames must be named (main -> run_loop -> burn_a/burn_b -> spin), also
# for a second such process that exits, and takes its namespace with it,
# before the capture ends.
source "$(dirname "$0")/../lib.sh"

NSDIR=/opt/smolder-ns-test
# In the namespace: mount, copy, exec (unshare -m execs; the PID stays).
# Mounts in a namespace go away with its last process: nothing to unmount.
NS_RUN='mount -t tmpfs smolder-ns /opt && mkdir -p '$NSDIR'/bin &&
	cp "$1" '$NSDIR'/bin/prog && exec '$NSDIR'/bin/prog "$2"'

check container_path_absent_outside test ! -e "$NSDIR"
start_cmd prog unshare -m --propagation private sh -c "$NS_RUN" sh "$WL/cpu_split" 10 || exit 1
P=$WL_PID
sleep 0.3
check container_maps_show_ns_path some_line "/proc/$P/maps" " $NSDIR/bin/prog\$"
check container_path_still_absent_outside test ! -e "$NSDIR"

run_sm c -F 999 -U -f -p "$P" 2
check container_exit_0 equals "$RC" 0
share_is container_names "$TMP/c.out" '^prog;([^;]*;)*main;run_loop;burn_[ab];spin [0-9]+$' 95 100
share_is container_burn_a_share "$TMP/c.out" ';run_loop;burn_a;spin [0-9]+$' 65 85
check container_no_unnamed no_line "$TMP/c.out" '\[prog\+0x'
kill "$P"
wait "$P" 2>/dev/null

# --- a container process that exits during the capture ---
start_cmd prog unshare -m --propagation private sh -c "$NS_RUN" sh "$WL/cpu_split" 1 || exit 1
Q=$WL_PID
run_sm e -F 999 -U -f -p "$Q" 2.5
check container_exited_exit_0 equals "$RC" 0
check container_exited_gone test ! -e "/proc/$Q"
check container_exited_samples within "$(total "$TMP/e.out")" 300 3000
share_is container_exited_names "$TMP/e.out" '^prog;([^;]*;)*main;run_loop;burn_[ab];spin [0-9]+$' 95 100
check container_exited_no_unnamed no_line "$TMP/e.out" '\[prog\+0x'
check container_path_absent_after test ! -e "$NSDIR"
