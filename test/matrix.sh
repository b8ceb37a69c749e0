#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The build-only matrix: stackid.ko against every amd64 headers package
# (flavours amd64, cloud-amd64 and rt-amd64, every ABI the package lists
# carry, not only the newest) of every Debian release test/kernels.conf
# names, each with the compiler its headers ask for, in that release's
# chroot where the host cannot (test/chroot.sh). A Debian kernel update
# that breaks the build shows up here, not at a user's.
#
#   test/matrix.sh --fetch [--no-chroot]
#                            (test/setup.sh) list the packages, download
#                            and unpack what is missing, group them, and
#                            (unless --no-chroot) put their compilers in
#                            the chroots
#   test/matrix.sh --chroots (test/setup.sh, after --fetch --no-chroot)
#                            only put the listed compilers in the chroots
#   test/matrix.sh           (make check) build one package of each
#                            group; one TAP line per package
#
# Groups: the packages of one release, kernel line (major.minor, e.g.
# 6.1), flavour configuration (the .config's hash, without
# CONFIG_BUILD_SALT: it only names the ABI) and compiler. These are what
# can change a build's outcome, except the stable updates' own header
# changes within a line. Built: the newest package of each group, and
# the oldest of each line and flavour, so both ends of every line's
# stable updates are. Every other package is reported `ok` as covered by
# its group's newest, named, once each kernel symbol that one imports is
# exported alike (name, licence, namespace) in its own Module.symvers.
# Of those only the flavour package (.config, Module.symvers, generated
# headers; a few MB) is fetched, not the common headers and kbuild.
# STACKID_MATRIX_GROUPS=0, given to --fetch and then to the run, builds
# every package.
#
# Headers are unpacked without their vmlinux (so modules get no BTF
# here; the VM lines build with it) into one tree per common-headers
# package, $STACKID_CACHE/headers/RELEASE/COMMON/, shared by its
# flavours, and kept. Each build gets exactly the files the stackid-dkms
# package ships (make dkms-src), from one copy made at the start of the
# run. A passing build is remembered, keyed by those files, the headers
# package version and the build environment (release, chroot, compiler
# version), so a run with the same sources builds only what is new.
# A package that a VM line's DKMS built from these files, in the same
# environment, against an identical headers tree (test/vm.sh keeps that
# with its build), takes that module instead of compiling again.
# STACKID_MATRIX_CACHE=0 builds everything it would build, itself;
# STACKID_MATRIX_ONLY=REGEX only the packages whose line matches (and
# their groups' newest). Two builds run at a time.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"

# RELEASE KVER KDIR CC VERSION REP per line; REP is the package built
# for it (KVER itself when it is built)
list=$STACKID_CACHE/matrix.list
hdir=$STACKID_CACHE/headers
say() { echo "matrix: $*" >&2; }
groups_on() { [ "${STACKID_MATRIX_GROUPS:-1}" != 0 ]; }

