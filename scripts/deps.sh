#!/bin/sh
# Installs smolder's build and test dependencies from Debian/Ubuntu packages.
# A no-op when they are all present.
set -e
PKGS="clang llvm make gcc libc6-dev libbpf-dev libelf-dev zlib1g-dev liblzma-dev bpftool pkg-config libiberty-dev binutils xz-utils g++ libclang-rt-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "smolder: missing packages:$missing (run as root: sudo scripts/deps.sh)" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
