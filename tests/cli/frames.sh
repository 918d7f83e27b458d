#!/bin/bash
# Frames without symbols.  A stripped copy of cpu_split must show its own
# frames as "[split_stripped+0xOFFSET]" with offsets that fall in the right
# functions (found in the unstripped binary: their starts,
# tests/cli/sym_stripped_funcs.sh checks that), in the 75/25 split; code run
# from an anonymous mapping (jit_anon) must show as "[anon]".
source "$(dirname "$0")/../lib.sh"

# --- stripped binary: [file+0xOFFSET] ---
mkdir -p "$TMP/bin"
cp "$WL/cpu_split" "$TMP/bin/split_stripped"
strip -s "$TMP/bin/split_stripped"
"$TMP/bin/split_stripped" 10 >/dev/null 2>&1 &
S=$!
sleep 0.3
run_sm st -f -F 999 -p "$S" 2
check stripped_exit_0 equals "$RC" 0
check stripped_no_symbols no_line "$TMP/st.out" '(^|;)(spin|burn_a|burn_b|run_loop|main)(;| )'
check stripped_frame_format some_line "$TMP/st.out" '^split_stripped;(.*;)?\[split_stripped\+0x[0-9a-f]+\];\[split_stripped\+0x[0-9a-f]+\] [0-9]+$'
# Function ranges as file offsets, from the unstripped binary's symbols and
# program headers: "name start end".
{
	readelf -lW "$WL/cpu_split" | awk '$1 == "LOAD" { print "LOAD", $2, $3, $5 }'
	nm -S "$WL/cpu_split" | awk '$3 ~ /^[tT]$/ && $4 ~ /^(spin|burn_a|burn_b)$/ { print "FUNC", $1, $2, $4 }'
} >"$TMP/syms"
# For each stack: leaf offset in spin?  caller in burn_a or burn_b?  (Each
# is named by its function's start, inside the function: not the return
# address, which for burn_a's call can be burn_b's start.)  Prints the sample shares "leaf_in_spin burn_a burn_b".
shares=$(awk '
	function hex(s,   i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	FNR == NR && $1 == "LOAD" { lo[++nl] = hex($3); off[nl] = hex($2); len[nl] = hex($4); next }
	FNR == NR && $1 == "FUNC" { v = hex($2)
		for (i = 1; i <= nl; i++) if (v >= lo[i] && v < lo[i] + len[i]) v = v - lo[i] + off[i]
		start[$4] = v; end[$4] = v + hex($3); next }
	{ n = $NF; t += n; k = 0
	  for (i = split($0, f, ";"); i > 0; i--) if (f[i] ~ /^\[split_stripped\+0x/) {
		o = f[i]; sub(/^\[split_stripped\+/, "", o); sub(/\].*/, "", o); fr[++k] = hex(o) }
	  if (k >= 2) {
		if (fr[1] >= start["spin"] && fr[1] < end["spin"]) leaf += n
		if (fr[2] >= start["burn_a"] && fr[2] < end["burn_a"]) a += n
		if (fr[2] >= start["burn_b"] && fr[2] < end["burn_b"]) b += n } }
	END { if (t) printf "%.1f %.1f %.1f\n", 100 * leaf / t, 100 * a / t, 100 * b / t; else print "0 0 0" }
' "$TMP/syms" "$TMP/st.out")
read -r leaf a b <<<"$shares"
echo "# frames: stripped: leaf in spin $leaf%, caller burn_a $a%, burn_b $b%"
check stripped_leaf_offsets_in_spin within "$leaf" 90 100
check stripped_caller_burn_a within "$a" 65 85
check stripped_caller_burn_b within "$b" 15 35
kill "$S"

# --- anonymous executable memory: [anon] ---
start_wl jit_anon 10 || exit 1
J=$WL_PID
sleep 0.2
run_sm anon -f -F 999 -p "$J" 2
check anon_exit_0 equals "$RC" 0
check anon_leaf within "$(share "$TMP/anon.out" '^jit_anon;(.*;)?main;[[]anon[]]( |;)')" 90 100
