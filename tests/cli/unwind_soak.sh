#!/bin/bash
# Continuous mode with unwind tables over many intervals, under a budget the
# tables do not fit in (issue 14: "tables live across intervals within the
# budget; a soak shows memory flat", "the least recently used files are
# evicted first", "a table that did not fit is counted").
#
# Eight copies of Debian's python3.11 (eight files, so eight tables of about
# 0.5 MiB) take turns on CPU 1, each for 0.8 s of a pure-Python loop, three
# rounds, while smolder samples CPU 1 in 1 s intervals with --unwind-memory
# 2: the copies' tables cannot all be loaded at once, so the least recently
# used are evicted for the next.  Checks: every status line keeps the tables
# within the budget; RSS in the last third at most 2 MiB above its peak in
# the first (the symbol caches and tables are as big as they will get after
# one round); evictions counted in the summary; and a copy whose table had
# been evicted still gets whole stacks (_start down to the loop's
# _PyEval_EvalFrameDefault) once its table is back: >= 80% of the python
# samples of the last round.
# With --no-inline: inline frames read a library's DWARF the first time a
# sample lands in it, and here that is random (libc6-dbg's libm: 2.4 MB
# inflated, first sampled in any of the three rounds), so RSS would step
# whenever that is: a cache filling, charged to the symbol budget, not the
# tables' growth this test is after (measured: with it, 2 soaks in 6 grew
# 2.6-3.5 MiB in the last third, each the step of one debug file's sections;
# without it, 4 in 4 grew under 70 KiB).
source "$(dirname "$0")/../lib.sh"

PY=$(readlink -f /usr/bin/python3.11 2>/dev/null)
if [ ! -x "$PY" ]; then
	echo "SKIP unwind_soak: /usr/bin/python3.11 is missing"
	exit 0
fi
COPIES=8
for i in $(seq $COPIES); do cp "$PY" "$TMP/pyc$i" || exit 1; done
cat >"$TMP/loop.py" <<'PY'
import sys, time
def work(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s
end = time.time() + float(sys.argv[1])
while time.time() < end:
    work(20000)
PY

# In a PID namespace of its own, so that the other processes on CPU 1 (whose
# samples are counted as outside our namespace) build no tables: the budget
# is the copies' alone.
cat >"$TMP/inner.sh" <<INNER
"$SMOLDER" -vv -U -C 1 -F 199 --continuous --interval 1 --unwind-memory 2 --no-python --no-inline \\
	--output-dir "$TMP/soak" >"$TMP/soak.out" 2>"$TMP/soak.err" &
sm=\$!
sleep 2
for r in 1 2 3; do
	for i in \$(seq $COPIES); do taskset -c 1 "$TMP/pyc\$i" "$TMP/loop.py" 0.8; done
done
sleep 1.5
kill -INT \$sm
wait \$sm
echo \$? >"$TMP/soak.rc"
INNER
unshare --pid --fork --mount-proc bash "$TMP/inner.sh"
RC=$(cat "$TMP/soak.rc" 2>/dev/null)

check soak_exit_0 equals "$RC" 0
# status lines: "... tables N files K KiB, RSS R KiB -> FILE"
grep -E '^smolder: [0-9:]+Z \+[0-9]+s: .*, tables [0-9]+ files [0-9]+ KiB, RSS [0-9]+ KiB' \
	"$TMP/soak.err" >"$TMP/status" || true
n=$(wc -l <"$TMP/status")
echo "# unwind_soak: $n status lines; $(grep '^smolder: unwind tables:' "$TMP/soak.err")"
check soak_status_lines within "$n" 20 60
maxkib=$(sed -nE 's/.*, tables [0-9]+ files ([0-9]+) KiB.*/\1/p' "$TMP/status" | sort -n | tail -n 1)
check soak_tables_within_budget within "${maxkib:-0}" 1 2048
# RSS per status line, with the wall clock of its profile (the file name)
awk '{ for (i = 1; i <= NF; i++) if ($i == "RSS") print $(i + 1) }' "$TMP/status" >"$TMP/rss"
first=$(head -n $((n / 3)) "$TMP/rss" | sort -n | tail -n 1)
last=$(tail -n $((n / 3)) "$TMP/rss" | sort -n | tail -n 1)
echo "# unwind_soak: peak RSS $first KiB in the first third, $last KiB in the last third"
check soak_rss_flat within "$((${last:-0} - ${first:-0}))" -1000000 2048
evicted=$(sed -nE 's/^smolder: unwind tables: .* ([0-9]+) evicted;.*/\1/p' "$TMP/soak.err")
check soak_evictions_counted within "${evicted:-0}" 1 100000
# the last round's profiles: whole python stacks again after eviction
last_round=$(ls "$TMP/soak"/smolder-*.folded 2>/dev/null | sort | tail -n 8 | head -n 6)
if [ -n "$last_round" ]; then
	cat $last_round | grep -E '^pyc[0-9];' >"$TMP/last.folded"
	pct=$(share "$TMP/last.folded" '^pyc[0-9];_start;.*;_PyEval_EvalFrameDefault( |;)')
	echo "# unwind_soak: last round: $(total "$TMP/last.folded") python samples, $pct% whole"
	check soak_whole_after_eviction within "$pct" 80 100
else
	fail soak_whole_after_eviction "no profiles in $TMP/soak"
fi
