#!/bin/bash
# The DWARF unwinder on Debian's own binaries, built without frame pointers,
# against `perf record --call-graph dwarf` in the same run: perf, smolder
# (--unwind dwarf, the default) and smolder --unwind fp profile the same
# process at the same time.  Each program spends its time in a library (or
# in its own big binary, for the interpreters); for each tool, the share of
# the samples whose leaf is in that file that reach from the C runtime's
# entry (the executable's entry code, named _start or not, then
# __libc_start_main) down to the file's entry function (lzma_code,
# sqlite3_step, _PyEval_EvalFrameDefault, ...).  smolder must reach at least
# 95% wherever perf's stacks do, and never less than perf where they do not
# (perf copies 8 KiB of stack per sample and cuts every stack with more
# above it: bzip2's).  Every path smolder reports from the entry to the
# function must be one perf saw too (unnamed frames compare as equal), and
# --unwind fp must fall short: the binaries really have no frame pointers.
# smolder runs with --no-python: the interpreters' own frames, as perf sees
# them (Python frames in their place are tests/cli/python_*.sh's).
source "$(dirname "$0")/../lib.sh"

SECONDS_PER_RUN=${UNWIND_SECONDS:-3}
HZ=499
LIB=/usr/lib/x86_64-linux-gnu
PY=$(readlink -f /usr/bin/python3)

for t in perf xz bzip2 sqlite3 perl nm readelf; do
	command -v "$t" >/dev/null || { fail "tools_present" "$t is missing (run scripts/deps.sh)"; exit 0; }
done
[ -x "$PY" ] || { fail "tools_present" "/usr/bin/python3 is missing (run scripts/deps.sh)"; exit 0; }

