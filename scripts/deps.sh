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
# measure smolder against.
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
case "$WHAT" in
build) PKGS=$BUILD_PKGS ;;
check) PKGS="$BUILD_PKGS $CHECK_PKGS" ;;
test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
bench) PKGS="$BUILD_PKGS $TEST_PKGS $BENCH_PKGS" ;;
*) echo "smolder: unknown deps set '$WHAT' (give build, check, test or bench)" >&2; exit 2 ;;
esac
SPEEDSCOPE=speedscope@1.25.0
SCHEMA=build/deps/speedscope-file-format-schema.json

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "smolder: missing packages:$missing (run as root: sudo scripts/deps.sh)" >&2
		exit 1
	fi
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[ "$WHAT" = build ] && exit 0
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