# --- fetch ------------------------------------------------------------------
# download REL PKG...: download PKG... of REL into $dl. What the archive
# does not serve (a 404 on a package its lists name) is left out here
# and reported by the build.
download() {
	local rel=$1
	shift
	rm -rf "$dl"
	mkdir -p "$dl"
	[ $# -gt 0 ] || return 0
	(cd "$dl" && release_apt "$rel" apt-get download -qq \
		$(printf '%s\n' "$@" | sort -u) >"$dl.log" 2>&1) ||
		grep '^E:' "$dl.log" | sed 's/^/matrix: /' >&2
	rm -f "$dl.log"
}
# unpack ROOT DEB: unpack DEB (downloaded into $dl) into ROOT, once;
# fails if it was not downloaded.
unpack() {
	[ -f "$1/.stackid-unpacked-$2" ] && return 0
	ls "$dl/${2}_"*.deb >/dev/null 2>&1 || return 1
	mkdir -p "$1"
	dpkg-deb --fsys-tarfile "$dl/${2}_"*.deb |
		tar -x -C "$1" --exclude='./usr/src/*/vmlinux' ||
		{ say "cannot unpack $2"; exit 1; }
	touch "$1/.stackid-unpacked-$2"
}
# config_hash KDIR: the flavour configuration, without comments and
# without CONFIG_BUILD_SALT (the ABI's name, seeding build-ids only).
config_hash() {
	grep -v -e '^#' -e '^$' -e '^CONFIG_BUILD_SALT=' "$1/.config" |
		sha256sum | cut -c1-16
}
# plan: read "KVER VERSION CC CONFIG-HASH" lines of one release, print
# "KVER REP" for each: REP the package built for it (see the top).
plan() {
	sort -k2,2V -k1,1V | awk '
	{
		match($1, /^[0-9]+\.[0-9]+/); line = substr($1, 1, RLENGTH)
		match($1, /-(cloud-|rt-)?amd64$/); lf = line " " substr($1, RSTART)
		k[NR] = $1; g[NR] = lf " " $3 " " $4; l[NR] = lf
		newest[g[NR]] = $1		# oldest first
		if (!(lf in oldest)) oldest[lf] = $1
	}
	END {
		for (i = 1; i <= NR; i++)
			print k[i], (oldest[l[i]] == k[i] ? k[i] : newest[g[i]])
	}'
}

fetch() {
	local rel pkgs p deps vers kver common root d kdir cc missing reps n
	local -A rootof repof
	mkdir -p "$hdir"
	: >"$list.tmp"
	for rel in $(kernel_lines | awk '{print $2}' | sort -u); do
		dl=$hdir/.debs-$rel
		pkgs=$(release_apt "$rel" apt-cache pkgnames linux-headers- |
			grep -E '^linux-headers-[0-9]+\.[0-9]+\.[0-9]+.*-(amd64|cloud-amd64|rt-amd64)$' |
			sort)
		# every package's dependencies and version in one apt-cache
		# call each
		deps=$(release_apt "$rel" apt-cache depends $pkgs 2>/dev/null |
			awk '/^[^ ]/ {p = $1; next}
			     $1 == "Depends:" && $2 ~ /^linux-(headers|kbuild)-/ {print p, $2}')
		vers=$(release_apt "$rel" apt-cache show --no-all-versions $pkgs 2>/dev/null |
			awk '/^Package: / {p = $2} /^Version: / {print p, $2}')
		rootof=()
		for p in $pkgs; do
			common=$(awk -v p="$p" '$1 == p && $2 ~ /-common/ {print $2}' <<<"$deps")
			[ -n "$common" ] || { say "$p: no common headers package"; return 1; }
			rootof[$p]=$hdir/$rel/${common#linux-headers-}
		done

		# 1. Each package's own files (the flavour package): what
		# grouping reads.
		n=0
		for p in $pkgs; do
			[ -f "${rootof[$p]}/.stackid-unpacked-$p" ] || n=$((n + 1))
		done
		if [ "$n" -gt 0 ]; then
			say "$rel: fetching $n flavour headers packages"
			download "$rel" $(for p in $pkgs; do
				[ -f "${rootof[$p]}/.stackid-unpacked-$p" ] || echo "$p"
			done)
			for p in $pkgs; do
				unpack "${rootof[$p]}" "$p" || continue
				kver=${p#linux-headers-}
				debian_headers_fixup "${rootof[$p]}" \
					"${rootof[$p]}/usr/src/linux-headers-$kver/Makefile"
			done
		fi

		# 2. Groups, from the packages at hand.
		repof=()
		while read -r kver d; do
			repof[$kver]=$d
		done < <(for p in $pkgs; do
			kver=${p#linux-headers-}
			kdir=${rootof[$p]}/usr/src/linux-headers-$kver
			[ -f "$kdir/.config" ] || continue
			echo "$kver $(awk -v p="$p" '$1 == p {print $2; exit}' <<<"$vers") $(kernel_cc "$kdir") $(config_hash "$kdir")"
		done | plan)

		# 3. The common headers and kbuild of each package built.
		reps=()
		for p in $pkgs; do
			kver=${p#linux-headers-}
			[ -f "${rootof[$p]}/.stackid-done-$kver" ] && continue
			# not served: said once, by the list below
			[ -n "${repof[$kver]:-}" ] || continue
			if [ "${repof[$kver]}" = "$kver" ] || ! groups_on; then
				reps+=("$p")
			fi
		done
		if [ ${#reps[@]} -gt 0 ]; then
			say "$rel: fetching the common headers and kbuild of ${#reps[@]} packages"
			download "$rel" $(for p in "${reps[@]}"; do
				for d in $(awk -v p="$p" '$1 == p {print $2}' <<<"$deps"); do
					[ -f "${rootof[$p]}/.stackid-unpacked-$d" ] || echo "$d"
				done
			done)
			for p in "${reps[@]}"; do
				root=${rootof[$p]}
				kver=${p#linux-headers-}
				missing=""
				for d in $p $(awk -v p="$p" '$1 == p {print $2}' <<<"$deps"); do
					unpack "$root" "$d" || missing="$missing $d"
				done
				if [ -n "$missing" ]; then
					echo "$missing" >"$root/.stackid-missing-$kver"
					continue
				fi
				rm -f "$root/.stackid-missing-$kver"
				touch "$root/.stackid-done-$kver"
			done
		fi
		rm -rf "$dl"

		for p in $pkgs; do
			root=${rootof[$p]}
			kver=${p#linux-headers-}
			kdir=$root/usr/src/linux-headers-$kver
			missing=""
			if [ ! -f "$kdir/.config" ]; then
				missing=$p
			elif [ "${repof[$kver]}" = "$kver" ] || ! groups_on; then
				missing=$(cat "$root/.stackid-missing-$kver" 2>/dev/null)
			fi
			if [ -n "$missing" ]; then
				# no compiler to name: "missing:" and the packages
				echo "$rel $kver $kdir missing:$(echo $missing | tr ' ' ,) - $kver"
				continue
			fi
			cc=$(kernel_cc "$kdir")
			[ -n "$cc" ] || { say "$p: no compiler in .kernelvariables"; return 1; }
			echo "$rel $kver $kdir $cc $(awk -v p="$p" '$1 == p {print $2; exit}' <<<"$vers") ${repof[$kver]}"
		done >>"$list.tmp"
	done
	mv "$list.tmp" "$list"
	say "$(wc -l <"$list") headers packages ready, $(awk '$2 == $6' "$list" | grep -vc ' missing:') to build"
	[ "${1:-}" = --no-chroot ] && return
	chroots
}

# chroots: every compiler the list names, in its release's chroot.
chroots() {
	local rel ccs
	grep -v ' missing:' "$list" >"$list.cc" || true
	while read -r rel ccs; do
		[ "$rel" = "$HOST_RELEASE" ] && continue
		"$top/test/chroot.sh" ensure "$rel" $ccs >/dev/null || return 1
	done < <(awk '{print $1, $4}' "$list.cc" | sort -u |
		awk '{a[$1] = a[$1] " " $2} END {for (r in a) print r, a[r]}')
	rm -f "$list.cc"
}

# --- build ------------------------------------------------------------------
src=$top/build/matrix/src	# the files built, copied once per run

# okfile REL KVER CC VERSION: where a passing build of those sources
# for that package in that environment is remembered, with the kernel
# symbols the module imports ("NAME LICENCE NAMESPACE" lines).
okfile() {
	local env=$1 key
	[ "$1" != "$HOST_RELEASE" ] && env="$1 $(basename "$("$top/test/chroot.sh" dir "$1")")"
	env="$env $(awk -v r="$1" -v c="$3" '$1 == r && $2 == c {print $3}' <<<"$CC_VERSIONS")"
	key=$(echo "$SRC_HASH $2 $4 $env $3" | sha256sum | cut -c1-16)
	echo "$STACKID_CACHE/matrix-ok/$key"
}

# headers_hash KDIR: what a build against the headers tree KDIR sees:
# its files but the top Makefile (which names the common tree's path)
# and vmlinux (test/vm.sh's trees have it, the matrix's not), its common
# tree's and its kbuild's, with the three names; "none" if the two are
# not found beside it. The same for a VM line's tree and the matrix's
# copy of the same packages.
headers_hash() {
	local k=$1 inc common kb d
	inc=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$k/Makefile" 2>/dev/null |
		head -n 1)
	common=$(dirname "$k")/$(basename "$inc")
	kb=$(dirname "$(dirname "$k")")/lib/$(basename "$(dirname "$(readlink "$k/scripts")")")
	if [ -z "$inc" ] || [ ! -d "$common" ] || [ ! -d "$kb" ]; then
		echo none
		return
	fi
	{
		echo "$(basename "$k") $(basename "$common") $(basename "$kb")"
		for d in "$k" "$common" "$kb"; do
			(cd "$d" && find . -type f ! -path ./Makefile ! -path ./vmlinux -print0 |
				LC_ALL=C sort -z | xargs -0 -r sha256sum
			 find . -type l -printf '%p -> %l\n' | LC_ALL=C sort)
		done
	} | sha256sum | cut -c1-16
}

# line_build REL KVER KDIR CC: the module that KVER's VM line built
# (test/vm.sh, kept under $STACKID_CACHE/builds/KVER) from the files of
# this run, in REL with CC, against headers identical to KDIR's; fails
# if there is none. DKMS built it, as this would, only with BTF.
line_build() {
	local b s hh r c h=
	for b in "$STACKID_CACHE/builds/$2"/*/; do
		[ -f "$b/done" ] && [ -f "$b/built-from" ] || continue
		read -r s hh r c <"$b/built-from"
		[ "$s" = "$SRC_HASH" ] && [ "$r $c" = "$1 $4" ] || continue
		[ -n "$h" ] || h=$(headers_hash "$3")
		[ "$h" != none ] && [ "$hh" = "$h" ] || continue
		ls "$b"stackid.ko* 2>/dev/null | head -n 1 | grep . && return 0
	done
	return 1
}

# imports KO KDIR: the kernel symbols module KO (.ko, .ko.xz or .ko.zst)
# imports, as KDIR's Module.symvers exports them: "NAME LICENCE
# NAMESPACE" lines.
imports() {
	local t
	t=$(mktemp) || return 1
	case $1 in
	*.xz) xz -dc "$1" >"$t" ;;
	*.zst) zstd -qdc "$1" >"$t" ;;
	*) cp "$1" "$t" ;;
	esac || { rm -f "$t"; return 1; }
	nm -u "$t" | awk '{print $NF}' |
		awk -F'\t' 'NR == FNR {u[$1]; next}
			($2 in u) {print $2, $4, ($5 == "" ? "-" : $5)}' \
			- "$2/Module.symvers" | sort
	rm -f "$t"
}

# one REL KVER KDIR CC VERSION REP: build one; print its TAP line.
one() {
	local rel=$1 kver=$2 kdir=$3 cc=$4 ver=$5 ok work root lko
	root=${kdir%/usr/src/*}
	case $cc in
	missing:*)
		# Nothing of ours can be built without the kernel's own
		# packages: said, not counted as a failure of stackid.
		echo "ok - build $kver ($rel) # SKIP the archive does not serve ${cc#missing:} (404)"
		return
		;;
	esac
	if [ ! -f "$root/.stackid-done-$kver" ]; then
		echo "not ok - build $kver ($rel $ver, $cc): only its flavour headers are fetched (STACKID_MATRIX_GROUPS=0 test/matrix.sh --fetch)"
		return
	fi
	ok=$(okfile "$rel" "$kver" "$cc" "$ver")
	if [ "${STACKID_MATRIX_CACHE:-1}" != 0 ] && [ -s "$ok" ]; then
		echo "ok - build $kver ($rel $ver, $cc; same sources built before)"
		return
	fi
	mkdir -p "$(dirname "$ok")"
	if [ "${STACKID_MATRIX_CACHE:-1}" != 0 ] &&
		lko=$(line_build "$rel" "$kver" "$kdir" "$cc") &&
		imports "$lko" "$kdir" >"$ok.tmp"; then
		mv "$ok.tmp" "$ok"
		echo "ok - build $kver ($rel $ver, $cc; these sources, built by its VM line against the same headers)"
		return
	fi
	work=$top/build/matrix/$kver
	rm -rf "$work"
	cp -a "$src" "$work"
	if in_build_env "$rel" "$work" "ro:$root" -- \
		make -C "$work" KVER="$kver" KDIR="$kdir" module >"$work.log" 2>&1 &&
		[ -f "$work/stackid.ko" ]; then
		# what it imports, as this package's Module.symvers exports it
		if imports "$work/stackid.ko" "$kdir" >"$ok.tmp"; then
			mv "$ok.tmp" "$ok"
			echo "ok - build $kver ($rel $ver, $cc)"
			rm -rf "$work" "$work.log"
		else
			echo "not ok - build $kver ($rel $ver, $cc): nm cannot read the module it built"
		fi
	else
		echo "not ok - build $kver ($rel $ver, $cc)"
		grep -E 'error|Error|undefined|warning' "$work.log" | head -n 20 |
			sed 's/^/#   /'
		echo "#   log: $work.log"
	fi
}

# covered REL KVER KDIR CC VERSION REP: a package not built, covered by
# REP of its group (built by this run or remembered): its TAP line.
covered() {
	local rel=$1 kver=$2 kdir=$3 cc=$4 ver=$5 rep=$6 r ok bad
	r=$(grep -m 1 -E "^(not )?ok - build $(sed 's/[.+]/\\&/g' <<<"$rep") " "$top/build/matrix.log")
	case $r in
	"ok "*"# SKIP"*)
		echo "ok - build $kver ($rel) # SKIP covered by $rep, which the archive does not serve"
		return ;;
	"ok "*) ;;
	*)	echo "not ok - build $kver ($rel $ver, $cc): covered by $rep, which did not build"
		return ;;
	esac
	ok=$(okfile "$rel" "$rep" "$cc" "$(awk -v k="$rep" '$2 == k {print $5}' "$list")")
	bad=$(awk 'NR == FNR {want[$1] = $0; next}
		($1 in want) && (want[$1] == $0) {delete want[$1]}
		END {for (s in want) print s}' "$ok" \
		<(awk -F'\t' '{print $2, $4, ($5 == "" ? "-" : $5)}' "$kdir/Module.symvers") | sort | xargs)
	if [ -z "$bad" ]; then
		echo "ok - build $kver ($rel $ver, $cc) covered by $rep: same line, configuration and compiler, the $(wc -l <"$ok") kernel symbols it imports exported alike"
	else
		echo "not ok - build $kver ($rel $ver, $cc) covered by $rep: not exported alike here: $bad"
	fi
}

case ${1:-} in
--fetch)
	fetch "${2:-}"
	exit
	;;
--chroots)
	[ -s "$list" ] || { say "no $list: run --fetch first"; exit 1; }
	chroots
	exit
	;;
--one)
	shift
	one "$@"
	exit
	;;
--headers-hash)	# for test/vm.sh
	headers_hash "$2"
	exit
	;;
"")	;;
*)	sed -n '/^#   test\/matrix.sh --fetch/,/^#$/s/^# \{0,1\}//p' "$0" >&2
	exit 2
	;;
esac

if [ ! -s "$list" ]; then
	echo "not ok - build-only matrix: no $list (run test/setup.sh)"
	exit 1
fi
if [ "$(awk '{print NF; exit}' "$list")" != 6 ]; then
	echo "not ok - build-only matrix: $list is of an older test/matrix.sh (run test/setup.sh)"
	exit 1
fi
export SRC_HASH CC_VERSIONS
# One copy of what the stackid-dkms package ships, for every build of
# this run: the files built are the files hashed, even if the tree
# changes meanwhile.
rm -rf "$top/build/matrix"
mkdir -p "$top/build/matrix"
make -s -C "$top" dkms-src DESTDIR="$src" || {
	echo "not ok - build-only matrix: make dkms-src failed"
	exit 1
}
SRC_HASH=$(tree_files_hash "$src" | sha256sum | cut -c1-16)
# each compiler's exact version, part of what a remembered build means
CC_VERSIONS=$(grep -v ' missing:' "$list" | awk '{print $1, $4}' | sort -u |
	while read -r rel cc; do
		echo "$rel $cc $(in_build_env "$rel" -- "$cc" --version 2>/dev/null |
			head -n 1 | tr -c 'a-zA-Z0-9.\n' _)"
	done)
t0=$(date +%s)
# STACKID_MATRIX_ONLY matches a line without its last field (REP)
sel=$(cut -d' ' -f1-5 "$list" | grep -nE -- "${STACKID_MATRIX_ONLY:-.}" |
	cut -d: -f1 | awk 'NR == FNR {n[$1]; next} FNR in n' - "$list")
if groups_on; then
	# the packages selected that are built, and the groups' newest
	# of the others
	build=$(awk 'NR == FNR {r[$6]; next} ($2 in r)' <(echo "$sel") "$list")
	cover=$(awk '$2 != $6' <<<"$sel")
else
	build=$sel
	cover=
fi
# unbuffered lines from two builders at a time
grep . <<<"$build" | xargs -r -P 2 -L 1 "$0" --one | tee "$top/build/matrix.log"
if [ -n "$cover" ]; then
	while read -r line; do
		covered $line
	done <<<"$cover" | tee -a "$top/build/matrix.log"
fi
n=$(grep -c '^ok - build [^ ]* ([^)]*)$' "$top/build/matrix.log")
r=$(grep -c '^ok - build .*; same sources built before)$' "$top/build/matrix.log")
v=$(grep -c '^ok - build .*; these sources, built by its VM line against the same headers)$' "$top/build/matrix.log")
c=$(grep -c '^ok .* covered by .*exported alike' "$top/build/matrix.log")
k=$(grep -c '^ok .*# SKIP' "$top/build/matrix.log")
f=$(grep -c '^not ok ' "$top/build/matrix.log")
echo "# matrix: $n built ($r of them remembered, $v by the VM lines), $c covered by a built package of their group, $f failed, $k skipped (not downloadable), of $(wc -l <"$list") headers packages in $(($(date +%s) - t0))s"
[ "$f" = 0 ]
