#!/usr/bin/env bash
# test-kernels.sh: proves that the one smolder binary loads, profiles and
# fails well on the kernels production boxes run, by booting Debian's own
# kernels under qemu (TCG: no KVM needed) with an initramfs: busybox, the
# static ./smolder, workloads with known functions, setpriv and the test
# tools (build/tools: btf_rename, deny).  The guest's /init runs smolder and
# prints each run between @@ markers on the serial console; this script
# reads that log back and checks it.
#
#   scripts/test-kernels.sh [-v]      (or: make test-kernels)
#
# Kernels: every Debian cloud kernel line the archive offers that has BTF:
# bullseye's 5.10 (before 5.11 BPF memory is charged to RLIMIT_MEMLOCK;
# before 5.12 no fetching atomics), bookworm's 6.1 and bookworm's 6.12; and
# the running kernel when /boot has its image.  SMOLDER_KERNELS replaces the
# list: space-separated linux-image packages, each optionally DIST:PACKAGE
# (bookworm by default).  Packages come through apt with private sources and
# lists under build/kernels/apt/DIST (the system's apt setup is not touched)
# and are kept in build/kernels (never downloaded twice); offline, the kept
# ones are used.  A kernel that cannot be had is reported as skipped.
#
# arm64: the same three Debian cloud kernels for arm64 (linux-image-*-
# cloud-arm64, through a private apt of that architecture), booted by
# qemu-system-aarch64 (virt board, -cpu max, TCG) with an initramfs of
# arm64's busybox, smolder-arm64 and the workloads and tools built by make
# ARCH=arm64, run by the same init and the same checks; their lines say
# "arm64 <kernel>".  What they leave out (no CPython in them) is a SKIP
# line under the kernel's.  SMOLDER_KERNEL_ARCHES="x86_64" (or "arm64") keeps the
# default list to one architecture.
#
# Each kernel boots four times: once for the captures and failures, once
# with lockdown=integrity (smolder must run) and once with
# lockdown=confidentiality (smolder must say why it cannot), and once on one
# vCPU for the kernel context frames (below).  Checks:
# symbolized user frames (cpu_split's 75/25 split) and kernel frames
# (syscall_heavy in read(2)), both CPUs, kernel features all found, the
# degraded program when the kernel refuses the ring buffer and tracing
# programs (a BPF LSM program, build/tools/deny; lsm=...,bpf is added to the
# command line when the kernel's default list lacks it), a real verifier
# rejection (BTF with a field renamed) and its log under -v, --btf with
# /sys/kernel/btf hidden, no capabilities, CAP_BPF+CAP_PERFMON against
# kernel.perf_event_paranoid=3 (Debian's kernels leave perf events to
# CAP_SYS_ADMIN there) and =2, RLIMIT_MEMLOCK 0 and 64 KiB without
# CAP_SYS_RESOURCE, kernel.perf_event_max_stack=16; a hang (issue 24:
# fifo_wait blocked in a FIFO read for the whole capture shows ~3 s under
# main;wait_for_input, or -v says the kernel cannot); the DWARF unwinder on
# frameless gcc and clang builds (gcc's leaf, signal and JIT modes, clang's
# leaf: no wrong caller, 99% exact, tests/unwind_classify.awk) and from a system call's saved
# user registers (syscall_heavy), on the walk the kernel verifies (bpf_loop
# from 5.17, unrolled before: each kernel's line names it); and the kernel context
# frames, whose programs read workqueue internals by CO-RE (struct worker
# through task->set_child_tid before 5.17, 24-byte workqueue names before
# 6.10): a pseudo-terminal's writer queues the line discipline's work
# (wq:events_unbound;flush_to_ldisc;queued-by:pty_pump-PID), and loopback
# TCP runs the NET_RX softirq ([softirq:NET_RX] over net_rx_action).
# Python frames (issue 23): the main boot also loads a second archive with
# Debian's python3.11 and pyenv's 3.12 (SMOLDER_GUEST_PYTHONS replaces the
# list) and checks tests/workloads/python/guest_split.py's frames and split
# under each, and --no-python; a Python missing on the host or that the
# guest cannot start is a "SKIP <kernel>: ..." line.
# These run in a fourth boot with one vCPU: with two, attaching to the
# softirq tracepoints crashed the 6.12 guest about one boot in three, under
# load and on idle CPUs alike (an int3 oops in handle_softirqs: the
# breakpoint of the kernel's own text patching, executed by the other vCPU
# after the patching had ended).  5.10 and 6.1 never did, nor the host
# (6.18, KVM) under the same traffic; whether 6.12 on real hardware would,
# these machines cannot tell (qemu -accel kvm stops with a KVM internal
# error here).
#
# Prints one line per kernel, "PASS <kernel>: N checks (...)",
# "FAIL <kernel>: <first failing check>: <why> (...)" or
# "SKIP <kernel>: <why>", then "N passed, N failed, N skipped"; exits
# non-zero if a kernel failed.  Every check's line is in
# build/kernels/results/<kernel>/checks (-v prints them too), the serial
# logs in build/kernels/<kernel>.<boot>.log.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
K="$TOP/build/kernels"
QEMU_TIMEOUT=${QEMU_TIMEOUT:-360} # a cap for a hung guest: the main boot, Pythons included, takes about 240 s on a busy 2-CPU host
WL_SECONDS=${WL_SECONDS:-600} # workloads' run time in the guest (killed after the last run; long, since a loaded host slows the guest)
VERBOSE=0
[ "${1:-}" = -v ] && VERBOSE=1
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$K"
cd "$TOP" || exit 1

log() { echo "test-kernels: $*" >&2; }
die() { log "$*"; exit 2; }

# ---- 1. host tools and what goes into the guest ------------------------------
for c in qemu-system-x86_64 cpio gzip dpkg-deb setpriv; do
	command -v "$c" >/dev/null || die "$c not found (run scripts/deps.sh as root)"
done
BUSYBOX=/bin/busybox
"$BUSYBOX" --list >/dev/null 2>&1 || die "$BUSYBOX does not run (install busybox-static)"
ldd "$BUSYBOX" >/dev/null 2>&1 && die "$BUSYBOX is not static (install busybox-static)"
NEED="smolder build/workloads/cpu_split build/workloads/syscall_heavy build/workloads/deep_stack build/workloads/net_pump build/workloads/pty_pump build/workloads/unwind_paths-gcc build/workloads/unwind_paths-clang build/workloads/unwind_dl-gcc.so build/workloads/offcpu_split build/workloads/fifo_wait build/tools/deny build/tools/btf_rename"
# The CPythons the guests run (issue 23's Python frames), at their host
# paths (a pyenv build finds its libpython by RUNPATH, each its stdlib by
# its own path): Debian's (libpython linked in statically, non-PIE, stripped
# to its dynamic symbols) and pyenv's 3.12 (shared libpython, PIE, .symtab).
GUEST_PYTHONS=${SMOLDER_GUEST_PYTHONS:-/usr/bin/python3.11 ${PYENV_ROOT:-/root/.pyenv}/versions/3.12.1/bin/python3.12}
for f in $NEED; do
	[ -x "$f" ] && continue
	log "building smolder, workloads and tools"
	make --no-print-directory smolder workloads tools >&2 || die "make smolder workloads tools failed"
	break
done

