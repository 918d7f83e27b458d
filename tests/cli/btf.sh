#!/bin/bash
# Without kernel BTF smolder cannot relocate its BPF program: it must say so
# in one line naming the fix.  BTF is hidden with a tmpfs over
# /sys/kernel/btf inside a private mount namespace.
source "$(dirname "$0")/../lib.sh"

unshare -m bash -c "mount -t tmpfs none /sys/kernel/btf && '$SMOLDER' -f 1" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] &&
	grep -q "^smolder: kernel BTF not found .*CONFIG_DEBUG_INFO_BTF=y" "$TMP/err" &&
	[ ! -s "$TMP/out" ]; then
	pass "no BTF: one-line error naming CONFIG_DEBUG_INFO_BTF, exit 1"
else
	fail "no BTF error" "rc=$rc err=$(cat "$TMP/err") out=$(head -c 100 "$TMP/out")"
fi
