#!/bin/bash
# The arm64 walk (bpf/unwind.bpf.h built for user space with UNWIND_ARM64,
# as the arm64 BPF object has it) on real arm64 register sets and stacks,
# on any host: static arm64 builds of the frameless workload (gcc -O2
# -fomit-frame-pointer; clang with pointer authentication, whose x30 on
# the stack is signed) run under qemu-aarch64-static, stopped once at each
# instruction of the functions on the known paths (tests/replay/qemu_samples.py),
# made into recordings with the tables src/unwind builds from the same
# files (tests/replay/a64_image.c), and judged by the replay as the x86_64
# recordings are: every sample whole from _start, no caller wrong, no
# fallback, the mode's signature seen.  What it cannot show (signal frames:
# qemu-user's trampoline is not the vDSO's; kernel registers; the
# verifier) is the arm64 guests' (scripts/test-kernels.sh).
source "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1
A64=build/workloads/a64
for need in qemu-aarch64-static python3; do
	command -v "$need" >/dev/null ||
		{ fail arm64_qemu_tools "no $need (apt-get install qemu-user-static)"; exit 0; }
done
for f in "$A64/static-gcc" "$A64/static-clang-pac" build/tools/a64_image build/replay/a64/replay; do
	[ -x "$f" ] || { fail arm64_qemu_built "$f is not built (make check-build)"; exit 0; }
done
mkdir -p "$TMP/rec"
cp tests/unwind_classify.awk "$TMP/"

# record NAME BIN MODE FUNC...: samples of BIN MODE at each instruction of
# the FUNCs, as recording NAME.
record() {
	local name=$1 bin=$2 mode=$3
	shift 3
	if ! timeout 120 python3 tests/replay/qemu_samples.py "$bin" "$mode" "$TMP/$name.txt" "$@" \
		>"$TMP/$name.log" 2>&1 ||
	   ! build/tools/a64_image "$bin" "$TMP/$name.txt" "$TMP/rec/$name.rec.gz" >>"$TMP/$name.log" 2>&1; then
		fail "arm64_qemu_record_$name" "$(tail -n 3 "$TMP/$name.log" | tr '\n' ' ')"
	fi
}

record gcc-leaf "$A64/static-gcc" leaf hot_leaf chain_a chain_b run_leaf
record clang-leaf "$A64/static-clang-pac" leaf hot_leaf chain_a chain_b run_leaf
record gcc-bigframe "$A64/static-gcc" bigframe big_frame hot_leaf
record clang-bigframe "$A64/static-clang-pac" bigframe big_frame hot_leaf
# the replay's own PASS and FAIL lines, one a recording, named for arm64
build/replay/a64/replay -M "$TMP/rec" | sed -E 's/^(PASS|FAIL) replay_/\1 arm64_qemu_replay_/'
