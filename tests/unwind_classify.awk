# Classifies the user stacks of tests/workloads/frameless/unwind_paths (and
# unwind_dl, unwind_fallbacks) in folded text (process frame first; -U)
# against their known call graph, for tests/cli/unwind*.sh and
# scripts/test-kernels.sh:
#   awk -f tests/unwind_classify.awk FOLDED
# prints "TOTAL EXACT TRUNCATED WRONG EXACT% WRONG_EXAMPLE" (samples):
#  - wrong: a known function whose caller frame is not one of its known
#    callers, or a caller frame no symbol names ([unknown], [file+0x...]),
#    unless it is a known caller that has no symbol (glibc's signal
#    trampoline, __libc_start_call_main without debug symbols).  A leaf
#    without a name is no caller, and its pc is the sample's own (a PLT
#    stub, __restore_rt): it is never wrong;
#  - exact: not wrong, and whole: from _start (or __clone3 for threads, or
#    the dynamic loader's entry before main, or a sample in that entry) to
#    the leaf, or the 127 innermost frames of the 200-deep recursion;
#  - truncated: the rest (right as far as it goes).
BEGIN {
	c["hot_leaf"] = "chain_b|big_frame|recurse|run_plt|on_prof|on_segv|jit_callback"
	c["chain_b"] = "chain_a"
	c["chain_a"] = "run_leaf"
	c["run_leaf"] = "run_mode|main|run_signal|thread_main|run_jit"
	c["big_frame"] = "run_mode|main"
	c["recurse"] = "recurse|run_mode|main"
	c["run_plt"] = "run_mode|main"
	c["by_value"] = "msort_with_tmp[.a-z0-9]*|qsort_r|__qsort_r|__GI___qsort_r"
	c["on_prof"] = "__restore_rt|__kernel_rt_sigreturn|\\[libc\\.so\\.6\\+0x[0-9a-f]+\\]"
	c["on_segv"] = c["on_prof"]
	c["load_at_entry"] = "run_fault"
	c["run_fault"] = "run_mode|main"
	c["run_signal"] = "run_mode|main"
	c["run_threads"] = "run_mode|main"
	c["run_dlopen"] = "run_mode|main"
	c["dl_entry"] = "run_dlopen"
	c["dl_work"] = "dl_entry"
	c["run_jit"] = "run_mode|main"
	c["jit_trampoline"] = "run_jit"
	c["jit_callback"] = "jit_trampoline"
	c["thread_main"] = "start_thread"
	c["start_thread"] = "__clone3|clone3|__clone"
	c["run_mode"] = "main"
	# unwind_fallbacks: hand-written leaves the unwinder falls back from
	c["spin_cfa_expr"] = "mid_cfa_expr"
	c["mid_cfa_expr"] = "run_cfa_expr"
	c["spin_ra_expr"] = "mid_ra_expr"
	c["mid_ra_expr"] = "run_ra_expr"
	c["spin_unreadable"] = "run_unreadable"
	c["run_cfa_expr"] = "main"
	c["run_ra_expr"] = "main"
	c["run_unreadable"] = "main"
	# glibc's local symbols have no name without its debug file
	c["main"] = "__libc_start_call_main|\\[libc\\.so\\.6\\+0x[0-9a-f]+\\]"
	c["__libc_start_call_main"] = "__libc_start_main|__libc_start_main_impl"
	c["__libc_start_main"] = "_start"
	c["__libc_start_main_impl"] = "_start"
	# a process's first moments, in the dynamic loader (its entry has no
	# symbol without its debug file)
	c["_dl_start"] = "_dl_start_user|\\[ld-linux-x86-64\\.so\\.2\\+0x[0-9a-f]+\\]"
	# then, before main, the libraries' constructors: _dl_start_user (no
	# symbol size, so unnamed) calls _dl_init
	c["_dl_init"] = c["_dl_start"]
}
{
	n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
	k = split(line, f, ";") # f[1] is the process frame
	t += n; bad = ""
	for (i = 2; i <= k && bad == ""; i++) {
		if (f[i] ~ /^\[/ && i < k && !((f[i + 1] in c) && f[i] ~ ("^(" c[f[i + 1]] ")$")))
			bad = f[i]
		else if ((f[i] in c) && i > 2 && f[i - 1] !~ ("^(" c[f[i]] ")$"))
			bad = f[i - 1] "->" f[i]
	}
	if (bad != "") { w += n; if (ex == "") ex = bad; next }
	# a lone frame in the loader's unnamed entry code (_start,
	# _dl_start_user) is the first instructions a process runs: whole
	if (f[2] == "_start" || f[2] == "__clone3" || (k > 2 && f[3] ~ /^_dl_(start|init)$/) ||
	    (k == 2 && f[2] ~ /^\[ld-linux-x86-64\.so\.2\+0x[0-9a-f]+\]$/) ||
	    (k - 1 == 127 && f[k] ~ /^(recurse|hot_leaf)$/))
		e += n
	else
		tr += n
}
END { printf "%d %d %d %d %.1f %s\n", t, e, tr, w, t ? 100 * e / t : 0, ex == "" ? "-" : ex }
