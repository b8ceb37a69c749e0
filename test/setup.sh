#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what stackid's build, tests and demo need, and fetch the
# tested kernels. Idempotent: safe to re-run; a second run only checks.
#
#  - Debian packages: every list in test/packages.d/ (apt-get install).
#  - Each kernel line of test/kernels.conf: its meta-packages resolved to
#    the current Debian kernel ABI of its release (apt with a private
#    configuration per release, test/lib.sh: release_apt), then the
#    image, headers, common headers and kbuild packages downloaded
#    (apt-get download) and unpacked (dpkg -x) into
#    $STACKID_CACHE/kernels/KVER/. They are never installed on the host:
#    installing a headers package would pull in its image, and the
#    image's postinst would run the host's DKMS. A kernel of another
#    release than the host's gets a chroot of that release with the
#    compiler its headers ask for (test/chroot.sh).
#  - checkpatch.pl, from the linux-source-6.12 package.
#  - The build-only matrix's headers: every amd64 headers package of
#    those releases, and the common headers and kbuild of those it
#    builds (test/matrix.sh --fetch).
# The debug kernel (test/debug-kernel.sh) and the Debian 12 system image
# (test/system.sh) are made on first use by `make check`, in the
# background while its first guest suites run.
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
# Every release named in test/kernels.conf gets its package lists, in a
# private apt configuration (release_apt): the host's is not changed.
releases=$(kernel_lines | awk '{print $2}' | sort -u)
for rel in $releases; do
	release_apt "$rel" apt-get update -qq ||
		{ say "apt-get update for $rel failed" >&2; exit 1; }
done

# fetch DEST REL PKG...: download RELEASE's packages into DEST/.debs.
fetch() {
	local dest=$1 rel=$2
	shift 2
	rm -rf "$dest/.debs"
	mkdir -p "$dest/.debs"
	(cd "$dest/.debs" && release_apt "$rel" apt-get download -qq "$@" \
		>/dev/null 2>&1)
}
# unpack DEST [--no-vmlinux]: unpack what fetch downloaded into DEST and
# point the flavour headers' Makefile at the unpacked copy
# (debian_headers_fixup).
unpack() {
	local dest=$1 mk deb
	for deb in "$dest"/.debs/*.deb; do
		if [ "${2:-}" = --no-vmlinux ]; then
			dpkg-deb --fsys-tarfile "$deb" |
				tar -x -C "$dest" --exclude='./usr/src/*/vmlinux'
		else
			dpkg -x "$deb" "$dest"
		fi
	done
	rm -rf "$dest/.debs"
	for mk in "$dest"/usr/src/linux-headers-*/Makefile; do
		debian_headers_fixup "$dest" "$mk"
	done
}
# build_env REL KDIR: "REL gcc-N" for the headers in KDIR, and a chroot
# of REL with gcc-N where the host cannot build for them.
build_env() {
	local cc
	cc=$(kernel_cc "$2")
	[ -n "$cc" ] || { say "no compiler named in $2/.kernelvariables" >&2; return 1; }
	if [ "$1" != "$HOST_RELEASE" ]; then
		"$top/test/chroot.sh" ensure "$1" "$cc" >/dev/null || return 1
	fi
	echo "$1 $cc"
}

# The other releases' chroots take minutes each (debootstrap): made in
# the background while the kernels and the matrix's headers download.
declare -A chroot_pid
for rel in $releases; do
	[ "$rel" = "$HOST_RELEASE" ] && continue
	"$top/test/chroot.sh" ensure "$rel" >"$STACKID_CACHE/chroot-$rel.setup.log" 2>&1 &
	chroot_pid[$rel]=$!
done

mkdir -p "$STACKID_CACHE/kernels"
resolved=$STACKID_CACHE/kernels.resolved
: >"$resolved.tmp"
while read -r name release hdr img; do
	kver=$(resolve_meta "$release" "$hdr" linux-headers-)
	imgpkg=$(resolve_meta "$release" "$img" linux-image-)
	if [ -z "$kver" ] || [ -z "$imgpkg" ]; then
		say "cannot resolve $hdr / $img in $release" >&2
		exit 1
	fi
	imgpkg=linux-image-$imgpkg
	dest=$(kernel_root "$kver")
	if [ ! -f "$dest/.stackid-complete" ]; then
		# the image's own parts (split in sid: binary, modules, base)
		# and the headers' kernel-specific dependencies (common tree,
		# kbuild), not gcc, not the image again
		pkgs="$imgpkg $(kernel_deps "$release" "$imgpkg" "$kver")
			linux-headers-$kver $(kernel_deps "$release" "linux-headers-$kver" "$kver")"
		pkgs=$(echo $pkgs)
		say "kernel line $name: fetching $kver from $release ($pkgs)"
		rm -rf "$dest"
		fetch "$dest" "$release" $pkgs || {
			say "cannot download the packages of $kver" >&2
			exit 1
		}
		unpack "$dest"
		touch "$dest/.stackid-complete"
	fi
	[ -f "$(kernel_image "$kver")" ] && [ -f "$(kernel_kdir "$kver")/Makefile" ] || {
		say "kernel $kver: image or headers missing in $dest" >&2
		exit 1
	}
	echo "$name $kver $release" >>"$resolved.tmp"
done < <(kernel_lines)

# --- The build-only matrix's headers -------------------------------------
"$top/test/matrix.sh" --fetch --no-chroot ||
	{ say "matrix headers: failed" >&2; exit 1; }

# --- Build environments ----------------------------------------------------
for rel in "${!chroot_pid[@]}"; do
	wait "${chroot_pid[$rel]}" || {
		cat "$STACKID_CACHE/chroot-$rel.setup.log" >&2
		say "the $rel chroot failed" >&2
		exit 1
	}
	rm -f "$STACKID_CACHE/chroot-$rel.setup.log"
done
# Each line's: the host, or its release's chroot with the compiler its
# headers name.
while read -r name kver release; do
	dest=$(kernel_root "$kver")
	build_env "$release" "$(kernel_kdir "$kver")" >"$dest/.stackid-env.tmp" || {
		say "no build environment for $kver" >&2
		exit 1
	}
	mv "$dest/.stackid-env.tmp" "$dest/.stackid-env"
	say "kernel line $name: $kver ($(kernel_env "$kver"))"
done <"$resolved.tmp"
# The matrix's compilers, for the packages listed above.
"$top/test/matrix.sh" --chroots || { say "matrix compilers: failed" >&2; exit 1; }
cut -d' ' -f1,2 "$resolved.tmp" >"$resolved"
rm -f "$resolved.tmp"

# --- checkpatch.pl and the ioctl number registry -------------------------
kdoc=$STACKID_CACHE/kernel-doc
if [ ! -f "$kdoc/ioctl-number.rst" ]; then
	mkdir -p "$kdoc"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -O \
		linux-source-6.12/Documentation/userspace-api/ioctl/ioctl-number.rst \
		>"$kdoc/ioctl-number.rst.tmp"
	mv "$kdoc/ioctl-number.rst.tmp" "$kdoc/ioctl-number.rst"
fi
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
