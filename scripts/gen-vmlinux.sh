#!/bin/bash
# Regenerates vmlinux/<arch>/vmlinux.h, the kernel type definitions that
# bpf/*.bpf.c is compiled against, with `bpftool btf dump ... format c`.
#
# The headers are committed on purpose: a build never depends on the build
# machine's kernel (no /sys/kernel/btf/vmlinux, no kernel headers, no bpftool
# run at build time), so builds are reproducible and arm64 can be built on an
# x86_64 host and vice versa.  The BPF program uses CO-RE, so libbpf relocates
# field offsets against the running kernel's BTF at load time; one header per
# architecture serves every kernel.  Regenerate only when the BPF code needs a
# type or field that the committed header lacks.
#
# Usage:
#   scripts/gen-vmlinux.sh              host arch, from /sys/kernel/btf/vmlinux
#   scripts/gen-vmlinux.sh ARCH FILE    ARCH: x86_64 (amd64) or arm64 (aarch64)
#
# FILE may be a vmlinux ELF with a .BTF section, a raw BTF blob (such as
# /sys/kernel/btf/vmlinux), or a kernel image (Image, Image.gz, vmlinuz,
# EFI zboot vmlinuz, x86 bzImage) from which the raw BTF blob is carved out.
# For example, arm64 from a Debian kernel package, on any host:
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get download linux-image-6.12.117+deb12-arm64-unsigned:arm64
#   dpkg-deb -x linux-image-*_arm64.deb /tmp/k
#   scripts/gen-vmlinux.sh arm64 /tmp/k/boot/vmlinuz-*
#   (then dpkg --remove-architecture arm64 after dropping its package lists)
#
# Needs bpftool (override with BPFTOOL=...), coreutils and GNU grep (or
# python3), plus gzip/xz/zstd/bzip2/lz4/lzop for compressed images.
set -u

die() {
	echo "gen-vmlinux: $*" >&2
	exit 1
}

usage() {
	echo "usage: scripts/gen-vmlinux.sh [ARCH FILE]"
	echo "  no arguments: host arch, BTF from /sys/kernel/btf/vmlinux"
	echo "  ARCH: x86_64 (amd64) or arm64 (aarch64)"
	echo "  FILE: vmlinux ELF with .BTF, raw BTF blob, or kernel image (Image, Image.gz, vmlinuz)"
}

case $# in
0)
	arch=$(uname -m)
	src=/sys/kernel/btf/vmlinux
	[ -e "$src" ] || die "$src not found (kernel without CONFIG_DEBUG_INFO_BTF?); pass ARCH FILE"
	;;
1)
	case $1 in
	-h | --help) usage; exit 0 ;;
	esac
	die "usage: scripts/gen-vmlinux.sh [ARCH FILE]"
	;;
2)
	arch=$1
	src=$2
	;;
*)
	die "usage: scripts/gen-vmlinux.sh [ARCH FILE]"
	;;
esac

case $arch in
x86_64 | amd64 | x86) arch=x86_64 ;;
arm64 | aarch64) arch=arm64 ;;
*) die "unsupported arch '$arch' (want x86_64 or arm64)" ;;
esac

if ! [ -f "$src" ] || ! [ -r "$src" ]; then
	die "cannot read $src"
fi

BPFTOOL=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
[ -x "$BPFTOOL" ] || command -v "$BPFTOOL" >/dev/null 2>&1 ||
	die "bpftool not found (apt-get install bpftool, or set BPFTOOL=)"

