#!/bin/bash
# C++ names, demangled as c++filt prints them (namespaces, a class template
# with two instantiations, a lambda, an operator, an anonymous namespace),
# and kept raw with --no-demangle.  cxx_names spends 75% of its time under
# ns::Worker<int> and 25% under ns::Worker<long> (see
# tests/workloads/cxx_names.cpp), both ending in ns::Acc::operator+=.
source "$(dirname "$0")/../lib.sh"

BIN=$TMP/cxx_names
g++ -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls \
	-o "$BIN" "$TOP/tests/workloads/cxx_names.cpp" || { fail cxx_build "g++ failed"; exit 1; }

# The frames, root first after main: mangled, and as c++filt prints them.
M_DRIVE=_ZN12_GLOBAL__N_15driveEd
M_RUN_I=_ZN2ns6WorkerIiE3runEm
M_LAM_I=_ZZN2ns6WorkerIiE3runEmENKUlmE_clEm
M_RUN_L=_ZN2ns6WorkerIlE3runEm
M_LAM_L=_ZZN2ns6WorkerIlE3runEmENKUlmE_clEm
M_OP=_ZN2ns3AccpLEm
D_DRIVE='(anonymous namespace)::drive(double)'
D_RUN_I='ns::Worker<int>::run(unsigned long)'
D_LAM_I='ns::Worker<int>::run(unsigned long)::{lambda(unsigned long)#1}::operator()(unsigned long) const'
D_RUN_L='ns::Worker<long>::run(unsigned long)'
D_LAM_L='ns::Worker<long>::run(unsigned long)::{lambda(unsigned long)#1}::operator()(unsigned long) const'
D_OP='ns::Acc::operator+=(unsigned long)'

# Preconditions: these are the program's symbols and c++filt's text.
for m in M_DRIVE M_RUN_I M_LAM_I M_RUN_L M_LAM_L M_OP; do
	d=D_${m#M_}
	check "cxx_symbol_${m#M_}" equals \
		"$(nm "$BIN" | awk -v s="${!m}" '$3 == s { print $3 }' | c++filt)" "${!d}"
done

start_cmd cxx_names "$BIN" 10 || exit 1
P=$WL_PID
sleep 0.2

# path FRAME...: an ERE for a whole folded line main;FRAME;...;FRAME COUNT.
path() {
	local re='^cxx_names;([^;]*;)*main' f
	for f in "$@"; do re="$re;$(re_escape "$f")"; done
	echo "$re [0-9]+\$"
}

# --- demangled (the default) ---
run_sm d -F 999 -U -f -p "$P" 2
check cxx_exit_0 equals "$RC" 0
INT=$(path "$D_DRIVE" "$D_RUN_I" "$D_LAM_I" "$D_OP")
LONG=$(path "$D_DRIVE" "$D_RUN_L" "$D_LAM_L" "$D_OP")
share_is cxx_demangled_int "$TMP/d.out" "$INT" 65 85
share_is cxx_demangled_long "$TMP/d.out" "$LONG" 15 35
share_is cxx_demangled_both "$TMP/d.out" "($INT)|($LONG)" 95 100
check cxx_no_mangled no_line "$TMP/d.out" '(^|;)_Z'

# --- --no-demangle: the symbols as they are in the binary ---
run_sm r --no-demangle -F 999 -U -f -p "$P" 2
check cxx_no_demangle_exit_0 equals "$RC" 0
RINT=$(path "$M_DRIVE" "$M_RUN_I" "$M_LAM_I" "$M_OP")
RLONG=$(path "$M_DRIVE" "$M_RUN_L" "$M_LAM_L" "$M_OP")
share_is cxx_raw_int "$TMP/r.out" "$RINT" 65 85
share_is cxx_raw_both "$TMP/r.out" "($RINT)|($RLONG)" 95 100
check cxx_raw_not_demangled no_line "$TMP/r.out" 'ns::|anonymous namespace'
