#!/bin/bash
# Where a capture's pprof frames were, read back by go tool pprof -raw and
# checked against the binaries themselves: the workload's file mapping has
# the range of its executable segment (readelf) and its build id; each of
# its locations has an address inside that range which nm says is in the
# function the location names; -disasm=burn_a lists burn_a's instructions
# with as many samples as -top gives it, and -disasm=spin puts spin's flat
# samples on its instructions; one file sampled in two processes (ASLR: two
# load addresses) is one mapping; kernel locations have the addresses of
# the functions they name (/proc/kallsyms) in [kernel.kallsyms]'s range.
source "$(dirname "$0")/../lib.sh"
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
mkdir -p "$HOME"
if ! command -v go >/dev/null; then
	fail pprof_addresses_deps "go not found (scripts/deps.sh installs golang-go)"
	exit 0
fi
pp() { go tool pprof -symbolize=none "$@" 2>>"$TMP/pprof.err"; }
BIN="$WL/cpu_split"

run_sm cap -F 499 -o "$TMP/c.pb.gz" -o "$TMP/c.folded" -- "$BIN" 2
check capture_exit_0 equals "$RC" 0
pp -raw "$TMP/c.pb.gz" >"$TMP/raw"
BID=$(readelf -n "$BIN" | sed -n 's/.*Build ID: //p')
# the executable PT_LOAD: its file offset and virtual address, page aligned
# as the kernel maps it, and its end
read -r OFF VA END < <(readelf -lW "$BIN" | python3 -c '
import sys
for l in sys.stdin:
    f = l.split()
    if f and f[0] == "LOAD" and "E" in f[6:-1]:
        off, va, mem = int(f[1], 16), int(f[2], 16), int(f[5], 16)
        print(off - off % 4096, va - off % 4096, va + mem)
        break')
M=$(grep -E "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $(re_escape "$BIN") " "$TMP/raw")
check binary_mapping_one equals "$(printf '%s\n' "$M" | grep -c .)" 1
check binary_mapping_first some_line <(printf '%s\n' "$M") '^1: '
check binary_mapping_build_id some_line <(printf '%s\n' "$M") " $BID \[FN\]$"
read -r MID MSTART MLIMIT MOFF < <(printf '%s\n' "$M" | python3 -c '
import sys
f = sys.stdin.read().split()
print(f[0].rstrip(":"), *(int(x, 16) for x in f[1].split("/")))')
check binary_mapping_offset equals "$MOFF" "$OFF"
# placed at the file's own virtual addresses (no other file is there)
check binary_mapping_start equals "$MSTART" "$VA"
check binary_mapping_covers_segment within "$MLIMIT" "$END" $((END + 4096))

# locs RAW MAPPING_ID: "ADDRESS NAME" (decimal) of the locations in it
locs() { sed -n '/^Locations/,/^Mappings/p' "$1" | awk -v m="M=$2" '$3 == m { print $2, $4 }' |
	python3 -c 'import sys
for l in sys.stdin:
    a, n = l.split()
    print(int(a, 16), n)'; }
# in_functions LOCS SYMS LO HI: each location's address is in [LO, HI) and
# in a function of its name (SYMS: "START SIZE NAME" per line, decimal)
in_functions() {
	python3 - "$@" <<'EOF'
import sys
locs, syms, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
funcs = {}
for l in open(syms):
    a, z, n = l.split()[:3]
    funcs.setdefault(n, []).append((int(a), int(z)))
bad = [l.strip() for l in open(locs)
       if not (lo <= int(l.split()[0]) < hi and
               any(a <= int(l.split()[0]) < a + z for a, z in funcs.get(l.split()[1], [])))]
if bad:
    print("not in their functions:", *bad[:5])
    sys.exit(1)
EOF
}
# every location in the workload's file: address in range, and in the
# function it names (nm: start and size of every function; the mapping is
# at the file's virtual addresses)
locs "$TMP/raw" "$MID" >"$TMP/locs"
# (a function nm gives no size ends where the next one starts)
nm -n -S --defined-only "$BIN" | python3 -c 'import sys
f = [l.split() for l in sys.stdin]
f = [(int(x[0], 16), int(x[1], 16) if len(x) == 4 else None, x[-1]) for x in f if x[-2] in "tT"]
for i, (a, z, n) in enumerate(f):
    print(a, z if z is not None else (f[i + 1][0] - a if i + 1 < len(f) else 0), n)' >"$TMP/syms"
check binary_locations_named some_line "$TMP/locs" ' burn_a$'
check binary_locations_in_functions in_functions "$TMP/locs" "$TMP/syms" "$MSTART" "$MLIMIT"
# spin's samples are spread over its loop: locations by address, not by name
check spin_many_addresses within "$(grep -c ' spin$' "$TMP/locs")" 2 1000

# -disasm: burn_a's instructions, with the samples -top gives it
pp -sample_index=samples -top "$TMP/c.pb.gz" >"$TMP/top"
pp -sample_index=samples -disasm=burn_a "$TMP/c.pb.gz" >"$TMP/dis_a"
check disasm_burn_a some_line "$TMP/dis_a" '^ROUTINE =+ burn_a$'
check disasm_burn_a_call some_line "$TMP/dis_a" ':[[:space:]]+CALL spin'
cum_top() { awk -v f="$1" '$NF == f { print $4; exit }' "$TMP/top"; }
cum_dis() { awk '/^ROUTINE/ { getline; print $2; exit }' "$1"; }
check disasm_burn_a_total equals "$(cum_dis "$TMP/dis_a")" "$(cum_top burn_a)"
check burn_a_sampled within "$(cum_top burn_a)" 100 100000
pp -sample_index=samples -disasm=spin "$TMP/c.pb.gz" >"$TMP/dis_s"
flat_top=$(awk '$NF == "spin" { print $1; exit }' "$TMP/top")
flat_ins=$(awk '/^ROUTINE/ { on = $NF == "spin" } on && /^ +[0-9]+ +[0-9.]+ +[0-9a-f]+: / { t += $1 } END { print t + 0 }' "$TMP/dis_s")
check disasm_spin_flat equals "$flat_ins" "$flat_top"

# two processes of one file, loaded at two addresses: one mapping, and
# burn_a's locations are the same addresses in both (by file offset)
start_wl cpu_split 20 || exit 1
A=$WL_PID
start_wl cpu_split 20 || exit 1
B=$WL_PID
check aslr_differs no_line <(grep -h "$(re_escape "$BIN")" "/proc/$A/maps" | head -n 1 | cut -d- -f1) \
	"^$(grep -h "$(re_escape "$BIN")" "/proc/$B/maps" | head -n 1 | cut -d- -f1)$"
run_sm two -F 499 --per-pid -p "$A,$B" -o "$TMP/t.pb.gz" -o "$TMP/t.folded" 1
kill "$A" "$B"
pp -raw "$TMP/t.pb.gz" >"$TMP/traw"
check two_processes_sampled equals "$(sed 's/;.*//' "$TMP/t.folded" | sort -u | grep -c '^cpu_split-')" 2
check two_processes_one_mapping equals "$(grep -cE "^[0-9]+: 0x[0-9a-f/x]+ $(re_escape "$BIN") " "$TMP/traw")" 1
TM=$(grep -E "^[0-9]+: 0x[0-9a-f/x]+ $(re_escape "$BIN") " "$TMP/traw" | cut -d: -f1)
sed -n '/^Locations/,/^Mappings/p' "$TMP/traw" | awk -v m="M=$TM" '$3 == m && $4 == "burn_a" { print $2 }' | sort -u >"$TMP/ta"
check two_processes_one_call_site equals "$(wc -l <"$TMP/ta")" 1

# kernel frames: at their kernel addresses, in the kernel mapping's range
start_wl syscall_heavy 20 || exit 1
S=$WL_PID
run_sm k -K -F 199 -p "$S" -o "$TMP/k.pb.gz" -o "$TMP/k.folded" 1
kill "$S"
pp -raw "$TMP/k.pb.gz" >"$TMP/kraw"
read -r KID KSTART KLIMIT < <(grep ' \[kernel\.kallsyms\] ' "$TMP/kraw" | python3 -c '
import sys
f = sys.stdin.read().split()
print(f[0].rstrip(":"), *(int(x, 16) for x in f[1].split("/")[:2]))')
locs "$TMP/kraw" "$KID" | grep -v ' \[' >"$TMP/klocs"
check kernel_locations some_line "$TMP/klocs" ' [a-z_]'
# each address is in a function of its name: at most 64 KiB past an
# address kallsyms gives the name
awk '{ print $1, 65536, $3 }' /proc/kallsyms | python3 -c 'import sys
for l in sys.stdin:
    a, z, n = l.split()
    print(int(a, 16), z, n)' >"$TMP/ksyms"
check kernel_locations_at_their_functions in_functions "$TMP/klocs" "$TMP/ksyms" "$KSTART" "$KLIMIT"
