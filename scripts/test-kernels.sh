#!/usr/bin/env bash
# test-kernels.sh: proves that smolder loads and profiles on the kernels
# production boxes run, by booting Debian's own kernels under qemu (TCG, no
# KVM needed) with an initramfs as root: busybox, ./smolder, the cpu_split and
# syscall_heavy workloads and the C library they link.  The guest's /init runs
# smolder against the workloads and prints each run between @@ markers on the
# serial console; this script reads that log back and checks the results.
#
#   scripts/test-kernels.sh            (or: make test-kernels)
#
# Kernels: by default the newest Debian 12 stock kernel (6.1, the package
# linux-image-cloud-amd64 depends on) and the newest 6.12 kernel from
# bookworm's repos (what linux-image-6.12-cloud-amd64 depends on).  Set
# SMOLDER_KERNELS to a space-separated list of linux-image packages to test
# others.  Cloud flavours boot fastest and have virtio and 8250 built in.
#
# Everything lives under build/kernels/: the downloaded .debs (reused, never
# downloaded twice), the extracted vmlinuz files, the initramfs, one serial
# log per kernel (build/kernels/<kernel>.log) and each run's stdout, stderr
# and exit code (build/kernels/results/<kernel>/).
#
# Prints "PASS <kernel>: <check>" or "FAIL <kernel>: <check>: <why>" per check
# and "N passed, N failed" at the end; exits non-zero if anything failed.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
K="$TOP/build/kernels"
QEMU_TIMEOUT=${QEMU_TIMEOUT:-300}
WL_SECONDS=${WL_SECONDS:-30} # workload run time in the guest (killed after the last run)
mkdir -p "$K"
cd "$TOP" || exit 1

log() { echo "test-kernels: $*" >&2; }
die() { log "$*"; exit 2; }

# ---- 1. host tools --------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	apt_updated=1
	log "apt-get update"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || log "apt-get update failed"
}
missing=""
for p in qemu-system-x86 busybox-static cpio gzip; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (install them as root)"
	apt_update
	log "installing:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "cannot install:$missing"
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found"
BUSYBOX=/bin/busybox
"$BUSYBOX" --list >/dev/null 2>&1 || die "$BUSYBOX does not run"
ldd "$BUSYBOX" >/dev/null 2>&1 && die "$BUSYBOX is not static (install busybox-static)"

# ---- 2. smolder and the workloads -----------------------------------------
if [ ! -x ./smolder ] || [ ! -x build/workloads/cpu_split ] || [ ! -x build/workloads/syscall_heavy ]; then
	log "building smolder and workloads"
	make --no-print-directory smolder workloads >&2 || die "make smolder workloads failed"
fi

# ---- 3. kernels -------------------------------------------------------------
# dep_of META PATTERN: the linux-image package META depends on (matching the
# ERE PATTERN), from the local apt lists.
dep_of() {
	apt-cache depends "$1" 2>/dev/null | sed -nE 's/^ *Depends: ([^ <>]+).*/\1/p' | grep -E "$2" | head -n 1
}
# cached_pkg ERE: the newest already downloaded package whose name matches.
cached_pkg() {
	local f
	for f in "$K"/*.deb; do
		[ -e "$f" ] || continue
		basename "$f" | sed 's/_.*//'
	done | grep -E "$1" | sort -V | tail -n 1
}
resolve() { # META PATTERN
	local p
	p=$(dep_of "$1" "$2")
	if [ -z "$p" ]; then
		apt_update
		p=$(dep_of "$1" "$2")
	fi
	[ -z "$p" ] && p=$(cached_pkg "$2")
	echo "$p"
}
if [ -n "${SMOLDER_KERNELS:-}" ]; then
	PKGS=$SMOLDER_KERNELS
else
	k61=$(resolve linux-image-cloud-amd64 '^linux-image-6\.1\.0-[0-9]+-cloud-amd64$')
	k612=$(resolve linux-image-6.12-cloud-amd64 '^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64$')
	[ -n "$k61" ] || die "cannot find the Debian 12 6.1 cloud kernel package"
	[ -n "$k612" ] || die "cannot find the bookworm 6.12 cloud kernel package"
	PKGS="$k61 $k612"
fi

