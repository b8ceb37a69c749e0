#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what stackid's build, tests and demo need, and fetch the
# tested kernels. Idempotent: safe to re-run; a second run only checks.
#
#  - Debian packages: every list in test/packages.d/ (apt-get install).
#  - Each kernel line of test/kernels.conf: its meta-packages resolved to
#    the current Debian kernel ABI, then the image, headers, common
#    headers and kbuild packages downloaded (apt-get download) and
#    unpacked (dpkg -x) into $STACKID_CACHE/kernels/KVER/. They are never
#    installed on the host: installing a headers package would pull in
#    its image, and the image's postinst would run the host's DKMS.
#  - checkpatch.pl, from the linux-source-6.12 package.
# The debug kernel is built on first use by `make check`
# (test/debug-kernel.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"

say() { echo "setup: $*"; }
if [ "$(id -u)" != 0 ]; then
	echo "setup: must run as root (it installs Debian packages)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)

# --- Debian packages ---------------------------------------------------
pkgs=$(cat "$top"/test/packages.d/*.txt | sed 's/#.*//' | xargs)
missing=""
for p in $pkgs; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = \
		"install ok installed" ] || missing="$missing $p"
done
# Resolving meta-packages needs current package lists.
apt-get update -qq
if [ -n "$missing" ]; then
	say "installing$missing"
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# --- Kernels -------------------------------------------------------------
mkdir -p "$STACKID_CACHE/kernels"
resolved=$STACKID_CACHE/kernels.resolved
: >"$resolved.tmp"
# unpack_kernel KVER PKG...: download the packages, unpack them into the
# kernel's root, point its headers at their own copy of the common tree.
unpack_kernel() {
	local kver=$1 dest tmp mk
	shift
	dest=$(kernel_root "$kver")
	tmp=$(mktemp -d)
	chmod 755 "$tmp"	# apt's download runs as _apt
	(cd "$tmp" && apt-get download -qq "$@" 2>/dev/null) || {
		rm -rf "$tmp"
		return 1
	}
	rm -rf "$dest"
	mkdir -p "$dest"
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$dest"
	done
	rm -rf "$tmp"
	# Debian's flavour Makefile is one line, "include /usr/src/...":
	# the only absolute path that points outside the unpacked tree.
	mk=$(kernel_kdir "$kver")/Makefile
	sed -i "s|^include /usr/src/|include $dest/usr/src/|" "$mk"
	touch "$dest/.stackid-complete"
}

while read -r name release hdr img; do
	if [ "$release" != bookworm ]; then
		say "kernel line $name: release $release is not supported yet" >&2
		exit 1
	fi
	kver=$(resolve_meta "$hdr" linux-headers-)
	imgpkg=$(resolve_meta "$img" linux-image-)
	if [ -z "$kver" ] || [ -z "$imgpkg" ]; then
		say "cannot resolve $hdr / $img with apt-cache" >&2
		exit 1
	fi
	imgpkg=linux-image-$imgpkg
	dest=$(kernel_root "$kver")
	if [ ! -f "$dest/.stackid-complete" ]; then
		# the headers' own kernel-specific dependencies: the common
		# tree and kbuild (not gcc, not the image)
		deps=$(apt-cache depends "linux-headers-$kver" |
			awk '$1 == "Depends:" && $2 ~ /^linux-(headers|kbuild)-/ {print $2}')
		say "kernel line $name: fetching $kver ($imgpkg, linux-headers-$kver $(echo $deps))"
		unpack_kernel "$kver" "$imgpkg" "linux-headers-$kver" $deps || {
			say "cannot download the packages of $kver" >&2
			exit 1
		}
	fi
	[ -f "$dest/boot/vmlinuz-$kver" ] && [ -f "$(kernel_kdir "$kver")/Makefile" ] || {
		say "kernel $kver: image or headers missing in $dest" >&2
		exit 1
	}
	echo "$name $kver" >>"$resolved.tmp"
	say "kernel line $name: $kver"
done < <(kernel_lines)
mv "$resolved.tmp" "$resolved"

# --- checkpatch.pl -------------------------------------------------------
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
say "done in $(($(date +%s) - t0))s (cache: $STACKID_CACHE)"
