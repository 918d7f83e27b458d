#!/usr/bin/env bash
# --serve over a long run (`make bench-serve`; issue 25's soak).  One
# smolder --serve at the default 19 Hz on loopback, beside a steady
# cpu_split, is scraped every 2 s (SERVE_SCRAPE) for 10 minutes
# (SERVE_SECONDS) with seconds=2, as a fleet scraper would, by curl:
#
#   RSS after the first minute and at the end (target: under 1 MiB growth),
#   samples lost (smolder_lost_samples_total, target 0), scrapes that were
#   not a whole 200, and smolder's own CPU time, user and system, as a
#   share of one core (target: under 1% at 19 Hz on 2 CPUs).
#
# No peer: the figures are checked against the issue's targets.
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=$ROOT/smolder
WL=$ROOT/build/workloads
SECS=${SERVE_SECONDS:-600}
EVERY=${SERVE_SCRAPE:-2}
PORT=${SERVE_PORT:-17171}
need_root
need_built "$SMOLDER"
need_built "$WL/cpu_split" workloads
need_cmd curl curl
make_tmp
HZ_TICK=$(getconf CLK_TCK)
URL=http://127.0.0.1:$PORT

"$WL/cpu_split" "$((SECS + 30))" >/dev/null 2>&1 &
"$SMOLDER" --serve "127.0.0.1:$PORT" 2>"$TMP/serve.err" &
S=$!
for i in $(seq 100); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/debug/pprof/")" = 200 ] && break
	sleep 0.1
done
ticks() { awk '{ print $14 + $15 }' "/proc/$S/stat"; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$S/status"; }
t0=$(date +%s.%N)
c0=$(ticks)
bad=0
n=0
rss1=""
while :; do
	now=$(date +%s.%N)
	el=$(awk -v a="$t0" -v b="$now" 'BEGIN { print int(b - a) }')
	[ "$el" -ge "$SECS" ] && break
	[ -z "$rss1" ] && [ "$el" -ge 60 ] && rss1=$(rss)
	code=$(curl -s -o "$TMP/p.pb.gz" -w '%{http_code}' --max-time 10 "$URL/debug/pprof/profile?seconds=$EVERY")
	n=$((n + 1))
	{ [ "$code" = 200 ] && gzip -t "$TMP/p.pb.gz" 2>/dev/null; } || bad=$((bad + 1))
done
t1=$(date +%s.%N)
c1=$(ticks)
rss2=$(rss)
curl -s "$URL/metrics" >"$TMP/metrics"
kill -TERM "$S"
wait "$S"
lost=$(awk '$1 ~ /^smolder_lost_samples_total/ { t += $2 } END { print t + 0 }' "$TMP/metrics")
samples=$(awk '$1 == "smolder_samples_total" { print $2 }' "$TMP/metrics")
cpu=$(awk -v c="$((c1 - c0))" -v hz="$HZ_TICK" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", 100 * c / hz / (b - a) }')
echo "bench-serve: $(machine)"
echo "  $n scrapes of ${EVERY} s over $SECS s, $bad not a whole 200"
echo "  RSS: $rss1 KiB after 60 s, $rss2 KiB at the end ($((rss2 - rss1)) KiB growth)"
echo "  samples: $samples taken, $lost lost"
echo "  smolder CPU (user + system): $cpu% of one core at 19 Hz"