# ---- 2. kernels: private apt per distribution and architecture ----------------
deb_arch() { case $1 in arm64) echo arm64 ;; *) echo amd64 ;; esac; }
# apt_dir DIST [DEBARCH]: the private apt of DIST for amd64 (the default)
# or DEBARCH (arm64: build/kernels/apt/DIST-arm64).
apt_dir() { if [ "${2:-amd64}" = amd64 ]; then echo "$K/apt/$1"; else echo "$K/apt/$1-$2"; fi; }
apt_opts() { # DIST [DEBARCH]
	local d a=${2:-amd64}
	d=$(apt_dir "$1" "$a")
	echo "-o Dir::Etc::sourcelist=$d/sources.list -o Dir::Etc::sourceparts=- \
-o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o Dir::State::status=$d/status \
-o Dir::Etc::preferences=/dev/null -o Dir::Etc::preferencesparts=- -o APT::Sandbox::User=root \
-o APT::Architecture=$a -o APT::Architectures=$a"
}
declare -A refreshed
# apt_refresh DIST [DEBARCH]: its lists, fetched when missing or older than a day.
apt_refresh() {
	local dist=$1 arch=${2:-amd64} d s
	d=$(apt_dir "$dist" "$arch")
	[ -n "${refreshed[$dist-$arch]:-}" ] && return 0
	refreshed[$dist-$arch]=1
	[ -r "$KEYRING" ] || { log "no $KEYRING: cannot read Debian's lists"; return 1; }
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	: >>"$d/status"
	for s in "$dist" "$dist-updates"; do
		echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian $s main"
	done >"$d/sources.list"
	echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian-security $dist-security main" >>"$d/sources.list"
	if [ -z "$(find "$d/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		log "apt-get update ($dist $arch, private lists in ${d#"$TOP"/})"
		# shellcheck disable=SC2046
		apt-get $(apt_opts "$dist" "$arch") update -qq >/dev/null 2>&1 || log "apt-get update for $dist $arch failed (offline?)"
	fi
}
# resolve DIST META ERE [DEBARCH]: the linux-image packages META depends
# on, space-separated, that of its newest version first (then those of its
# older versions in the suites, e.g. bullseye's main where the security
# archive lacks bullseye-security's arm64 files), else the newest kept
# .deb matching ERE.
resolve() {
	local dist=$1 meta=$2 re=$3 arch=${4:-amd64} p f v
	apt_refresh "$dist" "$arch"
	# shellcheck disable=SC2046
	p=$(for v in $(apt-cache $(apt_opts "$dist" "$arch") madison "$meta" 2>/dev/null | awk -F' *[|] *' '{ print $2 }'); do
		apt-cache $(apt_opts "$dist" "$arch") show "$meta=$v" 2>/dev/null |
			sed -nE 's/^Depends: ([^ ,<>]+).*/\1/p'
	done | grep -E "$re" | awk '!seen[$0]++' | paste -sd ' ')
	if [ -z "$p" ]; then
		p=$(for f in "$K"/*.deb; do [ -e "$f" ] && basename "$f" | sed 's/_.*//'; done |
			grep -E "$re" | sort -V | tail -n 1)
	fi
	echo "$p"
}
# fetch_deb DIST PKG [DEBARCH]: path of PKG's .deb in $K, downloaded only
# when the candidate version (or, offline, any version) is not kept yet.
fetch_deb() {
	local dist=$1 pkg=$2 arch=${3:-amd64} ver f tmp
	apt_refresh "$dist" "$arch"
	# shellcheck disable=SC2046
	ver=$(apt-cache $(apt_opts "$dist" "$arch") show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	if [ -n "$ver" ]; then
		f="$K/${pkg}_${ver//:/%3a}_$arch.deb"
		[ -s "$f" ] && { echo "$f"; return 0; }
		log "downloading $pkg $ver"
		tmp=$(mktemp -d "$K/dl.XXXXXX")
		# shellcheck disable=SC2046
		if (cd "$tmp" && apt-get $(apt_opts "$dist" "$arch") download -qq "$pkg=$ver" >/dev/null 2>&1) &&
			mv "$tmp"/*.deb "$f" 2>/dev/null; then
			rm -rf "$tmp"
			echo "$f"
			return 0
		fi
		rm -rf "$tmp"
		log "cannot download $pkg $ver"
	fi
	f=$(ls "$K/${pkg}"_*_"$arch".deb 2>/dev/null | sort -V | tail -n 1)
	[ -n "$f" ] && { echo "$f"; return 0; }
	return 1
}

# ENTRIES: "NAME|DIST|PACKAGE|ARCH" to boot, or "NAME|skip|WHY|ARCH"; ARCH
# is the guest's, x86_64 or arm64 (a package named *-arm64 is arm64's).
# SMOLDER_KERNEL_ARCHES keeps the default list's kernels of those
# architectures only (both by default).
ARCHES=${SMOLDER_KERNEL_ARCHES:-x86_64 arm64}
ENTRIES=()
if [ -n "${SMOLDER_KERNELS:-}" ]; then
	for e in $SMOLDER_KERNELS; do
		case $e in *:*) d=${e%%:*} p=${e#*:} ;; *) d=bookworm p=$e ;; esac
		case $p in *-arm64) a=arm64 ;; *) a=x86_64 ;; esac
		ENTRIES+=("${p#linux-image-}|$d|$p|$a")
	done
else
	while IFS='|' read -r arch label dist meta re; do
		case " $ARCHES " in *" $arch "*) ;; *) continue ;; esac
		p=$(resolve "$dist" "$meta" "$re" "$(deb_arch "$arch")")
		if [ -n "$p" ]; then
			ENTRIES+=("$(echo "${p%% *}" | sed 's/^linux-image-//')|$dist|$p|$arch")
		else
			ENTRIES+=("$label|skip|cannot find the package in $dist's lists or build/kernels (offline?)|$arch")
		fi
	done <<'EOF'
x86_64|debian-11-5.10|bullseye|linux-image-cloud-amd64|^linux-image-5\.10\.0-[0-9]+-cloud-amd64$
x86_64|debian-12-6.1|bookworm|linux-image-cloud-amd64|^linux-image-6\.1\.0-[0-9]+-cloud-amd64$
x86_64|debian-12-6.12|bookworm|linux-image-6.12-cloud-amd64|^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64$
arm64|debian-11-5.10-arm64|bullseye|linux-image-cloud-arm64|^linux-image-5\.10\.0-[0-9]+-cloud-arm64$
arm64|debian-12-6.1-arm64|bookworm|linux-image-cloud-arm64|^linux-image-6\.1\.0-[0-9]+-cloud-arm64$
arm64|debian-12-6.12-arm64|bookworm|linux-image-6.12-cloud-arm64|^linux-image-6\.12\.[0-9]+\+deb12-cloud-arm64$
EOF
	if ! echo " $ARCHES " | grep -q " x86_64 "; then
		: # the host's kernel is an x86_64 one
	elif [ -r "/boot/vmlinuz-$(uname -r)" ]; then
		ENTRIES+=("host-$(uname -r)|host|/boot/vmlinuz-$(uname -r)|x86_64")
	else
		ENTRIES+=("host $(uname -r)|skip|no kernel image in /boot (tested directly by make test)|x86_64")
	fi
fi

# ---- 3. the initramfs -----------------------------------------------------------
IRD="$K/initramfs"
INITRD="$K/initramfs.cpio.gz"
rm -rf "$IRD"
mkdir -p "$IRD"/{bin,sbin,dev,proc,sys,tmp,test,lib64,lib/x86_64-linux-gnu}
chmod 1777 "$IRD/tmp"
cp "$BUSYBOX" "$IRD/bin/busybox"
for a in $("$BUSYBOX" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$IRD/bin/$a"
done
# copy_with_libs BIN [DIR]: BIN into DIR (default /test) of the tree ROOT
# (default the initramfs), and the shared libraries ldd lists at their own
# paths (ld-linux keeps its /lib64 name) unless the initramfs has them.
copy_with_libs() {
	local bin=$1 dir=${2:-/test} root=${ROOT:-$IRD} lib
	mkdir -p "$root$dir"
	rm -f "$root$dir/$(basename "$bin")"
	cp "$bin" "$root$dir/"
	if ldd "$bin" 2>&1 | grep -q 'not found'; then
		die "$bin: a shared library is missing: $(ldd "$bin" | grep 'not found' | tr '\n' ' ')"
	fi
	for lib in $(ldd "$bin" 2>/dev/null | sed -E 's/^[[:space:]]+//' | grep -oE '(^|=> )/[^ ]+' | sed 's/^=> //'); do
		mkdir -p "$root$(dirname "$lib")"
		[ -e "$IRD$lib" ] || [ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
}
for f in $NEED; do
	copy_with_libs "$f"
done
copy_with_libs "$(command -v setpriv)" # util-linux's (busybox's has no --reuid): called as /test/setpriv, since busybox sh runs its own applets first
cp tests/workloads/python/guest_split.py "$IRD/test/"

# The Pythons go in an archive of their own that only the main boot loads
# after the first (the kernel unpacks concatenated archives in turn): each
# interpreter at its host path, its libpython without debug sections
# (.symtab stays: 3.12's thread state is a local symbol), and the few stdlib
# files its start-up with -S -E reads (os.py too: the stdlib's landmark).
# PYTHONS_IN: those put in; PYTHONS_OUT: "NAME: why" of the others.
PYD="$K/initramfs-python"
INITRD_MAIN="$K/initramfs-main.cpio.gz"
rm -rf "$PYD"
mkdir -p "$PYD"
PYTHONS_IN=""
PYTHONS_OUT=()
add_python() { # PYTHON
	local py files stdlib f lib
	py=$(readlink -f "$1" 2>/dev/null)
	if [ -z "$py" ] || [ ! -x "$py" ]; then
		PYTHONS_OUT+=("$(basename "$1"): not on this host ($1)")
		return
	fi
	if ! files=$("$py" -S -E -c 'import sys, os, encodings
stdlib = os.path.dirname(os.path.dirname(encodings.__file__))
print(stdlib)
print(os.path.join(stdlib, "os.py"))
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None) or ""
    if f.startswith(stdlib + "/") and f.endswith(".py"):
        print(f)' 2>&1); then
		PYTHONS_OUT+=("$(basename "$py"): does not start on this host: $(echo "$files" | tail -n 1)")
		return
	fi
	stdlib=$(echo "$files" | head -n 1)
	mkdir -p "$PYD$stdlib/lib-dynload"
	for f in $(echo "$files" | tail -n +2 | sort -u); do
		mkdir -p "$PYD$(dirname "$f")"
		cp "$f" "$PYD$f"
	done
	for lib in $(ldd "$py" 2>/dev/null | grep -oE '=> /[^ ]*/libpython[^ ]*' | sed 's/^=> //'); do
		mkdir -p "$PYD$(dirname "$lib")"
		strip --strip-debug -o "$PYD$lib" "$lib" 2>/dev/null || cp -L "$lib" "$PYD$lib"
	done
	ROOT=$PYD copy_with_libs "$py" "$(dirname "$py")"
	PYTHONS_IN="$PYTHONS_IN $py"
}
for py in $GUEST_PYTHONS; do
	add_python "$py"
done

# The init script: a header of the guest's own (its Pythons), then this
# body, the same for both architectures.
cat >"$IRD/init" <<EOF
#!/bin/sh
WL_SECONDS=$WL_SECONDS
PYTHONS="$PYTHONS_IN"
EOF
cat >"$K/init.body" <<'EOF'
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
# Keep the kernel's own console messages out of the results.
echo 1 >/proc/sys/kernel/printk
cd /test
MODE=$(sed -n 's/.*smolder\.mode=\([a-z]*\).*/\1/p' /proc/cmdline)
echo "@@GUEST-START $MODE"
echo "@@UNAME $(uname -r)"
echo "@@CPUS $(cat /sys/devices/system/cpu/online)"
[ -r /sys/kernel/btf/vmlinux ] && echo "@@BTF yes" || echo "@@BTF no"
echo "@@LOCKDOWN $(cat /sys/kernel/security/lockdown 2>/dev/null)"
echo "@@LSM $(cat /sys/kernel/security/lsm 2>/dev/null)"
echo "@@PARANOID $(cat /proc/sys/kernel/perf_event_paranoid)"

# run NAME COMMAND...: its stdout, stderr and exit code between markers.
run() {
	name=$1
	shift
	echo "@@BEGIN $name: $*"
	"$@" >/tmp/$name.out 2>/tmp/$name.err
	rc=$?
	echo "@@STDOUT $name"
	cat /tmp/$name.out
	echo "@@STDERR $name"
	cat /tmp/$name.err
	echo "@@RC $name $rc"
	echo "@@END $name"
}
# set_sysctl FILE VALUE: writes until it reads back (perf_event_max_stack is
# busy while a program that walks stacks is still being freed).
set_sysctl() {
	i=0
	while [ "$(cat "$1")" != "$2" ] && [ $i -lt 100 ]; do
		echo "$2" >"$1" 2>/dev/null || sleep 0.1
		i=$((i + 1))
	done
	echo "@@SYSCTL $1 $(cat "$1")"
}
NOBODY="/test/setpriv --reuid=65534 --regid=65534 --clear-groups"
CAPS="--inh-caps=-all,+bpf,+perfmon --ambient-caps=-all,+bpf,+perfmon"

if [ "$MODE" = context ]; then # one vCPU (see the header)
	# The workloads start once smolder is attached and end before it detaches.
	mkdir -p /dev/pts
	mount -t devpts devpts /dev/pts 2>/dev/null
	(sleep 1.5; ./pty_pump 2 >/dev/null & echo "@@PTY_PUMP $!"; wait) &
	run kworker ./smolder -F 499 -K -f --kworker --group-threads 4
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	(sleep 1.5; ./net_pump 2 >/dev/null) &
	run irq ./smolder -F 499 -K -f --irq-frames 4
	# The idle loop, with nothing else running (the pumps have ended).
	sleep 1
	run idle ./smolder -v -F 199 -f --idle-only 1.5
	run noidle ./smolder -v -F 199 -f 1.5
elif [ "$MODE" != main ]; then # integrity, confidentiality: lockdown= on the command line
	./cpu_split 10 &
	sleep 0.3
	run $MODE ./smolder -F 99 -f 1
else
	./cpu_split $WL_SECONDS &
	CPU_SPLIT=$!
	./syscall_heavy $WL_SECONDS &
	SYSCALL_HEAVY=$!
	echo "@@PIDS cpu_split=$CPU_SPLIT"
	sleep 0.3
	run pid ./smolder -v -F 199 -f -p $CPU_SPLIT 3
	# --serve: one scrape by busybox wget (the guest has neither curl nor go)
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	./smolder --serve 127.0.0.1:7071 -F 199 -p $CPU_SPLIT >/tmp/served.out 2>/tmp/served.err &
	SERVED=$!
	i=0
	while ! wget -q -O /dev/null http://127.0.0.1:7071/debug/pprof/ 2>/dev/null && [ $i -lt 150 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	run serve wget -S -O /tmp/serve.pb.gz "http://127.0.0.1:7071/debug/pprof/profile?seconds=2"
	echo "@@SERVE-PROFILE $(wc -c </tmp/serve.pb.gz) bytes, $(zcat /tmp/serve.pb.gz | grep -c burn_a) burn_a"
	kill $SERVED
	wait $SERVED
	echo "@@SERVE-RC $? $(head -c 200 /tmp/served.err | tr '\n' '|')"
	run kstacks ./smolder -F 99 -dfK 1.5
	run percpu ./smolder -F 99 -I -f --per-cpu 1.5
	run degrade ./deny ringbuf,tracing ./smolder -F 199 -f -p $CPU_SPLIT 1.5
	run degrade_ctx ./deny tracing ./smolder -F 199 -f -K --kworker --irq-frames 1

	run btf_rename ./btf_rename /sys/kernel/btf/vmlinux /tmp/renamed.btf task_struct flags flags_renamed
	run verifier ./smolder --btf /tmp/renamed.btf -f 1
	run verifier_v ./smolder -v --btf /tmp/renamed.btf -f 1
	cp /sys/kernel/btf/vmlinux /tmp/vmlinux.btf
	mount -t tmpfs none /sys/kernel/btf
	run nobtf ./smolder -f 1
	run btf ./smolder --btf /tmp/vmlinux.btf -F 199 -f -p $CPU_SPLIT 1.5
	umount /sys/kernel/btf

	run nocaps $NOBODY --inh-caps=-all ./smolder -f 1
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	set_sysctl /proc/sys/kernel/perf_event_paranoid 3
	# (before 5.11 an unprivileged user also needs RLIMIT_MEMLOCK raised: see memlock*)
	run paranoid3 sh -c "ulimit -l unlimited && exec $NOBODY $CAPS ./smolder -F 99 -f 0.5"
	set_sysctl /proc/sys/kernel/perf_event_paranoid 2
	run paranoid2 sh -c "ulimit -l unlimited && exec $NOBODY $CAPS ./smolder -F 99 -f 0.5"
	set_sysctl /proc/sys/kernel/perf_event_paranoid $paranoid

	run memlock0 sh -c 'ulimit -l 0 && exec /test/setpriv --bounding-set=-sys_resource ./smolder -F 99 -f 0.5'
	run memlock64 sh -c 'ulimit -l 64 && exec /test/setpriv --bounding-set=-sys_resource ./smolder -F 99 -f 0.5'

	kill $CPU_SPLIT
	./deep_stack $WL_SECONDS &
	DEEP=$!
	sleep 0.3
	set_sysctl /proc/sys/kernel/perf_event_max_stack 16
	run maxstack16 ./smolder --unwind fp -F 199 -df -p $DEEP 1.5
	set_sysctl /proc/sys/kernel/perf_event_max_stack 127
	run maxstack127 ./smolder --unwind fp -F 199 -df -p $DEEP 1
	kill $DEEP

	# The DWARF unwinder on a frameless program: stacks exact in every guest.
	for m in leaf signal jit; do
		./unwind_paths-gcc $m $WL_SECONDS &
		UW=$!
		sleep 0.3
		run unwind_$m ./smolder -v -d -F 199 -f -p $UW 3
		kill $UW
	done
	# clang's frameless code (its CFI differs: no epilogue rows on arm64)
	./unwind_paths-clang leaf $WL_SECONDS &
	UW=$!
	sleep 0.3
	run unwind_clang ./smolder -v -d -F 199 -f -p $UW 3
	kill $UW
	# In the kernel: the walk starts from the user registers saved on entry.
	./syscall_heavy $WL_SECONDS &
	SYSCALL_HEAVY=$!
	sleep 0.3
	run unwind_kernel ./smolder -v -F 199 -d -f -p $SYSCALL_HEAVY 3
	# Off-CPU time, by BTF tracepoints and (tracing programs denied) raw ones.
	./offcpu_split $WL_SECONDS &
	OFFCPU=$!
	sleep 0.3
	run offcpu ./smolder --off-cpu --wakers -F 199 -f -p $OFFCPU 3
	run offcpu_raw ./deny tracing ./smolder -v --off-cpu --wakers -F 199 -f -p $OFFCPU 3
	# A hang: fifo_wait blocked in a FIFO read before the capture and after it.
	mkfifo /tmp/hang.fifo
	./fifo_wait /tmp/hang.fifo >/tmp/hang.ready &
	HANG=$!
	i=0
	while ! grep -q blocked /tmp/hang.ready && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
	run offcpu_hang ./smolder -v --off-cpu -f -p $HANG 3
	kill $(jobs -p) 2>/dev/null # the CPU to the Python alone
	wait

	# Python frames: guest_split.py under each CPython, once it runs its
	# rounds (start-up under TCG takes a while); a Python the guest cannot
	# start is said, with why.
	echo "@@PYTHON-UPTIME start $(cut -d' ' -f1 /proc/uptime)"
	for py in $PYTHONS; do
		tag=$(basename $py | tr -cd 'a-z0-9')
		if ! $py -S -E -c pass >/tmp/$tag.start 2>&1; then
			echo "@@PYTHON-CANNOT $tag $(head -c 300 /tmp/$tag.start | tr '\n' ' ')"
			continue
		fi
		$py -S -E /test/guest_split.py $WL_SECONDS >/tmp/$tag.ready &
		PY=$!
		i=0
		while ! grep -q running /tmp/$tag.ready && kill -0 $PY 2>/dev/null && [ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		run $tag ./smolder -v -F 199 -f -p $PY 3
		run nopy_$tag ./smolder --no-python -F 199 -f -p $PY 1.5
		kill $PY
	done
	echo "@@PYTHON-UPTIME end $(cut -d' ' -f1 /proc/uptime)"
fi
kill $(jobs -p) 2>/dev/null
wait
echo "@@BEGIN dmesg"
dmesg | grep -iE 'bpf|btf|perf|lockdown|warn|bug|error|oops|call trace' | tail -n 40
echo "@@END dmesg"
echo "@@GUEST-DONE"
poweroff -f
EOF
cat "$K/init.body" >>"$IRD/init"
chmod +x "$IRD/init"
(cd "$IRD" && find . -print0 | cpio --null -o -H newc --quiet -R 0:0 | gzip -1) >"$INITRD" ||
	die "cannot build the initramfs"
{ cat "$INITRD" && (cd "$PYD" && find . -print0 | cpio --null -o -H newc --quiet -R 0:0 | gzip -1); } >"$INITRD_MAIN" ||
	die "cannot build the initramfs with the Pythons"
log "initramfs $(($(stat -c %s "$INITRD") / 1024)) KiB, with the Pythons ($PYTHONS_IN ) $(($(stat -c %s "$INITRD_MAIN") / 1024)) KiB"
X86_PYTHONS_IN=$PYTHONS_IN
X86_PYTHONS_OUT=("${PYTHONS_OUT[@]}")

# ---- 3b. the arm64 guests' initramfs ------------------------------------------
# Built when an arm64 kernel is first booted: arm64's static busybox
# (busybox-static:arm64), util-linux's setpriv and its libcap-ng (their
# arm64 .debs are unpacked in build/kernels/arm64-root, never installed),
# smolder-arm64 as /test/smolder, the arm64 workloads and tools (make
# ARCH=arm64, from scripts/deps.sh arm64's cross compiler), and the arm64
# C library they load (libc6:arm64, multiarch).  No CPython: the host's
# are x86_64 builds.  A64_WHY says why it cannot be built (each arm64
# kernel is then skipped with it).
A64="build/arm64"
A64_NEED="$A64/workloads/cpu_split $A64/workloads/syscall_heavy $A64/workloads/deep_stack $A64/workloads/net_pump $A64/workloads/pty_pump $A64/workloads/unwind_paths-gcc $A64/workloads/unwind_paths-clang $A64/workloads/unwind_dl-gcc.so $A64/workloads/offcpu_split $A64/workloads/fifo_wait $A64/tools/deny $A64/tools/btf_rename"
A64_ROOT="$K/arm64-root"
A64_IRD="$K/initramfs-arm64"
A64_INITRD="$K/initramfs-arm64.cpio.gz"
A64_LIBDIRS="$A64_ROOT/lib/aarch64-linux-gnu $A64_ROOT/usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu"
A64_WHY=""
A64_BUILT=0
# copy_arm64 FILE DEST: FILE at DEST in the arm64 tree, and the shared
# libraries it needs (readelf's NEEDED, in turn) in /lib/aarch64-linux-gnu,
# and its interpreter.
copy_arm64() {
	local f=$1 dest=$2 lib dir found interp
	mkdir -p "$A64_IRD$(dirname "$dest")"
	cp -L "$f" "$A64_IRD$dest" || { A64_WHY="cannot copy $f"; return 1; }
	for lib in $(readelf -dW "$f" 2>/dev/null | sed -nE 's/.*\(NEEDED\).*\[(.*)\]$/\1/p'); do
		[ -e "$A64_IRD/lib/aarch64-linux-gnu/$lib" ] && continue
		found=""
		for dir in $A64_LIBDIRS; do
			[ -e "$dir/$lib" ] && { found=$dir/$lib; break; }
		done
		[ -n "$found" ] || { A64_WHY="$f needs the arm64 $lib, not found (install libc6:arm64: scripts/deps.sh arm64)"; return 1; }
		copy_arm64 "$found" "/lib/aarch64-linux-gnu/$lib" || return 1
	done
	interp=$(readelf -lW "$f" 2>/dev/null | sed -nE 's/.*program interpreter: (.*)\]$/\1/p')
	if [ -n "$interp" ] && [ ! -e "$A64_IRD$interp" ]; then
		[ -e "$interp" ] || { A64_WHY="$f needs $interp (install libc6:arm64: scripts/deps.sh arm64)"; return 1; }
		mkdir -p "$A64_IRD$(dirname "$interp")"
		cp -L "$interp" "$A64_IRD$interp"
	fi
}
arm64_initramfs() {
	local deb p a
	[ "$A64_BUILT" = 1 ] && return 0
	A64_BUILT=1
	command -v qemu-system-aarch64 >/dev/null || { A64_WHY="qemu-system-aarch64 not found (install qemu-system-arm: scripts/deps.sh arm64)"; return 1; }
	log "building smolder-arm64, its workloads and tools (make ARCH=arm64)"
	make --no-print-directory ARCH=arm64 smolder-arm64 workloads tools >"$K/make-arm64.log" 2>&1 ||
		{ A64_WHY="make ARCH=arm64 failed: $(grep -m1 -iE 'error|smolder:' "$K/make-arm64.log" | head -c 200) (install the cross build: scripts/deps.sh arm64)"; return 1; }
	rm -rf "$A64_ROOT" "$A64_IRD"
	mkdir -p "$A64_ROOT" "$A64_IRD"/{bin,sbin,dev,proc,sys,tmp,test}
	chmod 1777 "$A64_IRD/tmp"
	for p in busybox-static util-linux libcap-ng0; do
		deb=$(fetch_deb bookworm "$p" arm64) || { A64_WHY="cannot download $p:arm64 from bookworm (offline?) and none kept in build/kernels"; return 1; }
		dpkg-deb -x "$deb" "$A64_ROOT"
	done
	cp "$A64_ROOT/bin/busybox" "$A64_IRD/bin/busybox"
	for a in $({ qemu-aarch64-static "$A64_ROOT/bin/busybox" --list || "$BUSYBOX" --list; } 2>/dev/null); do
		[ "$a" = busybox ] || ln -sf busybox "$A64_IRD/bin/$a"
	done
	copy_arm64 smolder-arm64 /test/smolder || return 1
	for f in $A64_NEED; do
		copy_arm64 "$f" "/test/$(basename "$f")" || return 1
	done
	copy_arm64 "$A64_ROOT/usr/bin/setpriv" /test/setpriv || return 1
	{
		echo '#!/bin/sh'
		echo "WL_SECONDS=$WL_SECONDS"
		echo 'PYTHONS=""'
		cat "$K/init.body"
	} >"$A64_IRD/init"
	chmod +x "$A64_IRD/init"
	(cd "$A64_IRD" && find . -print0 | cpio --null -o -H newc --quiet -R 0:0 | gzip -1) >"$A64_INITRD" ||
		{ A64_WHY="cannot build the arm64 initramfs"; return 1; }
	log "arm64 initramfs $(($(stat -c %s "$A64_INITRD") / 1024)) KiB"
}

# ---- 4. checks ------------------------------------------------------------------
# Each check appends "PASS name" or "FAIL name: why" to $CHECKS.
CHECKS=
ok() { echo "PASS $1" >>"$CHECKS"; }
bad() { echo "FAIL $1: $2" >>"$CHECKS"; }
# section LOG NAME KIND: the lines of one run's STDOUT or STDERR.
section() {
	awk -v name="$2" -v kind="$3" '
		$0 == "@@" kind " " name { on = 1; next }
		on && /^@@(STDOUT|STDERR|RC|END) / { on = 0 }
		on { print }' "$1"
}
# extract LOG DIR NAME...: each run's .out, .err and .rc files in DIR.
extract() {
	local logf=$1 d=$2 n
	shift 2
	for n in "$@"; do
		section "$logf" "$n" STDOUT >"$d/$n.out"
		section "$logf" "$n" STDERR >"$d/$n.err"
		sed -nE "s/^@@RC $n ([0-9]+)\$/\\1/p" "$logf" | tail -n 1 >"$d/$n.rc"
	done
}
summary() { # ERRFILE -> "SAMPLES LOST" or nothing
	sed -nE 's/^smolder: ([0-9]+) samples, ([0-9]+) lost.*/\1 \2/p' "$1" | tail -n 1
}
share() { # FOLDED ERE -> percentage of samples on stacks matching
	awk -v pat="$2" '{ n = $NF; t += n; if ($0 ~ pat) m += n }
		END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$1"
}
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
oneline() { head -c "${2:-300}" "$1" | tr '\n' '|'; }

# captured D NAME: exit code 0 and "N samples, 0 lost" with N > 0.
captured() {
	local d=$1 n=$2 rc s
	rc=$(cat "$d/$n.rc")
	s=$(summary "$d/$n.err")
	if [ "$rc" = 0 ] && [ -n "$s" ] && [ "${s#* }" = 0 ] && [ "${s% *}" -gt 0 ]; then
		ok "$n: exit 0, ${s% *} samples, 0 lost"
	else
		bad "$n: exit 0 and N samples, 0 lost" "exit '${rc:-none}', stderr: $(oneline "$d/$n.err" 400)"
	fi
}
# refused D NAME ERE: exit code 1, stderr exactly one "smolder: ..." line
# matching ERE, nothing on stdout.
refused() {
	local d=$1 n=$2 re=$3 rc
	rc=$(cat "$d/$n.rc")
	if [ "$rc" = 1 ] && [ "$(wc -l <"$d/$n.err")" -eq 1 ] && grep -qE '^smolder: [a-z]' "$d/$n.err" &&
		grep -qE -- "$re" "$d/$n.err" &&
		[ ! -s "$d/$n.out" ]; then
		ok "$n: one-line error /$re/, exit 1"
	else
		bad "$n: one-line error /$re/, exit 1" "exit '${rc:-none}', stderr: $(oneline "$d/$n.err" 400), stdout $(wc -c <"$d/$n.out") bytes"
	fi
}
# kernel_notes FILE: the "smolder: note:" lines of what the kernel allows,
# without the hint on how to get names for stripped files (the guest's
# libraries are stripped: it is said on most runs there).
kernel_notes() { grep '^smolder: note:' "$1" | grep -v 'without symbols (named \[file+0xSTART\]'; }
# notes D NAME WANT: exactly WANT such lines.
notes() {
	local n
	n=$(kernel_notes "$1/$2.err" | grep -c .)
	if [ "$n" = "$3" ]; then ok "$2: $3 notes"
	else bad "$2: $3 notes" "$n notes: $(kernel_notes "$1/$2.err" | tr '\n' '|' | head -c 400)"; fi
}
# burn_split D NAME: cpu_split's user frames named, about 75% burn_a.
burn_split() {
	local d=$1 n=$2 t a
	t=$(total "$d/$n.out")
	a=$(share "$d/$n.out" '^cpu_split;(.*;)?main;run_loop;burn_a(;| )')
	if [ "$t" -gt 0 ] && between "$a" 60 90 && grep -qE ';run_loop;burn_b(;| )' "$d/$n.out" &&
		[ -z "$(grep -v '^cpu_split;' "$d/$n.out" | head -n 1)" ]; then
		ok "$n: user frames main;run_loop;burn_a $a% of $t samples"
	else
		bad "$n: user frames main;run_loop;burn_a within 60..90%" "burn_a $a% of $t samples: $(oneline "$d/$n.out")"
	fi
}

# context_frames D LOG: the kworker and irq runs (see the header).
context_frames() {
	local d=$1 pid
	captured "$d" kworker
	pid=$(sed -n 's/^@@PTY_PUMP //p' "$2" | tail -n 1)
	if [ -n "$pid" ] && grep -qE "^kworker;wq:events_unbound;flush_to_ldisc;queued-by:pty_pump-$pid;.*;process_one_work;flush_to_ldisc;" "$d/kworker.out"; then
		ok "kworker: wq:events_unbound;flush_to_ldisc;queued-by:pty_pump-$pid over process_one_work;flush_to_ldisc"
	else
		bad "kworker: wq:events_unbound;flush_to_ldisc;queued-by:pty_pump-${pid:-?}" "$(grep '^kworker;wq:' "$d/kworker.out" | cut -d';' -f1-4 | sort | uniq -c | sort -rn | head -n 4 | tr '\n' '|')"
	fi
	captured "$d" irq
	if grep -qE '^(net_pump|pump/1);\[softirq:NET_RX\];.*;net_rx_action[; ]' "$d/irq.out" &&
		[ -z "$(grep -E ';net_rx_action[; ]' "$d/irq.out" | grep -vE '^[^;]+;\[softirq:NET_RX\];' | head -n 1)" ]; then
		ok "irq: [softirq:NET_RX] over every net_rx_action stack"
	else
		bad "irq: [softirq:NET_RX] over every net_rx_action stack" "$(grep -E 'net_rx_action|NET_RX' "$d/irq.out" | head -n 3 | cut -c1-200 | tr '\n' '|')"
	fi
}
# idle_views D: in the one-vCPU guest with nothing else running,
# --idle-only keeps the idle task's idle loop (swapper/0 through do_idle:
# x86_64's halt, arm64's wfi in cpu_do_idle), and the default leaves it
# out, as -v counts.
idle_views() {
	local d=$1 t p left kept
	captured "$d" idle
	t=$(total "$d/idle.out")
	p=$(share "$d/idle.out" '^swapper/0;(.*;)?do_idle;')
	if [ "$t" -gt 0 ] && between "$p" 95 100; then
		ok "idle: --idle-only: swapper/0's do_idle in $p% of $t samples"
	else
		bad "idle: --idle-only: swapper/0's do_idle in >= 95%" "$p% of $t samples: $(oneline "$d/idle.out")"
	fi
	left=$(sed -nE 's/^smolder: ([0-9]+) idle-loop samples left out.*/\1/p' "$d/noidle.err")
	kept=$(summary "$d/noidle.err")
	kept=${kept% *}
	if [ "$(cat "$d/noidle.rc")" = 0 ] && [ "${left:-0}" -gt 100 ] && [ "${kept:-0}" -lt "$left" ]; then
		ok "noidle: the default leaves the idle loop out ($left samples; $kept kept)"
	else
		bad "noidle: the default leaves the idle loop out (-v: over 100 left out, fewer kept)" "exit $(cat "$d/noidle.rc"), left out ${left:-?}, kept ${kept:-?}: $(oneline "$d/noidle.err" 300)"
	fi
}

# The user stacks of a capture with kernel frames (-d): with skip=1, each
# sample's user part, those taken while the kernel delivered a signal left
# out; else how many those are.  The kernel rewrites the user registers
# there one by one (arm64's setup_return sets pc to the handler before x30
# to the trampoline), so no walk of them can be right: a sample between
# the two read the handler's caller from the interrupted code's x30.  In
# the kernel's stack: its signal functions, or arm64's do_notify_resume as
# the innermost frame (do_signal and setup_rt_frame are inlined there);
# not do_notify_resume's other work (schedule, rseq, task work).
IN_SIGNAL_DELIVERY='{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); i = index(line, ";-;")
	k = i ? substr(line, i + 3) : ""
	if (k ~ /(^|;)(arch_do_signal_or_restart|do_signal|get_signal|handle_signal|setup_rt_frame|x64_setup_rt_frame|setup_return|setup_sigframe)(;|$)/ ||
	    k ~ /(^|;)do_notify_resume$/) { d += n; next }
	if (i) line = substr(line, 1, i - 1)
	if (skip) print line " " n }
	END { if (!skip) print d + 0 }'

# unwinding D KERNEL: the DWARF unwinder's runs (see the guest's init):
# frameless unwind_paths classified by tests/unwind_classify.awk (no wrong
# caller, exact >= 99%: the target's tables load before sampling starts),
# and syscall_heavy's user frames under
# read(2).  The walk is the one the kernel can verify (issue 27): bpf_loop
# from 5.17, unrolled before, as -v says; the kernel's line names it.
unwinding() {
	local d=$1 kn=${2#host-} m cc delivering tot ex tr wrong pct example v want
	case $kn in [1-4].* | 5.[0-9].* | 5.1[0-6].*) want="unrolled walk (kernel before 5.17)" ;; *) want="bpf_loop walk" ;; esac
	if grep -qxF "smolder: unwinder: $want" "$d/unwind_leaf.err"; then
		ok "unwinder: $want"
	else
		bad "unwinder: $want" "$(grep '^smolder: unwinder: ' "$d/unwind_leaf.err" || echo 'no unwinder line')"
	fi
	for m in leaf signal jit clang; do
		cc=gcc
		[ $m = clang ] && cc=clang
		captured "$d" unwind_$m
		delivering=$(awk "$IN_SIGNAL_DELIVERY" "$d/unwind_$m.out")
		read -r tot ex tr wrong pct example <<<"$(awk -v skip=1 "$IN_SIGNAL_DELIVERY" "$d/unwind_$m.out" |
			awk -f tests/unwind_classify.awk)"
		if [ "${tot:-0}" -gt 50 ] && [ "$wrong" = 0 ] && between "$pct" 99 100 &&
			grep -q '^smolder: user stacks: [0-9]* walked with unwind tables' "$d/unwind_$m.err"; then
			ok "unwind_$m: frameless $cc stacks exact $pct% of $tot, no wrong caller ($delivering in signal delivery left out)"
		else
			bad "unwind_$m: frameless $cc stacks exact >= 99%, no wrong caller" "exact ${pct:-?}% of ${tot:-0}, wrong ${wrong:-?} (e.g. $example): $(oneline "$d/unwind_$m.out" 300)"
		fi
	done
	captured "$d" unwind_kernel
	# arm64's workload calls libc's syscall(), and its kernel stack, walked
	# by frame records, skips read_zero above __arch_clear_user (a leaf
	# without one): the kernel part is known by vfs_read
	v=$(awk '/;-;.*;vfs_read( |;)/ { t += $NF; if ($0 ~ /^syscall_heavy;_start;__libc_start_main;(__libc_start_call_main|\[libc\.so\.6\+0x[0-9a-f]+\]);main;do_reads;(syscall;)?-;/) m += $NF }
		END { if (t < 20) print 0; else printf "%.1f\n", 100 * m / t }' "$d/unwind_kernel.out")
	if between "$v" 95 100; then
		ok "unwind_kernel: in read(2), whole user frames from the saved registers ($v%)"
	else
		bad "unwind_kernel: in read(2), whole user frames from the saved registers" "$v%: $(oneline "$d/unwind_kernel.out")"
	fi
}

# offcpu_run D NAME: offcpu_split's sleep and pipe wait under their
# functions and the pipe's waker named.  The shares are checked on the host
# (tests/cli/offcpu.sh); in a slow TCG guest a vCPU that stalls stretches
# the pipe wait (time from wakeup to running is part of a wait), so here
# they are bounds that only a broken count would miss.
offcpu_run() {
	local d=$1 n=$2 doze pipe
	doze=$(awk '/^offcpu_split;/ { t += $NF; if ($0 ~ /;run_rounds;doze;.*;\[off-cpu:S\]/) m += $NF }
		END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$d/$n.out")
	pipe=$(awk '/^offcpu_split;/ { t += $NF; if ($0 ~ /;run_rounds;wait_pipe;.*;\[off-cpu:S\];woken-by:pipe_writer/) m += $NF }
		END { if (t == 0) print 0; else printf "%.1f\n", 100 * m / t }' "$d/$n.out")
	if [ "$(cat "$d/$n.rc")" = 0 ] && between "$doze" 20 70 && between "$pipe" 3 60; then
		ok "$n: doze [off-cpu:S] $doze%, wait_pipe woken by pipe_writer $pipe%"
	else
		bad "$n: doze [off-cpu:S] 20..70%, wait_pipe woken by pipe_writer 3..60%" "exit $(cat "$d/$n.rc"), doze $doze%, pipe $pipe%: $(oneline "$d/$n.err" 200) $(oneline "$d/$n.out")"
	fi
}
# offcpu_hang D: fifo_wait, blocked in read(2) for the whole 3 s capture,
# shows about 3 s (10%) under main;wait_for_input;read where the kernel has
# the task iterator and bpf_get_task_stack (5.9+); a kernel without them
# must say so in -v and still capture.
offcpu_hang() {
	local d=$1 us
	us=$(awk '/^fifo_wait;.*main;wait_for_input;(__libc_)?read;.*\[off-cpu:S\] [0-9]+$/ { t += $NF } END { print t + 0 }' "$d/offcpu_hang.out")
	if [ "$(cat "$d/offcpu_hang.rc")" = 0 ] && between "$us" 2700000 3300000; then
		ok "offcpu_hang: $us us under main;wait_for_input;read of a 3 s capture"
	elif [ "$(cat "$d/offcpu_hang.rc")" = 0 ] && grep -q 'no BPF task iterator' "$d/offcpu_hang.err"; then
		ok "offcpu_hang: no task iterator, said in -v ($us us)"
	else
		bad "offcpu_hang: 2.7..3.3 s under main;wait_for_input;read" "exit $(cat "$d/offcpu_hang.rc"), $us us: $(oneline "$d/offcpu_hang.err" 300) $(oneline "$d/offcpu_hang.out")"
	fi
}
offcpu_checks() {
	local d=$1
	offcpu_run "$d" offcpu
	offcpu_hang "$d"
	if grep -q 'deny: cannot load or attach' "$d/offcpu_raw.err"; then
		return
	fi
	offcpu_run "$d" offcpu_raw
	if grep -q '^smolder: this kernel has no BTF tracepoints: --off-cpu uses raw tracepoints$' "$d/offcpu_raw.err"; then
		ok "offcpu_raw: raw tracepoints"
	else
		bad "offcpu_raw: raw tracepoints" "$(oneline "$d/offcpu_raw.err" 400)"
	fi
}

# python_split FOLDED: "SAMPLES PATH% ALPHA% GAMMA% DELTA% WRONG EXAMPLE" of
# guest_split.py's stacks: PATH% of the samples carry <module>, main, run
# and a leaf (run;alpha, run;beta;gamma, run;delta) in order and adjacent;
# the leaves' shares are of those; WRONG counts samples whose
# guest_split.py frames (natives between them left out) are no prefix of
# those three chains, EXAMPLE one of them.
python_split() {
	awk '{ n = $NF; t += n; line = $0; sub(/ [0-9]+$/, "", line)
		if (match(line, /<module> \(guest_split\.py\);main \(guest_split\.py\);run \(guest_split\.py\);(alpha|beta \(guest_split\.py\);gamma|delta) \(guest_split\.py\)(;|$)/)) {
			p += n; leaf = substr(line, RSTART, RLENGTH)
			if (leaf ~ /alpha/) a += n; else if (leaf ~ /gamma/) g += n; else d += n
		}
		k = split(line, f, ";"); chain = ""
		for (i = 1; i <= k; i++)
			if (f[i] ~ / \(guest_split\.py\)$/) { sub(/ \(guest_split\.py\)$/, "", f[i]); chain = chain ";" f[i] }
		if (chain != "" && index(";<module>;main;run;alpha", chain) != 1 &&
			index(";<module>;main;run;beta;gamma", chain) != 1 && index(";<module>;main;run;delta", chain) != 1) {
			w += n; ex = substr(chain, 2)
		}
	}
	END { q = p ? p : 1
		printf "%d %.1f %.1f %.1f %.1f %d %s\n", t, t ? 100 * p / t : 0, 100 * a / q, 100 * g / q, 100 * d / q, w, ex ? ex : "-" }' "$1"
}
# python_frames D LOG: guest_split.py under each guest CPython (the guest's
# init): at least 90% of the process's samples carry its Python path, no
# wrong caller, and the leaves split 50/30/20 within 10 points (by
# construction the split is exact; a 3 s capture in a TCG guest holds
# 300 to 600 samples, whose rounds of a few ms each are sampled in runs,
# and a vCPU the host stalls stretches whichever leaf it stopped in:
# cpu_split is held to 15 points the same way).  With --no-python the
# interpreter's _PyEval_EvalFrameDefault is back and no Python frame.  A
# Python this host lacks or the guest cannot start is a SKIP line.
python_frames() {
	local d=$1 logf=$2 py name tag why tot path a g dl wrong ex with
	for why in "${PYTHONS_OUT[@]}"; do
		echo "SKIP python: $why" >>"$CHECKS"
	done
	for py in $PYTHONS_IN; do
		name=$(basename "$py")
		tag=$(echo "$name" | tr -cd 'a-z0-9')
		why=$(sed -n "s/^@@PYTHON-CANNOT $tag //p" "$logf")
		if [ -n "$why" ]; then
			echo "SKIP $name: the guest cannot run it: $why" >>"$CHECKS"
			continue
		fi
		extract "$logf" "$d" "$tag" "nopy_$tag"
		captured "$d" "$tag"
		read -r tot path a g dl wrong ex <<<"$(python_split "$d/$tag.out")"
		with=$(sed -nE 's/^smolder: python: ([0-9]+) samples with Python frames, ([0-9]+) without.*/\1 \2/p' "$d/$tag.err")
		if between "$path" 90 100 && [ "$wrong" = 0 ] && between "$a" 40 60 && between "$g" 20 40 && between "$dl" 10 30 &&
			[ -z "$(grep -v "^$name;" "$d/$tag.out" | head -n 1)" ] && [ -n "$with" ]; then
			ok "$tag: $name's <module>;main;run;leaf in $path% of $tot samples; alpha $a%, gamma $g%, delta $dl% (50/30/20); -v: ${with% *} with Python frames, ${with#* } without"
		else
			bad "$tag: $name's <module>;main;run;leaf in >= 90%, no wrong caller, alpha/gamma/delta 50/30/20 within 10 points" "path $path% of $tot samples, alpha $a% gamma $g% delta $dl%, wrong $wrong (e.g. $ex), -v '${with:-no python line}': $(oneline "$d/$tag.err" 300) $(oneline "$d/$tag.out")"
		fi
		captured "$d" "nopy_$tag"
		if grep -qE "^$name;.*;_PyEval_EvalFrameDefault(;| )" "$d/nopy_$tag.out" && ! grep -q '(guest_split\.py)' "$d/nopy_$tag.out"; then
			ok "nopy_$tag: --no-python: _PyEval_EvalFrameDefault in $(share "$d/nopy_$tag.out" ';_PyEval_EvalFrameDefault(;| )')% of samples, no Python frame"
		else
			bad "nopy_$tag: --no-python: _PyEval_EvalFrameDefault, no Python frame" "$(oneline "$d/nopy_$tag.err" 300) $(oneline "$d/nopy_$tag.out")"
		fi
	done
}

# user_depth FOLDED: the most user frames of a deep_stack stack (folded with -d).
user_depth() {
	awk -F';' '/^deep_stack;/ { sub(/ [0-9]+$/, ""); n = 0
		for (i = 2; i <= NF && $i != "-"; i++) n++
		if (n > m) m = n } END { print m + 0 }' "$1"
}

KERNEL_RE='(^|;)(entry_SYSCALL_64[a-z_]*|do_syscall_64|x64_sys_call|__x64_sys_read|el0t_64_sync[a-z_]*|el0_svc[a-z_]*|invoke_syscall|__arm64_sys_read|ksys_read|vfs_read|read_zero)(;| )'

# boot KERNEL_NAME VMLINUZ MODE APPEND: one boot; the serial log's path.
# A guest kernel that panics before our init starts (no @@GUEST-START)
# never ran smolder: under TCG, 6.12 has been seen to hit its own int3
# while patching its text on the other vCPU at 1.5 s into the boot
# (sched_clock_cpu, "Oops: int3" in rest_init's idle).  Such a boot is
# said and done again, at most twice; each panic's log is kept beside.
boot() {
	local kn=$1 vmlinuz=$2 mode=$3 append=$4 logf="$K/$1.$3.log" t0 rc try initrd=$INITRD qemu
	[ "$mode" = main ] && initrd=$INITRD_MAIN
	# arm64: qemu's virt board, its PL011 UART the console; -cpu max's
	# pointer authentication by qemu's own cheap hash (pauth-impdef), not
	# QARMA, which costs TCG much time and the guest nothing it checks.
	qemu=(qemu-system-x86_64 -accel tcg)
	if [ "$GUEST_ARCH" = arm64 ]; then
		initrd=$A64_INITRD
		qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel tcg)
		append="console=ttyAMA0 $append"
	else
		append="console=ttyS0 $append"
	fi
	for try in 1 2 3; do
		t0=$(date +%s)
		timeout "$QEMU_TIMEOUT" "${qemu[@]}" -m 1024 -smp "${SMP:-2}" \
			-kernel "$vmlinuz" -initrd "$initrd" \
			-append "quiet panic=-1 smolder.mode=$mode $append" \
			-nographic -no-reboot -monitor none </dev/null 2>&1 | tr -d '\r' >"$logf"
		rc=${PIPESTATUS[0]}
		log "$kn: $mode boot: qemu exited $rc after $(($(date +%s) - t0)) s"
		grep -q '^@@GUEST-START' "$logf" || ! grep -q 'Kernel panic' "$logf" && break
		cp "$logf" "$logf.panic$try"
		log "$kn: $mode boot: the guest kernel panicked before init started (no smolder ran): $(grep -m1 -E 'Oops|BUG|Kernel panic' "$logf"); booting again (log kept in $logf.panic$try)"
	done
	echo "$logf"
}
booted() { # LOG WHAT
	if grep -q '^@@GUEST-DONE' "$1"; then
		ok "$2: guest ran and powered off ($(sed -n 's/^@@UNAME //p' "$1"))"
		return 0
	fi
	bad "$2: guest ran and powered off" "last lines: $(tail -n 6 "$1" | tr '\n' '|' | head -c 400)"
	return 1
}

