#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel feature probes (Kbuild runs this; see README, "Kernel
# differences"): compile each DIR/NAME.c against the target kernel's
# headers with the module's own compiler and flags, and print a header
# with "#define STACKID_HAS_NAME 1" for each that compiles. sanity.c must
# compile everywhere: if it does not, the probe command itself is broken,
# so this fails the build instead of reporting every feature missing.
#
# Most of a probe's cost is parsing the kernel's headers, so all of them
# are compiled at once, as one file that includes each (its
# stackid_probe() renamed), and a probe fails when the compiler reports
# an error in its own file. Compiling each probe alone, as separate
# files, is the definition the one compile stands in for; it is what
# runs whenever the one compile cannot be read that way:
#  - an error that no probe's line can take (in a header, on the
#    command line, a compiler that failed with no error at all);
#  - a compiler that stopped early (a fatal error, too many errors): the
#    probes after the stop were never compiled;
#  - a note in one probe about an error in another (a clash between
#    two probes: "previous definition was here").
# And each probe that compiled but calls a function whose implicit
# declaration failed another probe is compiled alone again (GCC reports
# an implicit declaration once per file; so a probe names what it calls,
# never by token pasting). What one compile cannot see: an earlier
# probe's headers and macros stay in force for the later ones. --check
# (test builds: every kernel line of make check) does both ways and
# fails when they differ.
# Usage: run.sh [--check] "CC CFLAGS..." DIR
check=0
if [ "$1" = --check ]; then
	check=1
	shift
fi
cc=$1
dir=$(CDPATH='' cd -P -- "$2" && pwd) || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
end_mark=stackid-probes-end

names=
for f in "$dir"/*.c; do
	names="$names $(basename "$f" .c)"
done

# alone NAME...: compile those probes alone, in parallel; NAME.rc 0 if
# it compiles.
alone() {
	for n in "$@"; do
		# shellcheck disable=SC2086 # $cc is a command line
		{ $cc -fsyntax-only "$dir/$n.c" >"$tmp/$n.log" 2>&1
		  echo $? >"$tmp/$n.rc"; } &
	done
	wait
}

# together: one compile of all of them; NAME.rc as alone would give, or
# return 1 if the compile cannot be read that way.
together() {
	for n in $names; do
		printf '#define stackid_probe stackid_probe_%s\n' "$n"
		printf '#include "%s/%s.c"\n' "$dir" "$n"
		printf '#undef stackid_probe\n'
	done >"$tmp/all.c"
	printf '#pragma message "%s"\n' "$end_mark" >>"$tmp/all.c"
	# shellcheck disable=SC2086 # $cc is a command line
	$cc -fsyntax-only "$tmp/all.c" >"$tmp/all.log" 2>&1
	rc=$?
	for n in $names; do
		echo 0 >"$tmp/$n.rc"
	done
	[ $rc = 0 ] && return 0
	# stopped before the end of the file
	grep -q "$end_mark" "$tmp/all.log" || return 1
	grep -Eq 'fatal error|compilation terminated|too many errors|internal compiler error' \
		"$tmp/all.log" && return 1
	# Diagnostics start a line; the source lines quoted under them are
	# indented. Each error must be in a probe's file; each note in a
	# probe's file must be in the probe of the error before it (else two
	# probes clash: "previous definition was here").
	grep -E '^[^ ].*(error|note):' "$tmp/all.log" >"$tmp/diags"
	: >"$tmp/errors"
	cur=
	while IFS= read -r l; do
		p=
		case $l in
		"$dir"/*.c:[0-9]*:*)
			p=${l#"$dir"/}
			p=${p%%.c:*}
			case " $names " in
			*" $p "*) ;;
			*) p= ;;
			esac ;;
		esac
		kind=note
		case $l in
		*error:*note:*)
			e=${l#*error:}
			o=${l#*note:}
			[ ${#e} -gt ${#o} ] && kind=error ;;
		*error:*)
			kind=error ;;
		esac
		if [ $kind = error ]; then
			[ -n "$p" ] || return 1
			echo 1 >"$tmp/$p.rc"
			echo "$l" >>"$tmp/errors"
			cur=$p
		elif [ -n "$p" ] && [ "$p" != "$cur" ]; then
			return 1
		fi
	done <"$tmp/diags"
	[ -s "$tmp/errors" ] || return 1
	again=
	for n in $names; do
		[ "$(cat "$tmp/$n.rc")" = 0 ] || continue
		# shellcheck disable=SC2013 # one identifier a line
		for f in $(sed -n -E "s/.*(implicit declaration of function|implicitly declaring library function|undeclared function|undeclared library function) [^A-Za-z0-9_]*([A-Za-z_][A-Za-z0-9_]*).*/\2/p" \
			"$tmp/errors" | sort -u); do
			if grep -qw -- "$f" "$dir/$n.c"; then
				again="$again $n"
				break
			fi
		done
	done
	# shellcheck disable=SC2086 # a list of names
	[ -z "$again" ] || alone $again
	[ "$(cat "$tmp/sanity.rc")" = 0 ]
}

if [ $check = 1 ]; then
	if together; then
		for n in $names; do
			mv "$tmp/$n.rc" "$tmp/$n.together"
		done
		# shellcheck disable=SC2086 # a list of names
		alone $names
		bad=
		for n in $names; do
			[ "$(cat "$tmp/$n.rc")" = "$(cat "$tmp/$n.together")" ] ||
				bad="$bad $n"
		done
		if [ -n "$bad" ]; then
			echo "stackid: probes that one compile and separate compiles judge differently:$bad" >&2
			for n in $bad; do
				echo "--- $n alone (exit $(cat "$tmp/$n.rc")):" >&2
				cat "$tmp/$n.log" >&2
			done
			echo "--- all together:" >&2
			cat "$tmp/all.log" >&2
			exit 1
		fi
	else
		# shellcheck disable=SC2086 # a list of names
		alone $names
	fi
elif ! together; then
	# shellcheck disable=SC2086 # a list of names
	alone $names
fi

if [ "$(cat "$tmp/sanity.rc")" != 0 ]; then
	echo "stackid: the sanity probe does not compile:" >&2
	cat "$tmp/sanity.log" >&2
	exit 1
fi
echo "/* Generated by src/probes/run.sh: kernel features found. */"
for n in $names; do
	[ "$n" = sanity ] && continue
	N=$(echo "$n" | tr a-z A-Z)
	if [ "$(cat "$tmp/$n.rc")" = 0 ]; then
		echo "#define STACKID_HAS_$N 1"
	else
		echo "/* STACKID_HAS_$N: no */"
	fi
done
