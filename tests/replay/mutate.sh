#!/bin/bash
# mutate.sh NAME IN OUT: IN (bpf/unwind.bpf.h) with one deliberate bug,
# NAME, into OUT, for the replay's mutants: build/replay/mutants/NAME/replay
# is the replay built on it, and test_unwind_replay checks that each fails
# on the recordings (a walk broken so must not pass).  Fails, naming the
# mutation, when it no longer changes exactly one line of IN.
set -e
name=$1 in=$2 out=$3
case $name in
cfa_plus_8) # the CFA of a CFA_RSP row 8 bytes too high
	expr='s|cfa = s->sp + (__u64)row.cfa_off \* 8;|cfa = s->sp + (__u64)row.cfa_off * 8 + 8;|' ;;
ra_below_cfa) # the return address read 16 bytes below the CFA, not 8
	expr='s|(void \*)(cfa - 8)|(void *)(cfa - 16)|' ;;
row_search) # the binary search skips a row starting exactly at the address
	expr='s|if (r->pc <= (__u32)off)|if (r->pc < (__u32)off)|' ;;
plt_push) # a PLT entry's push of its index not counted
	expr='s|>= (__u8)row.rbp_off ? 8 : 0)|>= (__u8)row.rbp_off ? 0 : 0)|' ;;
signal_pc) # the pc a signal interrupted taken as a return address
	expr='/^static __always_inline int signal_step/,/^}/ s|s->exact = 1;|s->exact = 0;|' ;;
*)
	echo "mutate.sh: unknown mutation '$name'" >&2
	exit 2 ;;
esac
mkdir -p "$(dirname "$out")"
sed -e "$expr" "$in" >"$out.tmp"
changed=$(diff "$in" "$out.tmp" | grep -c '^<' || true)
if [ "$changed" != 1 ]; then
	echo "mutate.sh: mutation $name changes $changed lines of $in, not 1: update it" >&2
	rm -f "$out.tmp"
	exit 1
fi
mv "$out.tmp" "$out"
