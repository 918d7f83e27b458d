#!/bin/bash
# The binary can be copied to another host: libbpf, libelf and zlib are
# linked in, so ldd lists nothing but the C library (and the vDSO/loader).
source "$(dirname "$0")/../lib.sh"

others=$(ldd "$SMOLDER" | awk '{ print $1 }' | grep -vE '^(linux-vdso\.so\.1|linux-gate\.so\.1|libc\.so\.6|/lib.*/ld-linux.*\.so\.[0-9]+)$')
if [ -z "$others" ] && ldd "$SMOLDER" | grep -q 'libc\.so\.6'; then
	pass "ldd lists only the C library"
else
	fail "ldd lists only the C library" "also: $others"
fi
# The BPF object is embedded: the binary runs from anywhere, alone.
cp "$SMOLDER" "$TMP/smolder-copy"
if (cd / && "$TMP/smolder-copy" -F 99 -f 0.3 >/dev/null 2>"$TMP/err"); then
	pass "a copy of the binary elsewhere runs on its own"
else
	fail "copied binary runs" "$(cat "$TMP/err")"
fi

# make ARCH=arm64 builds the BPF object for arm64 (CI runs it too): BPF
# machine code against vmlinux/arm64/vmlinux.h, where a perf event's
# registers are struct user_pt_regs, not x86_64's struct pt_regs.  The
# skeleton alone here; tests/cli/arm64_build.sh checks the whole binary.
make -s -C "$TOP" ARCH=arm64 OUT="$TMP/arm64" "$TMP/arm64/smolder.skel.h" >"$TMP/arm64.log" 2>&1
check arm64_bpf_builds equals "$?:$(grep -iE 'error|warning' "$TMP/arm64.log" | head -c 300)" "0:"
check arm64_bpf_machine some_line <(readelf -h "$TMP/arm64/smolder.bpf.o" 2>&1) 'Machine: +Linux BPF'
bpftool btf dump file "$TMP/arm64/smolder.bpf.o" >"$TMP/arm64.btf" 2>&1
bpftool btf dump file "$TOP/build/smolder.bpf.o" >"$TMP/native.btf" 2>&1
check arm64_regs_user_pt_regs some_line "$TMP/arm64.btf" "TYPEDEF 'bpf_user_pt_regs_t' type_id=[0-9]+$"
check arm64_regs_struct some_line "$TMP/arm64.btf" "STRUCT 'user_pt_regs' size=272 vlen=4"
if [ "$(uname -m)" = x86_64 ]; then
	check x86_64_regs_struct some_line "$TMP/native.btf" "STRUCT 'pt_regs' size=168 vlen=21"
	check x86_64_no_user_pt_regs no_line "$TMP/native.btf" "STRUCT 'user_pt_regs'"
fi
check arm64_skeleton some_line "$TMP/arm64/smolder.skel.h" 'smolder_bpf__open_opts'

# No fetching atomics (BPF_ATOMIC with BPF_FETCH, imm != 0): kernels before
# 5.12 reject the whole object for one, even in dead code.
fetching_atomics() {
	llvm-objdump -d "$1" | awk -F'\t' '{ split($2, b, " ") }
		(b[1] == "c3" || b[1] == "db") && (b[5] b[6] b[7] b[8]) != "00000000" { print; n++ }
		END { exit n > 0 }'
}
check no_fetching_atomics fetching_atomics "$TOP/build/smolder.bpf.o"
check arm64_no_fetching_atomics fetching_atomics "$TMP/arm64/smolder.bpf.o"
