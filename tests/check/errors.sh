#!/bin/bash
# Bad input on the command line: each must fail fast with exactly one line
# on stderr, "smolder: <lowercase message>", nothing on stdout, exit code 2
# for usage errors and 1 for runtime errors, and no output file.  All are
# found before anything is loaded, so no root is needed; a command that
# cannot run and missing privileges: tests/cli/errors_privileges.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_errors.sh"

# Runtime errors (1): things that only fail when tried.
err_case unknown_pid 1 'no such process.*999999|999999.*no such process' -p 999999 1
err_case unknown_pid_in_list 1 '999999' -p "$$,999999" 1
err_case unknown_tid 1 '999999' -L 999999 1
# Usage errors (2): bad syntax.
err_case pid_not_a_number 2 'abc|pid|-p' -p abc 1
err_case pid_empty 2 'pid|-p' -p '' 1
err_case tid_not_a_number 2 'abc|tid|thread|-L' -L abc 1
err_case cpu_not_a_number 2 'abc|cpu|-C' -C abc 1
# Empty list elements (issue 12): one line, exit 2, for -p, -L and -C.
err_case pid_empty_element 2 "invalid pid list '1,,2' \(an empty element" -p 1,,2 1
err_case pid_leading_comma 2 "invalid pid list ',1'" -p ,1 1
err_case pid_trailing_comma 2 "invalid pid list '1,'" -p 1, 1
err_case tid_empty_element 2 "invalid tid list '1,,2' \(an empty element" -L 1,,2 1
err_case cpu_empty_element 2 "invalid cpu list '0,,1' \(an empty element" -C 0,,1 1
err_case cpu_trailing_comma 2 "invalid cpu list '0,'" -C 0, 1
# --stack-storage-size past 4194304 stacks (~1.9 GiB of kernel memory)
err_case stack_storage_absurd 2 'stack storage size .*16777216.*4194304' --stack-storage-size 16777216 1
# A CPU that does not exist: a usage or runtime error, naming the CPU.
err_case cpu_out_of_range '1|2' 'cpu.*999|999.*cpu' -C 999 1
err_case freq_zero 2 'freq|-F' -F 0 1
err_case freq_not_a_number 2 'freq|-F' -F abc 1
err_case freq_negative 2 'freq|-F' -F -5 1
err_case freq_trailing_garbage 2 'freq|-F' -F 99x 1
err_case freq_absurd '1|2' 'freq|-F|rate' -F 10000000 1
err_case period_zero 2 'period|count|-c' -c 0 1
err_case period_not_a_number 2 'period|count|-c' -c abc 1
err_case stack_storage_zero 2 'stack' --stack-storage-size 0 1
err_case stack_storage_not_a_number 2 'stack' --stack-storage-size abc 1
err_case unknown_long_option 2 'bogus|option|usage' --bogus 1
err_case unknown_short_option 2 'Z|option|usage' -Z 1
err_case missing_option_argument 2 'pid|-p|argument|requires|usage' 1 -p
err_case duration_not_a_number 2 'duration|abc' abc
err_case duration_negative 2 'duration|-3|option' -3
err_case duration_garbage 2 'duration|5s' 5s
err_case extra_argument 2 'argument|usage|2' 1 2
# err_case adds its own -o, so an unwritable -o is checked here.
rm -f "$TMP/e.file"
timeout 10 "$SMOLDER" -o /nonexistent/dir/x.folded 1 >"$TMP/e.out" 2>"$TMP/e.err"
rc=$?
check error_output_unwritable equals "$rc $(one_error "$TMP/e.err" >/dev/null && echo one-line) $(grep -c nonexistent "$TMP/e.err")" "1 one-line 1"