root=$(cd "$(dirname "$0")/.." && pwd) || die "cannot find the repository root"
outdir=$root/vmlinux/$arch
out=$outdir/vmlinux.h

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gen-vmlinux.XXXXXX") || die "cannot create a temporary directory"
newhdr=
cleanup() {
	rm -rf "$tmp"
	[ -z "$newhdr" ] || rm -f "$newhdr"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

n=0 # counter for temporary file names
dumped=$tmp/dump.h

# first_bytes FILE N: the first N bytes of FILE as lowercase hex, no spaces
first_bytes() {
	od -An -v -tx1 -N "$2" "$1" 2>/dev/null | tr -d ' \n'
}

# dump FILE: run bpftool on FILE; success leaves a C header in $dumped
dump() {
	"$BPFTOOL" btf dump file "$1" format c >"$dumped" 2>/dev/null &&
		[ -s "$dumped" ]
}

# magic_offsets FILE HEX: byte offsets of every occurrence of the bytes HEX
# (e.g. 9feb0100) in FILE, in order
if LC_ALL=C grep -P '' /dev/null 2>/dev/null; [ $? -le 1 ]; then
	magic_offsets() {
		LC_ALL=C grep -obUaP "$(printf '%s' "$2" | sed 's/../\\x&/g')" "$1" | cut -d: -f1
	}
elif command -v python3 >/dev/null 2>&1; then
	magic_offsets() {
		python3 - "$1" "$2" <<-'EOF'
			import sys
			data = open(sys.argv[1], "rb").read()
			magic = bytes.fromhex(sys.argv[2])
			i = data.find(magic)
			while i >= 0:
			    print(i)
			    i = data.find(magic, i + 1)
		EOF
	}
else
	die "need GNU grep with -P, or python3, to search binary files"
fi

# carve_btf FILE: find raw BTF blobs inside FILE (magic 0xeB9F, version 1,
# little-endian: 9f eb 01 00), check that the header is plausible, cut the
# blob out and keep the first one bpftool accepts.
carve_btf() {
	local f=$1 size off hdr_len type_off type_len str_off str_len data len blob
	size=$(wc -c <"$f")
	for off in $(magic_offsets "$f" 9feb0100); do
		# shellcheck disable=SC2046
		set -- $(od -An -v -tu1 -j $((off + 4)) -N 20 "$f")
		[ $# -eq 20 ] || continue
		local -a h=("$@")
		hdr_len=$((h[0] | h[1] << 8 | h[2] << 16 | h[3] << 24))
		type_off=$((h[4] | h[5] << 8 | h[6] << 16 | h[7] << 24))
		type_len=$((h[8] | h[9] << 8 | h[10] << 16 | h[11] << 24))
		str_off=$((h[12] | h[13] << 8 | h[14] << 16 | h[15] << 24))
		str_len=$((h[16] | h[17] << 8 | h[18] << 16 | h[19] << 24))
		if [ "$hdr_len" -ne 24 ] || [ "$type_len" -le 0 ] || [ "$str_len" -le 0 ]; then
			continue
		fi
		data=$((str_off + str_len))
		[ $((type_off + type_len)) -le "$data" ] || data=$((type_off + type_len))
		len=$((hdr_len + data))
		[ $((off + len)) -le "$size" ] || continue
		n=$((n + 1))
		blob=$tmp/btf.$n
		tail -c +$((off + 1)) "$f" | head -c "$len" >"$blob"
		if dump "$blob"; then
			return 0
		fi
		rm -f "$blob"
	done
	return 1
}

# decompress TYPE IN OUT: tolerant of trailing data after the stream (the
# result is validated by bpftool anyway)
decompress() {
	local cmd
	case $1 in
	gzip) cmd="gzip -dc" ;;
	xz) cmd="xz -dcq" ;;
	lzma) cmd="xz -dcq --format=lzma" ;;
	zstd | zstd22) cmd="zstd -dcq" ;;
	bzip2) cmd="bzip2 -dcq" ;;
	lz4) cmd="lz4 -dcq" ;;
	lzo) cmd="lzop -dcq" ;;
	*) return 2 ;;
	esac
	command -v "${cmd%% *}" >/dev/null 2>&1 || return 3
	$cmd <"$2" >"$3" 2>/dev/null
	[ -s "$3" ]
}

# compression_of HEX: compression format of data starting with these bytes
compression_of() {
	case $1 in
	1f8b*) echo gzip ;;
	fd377a585a00*) echo xz ;;
	28b52ffd*) echo zstd ;;
	425a68*) echo bzip2 ;;
	02214c18* | 04224d18*) echo lz4 ;;
	894c5a4f*) echo lzo ;;
	5d000000*) echo lzma ;;
	esac
}

