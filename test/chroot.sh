#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cached Debian chroots of other releases, for what the host (Debian 12)
# cannot do itself: build a module with the compiler, kbuild binaries and
# DKMS of the release a kernel comes from (bullseye's gcc-10, trixie's
# gcc-14, sid's gcc-16, their dkms), and, for other callers, install .debs
# on that release.
#
#   test/chroot.sh ensure RELEASE [PKG...]
#       Create the chroot if needed (debootstrap --variant=minbase from
#       deb.debian.org, with the base packages below), then install any PKG
#       not installed yet (apt-get inside the chroot). Prints its path.
#   test/chroot.sh run [--bind|--ro SRC[:DST]]... RELEASE -- CMD [ARG...]
#       Run CMD as root inside the chroot, in a private mount namespace
#       with /proc, /sys and /dev mounted and each SRC bind-mounted at DST
#       inside (default: the same path, so paths need no translation),
#       read-only with --ro.
#       Nothing is mounted on the host; everything goes with the command.
#   test/chroot.sh dir RELEASE
#       Print the path of the complete chroot; exit 1 if there is none.
#   test/chroot.sh copy RELEASE DIR
#       Ensure the chroot, then make DIR a fresh copy of it (replacing
#       DIR), for a test that installs packages without touching the
#       cached chroot; `run` takes DIR (a path with a /) for RELEASE.
#
# The chroot is $STACKID_CACHE/chroot/RELEASE-KEY, KEY a hash of the
# release, the base packages and this recipe's number; a stamp written last
# marks it complete, so an interrupted one is made again (keeping a
# debootstrap that finished) and a recipe change builds a new one. Package lists inside are refreshed when
# more than a day old, before an install. A lock serialises concurrent
# callers per release. The host's apt configuration is never touched: apt
# runs inside the chroot with the chroot's own sources.list.
set -euo pipefail

# Bump when a change below alters what a chroot contains.
recipe=1
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# What every chroot has: kbuild's needs (make, the libraries of the
# kbuild package's objtool, modpost and sign-file), pahole for BTF, kmod
# and DKMS as a user has them. The compiler the headers ask for comes as
# an extra PKG of `ensure`.
base=make,kmod,dkms,libelf-dev,libssl-dev,dwarves,bc,ca-certificates

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"

