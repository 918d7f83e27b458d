# Helpers for the tests of --serve (sourced after lib.sh; files starting
# with _ are not run by tests/run.sh).
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
mkdir -p "$HOME"

# start_serve NAME ARGS...: smolder --serve 127.0.0.1:PORT ARGS in the
# background (stderr in $TMP/NAME.err), on a free port it finds; waits
# until it serves (else a FAIL line).  Sets PORT, SP (its pid) and URL.
start_serve() {
	local name=$1 i try
	shift
	for try in 1 2 3 4 5; do
		PORT=$((20000 + RANDOM % 20000))
		"$SMOLDER" --serve "127.0.0.1:$PORT" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
		SP=$!
		URL="http://127.0.0.1:$PORT"
		for i in $(seq 100); do
			# any status: it answers (401 with a token)
			[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/debug/pprof/" 2>/dev/null)" != 000 ] &&
				return 0
			kill -0 "$SP" 2>/dev/null || break
			sleep 0.1
		done
		kill "$SP" 2>/dev/null
		wait "$SP" 2>/dev/null
		grep -q 'cannot listen' "$TMP/$name.err" || break
	done
	fail "${name}_serve_starts" "$(head -c 400 "$TMP/$name.err" | tr '\n' ' ')"
	return 1
}
stop_serve() { kill -TERM "$SP" 2>/dev/null; wait "$SP" 2>/dev/null; }

# raw_counts RAWFILE: "total burn_a burn_b" samples of go tool pprof -raw's
# output (a sample counts for a function when a location on its stack is
# that function's).
raw_counts() {
	awk '
	/^Samples:/ { s = 1; next }
	/^Locations/ { s = 0; l = 1; next }
	/^Mappings/ { l = 0 }
	s && /^ *[0-9]+ +[0-9]+: / { n++; cnt[n] = $1; stk[n] = ""; for (i = 3; i <= NF; i++) stk[n] = stk[n] " " $i }
	l && /^ *[0-9]+: 0x/ { id = $1; sub(":", "", id); fn[id] = $4 }
	END {
		for (k = 1; k <= n; k++) {
			split(stk[k], ids, " "); a = b = 0
			for (j in ids) { if (fn[ids[j]] == "burn_a") a = 1; if (fn[ids[j]] == "burn_b") b = 1 }
			t += cnt[k]; A += a * cnt[k]; B += b * cnt[k]
		}
		print t + 0, A + 0, B + 0
	}' "$1"
}

# metric NAME_AND_LABELS: its value in a /metrics scrape of $URL.
metric() { curl -s "$URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

# rss_kib PID
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
