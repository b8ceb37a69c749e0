#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once, cached) a small debug kernel for stackid's VM tests.
#
# Debian's kernels have none of the checkers that catch a kernel module's
# bugs early (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, UBSAN, ...), so this
# builds one from Debian's linux-source-6.12 package: `make tinyconfig`
# plus the fragment test/debug-kernel.config. The result is a kernel tree
# that the VM harness boots (arch/x86/boot/bzImage) and builds the module
# against (make -C DIR M=...), i.e. one more kernel line. See
# test/DEBUG-KERNEL.md.
#
# Usage: test/debug-kernel.sh [--print-dir [--cached]]
#
# The tree lives in $STACKID_CACHE/debug-kernel/KEY/, KEY a hash of the
# package version, the fragment, the compiler and this recipe's version.
# A stamp file written last marks a build complete; a later run with a
# stamp returns at once, one without resumes the build (kbuild rebuilds
# whatever was cut short). Safe to run concurrently: a lock serialises.
set -euo pipefail

# Bump when a change below alters what gets built.
recipe=1

top=$(cd "$(dirname "$0")/.." && pwd)
frag=$top/test/debug-kernel.config
pkg=linux-source-6.12
tarball=/usr/src/$pkg.tar.xz
cache=${STACKID_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stackid}/debug-kernel
stamp_name=.stackid-build-complete

usage() {
	echo "usage: $0 [--print-dir [--cached]]"
	echo "  Build the cached debug kernel if needed; print its tree."
	echo "  --print-dir  print only the tree's path on stdout"
	echo "  --cached     never build: exit 1 if it is not built yet"
}

print_dir=0
cached_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--print-dir) print_dir=1 ;;
	--cached) cached_only=1 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done

# Progress goes to fd 3: stdout, or stderr with --print-dir so that
# stdout carries only the path.
if [ $print_dir = 1 ]; then exec 3>&2; else exec 3>&1; fi
say() { echo "debug-kernel: $*" >&3; }
die() { echo "debug-kernel: $*" >&2; exit 1; }

status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
if [ "$status" != "install ok installed" ] || [ ! -f "$tarball" ]; then
	die "$pkg is not installed (run test/setup.sh as root)"
fi
pkgver=$(dpkg-query -W -f='${Version}' "$pkg")
ccver=$(gcc --version 2>/dev/null | sed -n 1p) ||
	die "gcc not found (run test/setup.sh as root)"
key=$( { echo "$pkgver"; echo "$ccver"; echo "recipe $recipe"; cat "$frag"; } |
	sha256sum | cut -c1-12)
dir=$cache/$key
stamp=$dir/$stamp_name

finish() {
	local secs
	if [ $print_dir = 1 ]; then
		echo "$dir"
		exit 0
	fi
	secs=$(sed -n 's/^build_seconds=//p' "$stamp")
	say "$dir"
	say "release $(cat "$dir/kernelrelease")"
	say "build time ${secs}s${1:+ ($1)}"
	exit 0
}

[ -f "$stamp" ] && finish cached
[ $cached_only = 1 ] && exit 1

# One builder per key; others wait for it and then take its result.
mkdir -p "$cache"
exec 9>"$cache/$key.lock"
if ! flock -n 9; then
	say "waiting for another build of $key"
	flock 9
fi
[ -f "$stamp" ] && finish cached

for t in make gcc flex bison bc tar xz perl; do
	command -v $t >/dev/null || die "$t not found (run test/setup.sh as root)"
done
[ -f /usr/include/libelf.h ] || die "libelf-dev missing (run test/setup.sh as root)"

# kbuild must see only what we pass it: not a parent make's flags, not a
# caller's ARCH/LOCALVERSION/O=.
unset MAKEFLAGS MFLAGS MAKELEVEL ARCH SUBARCH CROSS_COMPILE CC LLVM \
	KBUILD_OUTPUT KCONFIG_CONFIG LOCALVERSION KCFLAGS KAFLAGS

SECONDS=0
log=$dir/build.log
fail() {
	echo "debug-kernel: FAILED: $*; last 40 lines of $log:" >&2
	tail -n 40 "$log" >&2
	exit 1
}
step() {
	echo "=== $(date '+%F %T') $*" >>"$log"
	"$@" >>"$log" 2>&1 || fail "$*"
}

if [ ! -f "$dir/.stackid-extracted" ]; then
	say "building in $dir (about 10 minutes on 2 cores)"
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "debug-kernel: key $key: $pkg $pkgver, $ccver, recipe $recipe" >"$log"
	step tar -xJf "$tarball" -C "$dir" --strip-components=1
	touch "$dir/.stackid-extracted"
else
	say "resuming the unfinished build in $dir"
	echo "debug-kernel: resuming" >>"$log"
fi

cd "$dir"
jobs=$(nproc)
step make tinyconfig
step scripts/kconfig/merge_config.sh -m .config "$frag"
step make olddefconfig

# Kconfig drops a fragment line without a word when a dependency is
# missing: every line must be in the final .config as written.
lost=""
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" .config || lost="$lost$line"$'\n' ;;
	"# CONFIG_"*" is not set")
		sym=${line#"# "}; sym=${sym%% *}
		! grep -q "^$sym=" .config || lost="$lost$line"$'\n' ;;
	esac
done <"$frag"
if [ -n "$lost" ]; then
	{ echo "=== fragment lines lost in .config:"; printf '%s' "$lost"; } >>"$log"
	{
		echo "debug-kernel: FAILED: these lines of $frag did not survive olddefconfig (log: $log):"
		printf '%s' "$lost" | while IFS= read -r line; do
			sym=${line#"# "}; sym=${sym%%[= ]*}
			echo "  want: $line   got: $(grep -E "^(# )?${sym}[= ]" .config || echo unset)"
		done
	} >&2
	exit 1
fi

# `modules` also writes Module.symvers, which out-of-tree module builds
# against this tree need (modules_prepare alone does not).
step make -j"$jobs" bzImage modules_prepare
step make -j"$jobs" modules
if [ ! -f arch/x86/boot/bzImage ] || [ ! -f Module.symvers ]; then
	fail "bzImage or Module.symvers missing after the build"
fi
release=$(make -s kernelrelease 2>>"$log") || fail "make kernelrelease"
echo "$release" >kernelrelease
secs=$SECONDS
echo "=== $(date '+%F %T') done: $release in ${secs}s" >>"$log"

# Written last: its presence alone means "complete".
cat >"$stamp.tmp" <<EOF
key=$key
package=$pkg $pkgver
compiler=$ccver
recipe=$recipe
release=$release
build_seconds=$secs
EOF
mv "$stamp.tmp" "$stamp"
finish built
