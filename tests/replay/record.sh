#!/bin/bash
# Writes the replay's recordings again (make replay-record; needs root:
# the recorder reads the tables the loader puts in real BPF maps), then
# replays them.  Each is small (tens of KB) and checked in; which samples
# each takes, and why:
#   -t FUNC -s N  a sample at each of the N instructions from FUNC's first
#                 call on (prologues, epilogues, the PLT, the signal
#                 trampoline: every rule change of the frameless code)
#   -o hot_leaf   its loop is one sample, at its entry
#   -n N -i NAME  N samples at random moments whose pc is in NAME
set -e
cd "$(dirname "$0")/../.."
REC=build/tools/unwind_record
WL=build/workloads
rec() {
	local name=$1 workload=$2 mode=$3
	shift 3
	echo "  RECORD   tests/replay/$name.rec.gz"
	"$REC" "$@" "tests/replay/$name.rec.gz" "$WL/$workload" "$mode"
}
# run_leaf -> chain_a -> chain_b -> hot_leaf and back out through run_mode's
# loop (strcmp through the PLT, clock_gettime in the vDSO)
rec gcc-leaf unwind_paths-gcc leaf -t run_leaf -o hot_leaf -s 40 -n 4 -i hot_leaf
rec clang-leaf unwind_paths-clang leaf -t run_leaf -o hot_leaf -s 40 -n 4 -i hot_leaf
# SIGPROF's handler: on_prof, its return into __restore_rt, the sigreturn
# and the interrupted code after it
rec gcc-signal unwind_paths-gcc signal -t on_prof -o hot_leaf -s 16 -n 4 -i hot_leaf
# SIGSEGV at load_at_entry's first instruction: on_segv, then its first
# call of siglongjmp through the PLT, bound lazily (the PLT entry's push,
# .plt's first entry, the resolver's first instructions, whose CFA is
# then in rbx: the steps stop before)
rec gcc-sigentry unwind_paths-gcc sigentry -t on_segv -o hot_leaf -s 19 -n 4 -i hot_leaf
rec clang-sigentry unwind_paths-clang sigentry -t on_segv -o hot_leaf -s 16 -n 4 -i hot_leaf
# qsort's PLT entry, its first (lazy) call; then qsort's own frames
rec gcc-plt unwind_paths-gcc plt -t qsort@plt -s 7 -n 4 -i by_value
# 200 frames deep: the walk's depth limit
rec gcc-recurse unwind_paths-gcc recurse -n 3 -i hot_leaf
# a 72 KiB frame (gcc's: clang folds the unused array away)
rec gcc-bigframe unwind_paths-gcc bigframe -t big_frame -o hot_leaf -s 16 -n 3 -i hot_leaf
build/tests/test_unwind_replay
