#!/bin/bash
# Proves that this working tree's smolder writes the same bytes as a base
# revision's: SVG, folded, speedscope, pprof and the readable report.
#
#   tests/tools/compare-outputs.sh BASE [CAPTURE_SECONDS [captured]]
#
# ("captured": the captured input alone.)
# BASE is built in a temporary git worktree (make -j2 smolder); ./smolder
# must be built already (make -j2; make workloads for the captured part).
#
# Generated input: folded files (odd names, deep and shallow stacks,
# decimal counts) drawn by `smolder flamegraph` and `smolder diff` with
# --inverted, --reverse, --flamechart, --colors, --title, -n, each output
# format.
#
# Captured input (as root, needs BASE to have the facility, commit
# "SMOLDER_RECORD/SMOLDER_REPLAY" or later): the test workloads run while
# ./smolder captures them once per capture-side option set with
# SMOLDER_RECORD=FILE, which writes the counted sample keys, counts, stack
# addresses, work items and counters at the end of the capture.  Then both
# binaries name that same recording with SMOLDER_REPLAY=FILE (no capture:
# the recorded samples are named and written as a capture's would be) with
# many naming options, while the workloads still run, so both read the
# same processes' symbols.
#
# pprof files are compared decompressed, without time_nanos (the time of
# writing, the one field that differs between two runs).  Prints one line
# per differing case and "N cases compared, M differ"; exit 1 if any differ.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BASE=${1:?usage: $0 BASE [CAPTURE_SECONDS]}
SECONDS_CAP=${2:-3}
NEW=$TOP/smolder
WL=$TOP/build/workloads
PY=/usr/bin/python3
T=$(mktemp -d /tmp/smolder-compare.XXXXXX)
PIDS=()
cases=0 differ=0

cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	git -C "$TOP" worktree remove --force "$T/base" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

die() { echo "compare-outputs: $*" >&2; exit 2; }

[ -x "$NEW" ] || die "no ./smolder (run make -j2)"
git -C "$TOP" worktree add --detach "$T/base" "$BASE" >/dev/null 2>&1 || die "cannot check out $BASE"
make -C "$T/base" -j2 smolder >"$T/base-build.log" 2>&1 || die "cannot build $BASE (see its log)"
OLD=$T/base/smolder

# pprof's profile message without field 9 (time_nanos), decompressed.
cat >"$T/pprof_strip.py" <<'EOF'
import gzip, sys
d = gzip.decompress(open(sys.argv[1], 'rb').read())
out, i = bytearray(), 0
def varint(i):
    v = s = 0
    while True:
        b = d[i]; i += 1; v |= (b & 0x7f) << s; s += 7
        if b < 0x80: return v, i
while i < len(d):
    start = i
    key, i = varint(i)
    wt = key & 7
    if wt == 0: _, i = varint(i)
    elif wt == 1: i += 8
    elif wt == 5: i += 4
    elif wt == 2:
        n, i = varint(i); i += n
    else: sys.exit("bad wire type %d" % wt)
    if key >> 3 != 9:
        out += d[start:i]
sys.stdout.buffer.write(out)
EOF

# same NAME OLD_FILE NEW_FILE: one case (none when neither build wrote it).
same() {
	local a=$2 b=$3
	[ ! -e "$2" ] && [ ! -e "$3" ] && return
	cases=$((cases + 1))
	if [[ $2 == *.pb.gz ]]; then
		"$PY" "$T/pprof_strip.py" "$2" >"$2.raw" && "$PY" "$T/pprof_strip.py" "$3" >"$3.raw" || {
			echo "DIFF $1: pprof unreadable"; differ=$((differ + 1)); return; }
		a=$2.raw b=$3.raw
	fi
	if [ ! -s "$a" ] && [ ! -s "$b" ]; then
		echo "EMPTY $1 (both)"
	fi
	cmp -s "$a" "$b" || { echo "DIFF $1: $(cmp "$a" "$b" 2>&1 | head -c 200)"; differ=$((differ + 1)); }
}

ALL_EXTS="folded svg speedscope.json pb.gz"
DIFF_EXTS="folded svg" # what smolder diff writes
EXTS=$ALL_EXTS

# run_both NAME [ENV=...] -- ARGS...: both binaries with ARGS, each output
# (EXTS) in $T/{old,new}/NAME.EXT, what stdout gets (the report, folded
# text, an SVG) in NAME.out, and the exit code; then every file compared.
run_both() {
	local name=$1 envs=() bin side ext
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	for side in old new; do
		bin=$OLD
		[ $side = new ] && bin=$NEW
		mkdir -p "$T/$side"
		local outs=()
		for ext in $EXTS; do outs+=(-o "$T/$side/$name.$ext"); done
		env "${envs[@]}" "$bin" "$@" "${outs[@]}" -q 2>"$T/$side/$name.err"
		echo "exit $?" >"$T/$side/$name.rc"
		env "${envs[@]}" "$bin" "$@" -q >"$T/$side/$name.out" 2>>"$T/$side/$name.err"
	done
	for ext in $EXTS out rc; do
		same "$name.$ext" "$T/old/$name.$ext" "$T/new/$name.$ext"
	done
}

