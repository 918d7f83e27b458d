#!/bin/bash
# Containers and services: --cgroup PATH samples only the tasks of a cgroup
# (v2) made here, and of the cgroups below it; bcc's --cgroupmap and
# --mntnsmap read a BPF hash pinned (on a bpffs mounted here) with the
# cgroup ids or mount namespaces to keep.  Two cpu_split workloads run,
# one inside (cgroup, mount namespace) and one outside: only the inside
# one may show.  Sample counts are bounds of presence, not of rate: other
# work shares the CPUs.
source "$(dirname "$0")/../lib.sh"

CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$CG2" ]; then
	fail cgroup_deps "no cgroup2 mount (mount -t cgroup2 none /sys/fs/cgroup/unified)"
	exit 0
fi
CG=$CG2/smolder-test-$$
mkdir "$CG" "$CG/inner" || exit 1
mkdir "$TMP/bpffs" && mount -t bpf bpf "$TMP/bpffs" || exit 1
# processes go back to the root cgroup first: a cgroup with tasks cannot go
at_exit "for p in \$(cat '$CG/inner/cgroup.procs' '$CG/cgroup.procs' 2>/dev/null); do echo \$p >'$CG2/cgroup.procs'; done; kill \$(jobs -p) 2>/dev/null; wait 2>/dev/null; rmdir '$CG/inner' '$CG'; umount '$TMP/bpffs'"

start_wl cpu_split 30 || exit 1
IN=$WL_PID
echo "$IN" >"$CG/inner/cgroup.procs" || exit 1
start_wl cpu_split 30 || exit 1
OUT=$WL_PID

# --- --cgroup: the cgroup and those below it; a path relative to the mount ---
run_sm cg -f -F 499 --per-pid --cgroup "$CG" 2
check cgroup_exit_0 equals "$RC" 0
check cgroup_inside_sampled within "$(total <(comm_stacks "$TMP/cg.out" cpu_split))" 100 1100
check cgroup_only_inside all_lines "$TMP/cg.out" "^cpu_split-$IN;"
check cgroup_burn_a_share within "$(share "$TMP/cg.out" ';burn_a;')" 65 85
run_sm cgrel -f --per-pid -G "smolder-test-$$/inner" 1
check cgroup_relative_path equals "$RC $(grep -c "^cpu_split-$IN;" "$TMP/cgrel.out" | awk '{ print ($1 > 0) }')" "0 1"
check cgroup_relative_only_inside all_lines "$TMP/cgrel.out" "^cpu_split-$IN;"
# not a cgroup v2 directory, or none: one line, exit 1
mkdir "$TMP/plain"
run_sm cgbad --cgroup "$TMP/plain" 1
check cgroup_not_v2 equals "$RC $(grep -c 'not a cgroup v2 directory: ' "$TMP/cgbad.err") $(one_error "$TMP/cgbad.err" >/dev/null && echo one)" "1 1 one"
run_sm cgnone --cgroup "$CG/missing" 1
check cgroup_missing equals "$RC $(one_error "$TMP/cgnone.err" >/dev/null && echo one)" "1 one"

# --- --cgroupmap: bcc's pinned hash of cgroup ids (a v2 cgroup's id is its inode) ---
hexle() { printf '%016x' "$1" | sed -E 's/(..)(..)(..)(..)(..)(..)(..)(..)/\8 \7 \6 \5 \4 \3 \2 \1/'; }
bpftool map create "$TMP/bpffs/cgroupset" type hash key 8 value 8 entries 128 name cgroupset || exit 1
bpftool map update pinned "$TMP/bpffs/cgroupset" key hex $(hexle "$(stat -c %i "$CG/inner")") value hex 01 00 00 00 00 00 00 00 || exit 1
run_sm cgmap -f -F 499 --per-pid --cgroupmap "$TMP/bpffs/cgroupset" 2
check cgroupmap_exit_0 equals "$RC" 0
check cgroupmap_inside_sampled within "$(total "$TMP/cgmap.out")" 100 1100
check cgroupmap_only_inside all_lines "$TMP/cgmap.out" "^cpu_split-$IN;"
bpftool map create "$TMP/bpffs/array" type array key 4 value 8 entries 4 name notahash || exit 1
run_sm cgmapbad --cgroupmap "$TMP/bpffs/array" 1
check cgroupmap_wrong_map equals "$RC $(one_error "$TMP/cgmapbad.err" >/dev/null && echo one)" "1 one"
check cgroupmap_wrong_map_says some_line "$TMP/cgmapbad.err" 'is not a BPF hash with 8-byte keys'
run_sm cgmapnone --cgroupmap "$TMP/bpffs/none" 1
check cgroupmap_missing equals "$RC $(grep -c 'cannot open --cgroupmap' "$TMP/cgmapnone.err")" "1 1"

# --- --mntnsmap: bcc's pinned hash of mount namespace inodes ---
# (the cgroup's workload is done: two spinning workloads for two CPUs)
echo "$IN" >"$CG2/cgroup.procs"
kill "$IN"
start_cmd cpu_split unshare -m "$WL/cpu_split" 30 || exit 1
NS=$WL_PID
bpftool map create "$TMP/bpffs/mntns" type hash key 8 value 4 entries 16 name mount_ns_set || exit 1
bpftool map update pinned "$TMP/bpffs/mntns" key hex $(hexle "$(stat -L -c %i "/proc/$NS/ns/mnt")") value hex 01 00 00 00 || exit 1
run_sm mnt -f -F 499 --per-pid --mntnsmap "$TMP/bpffs/mntns" 2
check mntnsmap_exit_0 equals "$RC" 0
check mntnsmap_inside_sampled within "$(total "$TMP/mnt.out")" 100 1100
check mntnsmap_only_inside all_lines "$TMP/mnt.out" "^cpu_split-$NS;"
