#!/bin/bash
# --serve against hostile clients, as user nobody (bounded as http.h says):
# 200 slow-loris connections (one header byte a second) neither delay a
# real scrape by more than 1 s nor outlive the idle timeout; 10,000
# malformed requests (garbage, oversized headers, huge URLs, pipelined
# junk) leave smolder serving, its RSS within 16 MiB of the idle daemon's;
# a client that hangs up mid-window leaves nothing behind.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_serve.sh"
if ! command -v curl >/dev/null || ! [ -x /usr/bin/python3 ]; then
	fail serve_hostile_deps "curl or python3 not found (scripts/deps.sh installs them)"
	exit 0
fi
HOSTILE="$TOP/tests/tools/http_hostile.py"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

start_wl cpu_split 600 || exit 1
# only cpu_split: symbols of what else runs on the machine stay out of RSS
start_serve h -F 99 -p "$WL_PID" || exit 1
# scrape_took: seconds a real 1 s scrape takes, its profile whole
scrape_took() {
	curl -s -o "$TMP/scrape.pb.gz" -w '%{time_total}' --max-time 10 "$URL/debug/pprof/profile?seconds=1"
}
scrape_took >/dev/null # warm: symbols read, caches filled
IDLE_KIB=$(rss_kib "$SP")
BASE=$(scrape_took)

# --- 200 slow lorises ---
as_nobody /usr/bin/python3 "$HOSTILE" loris "$PORT" 200 12 >"$TMP/loris.out" 2>&1 &
L=$!
wait_for "$TMP/loris.out" '^open 200$' 10 || { fail loris_started "$(head -c 300 "$TMP/loris.out")"; exit 0; }
for try in 1 2 3; do
	took=$(scrape_took)
	delay=$(awk -v a="$took" -v b="$BASE" 'BEGIN { printf "%.2f", a - b }')
	between "$delay" -5 1 && break
done
echo "scrape: $BASE s alone, $took s beside 200 slow connections"
check loris_scrape_not_delayed within "$delay" -5 1
check loris_scrape_whole gzip -t "$TMP/scrape.pb.gz"
wait $L
echo "lorises: $(cat "$TMP/loris.out" | tail -n 1)"
# HTTP_IDLE_SECONDS (5) from accepting, checked every 100 ms
check loris_all_dropped some_line "$TMP/loris.out" '^closed 200 of 200'
check loris_dropped_at_timeout within "$(sed -n 's/.*last after \([0-9.]*\) s$/\1/p' "$TMP/loris.out")" 4 6.5
check loris_connections_gone equals "$(metric smolder_http_connections)" 1

# --- 10,000 malformed requests ---
as_nobody /usr/bin/python3 "$HOSTILE" fuzz "$PORT" 10000 >"$TMP/fuzz.out" 2>&1
check fuzz_sent some_line "$TMP/fuzz.out" '^sent 10000$'
check fuzz_still_running kill -0 "$SP"
AFTER_KIB=$(rss_kib "$SP")
echo "RSS: idle $IDLE_KIB KiB, after the fuzzing $AFTER_KIB KiB"
check fuzz_rss_within_16m within "$AFTER_KIB" 1 "$((IDLE_KIB + 16384))"
took=$(scrape_took)
check fuzz_then_scrape_whole gzip -t "$TMP/scrape.pb.gz"

# --- a client that hangs up mid-window: its window closes then ---
curl -s -o /dev/null --max-time 1 "$URL/debug/pprof/profile?seconds=20"
sleep 0.5
check hangup_cancelled equals "$(metric 'smolder_profiles_total{outcome="cancelled"}')" 1
check hangup_no_open_request equals "$(metric smolder_http_open_requests)" 0
check hangup_no_window_memory equals "$(metric 'smolder_memory_bytes{what="windows"}')" 0
check hangup_then_scrape_whole sh -c "curl -s '$URL/debug/pprof/profile?seconds=1' | gzip -t"
stop_serve
