#!/bin/sh
# Installs smolder's build and test dependencies from Debian/Ubuntu packages,
# and speedscope's file-format schema (from its npm package, which the
# speedscope output test validates against).  A no-op when all are present.
set -e
cd "$(dirname "$0")/.."
# What to install: "build" (make, make demo) only what builds smolder and
# its workloads; "check" (make check) what the fast tier needs besides (the
# fuzzers' and the format checks' packages, no root needed once they are
# there); "test" (make test, and the default) everything the test suite
# needs; "bench" (make bench) the tests' and the peers the benchmarks
# measure smolder against.  "arm64" (make ARCH=arm64 on an x86_64 host) the
# cross compiler, arm64's static libraries (Debian's multiarch :arm64
# packages; arm64 is added to dpkg's architectures) and qemu to run what
# it builds: qemu-user-static the binary, qemu-system-arm the arm64 kernels
# of scripts/test-kernels.sh.  "test" includes it.
WHAT=${1:-test}
BUILD_PKGS="clang llvm make gcc libc6-dev libbpf-dev libelf-dev zlib1g-dev liblzma-dev libdw-dev libbz2-dev libzstd-dev libevent-dev bpftool pkg-config libiberty-dev binutils xz-utils"
# Tests only: g++ and libclang-rt-dev build the C++ workload and the
# fuzzers; libexpat1-dev and libjson-c-dev let fuzz_outputs check that
# the SVG and JSON it writes parse; chromium + chromium-driver drive the SVG in a real browser,
# linux-perf records what smolder flamegraph must read (perf script report stackcollapse),
# golang-go reads pprof output back, python3-jsonschema validates speedscope
# output; systemd and util-linux (systemd-run, script, unshare, setpriv) run
# the services, terminals and namespaces of the tests; qemu-system-x86,
# busybox-static and cpio boot Debian's kernels (scripts/test-kernels.sh,
# whose packages debian-archive-keyring checks); linux-perf, sqlite3 and
# bzip2 (with xz-utils, python3 and perl) are the reference and the Debian
# programs of tests/cli/unwind_debian.sh; groff-base and man-db render the
# man page (tests/check/man.sh); systemd checks the installed unit
# (tests/check/install.sh); libc6-dbg is the C library's DWARF, whose
# files and lines libc frames get (tests/cli/inline_frames.sh).
# npm (the machine's Node.js, or Debian's npm when there is none) fetches
# speedscope's schema.
# Benchmarks only: libbpf-tools' offcputime is the peer of --off-cpu
# (scripts/bench-offcpu.sh), bpftrace the other peer of scripts/bench.sh;
# time (/usr/bin/time) measures peak RSS and CPU time, procps (sysctl,
# pgrep) sets kernel.bpf_stats_enabled and ends what a bench started,
# strace times the loading of smolder's BPF program (scripts/bench-python.sh).
BENCH_PKGS="libbpf-tools bpftrace time procps strace"
CHECK_PKGS="libclang-rt-dev libexpat1-dev libjson-c-dev golang-go python3 python3-jsonschema systemd groff-base man-db"
TEST_PKGS="$CHECK_PKGS g++ util-linux chromium chromium-driver linux-perf qemu-system-x86 busybox-static cpio debian-archive-keyring sqlite3 bzip2 perl libc6-dbg"
# The cross build's: arm64's smolder from x86_64 (an arm64 host builds its
# own natively, and needs none of them).
HOST_DEB_ARCH=$(dpkg --print-architecture)
CROSS_ARCH="" CROSS_TRIPLE=""
[ "$HOST_DEB_ARCH" = amd64 ] && CROSS_ARCH=arm64 CROSS_TRIPLE=aarch64-linux-gnu
CROSS_PKGS=""
if [ -n "$CROSS_ARCH" ]; then
	CROSS_PKGS="gcc-$CROSS_TRIPLE libc6-dev-$CROSS_ARCH-cross qemu-user-static qemu-system-arm"
	for p in libc6-dev libbpf-dev libelf-dev zlib1g-dev liblzma-dev libdw-dev libbz2-dev libzstd-dev libiberty-dev; do
		CROSS_PKGS="$CROSS_PKGS $p:$CROSS_ARCH"
	done
