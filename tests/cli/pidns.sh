#!/bin/bash
# PIDs are those of smolder's PID namespace: run smolder inside a new PID
# namespace next to a workload and check the process frames it prints.
source "$(dirname "$0")/../lib.sh"

inner="$TMP/inner.sh"
cat > "$inner" <<INNER
$WL/cpu_split 4 &
wl=\$!
sleep 0.3
echo "\$wl" > "$TMP/inner.pid"
"$SMOLDER" -F 499 -p "\$wl" --per-pid -f -o "$TMP/ns.folded" 2 2> "$TMP/ns.err"
kill \$wl 2>/dev/null
INNER
unshare --pid --fork --mount-proc bash "$inner"
inner_pid=$(cat "$TMP/inner.pid" 2>/dev/null)

if [ -n "$inner_pid" ] && [ "$inner_pid" -lt 100 ]; then
	pass "pidns: workload has a small pid inside the namespace ($inner_pid)"
else
	fail "pidns: workload has a small pid inside the namespace" "got '$inner_pid'"
fi
if [ -s "$TMP/ns.folded" ] && awk -v p="cpu_split-$inner_pid;" 'index($0, p) != 1 { bad = 1 } END { exit bad }' "$TMP/ns.folded"; then
	pass "pidns: -p with the namespace's pid selects the workload, frames say cpu_split-$inner_pid"
else
	fail "pidns: frames carry the namespace's pid" "$(head -c 300 "$TMP/ns.folded") $(cat "$TMP/ns.err")"
fi
if grep -q "burn_a" "$TMP/ns.folded" 2>/dev/null; then
	pass "pidns: user frames of the workload are named inside the namespace"
else
	fail "pidns: user frames named" "$(head -c 300 "$TMP/ns.folded")"
fi

# From the initial namespace the same kind of workload shows its global pid.
"$WL/cpu_split" 3 &
wl=$!
sleep 0.3
"$SMOLDER" -F 499 -p "$wl" --per-pid -f -o "$TMP/host.folded" 1 2>/dev/null
if grep -q "^cpu_split-$wl;" "$TMP/host.folded"; then
	pass "pidns: the initial namespace sees the global pid $wl"
else
	fail "pidns: global pid" "$(head -c 300 "$TMP/host.folded")"
fi
kill $wl 2>/dev/null
