# bench-lib.sh: what the `make bench*` scripts (scripts/bench*.sh) share;
# each sources it first thing.  It owns the prologue (bash settings, the C
# locale, the repository's top as the working directory and ROOT), the
# one-line errors (`bench-NAME: why (fix)`, named after the script), the
# checks of what a bench needs (root, built files, commands, paths given in
# the environment), the temporary directory and what is undone on exit
# (background jobs, kernel.bpf_stats_enabled), a workload in the
# background, the figures (median, range, ratio), turns in a rotating
# order, and timing (the clock, /usr/bin/time's figures).
# Not runnable alone.
# shellcheck shell=bash

set -u
export LC_ALL=C
BENCH=$(basename "$0" .sh)	# the name errors start with
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
TMP=""
WL_PID=""

# --- errors ------------------------------------------------------------------
die() {
	echo "$BENCH: $*" >&2
	exit 1
}
warn() { echo "$BENCH: warning: $*" >&2; }
interrupted() {
	echo "$BENCH: interrupted" >&2
	exit 130
}
# exit_on_interrupt: Ctrl-C or SIGTERM ends the bench with a line saying so
# (and exit 130) after the exit cleanup, rather than by the signal.
exit_on_interrupt() { trap interrupted INT TERM; }

# --- what a bench needs ------------------------------------------------------
need_root() { [ "$(id -u)" = 0 ] || die "must run as root (sudo make $BENCH)"; }