# test_kernel NAME VMLINUZ CONFIG: boots and checks; sets RESULT.
test_kernel() {
	local kn=$1 vmlinuz=$2 config=$3 d logf lsm append="" debian_paranoid=0 memlock=0 n rc
	d="$K/results/$kn"
	rm -rf "$d"
	mkdir -p "$d"
	CHECKS="$d/checks"
	: >"$CHECKS"
	# The BPF LSM (for build/tools/deny) where the kernel has it but not by default.
	lsm=$(sed -nE 's/^CONFIG_LSM="(.*)"$/\1/p' "$config")
	if grep -q '^CONFIG_BPF_LSM=y' "$config" && [ -n "$lsm" ] && ! echo ",$lsm," | grep -q ',bpf,'; then
		append="lsm=$lsm,bpf"
	fi
	grep -q '^CONFIG_SECURITY_PERF_EVENTS_RESTRICT=y' "$config" && debian_paranoid=1
	# Before 5.11 BPF memory is charged to RLIMIT_MEMLOCK.
	case $kn in [1-4].* | 5.[0-9].* | 5.10.*) memlock=1 ;; esac

	logf=$(boot "$kn" "$vmlinuz" main "$append")
	log "$kn: main boot: the Python runs took $(awk '$1 == "@@PYTHON-UPTIME" { t[$2] = $3 } END { if ("end" in t) printf "%.0f", t["end"] - t["start"]; else print "?" }' "$logf") s"
	if booted "$logf" main || grep -q '^@@GUEST-START' "$logf"; then
		grep -q '^@@BTF yes' "$logf" && ok "kernel BTF at /sys/kernel/btf/vmlinux" ||
			bad "kernel BTF at /sys/kernel/btf/vmlinux" "absent"
		extract "$logf" "$d" pid serve kstacks percpu degrade btf_rename verifier verifier_v nobtf btf \
			nocaps paranoid3 paranoid2 memlock0 memlock64 maxstack16 maxstack127 degrade_ctx \
			unwind_leaf unwind_signal unwind_jit unwind_clang unwind_kernel offcpu offcpu_raw offcpu_hang
		unwinding "$d" "$kn"
		offcpu_checks "$d"
		python_frames "$d" "$logf"

		# Captures: user frames, kernel frames, both CPUs; every feature found.
		captured "$d" pid
		burn_split "$d" pid
		if grep -qE '^smolder: kernel features: ' "$d/pid.err" &&
			! grep -E '^smolder: kernel features: ' "$d/pid.err" | grep -q ' no\b'; then
			ok "pid: every kernel feature found"
		else
			bad "pid: every kernel feature found" "$(grep -E '^smolder: kernel features: ' "$d/pid.err" || echo 'no features line')"
		fi
		notes "$d" pid 0
		captured "$d" kstacks
		n=$(grep -cE "$KERNEL_RE" "$d/kstacks.out")
		if [ "$n" -gt 0 ] && grep -qE "^syscall_heavy;.*;vfs_read;" "$d/kstacks.out"; then
			ok "kstacks: kernel frames ($n stacks with syscall frames)"
		else
			bad "kstacks: kernel frames syscall_heavy;...;vfs_read" "$(oneline "$d/kstacks.out")"
		fi
		captured "$d" percpu
		if grep -qE '^cpu_0;' "$d/percpu.out" && grep -qE '^cpu_1;' "$d/percpu.out"; then
			ok "percpu: cpu_0 and cpu_1 frames"
		else
			bad "percpu: cpu_0 and cpu_1 frames" "$(oneline "$d/percpu.out")"
		fi

		# Degraded: no ring buffer, no tracing programs; still named.  An
		# arm64 kernel whose BPF trampolines cannot attach (ENOTSUPP, 524:
		# the LSM hook is not patchable there) cannot run deny at all.
		if [ "$GUEST_ARCH" = arm64 ] && grep -q 'deny: cannot load or attach.*error 524' "$d/degrade.err"; then
			echo "SKIP degrade, degrade_ctx, offcpu_raw: this arm64 kernel cannot attach build/tools/deny's BPF LSM program (error 524, ENOTSUPP), which refuses the features" >>"$CHECKS"
		elif grep -q 'deny: cannot load or attach' "$d/degrade.err"; then
			bad "degrade: the BPF LSM refuses features" "$(oneline "$d/degrade.err")"
		else
			captured "$d" degrade
			burn_split "$d" degrade
			notes "$d" degrade 2
			if grep -qE '^smolder: note: BPF ring buffer not supported by this kernel.*: processes are named' "$d/degrade.err" &&
				grep -qE '^smolder: note: BTF tracepoints not supported by this kernel.*: exits and execs' "$d/degrade.err"; then
				ok "degrade: notes name the ring buffer and BTF tracepoints and what is lost"
			else
				bad "degrade: notes name the ring buffer and BTF tracepoints" "$(oneline "$d/degrade.err" 500)"
			fi
		fi

		# Without tracing programs, the context options turn off with a note.
		if ! grep -q 'deny: cannot load or attach' "$d/degrade_ctx.err"; then
			captured "$d" degrade_ctx
			if grep -qE '^smolder: note: this kernel has no BTF tracepoints: --irq-frames and --kworker are off$' "$d/degrade_ctx.err"; then
				ok "degrade_ctx: --irq-frames and --kworker off, with a note"
			else
				bad "degrade_ctx: --irq-frames and --kworker off, with a note" "$(oneline "$d/degrade_ctx.err" 400)"
			fi
		fi

		# A real verifier rejection: BTF without task_struct.flags.
		if [ "$(cat "$d/btf_rename.rc")" = 0 ]; then
			refused "$d" verifier "verifier rejected program do_sample(_unrolled)?: .*task_struct\.flags.*rerun with -v"
			n=$(grep -c '^smolder: verifier: ' "$d/verifier_v.err")
			if [ "$(cat "$d/verifier_v.rc")" = 1 ] && [ "$n" -ge 5 ] && [ "$n" -le 20 ] &&
				tail -n 1 "$d/verifier_v.err" | grep -qE '^smolder: the kernel.s BPF verifier rejected program do_sample(_unrolled)?:' &&
				grep -q '^smolder: verifier: .*task_struct.flags' "$d/verifier_v.err"; then
				ok "verifier_v: -v prints the last $n lines of the verifier's log, then the error"
			else
				bad "verifier_v: -v prints 5..20 lines of the verifier's log, then the error" "exit $(cat "$d/verifier_v.rc"), $n lines: $(tail -n 3 "$d/verifier_v.err" | tr '\n' '|' | head -c 400)"
			fi
		else
			bad "btf_rename: wrote the renamed BTF" "$(oneline "$d/btf_rename.err")"
		fi

		# --btf: without /sys/kernel/btf/vmlinux.
		refused "$d" nobtf "kernel BTF not found.*--btf FILE"
		captured "$d" btf
		burn_split "$d" btf
		# --serve: the scrape's headers (wget -S), a gzip'd pprof naming
		# cpu_split's functions, and SIGTERM ending the daemon with 0
		if [ "$(cat "$d/serve.rc")" = 0 ] && grep -q 'Content-Type: application/octet-stream' "$d/serve.err" &&
			grep -qE '^@@SERVE-PROFILE [1-9][0-9]* bytes, [1-9][0-9]* burn_a$' "$logf" &&
			grep -qE '^@@SERVE-RC 0 ' "$logf"; then
			ok "serve: one scrape (busybox wget), a gzip'd pprof of cpu_split, SIGTERM exits 0"
		else
			bad "serve: one scrape, a gzip'd pprof of cpu_split, SIGTERM exits 0" "wget exit '$(cat "$d/serve.rc")', $(oneline "$d/serve.err" 200) $(grep -E '^@@SERVE-' "$logf" | tr '\n' '|')"
		fi
		if grep -qE '^smolder: note: BTF tracepoints need /sys/kernel/btf/vmlinux' "$d/btf.err"; then
			ok "btf: one note: BTF tracepoints need /sys/kernel/btf/vmlinux"
		else
			bad "btf: a note that BTF tracepoints need /sys/kernel/btf/vmlinux" "$(oneline "$d/btf.err")"
		fi

		# Privileges.
		refused "$d" nocaps "not permitted.*CAP_BPF and CAP_PERFMON are missing.*run as root"
		if [ "$debian_paranoid" = 1 ]; then
			refused "$d" paranoid3 "perf event.*kernel\.perf_event_paranoid is 3.*CAP_SYS_ADMIN.*sysctl -w kernel\.perf_event_paranoid=2"
		else
			captured "$d" paranoid3
		fi
		captured "$d" paranoid2

		# RLIMIT_MEMLOCK that cannot be raised.
		if [ "$memlock" = 1 ]; then
			refused "$d" memlock0 "RLIMIT_MEMLOCK is 0 KiB.*ulimit -l unlimited"
			refused "$d" memlock64 "RLIMIT_MEMLOCK is 64 KiB.*ulimit -l unlimited"
		else
			captured "$d" memlock0
			captured "$d" memlock64
		fi

		# kernel.perf_event_max_stack below 127: a note, and stacks cut to it.
		captured "$d" maxstack16
		# user frames: those between the process frame and "-"
		n=$(user_depth "$d/maxstack16.out")
		if grep -qE '^smolder: note: kernel\.perf_event_max_stack is 16, .*sysctl -w kernel\.perf_event_max_stack=127' "$d/maxstack16.err" &&
			[ "$n" -ge 10 ] && [ "$n" -le 16 ]; then
			ok "maxstack16: a note names the sysctl; stacks cut to $n frames"
		else
			bad "maxstack16: a note names the sysctl; stacks cut to 16 frames" "deepest $n frames; $(oneline "$d/maxstack16.err")"
		fi
		n=$(user_depth "$d/maxstack127.out")
		if [ "$n" -gt 100 ] && ! kernel_notes "$d/maxstack127.err" | grep -q .; then
			ok "maxstack127: no note, stacks of $n frames"
		else
			bad "maxstack127: no note, stacks of over 100 frames" "deepest $n frames; $(oneline "$d/maxstack127.err")"
		fi
	fi

	# Kernel context frames, on one vCPU (see the header).
	logf=$(SMP=1 boot "$kn" "$vmlinuz" context "$append")
	if booted "$logf" context; then
		extract "$logf" "$d" kworker irq idle noidle
		context_frames "$d" "$logf"
		idle_views "$d"
	fi

	# Lockdown: integrity (Secure Boot's usual mode) runs; confidentiality cannot.
	for mode in integrity confidentiality; do
		logf=$(boot "$kn" "$vmlinuz" $mode "$append lockdown=$mode")
		booted "$logf" "$mode" || continue
		extract "$logf" "$d" $mode
		grep -q "^@@LOCKDOWN .*\[$mode\]" "$logf" && ok "$mode: kernel locked down ($mode)" ||
			bad "$mode: kernel locked down ($mode)" "$(grep '^@@LOCKDOWN' "$logf")"
	done
	[ -e "$d/integrity.rc" ] && captured "$d" integrity
	[ -e "$d/confidentiality.rc" ] &&
		refused "$d" confidentiality "locked down in confidentiality mode.*lockdown=integrity"
}