# find_btf FILE DEPTH: finds BTF that bpftool accepts in FILE, unpacking
# it if needed; success leaves the dump in $dumped
find_btf() {
	local f=$1 depth=$2 head comp poff psize next off type magic tool
	head=$(first_bytes "$f" 8)
	case $head in
	9feb0100*) # raw BTF blob
		dump "$f" && return 0
		die "$src: bpftool cannot read this BTF blob"
		;;
	7f454c46*) # ELF: bpftool reads its .BTF section
		# e_machine 247 is EM_BPF: a BPF object's BTF only has the types
		# that program uses
		case $(od -An -v -tu1 -j 18 -N 2 "$f" | tr -s ' ') in
		" 247 0" | " 0 247") die "$src is a BPF object, not a kernel" ;;
		esac
		dump "$f" && return 0
		;;
	esac
	carve_btf "$f" && return 0
	[ "$depth" -lt 3 ] || return 1

	n=$((n + 1))
	next=$tmp/unpacked.$n
	# EFI zboot (arm64 CONFIG_EFI_ZBOOT): "MZ", "zimg", payload offset and
	# size (le32), then the compression name at offset 24
	if [ "$(first_bytes "$f" 8 | cut -c1-4,9-16)" = 4d5a7a696d67 ]; then
		# shellcheck disable=SC2046
		set -- $(od -An -v -tu4 -j 8 -N 8 --endian=little "$f")
		[ $# -eq 2 ] || return 1
		poff=$1 psize=$2
		comp=$(tail -c +25 "$f" | head -c 32 | tr '\000' '\n' | head -n 1)
		tail -c +$((poff + 1)) "$f" | head -c "$psize" >"$next.z"
		decompress "$comp" "$next.z" "$next"
		case $? in
		0) rm -f "$next.z"; find_btf "$next" $((depth + 1)) && return 0 ;;
		2) die "$src: zboot image with unknown compression '$comp'" ;;
		3) die "$src: zboot image needs a $comp decompressor" ;;
		esac
		return 1
	fi

	comp=$(compression_of "$head")
	if [ -n "$comp" ]; then
		decompress "$comp" "$f" "$next"
		case $? in
		0) find_btf "$next" $((depth + 1)) && return 0 ;;
		3) die "$src: needs a $comp decompressor" ;;
		esac
		rm -f "$next"
		return 1
	fi

	# A compressed kernel embedded somewhere in a boot image (bzImage,
	# self-decompressing images), as scripts/extract-vmlinux does
	[ "$depth" -eq 0 ] || return 1
	for type in gzip xz zstd bzip2 lzma lz4 lzo; do
		case $type in
		gzip) magic=1f8b08 tool=gzip ;;
		xz) magic=fd377a585a00 tool=xz ;;
		zstd) magic=28b52ffd tool=zstd ;;
		bzip2) magic=425a68 tool=bzip2 ;;
		lzma) magic=5d000000 tool=xz ;;
		lz4) magic=02214c18 tool=lz4 ;;
		lzo) magic=894c5a4f tool=lzop ;;
		esac
		command -v "$tool" >/dev/null 2>&1 || continue
		for off in $(magic_offsets "$f" "$magic" | head -n 16); do
			tail -c +$((off + 1)) "$f" >"$next.z"
			if decompress "$type" "$next.z" "$next"; then
				rm -f "$next.z"
				find_btf "$next" $((depth + 1)) && return 0
			fi
			rm -f "$next" "$next.z"
		done
	done
	return 1
}

find_btf "$src" 0 || die "$src: no usable BTF found (kernel built without CONFIG_DEBUG_INFO_BTF?)"

[ "$(head -n 1 "$dumped")" = "#ifndef __VMLINUX_H__" ] ||
	die "$src: unexpected bpftool output"
grep -q '^struct task_struct {' "$dumped" ||
	die "$src: BTF has no struct task_struct (a module's BTF, not the kernel's?)"
# guard against writing one architecture's types into the other's header
case $arch in
arm64) grep -q '^struct user_pt_regs {' "$dumped" ;;
x86_64) grep -A1 '^struct pt_regs {' "$dumped" | grep -q ' r15;$' ;;
esac || die "$src: BTF is not from an $arch kernel (struct pt_regs does not match)"

mkdir -p "$outdir" || die "cannot create $outdir"
newhdr=$(mktemp "$outdir/.vmlinux.h.XXXXXX") || die "cannot write to $outdir"
if ! { cat "$dumped" >"$newhdr" && chmod 644 "$newhdr" && mv -f "$newhdr" "$out"; }; then
	die "cannot write $out"
fi
newhdr=
echo "wrote vmlinux/$arch/vmlinux.h ($(wc -c <"$out") bytes) from $src"
