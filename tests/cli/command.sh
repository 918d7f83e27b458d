#!/bin/bash
# The command line bcc's profile and perf users type.
# - smolder -- COMMAND: samples only the command (and, unless --no-inherit,
#   the processes it starts), ends when it exits, exits with its status
#   (128 + N for signal N, 127 when it cannot run); a SIGTERM to smolder is
#   passed on and everything collected is still written.
# - -p: the capture ends when every target has exited, with or without a
#   duration.
# - bcc's options: -p with -L refused, --ebpf a note, --hash-storage-size
#   sizes the sample-key table (a table too small counts its losses).
# - On a terminal a start line says what is sampled and how it ends.
source "$(dirname "$0")/../lib.sh"

# --- -- COMMAND: the command alone, to its end, its status ---
run_sm cmd -f -F 499 -- "$WL/cpu_split" 2
check cmd_exit_0 equals "$RC" 0
check cmd_ends_with_it within "$ELAPSED" 1.5 6
check cmd_only_it all_lines "$TMP/cmd.out" '^cpu_split;'
# (sample counts are bounds of presence, not of rate: others share the CPUs)
check cmd_samples within "$(total "$TMP/cmd.out")" 100 1100
check cmd_burn_a_share within "$(share "$TMP/cmd.out" ';burn_a;')" 65 85

# its children too (sh forks cpu_split), and sh's exit status
run_sm kids -f -F 499 --per-pid -- sh -c "\"$WL/cpu_split\" 1; exit 3"
check cmd_status_passed equals "$RC" 3
check cmd_children_sampled within "$(total <(comm_stacks "$TMP/kids.out" cpu_split))" 50 600
check cmd_children_only all_lines "$TMP/kids.out" '^(sh|cpu_split)-[0-9]+;'
run_sm noinh -f -F 499 --no-inherit -- sh -c "\"$WL/cpu_split\" 1; exit 4"
check no_inherit_status equals "$RC" 4
check no_inherit_no_children no_line "$TMP/noinh.out" '^cpu_split;'

# killed by a signal: 128 + N, as a shell says it
run_sm sig -f -- sh -c 'kill -USR2 $$'
check cmd_signal_status equals "$RC" $((128 + 12))

# cannot run: 127 and one line; nothing after --: a usage error
run_sm nocmd -f -- "$TMP/no such command"
check cmd_not_found_127 equals "$RC" 127
check cmd_not_found_one_line one_error "$TMP/nocmd.err"
check cmd_not_found_names_it some_line "$TMP/nocmd.err" "^smolder: cannot run .*no such command: no such file"
run_sm empty -f --
check cmd_empty_exit_2 equals "$RC $(one_error "$TMP/empty.err" >/dev/null && echo one)" "2 one"
# an option's value that is "--" is not the start of a command
run_sm title --title -- -f -o "$TMP/title.svg" 0.5
check dashdash_as_value equals "$RC" 0
run_sm clash -p 1 -- true
check cmd_and_p_exit_2 equals "$RC $(one_error "$TMP/clash.err" >/dev/null && echo one)" "2 one"

# SIGTERM to smolder: passed on, the capture is written, 128 + 15
"$SMOLDER" -f -o "$TMP/term.folded" -- "$WL/cpu_split" 20 >"$TMP/term.out" 2>"$TMP/term.err" &
SM=$!
sleep 2
kill -TERM $SM
t0=$(date +%s.%N)
wait $SM
RC=$?
check cmd_sigterm_status equals "$RC" 143
check cmd_sigterm_prompt within "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" 0 4
check cmd_sigterm_written some_line "$TMP/term.folded" '^cpu_split;.*burn_a'
check cmd_sigterm_command_gone equals "$(pgrep -f -c "^$WL/cpu_split 20\$")" 0

# --- -p: the capture ends when every target has exited ---
start_wl cpu_split 2 || exit 1
A=$WL_PID
start_wl cpu_split 3 || exit 1
B=$WL_PID
run_sm pend -f -F 499 --per-pid -p "$A,$B"
check p_ends_when_all_exit equals "$RC" 0
check p_ends_after_last within "$ELAPSED" 2 5.5
check p_both_sampled equals "$(($(stacks "$TMP/pend.out" "^cpu_split-$A;") > 0)) $(($(stacks "$TMP/pend.out" "^cpu_split-$B;") > 0))" "1 1"
start_wl cpu_split 1 || exit 1
run_sm pdur -f -p "$WL_PID" 30
check p_with_duration_ends_too equals "$RC $(awk -v e="$ELAPSED" 'BEGIN { print (e < 4) }')" "0 1"

# --- bcc's options ---
run_sm pl -p 1 -L 1 1
check p_with_L_refused equals "$RC $(one_error "$TMP/pl.err" >/dev/null && echo one)" "2 one"
check p_with_L_says_bcc some_line "$TMP/pl.err" '^smolder: options -p and -L exclude each other, as in bcc'
run_sm ebpf --ebpf
check ebpf_note equals "$RC $(grep -c '^smolder: --ebpf: .*compiled in' "$TMP/ebpf.err") $(wc -c <"$TMP/ebpf.out")" "0 1 0"
run_sm hs0 --hash-storage-size 10 1
check hash_storage_bounds equals "$RC $(one_error "$TMP/hs0.err" >/dev/null && echo one)" "2 one"
# many stacks into 1024 sample keys: the rest are counted as lost, and said
start_wl many_stacks 6 || exit 1
run_sm hs -f -F 999 -p "$WL_PID" --hash-storage-size 1024 --stack-storage-size 65536 3
full=$(sed -nE 's/.*count map full ([0-9]+).*/\1/p' "$TMP/hs.err" | head -n 1)
check hash_storage_small_counts_loss within "${full:-0}" 1 100000000
check hash_storage_keys_bounded within "$(wc -l <"$TMP/hs.out")" 1 1025
run_sm hsd -f -F 999 -p "$WL_PID" --stack-storage-size 65536 2
check hash_storage_default_no_loss equals "$(sed -nE 's/.*count map full ([0-9]+).*/\1/p' "$TMP/hsd.err" | head -n 1)" 0

# --- the start line, on a terminal only ---
script -qec "\"$SMOLDER\" -f -o \"$TMP/tty.folded\" 1" "$TMP/typescript" >/dev/null 2>&1 </dev/null
check start_line_on_tty some_line "$TMP/typescript" '^smolder: sampling all threads at 49 Hz, user \+ kernel stacks, for 1 s \(Ctrl-C ends it sooner\)'
script -qec "\"$SMOLDER\" -K -F 99 -f -o \"$TMP/tty2.folded\" -- sleep 0.5" "$TMP/typescript2" >/dev/null 2>&1 </dev/null
check start_line_command some_line "$TMP/typescript2" '^smolder: sampling PID [0-9]+ \(sleep\) and its children at 99 Hz, kernel stacks, until it exits'
check start_line_not_in_files no_line "$TMP/cmd.err" 'sampling'