# fetch_deb PKG: path of PKG's .deb in $K, downloading it only when the
# candidate version (or, offline, any version) is not there yet.
fetch_deb() {
	local pkg=$1 ver f tmp
	ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	if [ -z "$ver" ]; then
		apt_update
		ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	fi
	if [ -n "$ver" ]; then
		f="$K/${pkg}_${ver//:/%3a}_amd64.deb"
		[ -s "$f" ] && { echo "$f"; return 0; }
		log "downloading $pkg $ver"
		tmp=$(mktemp -d "$K/dl.XXXXXX")
		if (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "$pkg=$ver" >/dev/null) &&
			mv "$tmp"/*.deb "$f" 2>/dev/null; then
			rm -rf "$tmp"
			echo "$f"
			return 0
		fi
		rm -rf "$tmp"
		log "cannot download $pkg $ver"
	fi
	f=$(ls "$K/${pkg}"_*.deb 2>/dev/null | sort -V | tail -n 1)
	[ -n "$f" ] && { echo "$f"; return 0; }
	return 1
}

# ---- 4. the initramfs -------------------------------------------------------
IRD="$K/initramfs"
INITRD="$K/initramfs.cpio.gz"
rm -rf "$IRD"
mkdir -p "$IRD"/{bin,sbin,dev,proc,sys,tmp,test,lib64,lib/x86_64-linux-gnu}
cp "$BUSYBOX" "$IRD/bin/busybox"
for a in $("$BUSYBOX" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$IRD/bin/$a"
done
# copy_with_libs BIN: BIN into /test, and the shared libraries ldd lists at
# their own paths (symlinks resolved: ld-linux keeps its /lib64 name).
copy_with_libs() {
	local bin=$1 lib
	cp "$bin" "$IRD/test/"
	if ldd "$bin" 2>&1 | grep -q 'not found'; then
		die "$bin: a shared library is missing: $(ldd "$bin" | grep 'not found' | tr '\n' ' ')"
	fi
	for lib in $(ldd "$bin" 2>/dev/null | sed -E 's/^[[:space:]]+//' | grep -oE '(^|=> )/[^ ]+' | sed 's/^=> //'); do
		mkdir -p "$IRD$(dirname "$lib")"
		[ -e "$IRD$lib" ] || cp -L "$lib" "$IRD$lib"
	done
}
copy_with_libs ./smolder
copy_with_libs build/workloads/cpu_split
copy_with_libs build/workloads/syscall_heavy

cat >"$IRD/init" <<EOF
#!/bin/sh
WL_SECONDS=$WL_SECONDS
EOF
cat >>"$IRD/init" <<'EOF'
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
# Keep the kernel's own console messages out of the results; dmesg is
# printed at the end instead.
echo 1 >/proc/sys/kernel/printk
cd /test
echo "@@GUEST-START"
echo "@@UNAME $(uname -r)"
echo "@@VERSION $(cat /proc/version)"
echo "@@CPUS $(cat /sys/devices/system/cpu/online)"
[ -r /sys/kernel/btf/vmlinux ] && echo "@@BTF yes" || echo "@@BTF no"

# run NAME ARGS...: ./smolder ARGS, its stdout, stderr and exit code between
# markers; when it fails, again with -vv for libbpf's (and the verifier's)
# log.
run() {
	name=$1
	shift
	echo "@@BEGIN $name: ./smolder $*"
	t0=$(cut -d' ' -f1 /proc/uptime)
	./smolder "$@" >/tmp/$name.out 2>/tmp/$name.err
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "@@STDOUT $name"
	cat /tmp/$name.out
	echo "@@STDERR $name"
	cat /tmp/$name.err
	echo "@@RC $name $rc"
	echo "@@TIME $name $t0 $t1"
	echo "@@END $name"
	if [ "$rc" != 0 ]; then
		echo "@@BEGIN $name-vv: ./smolder -vv $*"
		./smolder -vv "$@" >/tmp/$name-vv.out 2>/tmp/$name-vv.err
		rc=$?
		echo "@@STDERR $name-vv"
		tail -n 150 /tmp/$name-vv.err
		echo "@@RC $name-vv $rc"
		echo "@@END $name-vv"
	fi
}

./cpu_split $WL_SECONDS &
CPU_SPLIT=$!
./syscall_heavy $WL_SECONDS &
SYSCALL_HEAVY=$!
echo "@@PIDS cpu_split=$CPU_SPLIT syscall_heavy=$SYSCALL_HEAVY"
sleep 0.3
run pid -F 199 -f -p $CPU_SPLIT 3
run kstacks -F 99 -dfK 2
run percpu -F 99 -I -f --per-cpu 2
kill $CPU_SPLIT $SYSCALL_HEAVY 2>/dev/null
wait
echo "@@BEGIN dmesg"
dmesg | grep -iE 'bpf|btf|perf|warn|bug|error|oops|call trace' | tail -n 40
echo "@@END dmesg"
echo "@@GUEST-DONE"
poweroff -f
EOF
chmod +x "$IRD/init"
(cd "$IRD" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$INITRD" ||
	die "cannot build the initramfs"

# ---- 5. boot and check --------------------------------------------------------
PASSED=0
FAILED=0
pass() { echo "PASS $1: $2"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1: $2: $3"; FAILED=$((FAILED + 1)); }
# section LOG NAME KIND: the lines of one run's STDOUT or STDERR.
section() {
	awk -v name="$2" -v kind="$3" '
		$0 == "@@" kind " " name { on = 1; next }
		on && /^@@(STDOUT|STDERR|RC|END) / { on = 0 }
		on { print }' "$1"
}
rc_of() { sed -nE "s/^@@RC $2 ([0-9]+)\$/\\1/p" "$1" | tail -n 1; }
summary() { # ERRFILE -> "SAMPLES LOST" or nothing
	sed -nE 's/^smolder: ([0-9]+) samples, ([0-9]+) lost.*/\1 \2/p' "$1" | tail -n 1
}
share() { # FOLDED ERE -> percentage of samples on stacks matching
	awk -v pat="$2" '{ n = $NF; t += n; if ($0 ~ pat) m += n }
		END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$1"
}
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
oneline() { head -c "${2:-300}" "$1" | tr '\n' ' '; }