# ---- 5. every kernel ----------------------------------------------------------------
PASSED=0
FAILED=0
SKIPPED=0
T0=$(date +%s)
for e in "${ENTRIES[@]}"; do
	IFS='|' read -r kn dist what GUEST_ARCH <<<"$e"
	# arm64's lines say so: "PASS arm64 6.1.0-56-cloud-arm64: ..."
	label=$kn
	[ "$GUEST_ARCH" = arm64 ] && label="arm64 $kn"
	if [ "$dist" = skip ]; then
		echo "SKIP $label: $what"
		SKIPPED=$((SKIPPED + 1))
		continue
	fi
	if [ "$GUEST_ARCH" = arm64 ]; then
		arm64_initramfs
		if [ -n "$A64_WHY" ]; then
			echo "SKIP $label: $A64_WHY"
			SKIPPED=$((SKIPPED + 1))
			continue
		fi
		PYTHONS_IN=""
		PYTHONS_OUT=("the arm64 guests run no CPython (the host's are x86_64 builds)")
	else
		PYTHONS_IN=$X86_PYTHONS_IN
		PYTHONS_OUT=("${X86_PYTHONS_OUT[@]}")
	fi
	t0=$(date +%s)
	if [ "$dist" = host ]; then
		vmlinuz=$what
		config="$K/host-$(uname -r).config"
		{ cat "/boot/config-$(uname -r)" 2>/dev/null || zcat /proc/config.gz 2>/dev/null; } >"$config"
	else
		# the first of the candidates that can be had
		deb=""
		for p in $what; do
			deb=$(fetch_deb "$dist" "$p" "$(deb_arch "$GUEST_ARCH")") && { what=$p; break; }
		done
		if [ -z "$deb" ]; then
			echo "SKIP $label: cannot download $what from $dist (offline?) and none kept in build/kernels"
			SKIPPED=$((SKIPPED + 1))
			continue
		fi
		kn=${what#linux-image-}
		label=$kn
		[ "$GUEST_ARCH" = arm64 ] && label="arm64 $kn"
		vmlinuz="$K/$(basename "$deb" .deb).vmlinuz"
		config="$K/$(basename "$deb" .deb).config"
		if [ ! -s "$vmlinuz" ] || [ ! -s "$config" ]; then
			dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/vmlinuz-*' >"$vmlinuz.tmp" &&
				dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/config-*' >"$config.tmp" &&
				[ -s "$vmlinuz.tmp" ] && mv "$vmlinuz.tmp" "$vmlinuz" && mv "$config.tmp" "$config" ||
				{ rm -f "$vmlinuz.tmp" "$config.tmp"; echo "FAIL $label: extract: no vmlinuz or config in $deb"; FAILED=$((FAILED + 1)); continue; }
		fi
		log "$kn: $what $(dpkg-deb -f "$deb" Version)"
	fi
	test_kernel "$kn" "$vmlinuz" "$config"
	[ "$VERBOSE" = 1 ] && sed 's/^/    /' "$CHECKS"
	n=$(grep -c '^PASS ' "$CHECKS")
	f=$(grep -c '^FAIL ' "$CHECKS")
	pys=$(sed -nE "s/^PASS [a-z0-9]+: (python[0-9.]+)'s <module>.*/\1/p" "$CHECKS" | paste -sd ' ')
	walk=$(sed -nE 's/^PASS unwinder: (bpf_loop|unrolled) walk.*/\1/p' "$CHECKS")
	if [ "$f" = 0 ] && [ "$n" -gt 0 ]; then
		echo "PASS $label: $n checks ($(($(date +%s) - t0)) s, 4 boots; unwinder: ${walk:-?} walk; Python frames under: ${pys:-none})"
		PASSED=$((PASSED + 1))
	else
		echo "FAIL $label: $(grep -m 1 '^FAIL ' "$CHECKS" | sed 's/^FAIL //') ($f of $((n + f)) checks failed: build/kernels/results/$kn/checks)"
		FAILED=$((FAILED + 1))
	fi
	# Pythons not run: said under the kernel's line, not only with -v.
	grep '^SKIP ' "$CHECKS" | sed "s/^SKIP /SKIP $label: /"
done
log "$((PASSED + FAILED)) kernels booted in $(($(date +%s) - T0)) s"
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" = 0 ]
