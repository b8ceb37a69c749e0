#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The build-only matrix: stackid.ko built against every amd64 headers
# package (flavours amd64, cloud-amd64 and rt-amd64, every ABI the
# package lists carry, not only the newest) of every Debian release
# test/kernels.conf names, each with the compiler its headers ask for, in
# that release's chroot where the host cannot (test/chroot.sh). A Debian
# kernel update that breaks the build shows up here, not at a user's.
#
#   test/matrix.sh --fetch [--no-chroot]
#                            (test/setup.sh) list the packages, download
#                            and unpack the missing ones, and (unless
#                            --no-chroot) put their compilers in the chroots
#   test/matrix.sh           (make check) build each; one TAP line each
#
# Headers are unpacked without their vmlinux (so modules get no BTF
# here; the VM lines build with it) into one tree per common-headers
# package, $STACKID_CACHE/headers/RELEASE/COMMON/, shared by its
# flavours, and kept. A passing build is remembered, keyed by the
# kernel-side sources, the headers package version and the build
# environment (release, chroot, compiler version), so a run with the same sources builds only what is new;
# STACKID_MATRIX_CACHE=0 builds everything; STACKID_MATRIX_ONLY=REGEX
# only the packages whose line matches. Two builds run at a time.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"

list=$STACKID_CACHE/matrix.list	# RELEASE KVER KDIR CC VERSION per line
hdir=$STACKID_CACHE/headers
say() { echo "matrix: $*" >&2; }