# check_ok KERNEL DIR NAME: exit code 0 and "N samples, 0 lost" with N > 0.
check_ok() {
	local kn=$1 d=$2 name=$3 rc s
	rc=$(cat "$d/$name.rc")
	if [ "$rc" = 0 ]; then
		pass "$kn" "$name: smolder exited 0"
	else
		fail "$kn" "$name: smolder exited 0" "exit code '${rc:-none}', stderr: $(oneline "$d/$name.err" 400)"
		if [ -s "$d/$name-vv.err" ]; then
			echo "---- $kn: tail of 'smolder -vv' stderr ($name) ----"
			tail -n 60 "$d/$name-vv.err"
			echo "---- end ----"
		fi
	fi
	s=$(summary "$d/$name.err")
	if [ -n "$s" ] && [ "${s#* }" = 0 ] && [ "${s% *}" -gt 0 ]; then
		pass "$kn" "$name: summary '${s% *} samples, 0 lost'"
	else
		fail "$kn" "$name: summary 'N samples, 0 lost'" "got '${s:-no summary line}': $(oneline "$d/$name.err")"
	fi
}

KERNEL_RE='(^|;)(entry_SYSCALL_64[a-z_]*|do_syscall_64|x64_sys_call|__x64_sys_read|ksys_read|vfs_read|read_zero)(;| )'

