#!/bin/bash
# The systemd unit in scripts/: systemd accepts it without a warning, and
# its capability set is enough: smolder run as an unprivileged user with
# exactly the unit's ambient capabilities (setpriv) and the unit's options
# writes profiles owned by that user, with user and kernel frames named.
source "$(dirname "$0")/../lib.sh"
UNIT=$TOP/scripts/smolder.service

sed "s|/usr/local/bin/smolder|$SMOLDER|" "$UNIT" >"$TMP/smolder.service"
systemd-analyze verify "$TMP/smolder.service" >"$TMP/verify.out" 2>&1
check unit_verifies equals "$?:$(head -c 300 "$TMP/verify.out")" "0:"

caps=$(sed -nE 's/^AmbientCapabilities=//p' "$UNIT")
bound=$(sed -nE 's/^CapabilityBoundingSet=//p' "$UNIT")
check unit_bounding_equals_ambient equals "$bound" "$caps"
set_caps=$(for c in $caps; do printf ',+%s' "$(echo "${c#CAP_}" | tr 'A-Z' 'a-z')"; done)
set_caps=${set_caps#,}
opts=$(sed -nE 's/^ExecStart=[^ ]+ //p' "$UNIT" | sed -E 's/--interval [0-9]+/--interval 1/; s/\$\{STATE_DIRECTORY\}/OUTDIR/')
check unit_runs_continuous some_line <(echo "$opts") '--continuous .*--output-dir OUTDIR'

D=$TMP/state
mkdir -p "$D" && chown nobody "$D"
cp "$SMOLDER" "$TMP/smolder" && chmod 755 "$TMP" "$TMP/smolder"
start_wl cpu_split 8 || exit 1
# a task in the kernel, whose kernel frames are named (smolder leaves its
# own samples, which used to be these, out)
start_wl syscall_heavy 8 || exit 1
# the unit's options, 2.5 s, as nobody with only the unit's capabilities
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps="-all,$set_caps" \
	--ambient-caps="-all,$set_caps" --bounding-set="-all,$set_caps" --no-new-privs \
	"$TMP/smolder" ${opts//OUTDIR/$D} -v -F 99 2.5 >"$TMP/svc.out" 2>"$TMP/svc.err"
check unit_caps_run_exit_0 equals "$?:$(grep -v '^libbpf' "$TMP/svc.err" | grep -iE 'cannot|error|denied' | head -c 300)" "0:"
check unit_caps_profiles_written within "$(ls "$D" | wc -l)" 2 4
check unit_caps_owned_by_user equals "$(stat -c %U "$D"/* | sort -u)" nobody
cat "$D"/smolder-*.folded >"$TMP/all.folded" 2>/dev/null
check unit_caps_user_frames_named some_line "$TMP/all.folded" '^cpu_split;.*main;run_loop;burn_a;spin '
check unit_caps_kernel_frames_named some_line "$TMP/all.folded" ';(entry_SYSCALL_64|asm_sysvec_apic_timer_interrupt|irqentry_exit_to_user_mode|do_syscall_64)'
check unit_caps_nothing_lost equals "$(summary_lost "$TMP/svc.err")" 0
