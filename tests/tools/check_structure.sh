#!/bin/sh
# The source tree's shape: tests/tools/check_structure.py says what it
# checks (one line per broken rule, exit 1 if any broke).  Debian's
# python3, as the other tests run: a python3 first in PATH may be a
# version manager's shim, ten times slower to start, and structure.sh runs
# this nine times in the fast tier.
exec /usr/bin/python3 "$(dirname "$0")/check_structure.py" "$@"
