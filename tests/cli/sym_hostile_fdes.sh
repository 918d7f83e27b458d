#!/bin/bash
# Naming stripped code by its function's start reads the FDEs of every
# mapped file, whoever owns it: a hostile file's CFI cannot stall, bloat or
# misname a capture.  build/tools/hostile_cfi writes the files, and the
# hostile workload, as nobody, maps their code page executable and runs it
# (with --unwind fp: naming must not lean on the unwinder, and its own
# bounds are tests/cli/unwind_bounded_cfi.sh's):
#  - hdr.so: an .eh_frame_hdr whose FDE count says 2^31 - 1 and whose search
#    table is unsorted and points nowhere; its 64 FDEs of 16 bytes are
#    right.  Frames in it are named by the starts of those FDEs (readelf
#    lists them), never by the table's lies;
#  - many.so (75 MB): 3,000,000 FDEs of one byte each, more than naming
#    lists (16 MiB of CFI, 512 Ki functions): the list stops at its bound;
#  - cfi.so (2.2 MB, issue 21): two megabyte-long CIEs that take turns in
#    the CIE cache, 10,000 FDEs using them: the work budget stops it.
# Expect each capture (3 s) to end within 4 s with RSS under 128 MiB, the
# hostile process sampled, its frames named "[file+0xN]" with N an FDE
# start or the exact offset (no FDE listed covers it); and SIGTERM during
# the many.so capture to end smolder within 1 s.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"
TOOLS=$TOP/build/tools

# retaken NAME SMOLDER_ARGS... (a 3 s capture): timed_sm, again while over
# its bound (other load on the machine), up to 3 times.
retaken() {
	local name=$1 attempt
	shift
	for attempt in 1 2 3; do
		timed_sm "$name" "$@"
		echo "# $name attempt $attempt: $ELAPSED s, peak RSS $((RSS_KIB / 1024)) MiB"
		if between "$ELAPSED" 0 4; then return; fi
	done
}

"$TOOLS/hostile_cfi" -c 1 -f 64 -l 16 -H "$TMP/hdr.so" &&
	"$TOOLS/hostile_cfi" -c 1 -f 3000000 -l 1 "$TMP/many.so" &&
	"$TOOLS/hostile_cfi" -c 2 -a 1000000 -f 10000 -l 16 "$TMP/cfi.so"
check fdes_files_made equals "$?" 0
chmod 644 "$TMP"/*.so
check fdes_hdr_lies some_line <(readelf -lW "$TMP/hdr.so") 'GNU_EH_FRAME'

# FDE starts of hdr.so that readelf lists (decimal; code offset = address)
readelf --debug-dump=frames "$TMP/hdr.so" |
	sed -nE 's/.* FDE .* pc=0*([0-9a-f]+)\.\..*/\1/p' |
	while read -r pc; do echo $((16#$pc)); done | sort -u >"$TMP/hdr.starts"
check fdes_hdr_readelf equals "$(wc -l <"$TMP/hdr.starts")" 64

for f in hdr many cfi; do
	start_hostile 30 elf "$TMP/$f.so"
	retaken "$f" --unwind fp -f -F 999 -p "$HP" 3
	bounded "fdes_$f" 3
	check "fdes_${f}_sampled" some_line "$TMP/$f.out" "^hostile;.*;run_code;\\[$f\\.so\\+0x[0-9a-f]+\\]( |;)"
	stop_hostile
done

# hdr.so's frames: FDE starts only (the leaf loops inside the first two)
grep -oE '\[hdr\.so\+0x[0-9a-f]+\]' "$TMP/hdr.out" | sed -E 's/.*0x([0-9a-f]+)\]/\1/' |
	while read -r o; do echo $((16#$o)); done | sort -u >"$TMP/hdr.frames"
check fdes_hdr_frames_are_starts equals "$(comm -23 "$TMP/hdr.frames" "$TMP/hdr.starts" | tr '\n' ' ')" ""
check fdes_hdr_frames_seen within "$(wc -l <"$TMP/hdr.frames")" 1 2

start_hostile 30 elf "$TMP/many.so"
term_sm t 1.5 --unwind fp -f -F 999 -p "$HP"
echo "# many.so, SIGTERM 1.5 s in: exit after $TERM_TOOK s"
check fdes_sigterm_exit_0 equals "$RC" 0
check fdes_sigterm_within_1s within "$TERM_TOOK" 0 1
check fdes_sigterm_written some_line "$TMP/t.out" '^hostile;'
stop_hostile
