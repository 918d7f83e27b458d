#!/bin/sh
# make demo: five seconds of the whole machine while a test workload whose
# split is known runs (cpu_split: 75% of its time in burn_a, 25% in
# burn_b), drawn as demo.svg; prints the hottest stacks and what to open.
set -e
cd "$(dirname "$0")/.."
SECONDS_=${DEMO_SECONDS:-5}
OUT=$(cd "${DEMO_DIR:-.}" && pwd) # where demo.svg and demo.folded go
build/workloads/cpu_split $((SECONDS_ + 1)) >/dev/null &
WL=$!
trap 'kill $WL 2>/dev/null || true' EXIT
echo "profiling the whole machine for $SECONDS_ s, with build/workloads/cpu_split (PID $WL) running..."
./smolder -F 99 --per-pid -o "$OUT/demo.svg" -o "$OUT/demo.folded" "$SECONDS_"
echo
echo "the hottest stacks (samples, stack) of $OUT/demo.folded:"
awk '{ print $NF "\t" $0 }' "$OUT/demo.folded" | sort -rn | head -n 10 | cut -f2- |
	awk '{ n = $NF; sub(/ [^ ]*$/, ""); if (length($0) > 110) $0 = "..." substr($0, length($0) - 106); printf "%8d  %s\n", n, $0 }'
echo
echo "open the flame graph: file://$OUT/demo.svg"
echo "  cpu_split-$WL is the wide tower: click it to zoom, Search (Ctrl-F) burn_a: ~75% of its samples."
echo "  the same graph with burn_a searched: file://$OUT/demo.svg?s=burn_a"
echo "next: sudo ./smolder -- COMMAND (one program), sudo ./smolder -p PID -o app.svg, ./smolder --help"
