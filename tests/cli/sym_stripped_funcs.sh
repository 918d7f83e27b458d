#!/bin/bash
# Stripped code is named one frame per function, not per instruction: a
# frame no symbol names is "[file+0xSTART]", START the file offset where its
# function starts (the FDE covering it), so a function's samples merge in
# every output, while pprof's locations keep each sample's exact address.
#  - xz with Debian's stripped liblzma (issue 24): every liblzma frame's
#    offset is an FDE start readelf --debug-dump=frames prints, and there
#    are no more distinct liblzma leaves than FDEs their exact addresses
#    (pprof) fall in;
#  - a stripped copy of cpu_split: its frames' offsets are the starts of the
#    functions nm lists in the unstripped build, and its hot leaf, spin, is
#    one frame, with --unwind fp too;
#  - the SVG, speedscope and report name no liblzma frame the folded
#    output does not;
#  - pprof: the same files' locations have exact addresses, inside the
#    function their name gives the start of;
#  - the end of the capture says once, for liblzma, how to get its names:
#    its debug package and its build id's debug file (the build id readelf
#    prints); not with -q, and not when everything is named.
source "$(dirname "$0")/../lib.sh"
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
mkdir -p "$HOME"
LZMA=$(readlink -f /lib/x86_64-linux-gnu/liblzma.so.5)
if ! command -v xz >/dev/null || [ ! -f "$LZMA" ] || ! command -v go >/dev/null; then
	fail stripped_deps "needs xz, liblzma.so.5 and go (scripts/deps.sh installs them)"
	exit 0
fi

# fde_starts ELF: the file offset (decimal) of every FDE's start, from
# readelf's pcs and the LOAD program headers.
fde_starts() {
	python3 - "$1" <<'EOF'
import re, subprocess, sys
elf = sys.argv[1]
loads = [tuple(int(x, 16) for x in (l.split()[1], l.split()[2], l.split()[4]))
         for l in subprocess.run(["readelf", "-lW", elf], capture_output=True, text=True).stdout.splitlines()
         if l.split()[:1] == ["LOAD"]]
out = subprocess.run(["readelf", "--debug-dump=frames", elf], capture_output=True, text=True).stdout
for m in re.finditer(r"FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", out):
    lo, hi = int(m.group(1), 16), int(m.group(2), 16)
    for off, va, filesz in loads:
        if va <= lo < va + filesz:
            print(lo - va + off, hi - va + off)
            break
EOF
}

# frame_offsets FOLDED FILE [leaf]: the offsets (decimal) of "[FILE+0x..]"
# frames, one line each (leaf: only leaf frames, with their samples).
# the offsets read on stdin that lie inside an FDE of the list in $1
inside_fde() { awk 'NR == FNR { lo[NR] = $1; hi[NR] = $2; n = NR; next }
	{ for (i = 1; i <= n; i++) if ($1 >= lo[i] && $1 <= hi[i]) { print; next } }' "$1" -; }

frame_offsets() {
	python3 - "$@" <<'EOF'
import re, sys
folded, base, leaf = sys.argv[1], sys.argv[2], len(sys.argv) > 3
pat = re.compile(r"\[" + re.escape(base) + r"\+0x([0-9a-f]+)\]$")
for line in open(folded):
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    for f in (frames[-1:] if leaf else frames):
        m = pat.match(f)
        if m:
            print(int(m.group(1), 16), n.strip()) if leaf else print(int(m.group(1), 16))
EOF
}

# pprof_locs PB FILE: "EXACT_OFFSET NAME" of the locations in FILE's
# mapping (decimal file offsets), from go tool pprof -raw.
pprof_locs() {
	go tool pprof -symbolize=none -raw "$1" 2>>"$TMP/pprof.err" | python3 -c '
import re, sys
path = sys.argv[1]
sec, maps, locs = None, {}, []
for l in sys.stdin:
    if l.startswith(("Locations", "Mappings", "Samples")):
        sec = l.split()[0]
        continue
    f = l.split()
    if sec == "Mappings" and len(f) >= 3:
        start, limit, off = (int(x, 16) for x in f[1].split("/"))
        maps[f[0].rstrip(":")] = (start, off, f[2])
    if sec == "Locations" and len(f) >= 4 and f[2].startswith("M="):
        locs.append((int(f[1], 16), f[2][2:], f[3]))
for addr, m, name in locs:
    if m in maps and maps[m][2] == path:
        print(addr - maps[m][0] + maps[m][1], name)
' "$2"
}

# inside_named LOCS FILE FDES: each "EXACT NAME" location whose NAME is
# "[FILE+0xSTART]" has START an FDE start (FDES: "START END") with EXACT in
# [START, END); prints how many are and are not, and how many distinct
# exact addresses and names there were.
inside_named() {
	python3 - "$@" <<'EOF'
import re, sys
locs, base, fdes = sys.argv[1], sys.argv[2], sys.argv[3]
ranges = dict(tuple(map(int, l.split())) for l in open(fdes))
pat = re.compile(r"\[" + re.escape(base) + r"\+0x([0-9a-f]+)\]$")
good = bad = 0
addrs, names = set(), set()
for l in open(locs):
    exact, name = l.split()
    m = pat.match(name)
    if not m:
        continue
    start, exact = int(m.group(1), 16), int(exact)
    if not any(lo <= exact <= hi for lo, hi in ranges.items()):
        continue # inside no function: a stray return address keeps its own name
    addrs.add(exact); names.add(start)
    # a caller's location is its return address: start < exact <= end
    if start in ranges and start <= exact <= ranges[start]:
        good += 1
    else:
        bad += 1
print(good, bad, len(addrs), len(names))
EOF
}

# --- xz -9 with Debian's stripped liblzma ---
LZ=$(basename "$LZMA")
check lzma_is_stripped no_line <(readelf -SW "$LZMA") '\.symtab'
fde_starts "$LZMA" >"$TMP/lzma.fdes"
check lzma_fdes_listed within "$(wc -l <"$TMP/lzma.fdes")" 100 100000
# 0.5 MB of words: about 2 s of xz -9 here
awk 'BEGIN { srand(7); for (i = 0; i < 50000; i++) { l = ""
	for (j = 0; j < 10; j++) l = l sprintf("%x ", int(rand() * 50000))
	print l } }' >"$TMP/data"
