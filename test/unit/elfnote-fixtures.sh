#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build real ELF files with known build-ids for test_elfnote, into DIR, and
# print one "FILE HEX" line per file: HEX is the build-id as readelf -n shows
# it, or "-" for a file linked without one. Feed the lines to the test:
#
#	sh test/unit/elfnote-fixtures.sh build/elfnote-fixtures | \
#		xargs build/test_elfnote
#
# DIR must not contain white space (xargs splits on it). Variants the
# toolchain cannot build (no -m32 libraries, no lld...) are skipped with a
# note on stderr; the basic 64-bit ones must build. CC defaults to gcc.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
cc=${CC:-gcc}
mkdir -p "$dir"
src=$dir/hello.c
printf 'int main(void)\n{\n\treturn 0;\n}\n' >"$src"
printf 'int f(void)\n{\n\treturn 1;\n}\n' >"$dir/lib.c"

# build-id of FILE, lower-case hex, or nothing
build_id() {
	LC_ALL=C readelf -n "$1" 2>/dev/null |
		sed -n 's/^[[:space:]]*Build ID:[[:space:]]*\([0-9a-fA-F]*\).*/\1/p' |
		head -n 1 | tr 'A-F' 'a-f'
}

# emit FILE [EXPECTED]: print the line; check readelf against EXPECTED.
# readelf (binutils 2.40) shows nothing for a build-id note whose section
# is not padded to 4 bytes, as ld makes it for a 1-byte id: then trust the
# value given to the linker.
emit() {
	hex=$(build_id "$1")
	if [ $# -ge 2 ] && [ -z "$hex" ]; then
		echo "elfnote-fixtures: $1: readelf shows no build-id," \
			"using the linker's $2" >&2
		hex=$2
	fi
	if [ $# -ge 2 ] && [ "$hex" != "$2" ]; then
		echo "elfnote-fixtures: $1: readelf says '${hex}', want '$2'" >&2
		exit 1
	fi
	echo "$1 ${hex:--}"
}

# fixture NAME REQUIRED EXPECTED CC-ARGS...: EXPECTED "" means any
fixture() {
	name=$1 required=$2 want=$3
	shift 3
	if "$cc" -o "$dir/$name" "$@" >"$dir/$name.log" 2>&1; then
		if [ -n "$want" ]; then
			emit "$dir/$name" "$want"
		else
			emit "$dir/$name"
		fi
	elif [ "$required" = yes ]; then
		echo "elfnote-fixtures: $cc -o $dir/$name $*: failed:" >&2
		cat "$dir/$name.log" >&2
		exit 1
	else
		echo "elfnote-fixtures: skipping $name ($cc $* failed)" >&2
	fi
}

hex8=0123456789abcdef
hex1=a5
hex20=00112233445566778899aabbccddeeff01234567

for m in 64 32; do
	req=yes
	[ "$m" = 32 ] && req=no
	fixture "hex8-m$m" "$req" "$hex8" -m$m "$src" \
		-Wl,--build-id=0x$hex8
	fixture "md5-m$m" "$req" "" -m$m "$src" -Wl,--build-id=md5
	fixture "sha1-m$m" "$req" "" -m$m "$src" -Wl,--build-id=sha1
	fixture "uuid-m$m" no "" -m$m "$src" -Wl,--build-id=uuid
	fixture "hex1-m$m" no "$hex1" -m$m "$src" -Wl,--build-id=0x$hex1
	fixture "hex20-m$m" no "$hex20" -m$m "$src" \
		-Wl,--build-id=0x$hex20
	fixture "none-m$m" no "" -m$m "$src" -Wl,--build-id=none
	fixture "nopie-m$m" no "" -m$m -no-pie "$src" -Wl,--build-id=sha1
	fixture "static-m$m" no "" -m$m -static "$src" -Wl,--build-id=md5
	fixture "lib-m$m.so" no "" -m$m -shared -fPIC "$dir/lib.c" \
		-Wl,--build-id=sha1
	fixture "gold-m$m" no "" -m$m -fuse-ld=gold "$src" \
		-Wl,--build-id=sha1
	fixture "lld-m$m" no "$hex8" -m$m -fuse-ld=lld "$src" \
		-Wl,--build-id=0x$hex8
	fixture "lld-sha1-m$m" no "" -m$m -fuse-ld=lld "$src" \
		-Wl,--build-id=sha1
	fixture "maxpage-m$m" no "" -m$m "$src" -Wl,--build-id=sha1 \
		-Wl,-z,max-page-size=0x200000 -Wl,-z,noseparate-code
done

# A few of the distribution's own binaries, if present.
for f in /bin/true /usr/bin/env /lib/x86_64-linux-gnu/libc.so.6 \
	 /lib64/ld-linux-x86-64.so.2; do
	f=$(readlink -f "$f" 2>/dev/null) || continue
	[ -f "$f" ] && [ -n "$(build_id "$f")" ] && emit "$f"
done
exit 0
