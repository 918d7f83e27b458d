#!/bin/bash
# A process mapping an ELF file whose CFI makes the unwind-table build work
# without end cannot stall a capture, its exit, or other processes' tables
# (issue 21, defect 1).  build/tools/hostile_cfi writes the file: two CIEs
# in the same slot of the CIE cache, each with the augmentation "z" and a
# million "S", and 10,000 FDEs using them in turn (2.2 MB), so that every
# FDE parses a megabyte-long CIE again, in each pass.  The hostile workload,
# as nobody, maps its code page executable and runs it.  On main the build
# took 22 s: the capture's exit waited for it (SIGTERM too), and every
# table queued behind it.  Expect:
#  - -p PID 3 ends within its duration + 1 s, peak RSS under 128 MiB;
#  - a root bystander, a frameless program (build/workloads/unwind_paths-gcc)
#    that a followed process execs 1 s into the same capture, so that its
#    table is queued while the hostile one builds, gets whole stacks (as
#    tests/unwind_classify.awk judges them: from _start to the leaf);
#  - SIGTERM 1.5 s into a capture (the build under way on main) ends
#    smolder within 1 s, with its output written.
# The build's work is bounded by the file's size; tests/unit/
# test_unwind_table.c counts that work for this file's shape and others.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"

"$TOP/build/tools/hostile_cfi" -c 2 -a 1000000 -f 10000 -l 16 "$TMP/cfi.so"
check cfi_file_made equals "$?" 0
chmod 644 "$TMP/cfi.so"
echo "# hostile CFI file: $(stat -c %s "$TMP/cfi.so") bytes"

# The bystander: sh (followed from the start) execs the frameless program.
start_hostile 30 elf "$TMP/cfi.so"
start_cmd sh sh -c "sleep 1; exec '$WL/unwind_paths-gcc' leaf 3"
BP=$WL_PID
timed_sm p -U -f -F 999 -p "$HP,$BP" 3
bounded cfi_pid 3
# its own frames too: the table stopped where the budget ran out
check cfi_pid_hostile_sampled some_line "$TMP/p.out" '^hostile;.*;run_code;\[cfi\.so\+0x'
grep '^unwind_paths-gc;' "$TMP/p.out" >"$TMP/bystander.folded"
read -r tot ex trunc wrong pct _ <<<"$(awk -f "$TOP/tests/unwind_classify.awk" "$TMP/bystander.folded")"
echo "# bystander: $tot samples, whole $ex ($pct%), cut $trunc, wrong caller $wrong"
check cfi_bystander_sampled within "$tot" 200 100000
check cfi_bystander_wrong_0 equals "$wrong" 0
check cfi_bystander_whole_90 within "$pct" 90 100
wait "$BP" 2>/dev/null
stop_hostile

start_hostile 30 elf "$TMP/cfi.so"
term_sm t 1.5 -f -p "$HP"
echo "# SIGTERM 1.5 s in: exit after $TERM_TOOK s"
check cfi_sigterm_exit_0 equals "$RC" 0
check cfi_sigterm_within_1s within "$TERM_TOOK" 0 1
check cfi_sigterm_written some_line "$TMP/t.out" ';run_code;'
stop_hostile