# ---- generated input ----
G=0
[ "${3:-}" = captured ] || {
"$PY" - "$T" <<'EOF'
import random, sys
r = random.Random(13)
names = ["main", "run", "std::vector<int>::push_back(int const&)", "a b  c", "[unknown]",
         "ksys_read_[k]", "do_syscall_64_[k]", "jit_fn_[j]", "-", "x", "xy", "[lost user stack]",
         "ipt_do_table [ip_tables]", "\u00e9t\u00e9", "<script>", "\"q\"&amp", "cpu_3", "app-12/13"]
for f, n, frac in (("a", 3000, False), ("b", 2500, False), ("c", 400, True)):
    with open(f"{sys.argv[1]}/{f}.folded", "w") as out:
        for i in range(n):
            depth = r.choice([1, 2, 3, 5, 8, 20, 60])
            st = ";".join(r.choice(names[:10] if r.random() < 0.7 else names) for _ in range(depth))
            cnt = r.choice([1, 1, 2, 3, 7, 100]) if not frac else round(r.random() * 50, r.choice([0, 1, 3]))
            out.write(f"{st} {cnt}\n")
EOF
for opts in "" "--inverted" "--reverse" "--flamechart" "--colors kernel" "--colors mem --width 800" \
	"--title T<&> --subtitle s --countname ms" "--inverted --reverse --minwidth 0" "--minwidth 1%" \
	"--flamechart --inverted --colors io"; do
	G=$((G + 1))
	for in in a c; do
		# shellcheck disable=SC2086
		run_both "gen$G-flame-$in" -- flamegraph $opts "$T/$in.folded"
	done
	EXTS=$DIFF_EXTS
	# shellcheck disable=SC2086
	run_both "gen$G-diff" -- diff $opts "$T/a.folded" "$T/b.folded"
	# shellcheck disable=SC2086
	run_both "gen$G-diff-n" -- diff -n $opts "$T/b.folded" "$T/c.folded"
	EXTS=$ALL_EXTS
done
echo "generated input: $cases cases, $differ differ"
}

# ---- captured input ----
if [ "$(id -u)" != 0 ] || [ ! -x "$WL/many_stacks" ]; then
	echo "captured input skipped (needs root and make workloads)"
else
	# cxx_names as tests/cli/sym_cxx.sh builds it (C++ names to demangle)
	g++ -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls \
		-o "$T/cxx_names" "$TOP/tests/workloads/cxx_names.cpp" || die "cannot build cxx_names"
	WORKLOADS=("$WL/cpu_split 600" "$WL/threads 600" "$T/cxx_names 600" "$WL/deep_stack 600"
		   "$WL/many_stacks 600 2" "$WL/net_pump 600")
	# (re)starts the workloads not running: one may be ended by another
	# user of a shared machine; each recording's replays follow it at once
	workloads() {
		for i in "${!WORKLOADS[@]}"; do
			[ -n "${PIDS[$i]:-}" ] && kill -0 "${PIDS[$i]}" 2>/dev/null && continue
			[ -n "${PIDS[$i]:-}" ] && echo "note: restarted ${WORKLOADS[$i]%% *}"
			# shellcheck disable=SC2086
			${WORKLOADS[$i]} >/dev/null 2>&1 &
			PIDS[$i]=$!
		done
		sleep 1
		WPIDS=$(IFS=,; echo "${PIDS[*]}")
	}
	R=0
	# "p" first: captured with -p (the workloads alone); the rest are the
	# options both the capture and the replays take
	for rec in "p" "p --per-cpu --irq-frames --kworker" "p -I --per-cpu" "--idle-only" \
		"-K --irq-frames --kworker" "-K --per-cpu" "p -U"; do
		R=$((R + 1))
		workloads
		only=()
		[ "${rec%% *}" = p ] && only=(-p "$WPIDS") && rec=${rec#p}
		# shellcheck disable=SC2086
		SMOLDER_RECORD="$T/rec$R" "$NEW" -F 199 "${only[@]}" $rec -q -o /dev/null "$SECONDS_CAP" ||
			die "capture $R (${only[*]} $rec) failed"
		for view in "" "-f" "-d" "-a" "-d -a -f" "--per-pid" "--per-thread" "--per-cpu" \
			"--per-thread --per-cpu -d" "-K" "-U" "--group-threads" "--hottest-first" \
			"--title cap --colors kernel" "--no-demangle" "-f --per-pid"; do
			G=$((G + 1))
			# shellcheck disable=SC2086
			run_both "cap$R-$G" "SMOLDER_REPLAY=$T/rec$R" -- -F 199 $rec $view
		done
	done
fi
echo "$cases cases compared, $differ differ"
[ "$differ" = 0 ]