fi
case "$WHAT" in
build) PKGS=$BUILD_PKGS ;;
check) PKGS="$BUILD_PKGS $CHECK_PKGS" ;;
arm64) PKGS="$BUILD_PKGS $CROSS_PKGS" ;;
test) PKGS="$BUILD_PKGS $TEST_PKGS $CROSS_PKGS" ;;
bench) PKGS="$BUILD_PKGS $TEST_PKGS $CROSS_PKGS $BENCH_PKGS" ;;
*) echo "smolder: unknown deps set '$WHAT' (give build, check, arm64, test or bench)" >&2; exit 2 ;;
esac
SPEEDSCOPE=speedscope@1.25.0
SCHEMA=build/deps/speedscope-file-format-schema.json

# One dpkg-query for them all (quick when nothing is missing); it names a
# multiarch package with its architecture, the host's taken off here.
have=" $(dpkg-query -W -f='${binary:Package} ${db:Status-Abbrev}\n' $PKGS 2>/dev/null |
	awk -v native=":$HOST_DEB_ARCH" '$2 == "ii" { sub(native "$", "", $1); print $1 }' | tr '\n' ' ') "
missing=""
for p in $PKGS; do
	case "$have" in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "smolder: missing packages:$missing (run as root: sudo scripts/deps.sh)" >&2
		exit 1
	fi
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# the cross build's :arm64 packages come through multiarch
	case "$missing" in *":$CROSS_ARCH"*)
		dpkg --print-foreign-architectures | grep -qx "$CROSS_ARCH" || dpkg --add-architecture "$CROSS_ARCH" ;;
	esac
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# libevent-dev is not multiarch (its :arm64 package would replace the
# host's): its arm64 .deb is unpacked in build/deps/arm64, where make
# ARCH=arm64 finds its static libraries and headers.
CROSS_EVENT=build/deps/$CROSS_ARCH
if [ -n "$CROSS_ARCH" ] && [ "$WHAT" != build ] && [ "$WHAT" != check ] &&
	[ ! -s "$CROSS_EVENT/usr/lib/$CROSS_TRIPLE/libevent_core.a" ]; then
	echo "unpacking libevent-dev:$CROSS_ARCH in $CROSS_EVENT"
	t=$(mktemp -d)
	(cd "$t" && apt-get download -qq "libevent-dev:$CROSS_ARCH" >/dev/null 2>&1) ||
		{ echo "smolder: cannot download libevent-dev:$CROSS_ARCH (run as root: sudo scripts/deps.sh $WHAT)" >&2; rm -rf "$t"; exit 1; }
	mkdir -p "$CROSS_EVENT"
	dpkg-deb -x "$t"/libevent-dev_*.deb "$CROSS_EVENT"
	rm -rf "$t"
fi
case "$WHAT" in build | arm64) exit 0 ;; esac
if [ ! -s "$SCHEMA" ] && ! command -v npm >/dev/null; then
	[ "$(id -u)" = 0 ] || { echo "smolder: npm is missing (run as root: sudo scripts/deps.sh)" >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
if [ ! -s "$SCHEMA" ]; then
	echo "fetching $SPEEDSCOPE's file-format schema"
	mkdir -p build/deps
	t=$(mktemp -d)
	(cd "$t" && npm pack --silent "$SPEEDSCOPE" >/dev/null 2>&1) ||
		{ echo "smolder: cannot fetch $SPEEDSCOPE from the npm registry (check network access to registry.npmjs.org)" >&2; rm -rf "$t"; exit 1; }
	tar -xzf "$t"/speedscope-*.tgz -C "$t" package/dist/release/file-format-schema.json
	mv "$t/package/dist/release/file-format-schema.json" "$SCHEMA"
	rm -rf "$t"
fi