test_kernel() {
	local pkg=$1 deb kn vmlinuz logf d t0 t1 rc n a b sa kl
	kn=${pkg#linux-image-}
	deb=$(fetch_deb "$pkg") || { fail "$kn" "download" "cannot get $pkg"; return; }
	vmlinuz="$K/$(basename "$deb" .deb).vmlinuz"
	if [ ! -s "$vmlinuz" ]; then
		dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/vmlinuz-*' >"$vmlinuz.tmp" &&
			[ -s "$vmlinuz.tmp" ] && mv "$vmlinuz.tmp" "$vmlinuz" ||
			{ rm -f "$vmlinuz.tmp"; fail "$kn" "extract" "no vmlinuz in $deb"; return; }
	fi
	log "booting $pkg $(dpkg-deb -f "$deb" Version) (log: build/kernels/$kn.log)"
	logf="$K/$kn.log"
	t0=$(date +%s)
	timeout "$QEMU_TIMEOUT" qemu-system-x86_64 -accel tcg -m 1024 -smp 2 \
		-kernel "$vmlinuz" -initrd "$INITRD" \
		-append "console=ttyS0 quiet panic=-1" \
		-nographic -no-reboot -monitor none </dev/null 2>&1 | tr -d '\r' >"$logf"
	rc=${PIPESTATUS[0]}
	t1=$(date +%s)
	log "$kn: qemu exited $rc after $((t1 - t0)) s"

	if grep -q '^@@GUEST-DONE' "$logf"; then
		pass "$kn" "boot: guest ran the tests and powered off ($((t1 - t0)) s, $(sed -n 's/^@@UNAME //p' "$logf"))"
	else
		fail "$kn" "boot" "guest did not finish (qemu exit $rc after $((t1 - t0)) s); last lines: $(tail -n 8 "$logf" | tr '\n' ' ' | head -c 600)"
		[ "$rc" = 124 ] || grep -q '^@@GUEST-START' "$logf" || return
	fi
	grep -q '^@@BTF yes' "$logf" && pass "$kn" "kernel BTF at /sys/kernel/btf/vmlinux" ||
		fail "$kn" "kernel BTF at /sys/kernel/btf/vmlinux" "absent"

	d="$K/results/$kn"
	rm -rf "$d"
	mkdir -p "$d"
	for n in pid kstacks percpu pid-vv kstacks-vv percpu-vv; do
		section "$logf" "$n" STDOUT >"$d/$n.out"
		section "$logf" "$n" STDERR >"$d/$n.err"
		rc_of "$logf" "$n" >"$d/$n.rc"
	done

	# -p PID on cpu_split: 75% burn_a by construction.
	check_ok "$kn" "$d" pid
	n=$(total "$d/pid.out")
	a=$(share "$d/pid.out" ';burn_a(;| )')
	b=$(share "$d/pid.out" ';burn_b(;| )')
	if [ "$n" -gt 0 ] && grep -qE ';burn_a(;| )' "$d/pid.out" && grep -qE ';burn_b(;| )' "$d/pid.out"; then
		pass "$kn" "pid: stacks through burn_a and burn_b ($n samples)"
	else
		fail "$kn" "pid: stacks through burn_a and burn_b" "$n samples: $(oneline "$d/pid.out")"
	fi
	if [ "$n" -gt 0 ] && between "$a" 60 90; then
		pass "$kn" "pid: burn_a share $a% (burn_b $b%) within 60..90%"
	else
		fail "$kn" "pid: burn_a share within 60..90%" "burn_a $a%, burn_b $b% of $n samples"
	fi
	sa=$(awk '!/^cpu_split;/' "$d/pid.out" | head -n 1)
	if [ "$n" -gt 0 ] && [ -z "$sa" ]; then
		pass "$kn" "pid: only cpu_split stacks"
	else
		fail "$kn" "pid: only cpu_split stacks" "${sa:-no output}"
	fi

	# Whole system, kernel stacks only: syscall_heavy lives in read(2).
	check_ok "$kn" "$d" kstacks
	kl=$(grep -cE "$KERNEL_RE" "$d/kstacks.out")
	if [ -s "$d/kstacks.out" ] && [ "$kl" -gt 0 ]; then
		pass "$kn" "kstacks: kernel frames ($kl stacks with syscall frames, e.g. $(grep -E "$KERNEL_RE" "$d/kstacks.out" | sort -t' ' -k2 -n | tail -n 1 | head -c 160))"
	else
		fail "$kn" "kstacks: kernel frames" "$(wc -l <"$d/kstacks.out") lines, none with syscall frames: $(oneline "$d/kstacks.out")"
	fi

	# Idle included, per CPU: both CPUs show up.
	check_ok "$kn" "$d" percpu
	if grep -qE '^cpu_0;' "$d/percpu.out" && grep -qE '^cpu_1;' "$d/percpu.out"; then
		pass "$kn" "percpu: cpu_0 and cpu_1 frames ($(total "$d/percpu.out") samples)"
	else
		fail "$kn" "percpu: cpu_0 and cpu_1 frames" "$(oneline "$d/percpu.out")"
	fi
}

T0=$(date +%s)
for pkg in $PKGS; do
	test_kernel "$pkg"
done
log "kernels: $PKGS; $(($(date +%s) - T0)) s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