# need_built FILE [TARGET]: FILE, which `make TARGET` builds, is there.
need_built() {
	local show=$1
	case $1 in
	"$ROOT"/*/*) show=${1#"$ROOT"/} ;;
	"$ROOT"/*) show=./${1#"$ROOT"/} ;;
	esac
	[ -x "$1" ] || die "$show is missing (run make${2:+ $2})"
}

# need_cmd COMMAND PACKAGE: COMMAND is on PATH (Debian's PACKAGE has it).
need_cmd() { command -v "$1" >/dev/null 2>&1 || die "$1 is missing (apt-get install $2)"; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
need_time() { [ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"; }

# need_exec_var VAR WHAT: VAR, when set, names an executable (WHAT).
need_exec_var() {
	[ -z "${!1:-}" ] || [ -x "${!1}" ] ||
		die "$1=${!1} is not an executable (set it to $2, or unset it)"
}

# --- what the output starts with ----------------------------------------------
# source_rev: the commit measured, "+local changes" when the sources differ.
source_rev() {
	echo "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet HEAD -- src bpf include 2>/dev/null || echo '+local changes')"
}
machine() { echo "$(nproc) CPUs, kernel $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"; }
# profile_peer_line PATH: the libbpf-tools profile compared with, or why none.
profile_peer_line() {
	if [ -n "$1" ]; then
		echo "  libbpf-tools profile: $1${PEER_REV:+ (bcc $PEER_REV)}"
	else
		echo "  note: no libbpf-tools profile: no comparison with it (LIBBPF_TOOLS_PROFILE=PATH, or bcc's source at ${BCC_SRC:-$ROOT/../bcc}: $BCC_HOWTO)"
	fi
}

# --- libbpf-tools profile, the peer ---------------------------------------------
# bcc's source is not ours to ship: it lives beside the project, at
# BCC_SRC (default ../bcc), with its libbpf submodule; libbpf-tools'
# profile is built there once (`make BPFTOOL=... USE_BLAZESYM=0 profile`, as
# docs/BENCHMARKS.md's figures were) and reused.
BCC_HOWTO="git clone --recurse-submodules https://github.com/iovisor/bcc ../bcc"
# find_profile_peer: PEER, the profile to compare with: LIBBPF_TOOLS_PROFILE
# when set, else bcc's libbpf-tools/profile beside the project, built now if
# its source is there; empty (and a note) when there is neither.
find_profile_peer() {
	local bcc=${BCC_SRC:-$ROOT/../bcc}
	PEER=${LIBBPF_TOOLS_PROFILE:-}
	PEER_REV=""
	if [ -n "$PEER" ]; then
		need_exec_var LIBBPF_TOOLS_PROFILE "a build of libbpf-tools' profile"
		return 0
	fi
	[ -f "$bcc/libbpf-tools/profile.c" ] || return 0
	PEER_REV=$(git -C "$bcc" rev-parse --short HEAD 2>/dev/null)
	if [ ! -x "$bcc/libbpf-tools/profile" ]; then
		[ -f "$bcc/src/cc/libbpf/src/libbpf.c" ] ||
			die "$bcc has no libbpf submodule (git -C $bcc submodule update --init src/cc/libbpf)"
		echo "$BENCH: building libbpf-tools profile in $bcc/libbpf-tools" >&2
		make -C "$bcc/libbpf-tools" BPFTOOL="$(command -v bpftool || echo /usr/sbin/bpftool)" \
			USE_BLAZESYM=0 profile >"$ROOT/build/bench-bcc-profile.log" 2>&1 ||
			die "cannot build libbpf-tools profile in $bcc (see build/bench-bcc-profile.log)"
	fi
	PEER=$bcc/libbpf-tools/profile
}

# --- temporary files, and what is undone on exit ----------------------------
# make_tmp: TMP, a fresh directory, removed on exit after the script's own
# on_exit (if it defines one) and the background jobs still running have
# ended, and kernel.bpf_stats_enabled is back to what it was.
make_tmp() {
	TMP=$(mktemp -d "/tmp/smolder-$BENCH.XXXXXX") || die "cannot create a temporary directory"
	trap bench_exit EXIT
}
bench_exit() {
	trap - EXIT INT TERM
	declare -F on_exit >/dev/null && on_exit
	kill_jobs
	[ -n "${BPF_STATS_WAS:-}" ] && sysctl -qw kernel.bpf_stats_enabled="$BPF_STATS_WAS" 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
}
kill_tree() {	# kill_tree PID: its children first (a wrapper's tool), then it
	local c
	for c in $(pgrep -P "$1" 2>/dev/null); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null
}
kill_jobs() {
	local p
	for p in $(jobs -p); do
		kill_tree "$p"
	done
	wait 2>/dev/null
}

# bpf_stats_on: kernel.bpf_stats_enabled=1 (the kernel counts BPF programs'
# runs and run time); fails when it cannot.  Call it before every capture
# that reads them (anything else on the machine may set it back to 0), the
# first time in the script's own shell, not in a $(...): that first call
# keeps the value to restore on exit.
bpf_stats_on() {
	[ -n "${BPF_STATS_WAS+set}" ] ||
		BPF_STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo "")
	sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null
}

# --- a workload in the background ---------------------------------------------
# start_workload CMD...: CMD in the background (WL_PID), given 0.5 s to start.
start_workload() {
	"$@" >/dev/null 2>&1 &
	WL_PID=$!
	sleep 0.5
	kill -0 "$WL_PID" 2>/dev/null || die "workload $* did not start"
}
stop_workload() {
	[ -n "$WL_PID" ] || return 0
	kill "$WL_PID" 2>/dev/null
	wait "$WL_PID" 2>/dev/null
	WL_PID=""
}

# --- figures -----------------------------------------------------------------
# median VALUE...: the middle value (of an even count, the lower of the two).
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
range() { printf '%s\n' "$@" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%s-%s", lo, hi }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.2f", a / b; else print "n/a" }'; }

# rotated ROUND WORD...: the words, the first ROUND (mod their count) moved
# to the end: tools that take turns in an order that rotates round by
# round, so that drift in the machine's speed touches them alike.
rotated() {
	local n=$(($1 % ($# - 1)))
	shift
	printf '%s\n' "${@:n+1}" "${@:1:n}"
}

# --- timing ------------------------------------------------------------------
now_us() { echo "${EPOCHREALTIME/./}"; }
# secs T0 T1 [DECIMALS]: seconds from T0 to T1 (now_us readings).
secs() { awk -v a="$1" -v b="$2" -v d="${3:-6}" 'BEGIN { printf "%." d "f\n", (b - a) / 1e6 }'; }

# timed TIMEFILE CMD...: CMD under /usr/bin/time, which writes "wall_s
# user_s sys_s peak_rss_kib" to TIMEFILE (its last line); without
# /usr/bin/time, CMD alone (the figures then n/a).
timed() {
	local f=$1
	shift
	if [ -x /usr/bin/time ]; then /usr/bin/time -f '%e %U %S %M' -o "$f" "$@"; else "$@"; fi
}
# rss_of TIMEFILE: peak RSS in KiB; cpu_of TIMEFILE: user + sys seconds.
rss_of() { [ -s "$1" ] && tail -n 1 "$1" | awk '$4 ~ /^[0-9]+$/ { print $4 }'; }
cpu_of() { tail -n 1 "$1" | awk '{ printf "%.2f\n", $2 + $3 }'; }