# Text that compresses slowly enough (xz: about 1.4 MB/s here).
seq 1 800000 | awk '{ print $1, $1 * 7 % 1000, "line" }' >"$TMP/data.txt"
cat >"$TMP/loop.py" <<'PY'
import time
def work(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s
end = time.time() + 30
while time.time() < end:
    work(100000)
PY
cat >"$TMP/loop.pl" <<'PL'
my $end = time + 30; my $s = 0;
while (time < $end) { for my $i (1 .. 100000) { $s += $i * $i % 7 } }
PL
SQL="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100000000) SELECT sum(x * x % 7) FROM c;"

# perf script's stacks of the hot file's samples: prints "HOT REACH" and
# the paths from the entry to FN, one a line, to the file PATHS.
perf_reach() {
	awk -v lib="$1" -v fn="$2" -v exe="$3" -v paths="$4" '
	function sample(   i, j, has, p) {
		if (!n) return
		for (i = 1; i <= n && dso[i] ~ /kernel\.kallsyms|^\[/; i++)
			;
		if (i <= n && dso[i] == lib) {
			hot++
			has = 0; p = ""
			for (j = n; j >= 1; j--) {
				p = p ";" (sym[j] == "[unknown]" ? "?" : sym[j])
				if (sym[j] == fn) { has = 1; break }
			}
			if (dso[n] == exe && sym[n - 1] == "__libc_start_main" && has) {
				reach++
				print p >paths
			}
		}
		n = 0
	}
	/^[^ \t]/ || /^$/ { sample(); next }
	{
		d = $NF; gsub(/[()]/, "", d); sub(/.*\//, "", d)
		s = $2; sub(/@.*/, "", s); sub(/\+0x[0-9a-f]+$/, "", s)
		n++; sym[n] = s; dso[n] = d
	}
	END { sample(); printf "%d %d\n", hot, reach; close(paths) }'
}

# smolder's folded stacks (-U) of the hot file's samples, a leaf being in
# the file when it is one of its dynamic symbols (DYN, a file of names) or
# "[FILE+0x...]": prints "HOT REACH AGREE EXAMPLE", AGREE those whose path
# from the entry to FN is one of PATHS (perf_reach's), EXAMPLE one that is not.
smolder_reach() {
	awk -v lib="$1" -v fn="$2" -v exe="$3" '
	FILENAME == ARGV[1] { dyn[$1] = 1; next }
	FILENAME == ARGV[2] { seen[$0] = 1; next }
	{
		c = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, f, ";")
		if (!((f[k] in dyn) || index(f[k], "[" lib "+0x") == 1)) next
		hot += c
		has = 0; p = ""
		for (j = 2; j <= k; j++) {
			p = p ";" (f[j] ~ /^\[.*\+0x[0-9a-f]+\]$/ ? "?" : f[j])
			if (f[j] == fn) { has = 1; break }
		}
		if ((f[2] == "_start" || index(f[2], "[" exe "+0x") == 1) && f[3] == "__libc_start_main" && has) {
			reach += c
			if (p in seen) agree += c
			else if (example == "") example = p
		}
	}
	END { printf "%d %d %d %s\n", hot, reach, agree, example }' "$4" "$5" "$6"
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }'; }

# debian NAME FILE FN COMMAND...: runs COMMAND, profiles it with the three
# tools at once, and checks smolder's share against perf's.  FILE is where
# the time goes (a library, or the program), FN its entry on the path.
debian() {
	local name=$1 file=$2 fn=$3 exe lib pp sp ph pr sh sr sa ex fh fr want
	shift 3
	file=$(readlink -f "$file")
	lib=$(basename "$file")
	exe=$(basename "$(readlink -f "$(command -v "$1")")")
	start_cmd "$exe" "$@" || { fail "${name}_started" "$(head -c 300 "$WL_OUT")"; return; }
	sleep 0.5 # past start-up: the profile is of the steady state
	perf record -q -e cpu-clock -F "$HZ" --call-graph dwarf -p "$WL_PID" -o "$TMP/$name.data" \
		-- sleep "$SECONDS_PER_RUN" >"$TMP/$name.perf.err" 2>&1 &
	pp=$!
	"$SMOLDER" -U -F "$HZ" -f -p "$WL_PID" --unwind fp --no-python -o "$TMP/$name.fp.folded" \
		"$SECONDS_PER_RUN" 2>"$TMP/$name.fp.err" &
	sp=$!
	run_sm "$name" -v -U -F "$HZ" -f --no-python -p "$WL_PID" "$SECONDS_PER_RUN"
	wait "$pp" "$sp"
	kill "$WL_PID" 2>/dev/null
	wait "$WL_PID" 2>/dev/null
	check "${name}_exit_0" equals "$RC" 0

	nm -D --defined-only "$file" | awk '{ sub(/@.*/, "", $NF); print $NF }' >"$TMP/$name.dyn"
	perf script -i "$TMP/$name.data" --no-inline -F comm,tid,ip,sym,dso 2>/dev/null |
		perf_reach "$lib" "$fn" "$exe" "$TMP/$name.paths" >"$TMP/$name.perf.reach"
	touch "$TMP/$name.paths"
	read -r ph pr <"$TMP/$name.perf.reach"
	read -r sh sr sa ex <<<"$(smolder_reach "$lib" "$fn" "$exe" "$TMP/$name.dyn" "$TMP/$name.paths" "$TMP/$name.out")"
	read -r fh fr _ <<<"$(smolder_reach "$lib" "$fn" "$exe" "$TMP/$name.dyn" "$TMP/$name.paths" "$TMP/$name.fp.folded")"
	local perf_pct sm_pct fp_pct
	perf_pct=$(pct "$pr" "$ph")
	sm_pct=$(pct "$sr" "$sh")
	fp_pct=$(pct "$fr" "$fh")
	echo "# unwind_debian: $name ($lib, to $fn): smolder $sm_pct% of $sh, perf $perf_pct% of $ph, --unwind fp $fp_pct% of $fh; $(grep '^smolder: user stacks:' "$TMP/$name.err" | cut -c10-)"
	if [ "$ph" -lt 200 ] || [ "$sh" -lt 200 ]; then
		fail "${name}_reach" "too few samples in $lib: smolder $sh, perf $ph (want 200 each); top stacks: $(top_stacks "$TMP/$name.out" 2 | cut -c1-300)"
		return
	fi
	# 95% where perf reaches; where perf's copy cuts, no worse than perf
	want=$(awk -v p="$perf_pct" 'BEGIN { print (p >= 95 ? 95 : p) }')
	if between "$sm_pct" "$want" 100; then
		pass "${name}_reach: smolder $sm_pct% ($sr of $sh), perf $perf_pct% ($pr of $ph), want >= $want%"
	else
		fail "${name}_reach" "smolder $sm_pct% ($sr of $sh), perf $perf_pct% ($pr of $ph), want >= $want%; top stacks: $(top_stacks "$TMP/$name.out" 2 | cut -c1-400)"
	fi
	if [ "$pr" -gt 0 ] && between "$(pct "$sa" "$sr")" 99 100; then
		pass "${name}_paths_as_perf: $sa of $sr"
	else
		fail "${name}_paths_as_perf" "$sa of $sr reaching samples on a path perf saw ($pr reaching samples); not seen: ${ex:0:300}"
	fi
	check "${name}_no_frame_pointers" within "$fp_pct" 0 50
}

debian xz "$LIB/liblzma.so.5" lzma_code xz -T1 -6 -c "$TMP/data.txt"
debian bzip2 "$LIB/libbz2.so.1.0" BZ2_bzCompress bzip2 -9 -c \
	"$TMP/data.txt" "$TMP/data.txt" "$TMP/data.txt" "$TMP/data.txt" "$TMP/data.txt" "$TMP/data.txt" \
	"$TMP/data.txt" "$TMP/data.txt" "$TMP/data.txt" "$TMP/data.txt" "$TMP/data.txt" "$TMP/data.txt"
debian sqlite3 "$LIB/libsqlite3.so.0" sqlite3_step sqlite3 :memory: "$SQL"
debian python "$PY" _PyEval_EvalFrameDefault "$PY" "$TMP/loop.py"
debian perl /usr/bin/perl Perl_runops_standard perl "$TMP/loop.pl"