run_sm xz -F 999 -o "$TMP/xz.folded" -o "$TMP/xz.pb.gz" -o "$TMP/xz.speedscope.json" \
	-o "$TMP/xz.svg" -o "$TMP/xz.report" -- xz -9 -T1 -k -c "$TMP/data"
check xz_exit_0 equals "$RC" 0
share_is xz_lzma_leaves "$TMP/xz.folded" "\\[$(re_escape "$LZ")\\+0x[0-9a-f]+\\] [0-9]+$" 50 100
frame_offsets "$TMP/xz.folded" "$LZ" | sort -u >"$TMP/xz.frames"
awk '{ print $1 }' "$TMP/lzma.fdes" | sort -u >"$TMP/lzma.starts"
check xz_frames_are_fde_starts equals "$(comm -23 "$TMP/xz.frames" "$TMP/lzma.starts" | inside_fde "$TMP/lzma.fdes" | wc -l) of $(wc -l <"$TMP/xz.frames")" "0 of $(wc -l <"$TMP/xz.frames")"
# the other outputs name the same frames: no liblzma name the folded lacks
grep -ohE "\[$(re_escape "$LZ")\+0x[0-9a-f]+\]" "$TMP/xz.folded" | sort -u >"$TMP/xz.names"
for out in speedscope.json svg report; do
	grep -ohE "\[$(re_escape "$LZ")\+0x[0-9a-f]+\]" "$TMP/xz.$out" | sort -u >"$TMP/xz.$out.names"
	check "xz_${out%%.*}_same_frames" equals "$(comm -13 "$TMP/xz.names" "$TMP/xz.$out.names" | wc -l) of $(wc -l <"$TMP/xz.$out.names")" "0 of $(wc -l <"$TMP/xz.$out.names")"
done
check xz_svg_has_frames within "$(wc -l <"$TMP/xz.svg.names")" 1 1000
pprof_locs "$TMP/xz.pb.gz" "$LZMA" >"$TMP/xz.locs"
read -r GOOD BAD ADDRS NAMES < <(inside_named "$TMP/xz.locs" "$LZ" "$TMP/lzma.fdes")
check pprof_lzma_locations_inside_their_function equals "$BAD of $((GOOD + BAD))" "0 of $((GOOD + BAD))"
# exact addresses: more of them than functions named (a hot loop is sampled
# at many of its instructions)
check pprof_lzma_addresses_exact within "$ADDRS" $((NAMES + 1)) 1000000
# the leaves: no more distinct names than FDEs their exact addresses hit
LEAVES=$(frame_offsets "$TMP/xz.folded" "$LZ" leaf | awk '{ print $1 }' | sort -u | wc -l)
HIT=$(python3 - "$TMP/xz.locs" "$TMP/lzma.fdes" <<'EOF'
import sys
fdes = sorted(tuple(map(int, l.split())) for l in open(sys.argv[2]))
hit = set()
for l in open(sys.argv[1]):
    a = int(l.split()[0])
    hit.update(s for s, e in fdes if s <= a < e)
print(len(hit))
EOF
)
check xz_leaves_one_per_function within "$LEAVES" 1 "$HIT"
BID=$(readelf -n "$LZMA" | sed -n 's/.*Build ID: //p')
check xz_hint_once equals "$(grep -c "^smolder: note: .* frames in $(re_escape "$LZMA") without symbols" "$TMP/xz.err")" 1
check xz_hint_build_id some_line "$TMP/xz.err" "^smolder: note: .*$(re_escape "$LZ") .*dbgsym.*/usr/lib/debug/\.build-id/${BID:0:2}/${BID:2}\.debug\$"
run_sm xzq -q -F 999 -o "$TMP/xzq.folded" -- xz -9 -T1 -k -c "$TMP/data"
check xz_quiet_no_hint no_line "$TMP/xzq.err" 'note:'
echo "# xz: $(total "$TMP/xz.folded") samples, $LEAVES distinct liblzma leaves, $HIT FDEs hit, $ADDRS exact addresses"

