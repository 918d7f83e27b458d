#!/bin/bash
# make install as a packager runs it: into a staging DESTDIR, below the
# default PREFIX (/usr/local) and below PREFIX=/usr: the binary (which
# runs --help), the man page (smolder --man's), the systemd unit whose
# ExecStart is the installed binary (systemd accepts it, and runs that
# file), and the sysusers.d file that makes the unit's user.  make
# uninstall removes every file again.
source "$(dirname "$0")/../lib.sh"

# make_in ARGS...: make in the source tree, whoever called this test (a
# make of its own passes its jobserver in MAKEFLAGS).
make_in() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" --no-print-directory "$@"; }

# installed NAME PREFIX UNITDIR SYSUSERSDIR [MAKE ARGS...]: install into a
# new DESTDIR and check what is there.
installed() {
	local name=$1 prefix=$2 unitdir=$3 usersdir=$4 d rc
	shift 4
	d=$(mktemp -d "$TMP/dest.XXXXXX")
	make_in install DESTDIR="$d" "$@" >"$TMP/$name.make" 2>&1
	rc=$?
	check "${name}_make_install" equals "$rc:$([ "$rc" = 0 ] || tail -c 300 "$TMP/$name.make")" "0:"
	check "${name}_files" equals "$(cd "$d" && find . -type f -printf '%m %p\n' | sort | tr '\n' ' ')" \
		"$(printf '%s\n' "755 .$prefix/bin/smolder" "644 .$prefix/share/man/man1/smolder.1" \
			"644 .$unitdir/smolder.service" "644 .$unitdir/smolder-serve.service" \
			"644 .$usersdir/smolder.conf" | sort | tr '\n' ' ')"
	[ -x "$d$prefix/bin/smolder" ] && [ -f "$d$unitdir/smolder.service" ] || return

	"$d$prefix/bin/smolder" --help >"$TMP/$name.help" 2>&1
	check "${name}_binary_runs_help" equals "$?" 0
	check "${name}_binary_help_is_ours" equals "$(md5sum <"$TMP/$name.help")" "$("$SMOLDER" --help | md5sum)"
	check "${name}_man_page_is_ours" equals "$(md5sum <"$d$prefix/share/man/man1/smolder.1")" \
		"$("$SMOLDER" --man | md5sum)"
	check "${name}_man_page_renders" some_line <(MANWIDTH=80 man -l "$d$prefix/share/man/man1/smolder.1" 2>&1) \
		'^ +-p, --pid PID'

	local unit=$d$unitdir/smolder.service
	check "${name}_unit_execstart" some_line "$unit" "^ExecStart=$prefix/bin/smolder --continuous "
	check "${name}_unit_names_only_it" equals "$(grep -oE '/[^ ]*bin/smolder' "$unit" | sort -u)" \
		"$prefix/bin/smolder"
	# systemd checks the unit and that its ExecStart is an executable
	# file: the installed one, found where DESTDIR put it.
	sed "s|^ExecStart=$prefix/bin/smolder|ExecStart=$d$prefix/bin/smolder|" "$unit" >"$TMP/$name.service"
	systemd-analyze verify "$TMP/$name.service" >"$TMP/$name.verify" 2>&1
	check "${name}_unit_verifies" equals "$?:$(head -c 300 "$TMP/$name.verify")" "0:"
	# the --serve unit: its ExecStart is the installed binary too, and it
	# keeps smolder.service's hardening
	local sunit=$d$unitdir/smolder-serve.service
	check "${name}_serve_unit_execstart" some_line "$sunit" "^ExecStart=$prefix/bin/smolder --serve 127\\.0\\.0\\.1:7071 "
	for k in NoNewPrivileges=yes MemoryMax= CapabilityBoundingSet=CAP_BPF ProtectSystem=strict \
		MemoryDenyWriteExecute=yes; do
		check "${name}_serve_unit_${k%%=*}" some_line "$sunit" "^$k"
	done
	sed "s|^ExecStart=$prefix/bin/smolder|ExecStart=$d$prefix/bin/smolder|" "$sunit" >"$TMP/$name-serve.service"
	systemd-analyze verify "$TMP/$name-serve.service" >"$TMP/$name-serve.verify" 2>&1
	check "${name}_serve_unit_verifies" equals "$?:$(head -c 300 "$TMP/$name-serve.verify")" "0:"
	systemd-sysusers --root="$d" --dry-run >"$TMP/$name.users" 2>&1
	check "${name}_sysusers_makes_user" some_line "$TMP/$name.users" "Creating user '?smolder'?"

	make_in uninstall DESTDIR="$d" "$@" >"$TMP/$name.unmake" 2>&1
	check "${name}_uninstall" equals "$?:$(cd "$d" && find . -type f | tr '\n' ' ')" "0:"
}

installed local /usr/local /usr/local/lib/systemd/system /usr/local/lib/sysusers.d
usr_unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
usr_usersdir=$(pkg-config --variable=sysusersdir systemd 2>/dev/null)
installed usr /usr "${usr_unitdir:-/lib/systemd/system}" "${usr_usersdir:-/usr/lib/sysusers.d}" PREFIX=/usr
installed opt /opt/smolder /etc/systemd/system /etc/sysusers.d PREFIX=/opt/smolder \
	UNITDIR=/etc/systemd/system SYSUSERSDIR=/etc/sysusers.d
