#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build/elfdeps works out what a guest program needs from its ELF headers
# alone: checked on the 64-bit and 32-bit known programs against what
# readelf says they ask for, with the 32-bit ELF interpreter made
# unexecutable, and under strace to see that nothing but elfdeps itself
# is ever executed. TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
E=$top/build/elfdeps
G=$top/build/guest
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root/stackid"
cp "$G/chain32" "$G/chain64" "$G/libchain32.so" "$G/libchain64.so" \
	"$root/stackid/"

interp() { readelf -lW "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p'; }
needed() { readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
class() { readelf -hW "$1" | awk '/Class:/ {print $2}'; }

for m in 64 32; do
	want=ELF$m
	out=$tmp/deps$m
	if ! "$E" --root "$root" "$root/stackid/chain$m" >"$out" 2>"$tmp/err"; then
		nok "chain$m: elfdeps succeeds"
		sed 's/^/# /' "$tmp/err"
		continue
	fi
	ok "chain$m: elfdeps succeeds ($(wc -l <"$out") files)"
	sed 's/^/# /' "$out"
	ip=$(interp "$G/chain$m")
	check "chain$m: lists its interpreter $ip" grep -qxF "$ip" "$out"
	check "chain$m: libchain$m.so, already in the root, is not listed" \
		sh -c "! grep -q libchain '$out'"
	# every NEEDED name of the program and of each library found is
	# provided, by a file of the program's class
	bad=""
	for f in "$root/stackid/chain$m" "$root/stackid/libchain$m.so" $(cat "$out"); do
		[ -e "$f" ] || continue
		for lib in $(needed "$f"); do
			grep -q "/$lib\$" "$out" || [ -e "$root/stackid/$lib" ] ||
				bad="$bad $f:$lib"
		done
	done
	check "chain$m: every DT_NEEDED is provided${bad:+ (missing:$bad)}" test -z "$bad"
	bad=""
	while read -r f; do
		[ "$(class "$f")" = "$want" ] || bad="$bad $f"
	done <"$out"
	check "chain$m: every file listed is $want${bad:+ (not:$bad)}" test -z "$bad"
	check "chain$m: libc.so.6 is listed" grep -q '/libc\.so\.6$' "$out"
done

# The same with the 32-bit interpreter unexecutable, in a private mount
# namespace; and strace shows no execve but elfdeps' own.
ld32=$(readlink -f "$(interp "$G/chain32")")
cp "$ld32" "$tmp/ld32"
chmod 000 "$tmp/ld32"
if unshare --mount --propagation private sh -c '
	mount --bind "$1" "$2" && ! test -x "$2" &&
	"$3" --root "$4" "$4/stackid/chain32"' sh "$tmp/ld32" "$ld32" "$E" \
	"$root" >"$tmp/noexec" 2>"$tmp/err"; then
	check "chain32 with $ld32 unexecutable: same list" \
		cmp -s "$tmp/noexec" "$tmp/deps32"
else
	nok "chain32 with $ld32 unexecutable: elfdeps succeeds"
	sed 's/^/# /' "$tmp/err"
fi
if command -v strace >/dev/null; then
	strace -f -qq -e trace=execve -o "$tmp/trace" \
		"$E" --root "$root" "$root/stackid/chain32" "$root/stackid/chain64" >/dev/null 2>&1
	execs=$(grep -c 'execve(' "$tmp/trace")
	check "strace: elfdeps executes nothing ($execs execve, its own)" test "$execs" = 1
else
	nok "strace is installed (test/packages.d/base.txt)"
fi

# A library nowhere to be found: exit 1, named.
rm "$root/stackid/libchain64.so"
"$E" --root "$root" "$root/stackid/chain64" >/dev/null 2>"$tmp/err"
rc=$?
check "missing libchain64.so: exit 1 (got $rc)" test $rc = 1
check "missing libchain64.so: named on stderr" grep -q 'libchain64.so not found' "$tmp/err"
echo "1..$n"