# a workload with its symbols: no hint
run_sm named -F 999 -o "$TMP/named.folded" -- "$WL/cpu_split" 1
check named_no_hint no_line "$TMP/named.err" 'without symbols'

# --- a stripped workload: its functions' starts from the unstripped nm ---
strip -s -o "$TMP/cpu_split" "$WL/cpu_split"
check workload_is_stripped no_line <(readelf -SW "$TMP/cpu_split"; nm -D "$TMP/cpu_split") '\.symtab|spin|burn_'
func_offsets "$WL/cpu_split" spin burn_a burn_b run_loop main >"$TMP/wl.funcs"
check workload_funcs_listed equals "$(wc -l <"$TMP/wl.funcs")" 5
run_sm wl -F 999 -o "$TMP/wl.folded" -o "$TMP/wl.pb.gz" -- "$TMP/cpu_split" 2
check workload_exit_0 equals "$RC" 0
SPIN=$(awk '$1 == "spin" { printf "%x", $2 }' "$TMP/wl.funcs")
# spin is the leaf of (nearly) every sample, as one frame at its start
share_is workload_spin_one_frame "$TMP/wl.folded" "\\[cpu_split\\+0x$SPIN\\]( [0-9]+)$" 80 100
# naming leans on no unwind table: the same with frame pointers only
run_sm wlfp --unwind fp -F 999 -o "$TMP/wlfp.folded" -- "$TMP/cpu_split" 1
check workload_fp_exit_0 equals "$RC" 0
share_is workload_fp_spin_one_frame "$TMP/wlfp.folded" "\\[cpu_split\\+0x$SPIN\\]( [0-9]+)$" 80 100
frame_offsets "$TMP/wl.folded" cpu_split | sort -u >"$TMP/wl.frames"
# every function nm lists in the unstripped build
func_offsets "$WL/cpu_split" $(nm "$WL/cpu_split" | awk '$2 ~ /^[tT]$/ { print $3 }') |
	awk '{ print $2 }' | sort -u >"$TMP/wl.starts"
# (an address inside no FDE, a stray return address from a walk that went
# wrong, keeps its exact offset: it names no function, so it is left out)
fde_starts "$TMP/cpu_split" >"$TMP/wl.fdes"
check workload_frames_are_nm_starts equals "$(comm -23 "$TMP/wl.frames" "$TMP/wl.starts" | inside_fde "$TMP/wl.fdes" | tr '\n' ' ')" ""
# the five functions of the stack, at least, each by its start
awk '{ print $2 }' "$TMP/wl.funcs" | sort -u >"$TMP/wl.stack"
check workload_stack_functions equals "$(comm -12 "$TMP/wl.frames" "$TMP/wl.stack" | wc -l)" 5
pprof_locs "$TMP/wl.pb.gz" "$TMP/cpu_split" >"$TMP/wl.locs"
read -r GOOD BAD ADDRS NAMES < <(inside_named "$TMP/wl.locs" cpu_split "$TMP/wl.fdes")
check pprof_workload_locations_inside_their_function equals "$BAD of $((GOOD + BAD))" "0 of $((GOOD + BAD))"
check pprof_workload_addresses_exact within "$ADDRS" $((NAMES + 1)) 1000000
# the pprof function is the merged name: -top lists spin's start once
go tool pprof -symbolize=none -top "$TMP/wl.pb.gz" 2>>"$TMP/pprof.err" >"$TMP/wl.top"
check pprof_workload_top_one_spin equals "$(grep -c "\[cpu_split+0x$SPIN\]" "$TMP/wl.top")" 1
