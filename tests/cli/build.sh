#!/bin/bash
# The binary can be copied to another host: libbpf, libelf and zlib are
# linked in, so ldd lists nothing but the C library (and the vDSO/loader).
source "$(dirname "$0")/../lib.sh"

others=$(ldd "$SMOLDER" | awk '{ print $1 }' | grep -vE '^(linux-vdso\.so\.1|linux-gate\.so\.1|libc\.so\.6|/lib.*/ld-linux.*\.so\.[0-9]+)$')
if [ -z "$others" ] && ldd "$SMOLDER" | grep -q 'libc\.so\.6'; then
	pass "ldd lists only the C library"
else
	fail "ldd lists only the C library" "also: $others"
fi
# The BPF object is embedded: the binary runs from anywhere, alone.
cp "$SMOLDER" "$TMP/smolder-copy"
if (cd / && "$TMP/smolder-copy" -F 99 -f 0.3 >/dev/null 2>"$TMP/err"); then
	pass "a copy of the binary elsewhere runs on its own"
else
	fail "copied binary runs" "$(cat "$TMP/err")"
fi
