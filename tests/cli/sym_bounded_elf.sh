#!/bin/bash
# A process mapping an ELF file with millions of symbols cannot bloat or
# stall a capture (issue 12; main: 513 MiB of RSS for 5 million symbols, 1.9
# GB for 20 million).  build/tools/many_syms writes the file: one page of
# real code (big_hot_loop) and COUNT more function symbols; the hostile
# workload, as nobody, maps the code page from the file and runs it while
# a thread churns its mappings.  Expect:
#  - 4 million symbols: the table is over the 64 MiB budget, so it is not
#    read (a note says so) and the frames are named by file offset
#    ([huge.so+0x10..]); -p PID 3 and --continuous --interval 2 end within
#    their duration + 1 s, SIGTERM within 1 s, peak RSS under 128 MiB;
#  - 200,000 symbols fit: big_hot_loop is named, so the budget is not what
#    keeps big real binaries from being named.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_hostile.sh"
TOOLS=$TOP/build/tools

"$TOOLS/many_syms" "$TMP/huge.so" 4000000 && "$TOOLS/many_syms" "$TMP/big.so" 200000
check elf_files_made equals "$?" 0
chmod 644 "$TMP/huge.so" "$TMP/big.so"

start_hostile 40 elf "$TMP/huge.so"
timed_sm p -f -p "$HP" 3
bounded elf_pid 3
check elf_pid_noted some_line "$TMP/p.err" "note: symbols of $TMP/huge.so \\(pid $HP\\) not read: more than 64 MiB"
check elf_pid_offset_frames some_line "$TMP/p.out" ';run_code;\[huge\.so\+0x10[0-9a-f]{2}\] [0-9]+$'
check elf_pid_not_named no_line "$TMP/p.out" 'big_hot_loop'

term_sm t 2 -f -p "$HP"
check elf_sigterm_exit_0 equals "$RC" 0
check elf_sigterm_within_1s within "$TERM_TOOK" 0 1
check elf_sigterm_written some_line "$TMP/t.out" ';run_code;\[huge\.so\+0x'

mkdir -p "$TMP/cont"
timed_sm c --continuous --interval 2 --output-dir "$TMP/cont" -p "$HP" 4
bounded elf_continuous 4
check elf_continuous_files within "$(ls "$TMP/cont" | grep -c '^smolder-.*\.folded$')" 2 3
check elf_continuous_noted_once equals "$(grep -c 'not read: more than 64 MiB' "$TMP/c.err")" 1
stop_hostile

start_hostile 30 elf "$TMP/big.so"
timed_sm b -f -p "$HP" 2
bounded elf_fits 2
check elf_fits_named some_line "$TMP/b.out" ';run_code;big_hot_loop [0-9]+$'
check elf_fits_no_note no_line "$TMP/b.err" 'not read'
stop_hostile