usage() {
	sed -n '10,25s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
die() { echo "chroot: $*" >&2; exit 1; }

chroot_key() {	# RELEASE
	echo "$1 recipe $recipe $base" | sha256sum | cut -c1-12
}
chroot_dir() {	# RELEASE
	echo "$STACKID_CACHE/chroot/$1-$(chroot_key "$1")"
}
stamp=.stackid-chroot-complete

# run_in ROOT [--bind SRC[:DST]]... -- CMD...: see `run` above.
run_in() {
	local root=$1 binds=()
	shift
	while [ "$1" != -- ]; do
		case $1 in
		--bind) binds+=("rw:$2") ;;
		--ro) binds+=("ro:$2") ;;
		*) usage ;;
		esac
		shift 2
	done
	shift
	ROOT=$root unshare --mount --propagation private bash -ec '
		mount -t proc proc "$ROOT/proc"
		mount -t sysfs sys "$ROOT/sys"
		mount --rbind /dev "$ROOT/dev"
		n=$1; shift
		for ((i = 0; i < n; i++)); do
			mode=${1%%:*}; b=${1#*:}
			src=${b%%:*}; dst=${b#*:}
			[ "$dst" = "$b" ] && dst=$src
			if [ -d "$src" ]; then
				mkdir -p "$ROOT$dst"
			else
				mkdir -p "$(dirname "$ROOT$dst")"
				[ -e "$ROOT$dst" ] || : >"$ROOT$dst"
			fi
			mount --bind "$src" "$ROOT$dst"
			[ "$mode" = ro ] && mount -o remount,bind,ro "$ROOT$dst"
			shift
		done
		exec chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 "$@"
	' sh ${#binds[@]} "${binds[@]}" "$@"
}

# apt inside ROOT, with the host's resolver configuration for the network.
apt_in() {	# ROOT ARGS...
	local root=$1
	shift
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	run_in "$root" -- env DEBIAN_FRONTEND=noninteractive \
		apt-get -qq -o APT::Install-Recommends=false "$@"
}

create() {	# RELEASE DIR
	local rel=$1 dir=$2 suites
	command -v debootstrap >/dev/null ||
		die "debootstrap missing (run test/setup.sh as root)"
	# A finished debootstrap is kept when a later step failed.
	if [ ! -f "$dir/.stackid-debootstrapped" ]; then
		echo "chroot: creating $rel in $dir (debootstrap, a few minutes)" >&2
		rm -rf "$dir"
		mkdir -p "$dir"
		debootstrap --variant=minbase --include="$base" \
			--keyring="$keyring" "$rel" "$dir" "$mirror" >"$dir.log" 2>&1 ||
			{ tail -n 20 "$dir.log" >&2; die "debootstrap $rel failed (log: $dir.log)"; }
		touch "$dir/.stackid-debootstrapped"
	fi
	# The release's point updates and security suite: the kernels setup
	# fetches are built against them, and so are their kbuild packages.
	case $rel in
	sid|unstable) suites="$rel" ;;
	*) suites="$rel $rel-updates" ;;
	esac
	for s in $suites; do
		echo "deb $mirror $s main"
	done >"$dir/etc/apt/sources.list"
	case $rel in
	sid|unstable) ;;
	*) echo "deb $security $rel-security main" >>"$dir/etc/apt/sources.list" ;;
	esac
	# A mirror's Release files may be past their Valid-Until (sid's are
	# valid for a week); the signatures are still checked.
	echo 'Acquire::Check-Valid-Until "false";' \
		>"$dir/etc/apt/apt.conf.d/99stackid"
	# No daemons from package scripts, ever.
	printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
	chmod 755 "$dir/usr/sbin/policy-rc.d"
	apt_in "$dir" update
	apt_in "$dir" -y dist-upgrade >>"$dir.log" 2>&1 ||
		die "apt-get dist-upgrade in $rel failed (log: $dir.log)"
	apt_in "$dir" clean
	echo "release=$rel key=$(chroot_key "$rel") recipe=$recipe" >"$dir/$stamp"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
ensure)
	[ $# -ge 1 ] || usage
	rel=$1
	shift
	dir=$(chroot_dir "$rel")
	mkdir -p "$STACKID_CACHE/chroot"
	exec 9>"$dir.lock"
	flock 9
	[ -f "$dir/$stamp" ] || create "$rel" "$dir"
	missing=()
	for p in "$@"; do
		run_in "$dir" -- dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "chroot: $rel: installing ${missing[*]}" >&2
		if [ -z "$(find "$dir/var/lib/apt/lists" -maxdepth 1 -name '*Packages*' -mtime -1)" ]; then
			apt_in "$dir" update
		fi
		apt_in "$dir" -y install "${missing[@]}" >>"$dir.log" 2>&1 || {
			tail -n 20 "$dir.log" >&2
			die "cannot install ${missing[*]} in $rel (log: $dir.log)"
		}
		apt_in "$dir" clean
	fi
	echo "$dir"
	;;
run)
	binds=()
	while [ "${1:-}" = --bind ] || [ "${1:-}" = --ro ]; do
		binds+=("$1" "$2")
		shift 2
	done
	[ $# -ge 3 ] && [ "$2" = -- ] || usage
	case $1 in
	*/*) dir=$1 ;;	# a copy (`copy`)
	*) dir=$(chroot_dir "$1") ;;
	esac
	[ -f "$dir/$stamp" ] || die "no chroot of $1 (test/chroot.sh ensure $1)"
	shift 2
	run_in "$dir" "${binds[@]}" -- "$@"
	;;
dir)
	[ $# = 1 ] || usage
	dir=$(chroot_dir "$1")
	[ -f "$dir/$stamp" ] || exit 1
	echo "$dir"
	;;
copy)
	[ $# = 2 ] || usage
	src=$("$0" ensure "$1")
	case $2 in
	*/*) ;;
	*) die "copy: DIR must be a path with a /" ;;
	esac
	rm -rf "$2"
	mkdir -p "$(dirname "$2")"
	cp -a "$src" "$2"
	echo "$2"
	;;
*)
	usage
	;;
esac
