#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install everything stackid's build, tests and demo need, and fetch the
# guest kernel images. Idempotent: safe to re-run.
#
# Kernel images are downloaded with `apt-get download` and unpacked with
# `dpkg -x` into $STACKID_CACHE (default: .cache/ in the tree); they are
# never installed into the host's /boot.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "setup: must run as root (it installs Debian packages)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
base_pkgs="build-essential gcc gcc-multilib make bc kmod dkms cpio
	busybox-static qemu-system-x86 libelf-dev libdw-dev
	libdebuginfod-dev elfutils binutils clang llvm linux-source-6.12
	flex bison libssl-dev xz-utils zstd file"

need_update=1
apt_install() {
	if [ $need_update = 1 ]; then
		apt-get update -qq
		need_update=0
	fi
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing=""
for p in $base_pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
# Resolving meta-packages needs current package lists.
apt-get update -qq
need_update=0
[ -z "$missing" ] || { echo "setup: installing$missing"; apt_install $missing; }

mkdir -p "$STACKID_CACHE/kernels"
while read -r name hdr img; do
	kver=$(resolve_meta "$hdr" linux-headers-)
	imgpkg=$(apt-cache depends "$img" | awk '/Depends: linux-image-/ {print $2; exit}')
	[ -n "$kver" ] && [ -n "$imgpkg" ] || {
		echo "setup: cannot resolve $hdr / $img" >&2
		exit 1
	}
	dpkg -s "linux-headers-$kver" >/dev/null 2>&1 ||
		apt_install "linux-headers-$kver"
	dest="$STACKID_CACHE/kernels/$kver"
	if [ ! -f "$dest/boot/vmlinuz-$kver" ]; then
		tmp=$(mktemp -d); chmod 755 "$tmp"
		(cd "$tmp" && apt-get download -qq "$imgpkg")
		rm -rf "$dest"
		mkdir -p "$dest"
		dpkg -x "$tmp"/*.deb "$dest"
		rm -rf "$tmp"
	fi
	echo "setup: kernel line $name: $kver ($imgpkg)"
done < <(kernel_lines)
# checkpatch.pl and its data files, for the style check in make check.
cp_dir=$STACKID_CACHE/checkpatch
if [ ! -f "$cp_dir/scripts/checkpatch.pl" ]; then
	rm -rf "$cp_dir.tmp"
	mkdir -p "$cp_dir.tmp"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$cp_dir.tmp" \
		--strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch
	rm -rf "$cp_dir"
	mv "$cp_dir.tmp" "$cp_dir"
fi
echo "setup: done"
