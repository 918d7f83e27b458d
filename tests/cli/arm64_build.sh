#!/bin/bash
# make ARCH=arm64 on an x86_64 host: a static aarch64 smolder-arm64 (no
# interpreter, no shared library: it runs on any arm64 host), which runs
# under qemu's user emulation with the x86_64 binary's help, version, error
# lines and flame graphs; the arm64 workloads and tools the kernel matrix's
# arm64 guests run (scripts/test-kernels.sh); and make install ARCH=arm64,
# which installs it as PREFIX/bin/smolder.
source "$(dirname "$0")/../lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
	echo "SKIP arm64_build: the cross build is from x86_64 (this host is $(uname -m))"
	exit 0
fi
# make_in ARGS...: make in the source tree, whoever called this test.
make_in() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" --no-print-directory "$@"; }
QEMU=qemu-aarch64-static
BIN=$TOP/smolder-arm64
A64="$TOP/build/arm64"

# The binary: built, and static aarch64 (the link warns only that static
# glibc's getaddrinfo would use the host's NSS libraries: --serve asks for
# numeric addresses alone).
make_in -j2 ARCH=arm64 >"$TMP/make.log" 2>&1
rc=$?
check arm64_make equals "$rc:$(grep -iE 'error|warning' "$TMP/make.log" | grep -v 'in statically linked applications requires at runtime' | head -c 300)" "0:"
[ -x "$BIN" ] || { fail arm64_binary "make ARCH=arm64 wrote no $BIN: $(tail -c 300 "$TMP/make.log")"; exit 0; }
check arm64_file_static_aarch64 some_line <(file -b "$BIN") '^ELF 64-bit LSB executable, ARM aarch64, .*statically linked'
check arm64_no_interpreter no_line <(readelf -lW "$BIN" 2>&1) 'INTERP|Requesting program interpreter'
check arm64_no_dynamic_section some_line <(readelf -dW "$BIN" 2>&1) '^There is no dynamic section in this file'
check arm64_bpf_embedded some_line <(readelf -h "$A64/smolder.bpf.o" 2>&1) 'Machine: +Linux BPF'

# It runs: qemu-user emulates an arm64 CPU running it, the same text out.
command -v "$QEMU" >/dev/null || { fail arm64_runs "$QEMU not found (install qemu-user-static: scripts/deps.sh arm64)"; exit 0; }
"$QEMU" "$BIN" --version >"$TMP/version" 2>&1
check arm64_version equals "$?:$(cat "$TMP/version")" "0:$("$SMOLDER" --version)"
"$QEMU" "$BIN" --help >"$TMP/help" 2>&1
check arm64_help_runs equals "$?" 0
check arm64_help_is_ours equals "$(md5sum <"$TMP/help")" "$("$SMOLDER" --help | md5sum)"
"$QEMU" "$BIN" --no-such-option >"$TMP/bad.out" 2>"$TMP/bad.err"
check arm64_unknown_option equals "$?:$(wc -l <"$TMP/bad.err"):$(cat "$TMP/bad.err"):$(wc -c <"$TMP/bad.out")" \
	"2:1:smolder: unknown option '--no-such-option' (see smolder --help):0"
# Real work: a flame graph of a folded file, byte for byte the x86_64 one's.
printf '%s\n' 'cpu_split;main;run_loop;burn_a;spin 750' 'cpu_split;main;run_loop;burn_b;spin 250' \
	'app;a b  c;<x> 3' >"$TMP/in.folded"
"$QEMU" "$BIN" flamegraph "$TMP/in.folded" >"$TMP/arm64.svg" 2>"$TMP/arm64.svg.err"
rc=$?
"$SMOLDER" flamegraph "$TMP/in.folded" >"$TMP/native.svg" 2>&1
check arm64_flamegraph_same_svg equals "$rc:$(head -c 200 "$TMP/arm64.svg.err"):$(md5sum <"$TMP/arm64.svg")" \
	"0::$(md5sum <"$TMP/native.svg")"
check arm64_flamegraph_names_burn_a some_line "$TMP/arm64.svg" '<title>burn_a \(750 samples, 74\.'

# What the arm64 guests run: built for arm64, and a workload runs.
make_in -j2 ARCH=arm64 workloads tools >"$TMP/wl.log" 2>&1
rc=$?
check arm64_workloads_tools_build equals "$rc:$(grep -iE 'error' "$TMP/wl.log" | head -c 300)" "0:"
not_arm64=""
for f in workloads/cpu_split workloads/syscall_heavy workloads/deep_stack workloads/net_pump \
	workloads/pty_pump workloads/unwind_paths-gcc workloads/unwind_paths-clang workloads/unwind_dl-gcc.so \
	workloads/offcpu_split workloads/fifo_wait tools/deny tools/btf_rename; do
	file -b "$A64/$f" 2>&1 | grep -q '^ELF 64-bit LSB .*ARM aarch64' || not_arm64="$not_arm64 $f($(file -b "$A64/$f" | cut -c1-60))"
done
check arm64_guest_files_aarch64 equals "${not_arm64:-none}" none
# unwind_paths-clang: clang --target=aarch64-linux-gnu, frameless (-O2
# -fomit-frame-pointer) as the x86_64 one; it runs under qemu-user with
# arm64's C library (libc6:arm64, multiarch).
check arm64_clang_workload some_line <(readelf -p .comment "$A64/workloads/unwind_paths-clang" 2>&1) 'clang version'
timeout 60 "$QEMU" "$A64/workloads/cpu_split" 0.2 >"$TMP/cpu_split.out" 2>&1
check arm64_workload_runs equals "$?:$(head -c 200 "$TMP/cpu_split.out")" "0:"

# make install ARCH=arm64: this binary as PREFIX/bin/smolder, the same man
# page and units as the x86_64 install (tests/check/install.sh checks those).
d=$(mktemp -d "$TMP/dest.XXXXXX")
make_in install ARCH=arm64 DESTDIR="$d" >"$TMP/install.log" 2>&1
check arm64_make_install equals "$?:$(grep -iE 'error' "$TMP/install.log" | head -c 300)" "0:"
check arm64_install_files equals "$(cd "$d" && find . -type f -printf '%m %p\n' | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "755 ./usr/local/bin/smolder" "644 ./usr/local/share/man/man1/smolder.1" \
		"644 ./usr/local/lib/systemd/system/smolder.service" \
		"644 ./usr/local/lib/systemd/system/smolder-serve.service" \
		"644 ./usr/local/lib/sysusers.d/smolder.conf" | sort | tr '\n' ' ')"
check arm64_installed_is_arm64_binary cmp "$BIN" "$d/usr/local/bin/smolder"
check arm64_installed_man_page equals "$(md5sum <"$d/usr/local/share/man/man1/smolder.1" 2>&1)" \
	"$("$SMOLDER" --man | md5sum)"
check arm64_installed_unit_execstart some_line "$d/usr/local/lib/systemd/system/smolder.service" \
	'^ExecStart=/usr/local/bin/smolder --continuous '
make_in uninstall ARCH=arm64 DESTDIR="$d" >"$TMP/uninstall.log" 2>&1
check arm64_uninstall equals "$?:$(cd "$d" && find . -type f | tr '\n' ' ')" "0:"
