# SPDX-License-Identifier: GPL-2.0
# Shared helpers for stackid's shell scripts (sourced, not run).
: "${STACKID_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/stackid}"
export STACKID_CACHE

# The kernel lines, from test/kernels.conf, without comments.
kernel_lines() {
	grep -v '^[[:space:]]*\(#\|$\)' "$top/test/kernels.conf"
}

# resolve_meta PKG PREFIX: the kernel version a meta-package points at,
# e.g. linux-headers-amd64 -> 6.1.0-57-amd64.
resolve_meta() {
	apt-cache depends "$1" | awk -v p="$2" '
		$1 == "Depends:" && index($2, p) == 1 {
			print substr($2, length(p) + 1); exit
		}'
}

# The resolved kernel versions, "NAME KVER" per line.
kernel_versions() {
	local name hdr img
	kernel_lines | while read -r name hdr img; do
		echo "$name $(resolve_meta "$hdr" linux-headers-)"
	done
}

# stackid's one version number, from dkms.conf.
stackid_version() {
	sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf"
}

# stage NAME T0: print how long a stage took since T0 (date +%s).
stage() {
	echo "stage $1: $(($(date +%s) - $2))s"
}

# Guest tests to run, in order (file names under test/guest/tests);
# STACKID_GUEST_TESTS="a.sh b.sh" runs only those.
guest_tests() {
	if [ -n "${STACKID_GUEST_TESTS:-}" ]; then
		printf '%s\n' $STACKID_GUEST_TESTS
	else
		(cd "$top/test/guest/tests" && ls *.sh)
	fi
}

# Kernel log lines that fail a run: warnings, oopses, and every report of
# the debug options (lockdep, KASAN, UBSAN, DEBUG_OBJECTS, lockup and
# hung-task detectors, sleeping in atomic context).
SPLAT_RE='WARNING:|\bBUG\b|Oops|general protection|unable to handle'
SPLAT_RE+='|sleeping function called from invalid context'
SPLAT_RE+='|possible circular locking|inconsistent lock state'
SPLAT_RE+='|possible recursive locking|lock held when returning'
SPLAT_RE+='|suspicious RCU usage|KASAN|UBSAN|KFENCE|refcount_t'
SPLAT_RE+='|list_add corruption|list_del corruption|stack-protector'
SPLAT_RE+='|ODEBUG|soft lockup|hard LOCKUP|blocked for more than'
SPLAT_RE+='|rcu_.*detected stall|Call Trace:|Kernel panic'

# dkms_install KVER [KDIR]: build and install stackid with DKMS for KVER
# from this tree, as a user's `dkms install` would. KDIR is only needed
# for a kernel without a headers package (the debug kernel).
dkms_install() {
	local kver=$1 kdir=${2:-} ver src
	ver=$(stackid_version)
	src=/usr/src/stackid-$ver
	(
		flock 9
		dkms remove "stackid/$ver" --all >/dev/null 2>&1
		rm -rf "$src"
		mkdir -p "$src"
		cp -r "$top/dkms.conf" "$top/Kbuild" "$top/Makefile" \
			"$top/src" "$top/include" "$src/"
		make -s -C "$src" module-clean >/dev/null 2>&1
		if [ -n "$kdir" ]; then
			# what installing a self-built kernel leaves behind
			mkdir -p "/lib/modules/$kver"
			ln -sfn "$kdir" "/lib/modules/$kver/build"
		fi
		dkms add "stackid/$ver" &&
		dkms build "stackid/$ver" -k "$kver" \
			${kdir:+--kernelsourcedir "$kdir"} &&
		dkms install "stackid/$ver" -k "$kver" --force \
			${kdir:+--kernelsourcedir "$kdir"}
	) 9>/run/stackid-dkms.lock
}

# copy_libs ROOT BINARY...: copy the shared libraries (and ELF
# interpreters) the binaries need into ROOT, at the same paths.
copy_libs() {
	local root=$1 f lib
	shift
	for f in "$@"; do
		file -L "$f" 2>/dev/null | grep -q 'dynamically linked' ||
			continue
		ldd "$f" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
}
