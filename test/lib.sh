# SPDX-License-Identifier: GPL-2.0
# Shared helpers for stackid's shell scripts (sourced, not run; $top set).
#
# Where things live:
#   $STACKID_CACHE/kernels/KVER/   each tested kernel's Debian packages,
#                                  unpacked with dpkg -x (image, headers,
#                                  kbuild): never installed on the host
#   $STACKID_CACHE/kernels.resolved  what setup resolved: NAME KVER per line
#   $STACKID_CACHE/debug-kernel/   the debug kernel (test/debug-kernel.sh)
#   $top/build/dkms/               the DKMS trees the tests use (not the
#                                  host's /var/lib/dkms, /usr/src or
#                                  /lib/modules): see dkms_install
: "${STACKID_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/stackid}"
export STACKID_CACHE

# The kernel lines, from test/kernels.conf, without comments:
# NAME RELEASE HEADERS-META IMAGE-META per line.
kernel_lines() {
	grep -v '^[[:space:]]*\(#\|$\)' "$top/test/kernels.conf"
}

# resolve_meta PKG PREFIX: the kernel version a meta-package points at,
# e.g. linux-headers-amd64 -> 6.1.0-57-amd64.
resolve_meta() {
	apt-cache depends "$1" 2>/dev/null | awk -v p="$2" '
		$1 == "Depends:" && index($2, p) == 1 {
			print substr($2, length(p) + 1); exit
		}'
}

# The kernel versions setup resolved and unpacked, "NAME KVER" per line,
# in test/kernels.conf order. Resolved once, at setup time, so that a
# package-list update between setup and a run cannot ask for a kernel
# that is not in the cache.
kernel_versions() {
	cat "$STACKID_CACHE/kernels.resolved" 2>/dev/null
}

# Where setup unpacked kernel KVER, and its headers tree (KDIR).
kernel_root() {
	echo "$STACKID_CACHE/kernels/$1"
}
kernel_kdir() {
	echo "$STACKID_CACHE/kernels/$1/usr/src/linux-headers-$1"
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
# the debug options (lockdep, KASAN, UBSAN, DEBUG_OBJECTS, kmemleak,
# lockup and hung-task detectors, sleeping in atomic context).
SPLAT_RE='WARNING:|\bBUG\b|Oops|general protection|unable to handle'
SPLAT_RE+='|sleeping function called from invalid context'
SPLAT_RE+='|possible circular locking|inconsistent lock state'
SPLAT_RE+='|possible recursive locking|lock held when returning'
SPLAT_RE+='|suspicious RCU usage|KASAN|UBSAN|KFENCE|refcount_t'
SPLAT_RE+='|list_add corruption|list_del corruption|stack-protector'
SPLAT_RE+='|ODEBUG|soft lockup|hard LOCKUP|blocked for more than'
SPLAT_RE+='|rcu_.*detected stall|Call Trace:|Kernel panic'
SPLAT_RE+='|suspected memory leak|Uhhuh. NMI received'

# The line the guest writes to its kernel log just before the first
# test loads the module: splats before it are the kernel's own.
GUEST_MARK='stackid-guest: kernel booted; tests start now'

# dkms_private DIR [KDIR] -- DKMS-ARGS...: run `dkms DKMS-ARGS` with its
# trees under DIR (DIR/tree, DIR/src, DIR/install: --dkmstree,
# --sourcetree, --installtree), so that the host's own DKMS (which runs
# on every kernel package install), /var/lib/dkms, /usr/src and
# /lib/modules never see it. DKMS reads its signing settings only from
# /etc/dkms/framework.conf, so it runs in a private mount namespace where
# a framework.conf of ours stands there (sign-file from KDIR, the key in
# DIR) and /var/lib/dkms is an empty directory of ours, so that not even
# a default it falls back to reaches the host's tree. depmod is left to
# the caller (--no-depmod on install), which runs it on its own tree.
dkms_private() {
	local d=$1 sign=
	shift
	if [ "$1" != -- ]; then
		sign=$(ls "$1"/scripts/sign-file 2>/dev/null || true)
		shift
	fi
	shift
	mkdir -p "$d/tree" "$d/src" "$d/install" "$d/etc" "$d/varlib"
	cat >"$d/etc/framework.conf" <<-EOF
	dkms_tree="$d/tree"
	source_tree="$d/src"
	install_tree="$d/install"
	sign_file="${sign:-/nonexistent}"
	mok_signing_key="$d/mok.key"
	mok_certificate="$d/mok.pub"
	EOF
	D=$d unshare --mount --propagation private sh -ec '
		mount --bind "$D/etc" /etc/dkms
		if [ -d /var/lib/dkms ]; then
			mount --bind "$D/varlib" /var/lib/dkms
		fi
		exec dkms "$@" --dkmstree "$D/tree" --sourcetree "$D/src" \
			--installtree "$D/install"
	' sh "$@"
}

# dkms_install KVER KDIR: build and install stackid with DKMS for KVER,
# against the kernel tree KDIR, from a copy of this tree, as a user's
# `dkms add/build/install` would, into build/dkms/ (dkms_private).
dkms_install() {
	local kver=$1 kdir=$2 ver d
	ver=$(stackid_version)
	d=$top/build/dkms
	mkdir -p "$d"
	(
		flock 9
		rm -rf "$d/tree" "$d/src" "$d/install/$kver"
		mkdir -p "$d/src/stackid-$ver" "$d/install/$kver"
		cp -r "$top/dkms.conf" "$top/Kbuild" "$top/Makefile" \
			"$top/src" "$top/include" "$d/src/stackid-$ver/"
		make -s -C "$d/src/stackid-$ver" module-clean >/dev/null 2>&1
		dkms_private "$d" "$kdir" -- add "stackid/$ver" &&
		dkms_private "$d" "$kdir" -- build "stackid/$ver" -k "$kver" \
			--kernelsourcedir "$kdir" &&
		dkms_private "$d" "$kdir" -- install "stackid/$ver" -k "$kver" \
			--kernelsourcedir "$kdir" --no-depmod --force
	) 9>"$d/lock"
}

# copy_libs ROOT BINARY...: copy what the binaries need at run time (ELF
# interpreters, shared libraries, transitively) into ROOT at the paths
# the loader looks for them, and write ROOT's ld.so.cache. Everything is
# read from ELF headers (build/elfdeps): no guest program, and no ELF
# interpreter, is ever executed on the host.
copy_libs() {
	local root=$1 f dirs
	shift
	"$top/build/elfdeps" --root "$root" "$@" >"$root.deps" || return 1
	while read -r f; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f" || return 1
	done <"$root.deps"
	dirs=$(sed 's|/[^/]*$||' "$root.deps" | sort -u)
	mkdir -p "$root/etc"
	printf '%s\n' $dirs >"$root/etc/ld.so.conf"
	ldconfig -r "$root" 2>/dev/null
	rm -f "$root.deps"
}
