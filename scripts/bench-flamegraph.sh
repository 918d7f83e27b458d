#!/usr/bin/env bash
# Flame graph rendering: `smolder flamegraph` against Brendan Gregg's
# flamegraph.pl on the same folded files, in one run (`make bench-flamegraph`,
# also part of `make bench`).  flamegraph.pl is not shipped with smolder,
# nor packaged by Debian: set FLAMEGRAPH_PL=/path/to/flamegraph.pl, or
# FLAMEGRAPH_DIR to a checkout of github.com/brendangregg/FlameGraph (a
# work tree or a bare clone).  With neither, the bench says so and skips.
#
# Inputs are generated (seeded, so every run draws the same files): 10,000
# and 100,000 folded lines of 20-40 frames with C++-like names, about 880
# bytes a line, like a busy server's perf output.  Reports wall time and
# peak RSS (/usr/bin/time) of each tool and the SVG sizes; smolder's time is
# the median of 3 runs, flamegraph.pl runs once per file (it takes seconds).
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=$ROOT/smolder
FG=${FLAMEGRAPH_PL:-}
dir=${FLAMEGRAPH_DIR:-}
if [ -z "$FG" ] && [ -z "$dir" ]; then
	echo "bench-flamegraph: skipped: no flamegraph.pl to compare with (set FLAMEGRAPH_PL=/path/to/flamegraph.pl or FLAMEGRAPH_DIR to a FlameGraph checkout)"
	exit 0
fi
need_built "$SMOLDER"
need_time
need_cmd perl perl
make_tmp

if [ -z "$FG" ]; then
	if [ -f "$dir/flamegraph.pl" ]; then FG=$dir/flamegraph.pl
	elif git -C "$dir" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		git -C "$dir" show HEAD:flamegraph.pl >"$TMP/flamegraph.pl" && FG=$TMP/flamegraph.pl
		FG_REV=$(git -C "$dir" rev-parse --short HEAD)
	fi
	[ -n "$FG" ] || die "no flamegraph.pl in FLAMEGRAPH_DIR=$dir (a FlameGraph checkout has it at its top)"
fi
[ -f "$FG" ] || die "FLAMEGRAPH_PL=$FG is not a file"

# gen LINES: deterministic folded stacks.  Each frame follows from its
# parent through a small branching factor, so stacks share prefixes the way
# real ones do, and leaves differ.
gen() {
	awk -v n="$1" 'BEGIN {
		srand(42)
		for (i = 0; i < 400; i++)
			name[i] = sprintf("mod%02d::Comp%03d::run_%03d(int)", i % 37, i, (i * 7) % 400)
		for (l = 0; l < n; l++) {
			d = 20 + int(rand() * 21); f = int(rand() * 4); s = "server"
			for (k = 0; k < d; k++) {
				f = (f * 31 + k * 17 + int(rand() * (k < 8 ? 2 : 6))) % 400
				s = s ";" name[f]
			}
			print s, 1 + int(rand() * 100)
		}
	}'
}

# run SVG TIMEFILE CMD...: wall seconds of CMD (stdout to the SVG file).
run() {
	local out=$1 tf=$2 t0
	shift 2
	t0=$(now_us)
	timed "$tf" "$@" >"$out" 2>"$TMP/err" || { cat "$TMP/err" >&2; die "$* failed"; }
	secs "$t0" "$(now_us)" 3
}
kib() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", b / 1024 }'; }

echo "smolder $("$SMOLDER" --version | cut -d' ' -f2), flamegraph.pl from ${FG_REV:-$FG}, perl $(perl -e 'print $^V')"
machine
printf "%-12s %-9s %-22s %-22s %-18s %-18s %s\n" lines "input" "flamegraph.pl s/KiB" "smolder s/KiB" "time ratio" "memory ratio" "SVG KiB (pl/smolder)"
for n in 10000 100000; do
	gen "$n" >"$TMP/in.folded"
	tp=$(run "$TMP/pl.svg" "$TMP/pl.time" perl "$FG" "$TMP/in.folded")
	ts=()
	for i in 1 2 3; do
		ts+=("$(run "$TMP/sm.svg" "$TMP/sm.time" "$SMOLDER" flamegraph "$TMP/in.folded")")
	done
	t=$(median "${ts[@]}")
	rp=$(rss_of "$TMP/pl.time"); rs=$(rss_of "$TMP/sm.time")
	printf "%-12s %-9s %-22s %-22s %-18s %-18s %s\n" "$n" "$(kib "$TMP/in.folded") KiB" \
		"$tp s / $rp" "$t s / $rs" \
		"$(awk -v a="$tp" -v b="$t" 'BEGIN { printf "%.1fx faster", a / b }')" \
		"$(awk -v a="$rp" -v b="$rs" 'BEGIN { printf "%.1fx less", a / b }')" \
		"$(kib "$TMP/pl.svg") / $(kib "$TMP/sm.svg")"
done
