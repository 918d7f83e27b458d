#!/bin/sh
# The source tree's shape: tests/tools/check_structure.py says what it
# checks (one line per broken rule, exit 1 if any broke).
exec python3 "$(dirname "$0")/check_structure.py" "$@"
