# Helper of errors.sh and tests/cli/errors_privileges.sh (sourced after
# lib.sh, not run).

# err_case NAME RC_ERE MSG_ERE ARGS...: run smolder ARGS (with -o to a file
# that must not appear); PASS error_NAME when it exits RC_ERE with one
# "smolder: <lowercase>" line on stderr matching MSG_ERE (case-insensitive),
# nothing on stdout and no output file.
err_case() {
	local name=$1 want_rc=$2 msg=$3 rc why=
	shift 3
	rm -f "$TMP/e.file"
	timeout 10 "$SMOLDER" "$@" -o "$TMP/e.file" >"$TMP/e.out" 2>"$TMP/e.err"
	rc=$?
	if ! [[ $rc =~ ^($want_rc)$ ]]; then why="exit code $rc, want $want_rc"
	elif ! one_error "$TMP/e.err" >/dev/null; then why="stderr: $(head -c 300 "$TMP/e.err" | tr '\n' '|')"
	elif ! grep -qiE -- "$msg" "$TMP/e.err"; then why="message does not match /$msg/: $(cat "$TMP/e.err")"
	elif [ -s "$TMP/e.out" ]; then why="stdout not empty: $(head -c 200 "$TMP/e.out")"
	elif [ -e "$TMP/e.file" ]; then why="output file created"
	fi
	if [ -z "$why" ]; then pass "error_$name"; else fail "error_$name" "smolder $*: $why"; fi
}