# --- fetch ------------------------------------------------------------------
fetch() {
	local rel pkgs p deps vers kver common root need dl missing d kdir cc
	local -A rootof
	mkdir -p "$hdir"
	: >"$list.tmp"
	for rel in $(kernel_lines | awk '{print $2}' | sort -u); do
		pkgs=$(release_apt "$rel" apt-cache pkgnames linux-headers- |
			grep -E '^linux-headers-[0-9]+\.[0-9]+\.[0-9]+.*-(amd64|cloud-amd64|rt-amd64)$' |
			sort)
		# every package's dependencies in one apt-cache call
		deps=$(release_apt "$rel" apt-cache depends $pkgs 2>/dev/null |
			awk '/^[^ ]/ {p = $1; next}
			     $1 == "Depends:" && $2 ~ /^linux-(headers|kbuild)-/ {print p, $2}')
		need=()
		rootof=()
		for p in $pkgs; do
			kver=${p#linux-headers-}
			common=$(awk -v p="$p" '$1 == p && $2 ~ /-common/ {print $2}' <<<"$deps")
			[ -n "$common" ] || { say "$p: no common headers package"; return 1; }
			root=$hdir/$rel/${common#linux-headers-}
			rootof[$p]=$root
			[ -f "$root/.stackid-done-$kver" ] && continue
			need+=("$p")
		done
		if [ ${#need[@]} -gt 0 ]; then
			say "$rel: fetching ${#need[@]} headers packages"
			dl=$hdir/.debs-$rel
			rm -rf "$dl"
			mkdir -p "$dl"
			# What the archive does not serve (a 404 on a package its
			# lists name) is left out here and reported by the build.
			(cd "$dl" && release_apt "$rel" apt-get download -qq \
				$(for p in "${need[@]}"; do
					echo "$p"
					awk -v p="$p" '$1 == p {print $2}' <<<"$deps"
				done | sort -u) >"$dl.log" 2>&1) ||
				grep '^E:' "$dl.log" | sed 's/^/matrix: /' >&2
			for p in "${need[@]}"; do
				root=${rootof[$p]}
				kver=${p#linux-headers-}
				mkdir -p "$root"
				missing=""
				for d in $p $(awk -v p="$p" '$1 == p {print $2}' <<<"$deps"); do
					[ -f "$root/.stackid-unpacked-$d" ] ||
						ls "$dl/${d}_"*.deb >/dev/null 2>&1 ||
						missing="$missing $d"
				done
				if [ -n "$missing" ]; then
					echo "$missing" >"$root/.stackid-missing-$kver"
					continue
				fi
				rm -f "$root/.stackid-missing-$kver"
				for d in $p $(awk -v p="$p" '$1 == p {print $2}' <<<"$deps"); do
					[ -f "$root/.stackid-unpacked-$d" ] && continue
					dpkg-deb --fsys-tarfile "$dl/${d}_"*.deb |
						tar -x -C "$root" --exclude='./usr/src/*/vmlinux' ||
						{ say "cannot unpack $d"; return 1; }
					touch "$root/.stackid-unpacked-$d"
				done
				debian_headers_fixup "$root" \
					"$root/usr/src/linux-headers-$kver/Makefile"
				touch "$root/.stackid-done-$kver"
			done
			rm -rf "$dl" "$dl.log"
		fi
		# every package's version in one apt-cache call, too
		vers=$(release_apt "$rel" apt-cache show --no-all-versions $pkgs 2>/dev/null |
			awk '/^Package: / {p = $2} /^Version: / {print p, $2}')
		for p in $pkgs; do
			kver=${p#linux-headers-}
			kdir=${rootof[$p]}/usr/src/linux-headers-$kver
			if [ -f "${rootof[$p]}/.stackid-missing-$kver" ]; then
				# no compiler to name: "missing:" and the packages
				echo "$rel $kver $kdir missing:$(echo $(cat "${rootof[$p]}/.stackid-missing-$kver") | tr ' ' ,) -"
				continue
			fi
			cc=$(kernel_cc "$kdir")
			[ -n "$cc" ] || { say "$p: no compiler in .kernelvariables"; return 1; }
			echo "$rel $kver $kdir $cc $(awk -v p="$p" '$1 == p {print $2; exit}' <<<"$vers")"
		done >>"$list.tmp"
	done
	mv "$list.tmp" "$list"
	say "$(wc -l <"$list") headers packages ready"
	[ "${1:-}" = --no-chroot ] && return
	# every compiler in its release's chroot
	grep -v ' missing:' "$list" >"$list.cc" || true
	while read -r rel ccs; do
		[ "$rel" = "$HOST_RELEASE" ] && continue
		"$top/test/chroot.sh" ensure "$rel" $ccs >/dev/null || return 1
	done < <(awk '{print $1, $4}' "$list.cc" | sort -u |
		awk '{a[$1] = a[$1] " " $2} END {for (r in a) print r, a[r]}')
	rm -f "$list.cc"
}

# --- build ------------------------------------------------------------------
# What a build's result depends on: the kernel-side sources.
src_hash() {
	(cd "$top" && cat dkms.conf Kbuild Makefile $(find src include -type f \
		-not -path 'src/tool/*' | sort)) | sha256sum | cut -c1-16
}

# one REL KVER KDIR CC VERSION: build one; print its TAP line.
one() {
	local rel=$1 kver=$2 kdir=$3 cc=$4 ver=$5 key ok work root env
	root=${kdir%/usr/src/*}
	case $cc in
	missing:*)
		# Nothing of ours can be built without the kernel's own
		# packages: said, not counted as a failure of stackid.
		echo "ok - build $kver ($rel) # SKIP the archive does not serve ${cc#missing:} (404)"
		return
		;;
	esac
	env=$rel
	[ "$rel" != "$HOST_RELEASE" ] && env="$rel $(basename "$("$top/test/chroot.sh" dir "$rel")")"
	env="$env $(awk -v r="$rel" -v c="$cc" '$1 == r && $2 == c {print $3}' <<<"$CC_VERSIONS")"
	key=$(echo "$SRC_HASH $kver $ver $env $cc" | sha256sum | cut -c1-16)
	ok=$STACKID_CACHE/matrix-ok/$key
	if [ "${STACKID_MATRIX_CACHE:-1}" != 0 ] && [ -f "$ok" ]; then
		echo "ok - build $kver ($rel $ver, $cc; same sources built before)"
		return
	fi
	work=$top/build/matrix/$kver
	rm -rf "$work"
	mkdir -p "$work"
	cp -r "$top/dkms.conf" "$top/Kbuild" "$top/Makefile" "$top/src" \
		"$top/include" "$work/"
	if in_build_env "$rel" "$work" "ro:$root" -- \
		make -C "$work" KVER="$kver" KDIR="$kdir" module >"$work.log" 2>&1 &&
		[ -f "$work/stackid.ko" ]; then
		mkdir -p "$(dirname "$ok")"
		touch "$ok"
		echo "ok - build $kver ($rel $ver, $cc)"
		rm -rf "$work" "$work.log"
	else
		echo "not ok - build $kver ($rel $ver, $cc)"
		grep -E 'error|Error|undefined|warning' "$work.log" | head -n 20 |
			sed 's/^/#   /'
		echo "#   log: $work.log"
	fi
}

case ${1:-} in
--fetch)
	fetch "${2:-}"
	exit
	;;
--one)
	shift
	one "$@"
	exit
	;;
"")	;;
*)	sed -n '11,15s/^# \{0,1\}//p' "$0" >&2
	exit 2
	;;
esac

if [ ! -s "$list" ]; then
	echo "not ok - build-only matrix: no $list (run test/setup.sh)"
	exit 1
fi
export SRC_HASH CC_VERSIONS
SRC_HASH=$(src_hash)
# each compiler's exact version, part of what a remembered build means
CC_VERSIONS=$(grep -v ' missing:' "$list" | awk '{print $1, $4}' | sort -u |
	while read -r rel cc; do
		echo "$rel $cc $(in_build_env "$rel" -- "$cc" --version 2>/dev/null |
			head -n 1 | tr -c 'a-zA-Z0-9.\n' _)"
	done)
mkdir -p "$top/build/matrix"
t0=$(date +%s)
# unbuffered lines from two builders at a time
grep -E -- "${STACKID_MATRIX_ONLY:-.}" "$list" | xargs -P 2 -L 1 "$0" --one |
	tee "$top/build/matrix.log"
n=$(grep '^ok ' "$top/build/matrix.log" | grep -vc '# SKIP')
k=$(grep -c '^ok .*# SKIP' "$top/build/matrix.log")
f=$(grep -c '^not ok ' "$top/build/matrix.log")
echo "# matrix: $n built, $f failed, $k skipped (not downloadable), of $(wc -l <"$list") headers packages in $(($(date +%s) - t0))s"
[ "$f" = 0 ]
