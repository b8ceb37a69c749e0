#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# units.sh BUILD: the systemd units of the stackid package pass
# `systemd-analyze verify` (with /usr/bin/stackid pointed at
# BUILD/stackid and the man page found in doc/, as the package is not
# installed here), and keep the hardening they promise. `make deb-check` verifies them installed.
# TAP on stdout.
set -u
B=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/stackid-units.XXXXXX)
trap 'rm -rf "$T"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
check() { if [ "$1" = 0 ]; then shift; ok "$@"; else shift; nok "$@"; fi; }

if ! command -v systemd-analyze >/dev/null; then
	nok "systemd-analyze not found: install Debian's systemd"
	exit 1
fi
mkdir -p "$T/man/man1"
cp "$top/doc/stackid.1" "$T/man/man1/"
sed "s|/usr/bin/stackid|$B/stackid|" "$top/debian/stackid.service" \
	>"$T/stackid.service"
sed "s|/usr/bin/stackid|$B/stackid|" \
	"$top/debian/stackid.stackid-push.service" >"$T/stackid-push.service"
cp "$top/debian/stackid.stackid-module.service" "$T/stackid-module.service"
out=$(cd "$T" && MANPATH=$T/man systemd-analyze verify stackid.service \
	stackid-push.service stackid-module.service 2>&1)
[ -z "$out" ]
check $? "systemd-analyze verify stackid.service stackid-push.service \
stackid-module.service${out:+: $out}"
u=$top/debian/stackid.service
m=$top/debian/stackid.stackid-module.service
grep -q '^Requires=stackid-module.service$' "$u" &&
	grep -q '^After=stackid-module.service$' "$u" &&
	! grep -q '^ExecStartPre=.*modprobe' "$u" &&
	grep -q '^ExecStart=/sbin/modprobe stackid$' "$m" &&
	grep -q '^RemainAfterExit=yes$' "$m" &&
	grep -q '^CapabilityBoundingSet=CAP_PERFMON$' "$u" &&
	grep -q '^DeviceAllow=/dev/stackid rw$' "$u" &&
	grep -q '^DevicePolicy=closed$' "$u" &&
	grep -q '^PrivateNetwork=yes$' "$u" &&
	grep -q '^ProtectSystem=strict$' "$u" &&
	grep -q '^StateDirectory=stackid stackid/captures$' "$u" &&
	grep -q -- '--dir /var/lib/stackid/captures' "$u"
check $? "stackid.service: has stackid-module.service load the module \
before its device policy is built (not in its own ExecStartPre), then records into \
/var/lib/stackid with CAP_PERFMON, /dev/stackid alone (read-write: the \
recorder maps its rings writable), no network"
grep -q '^ExecCondition=.*STACKID_URL' "$top/debian/stackid.stackid-push.service"
check $? "stackid-push.service: does not start without STACKID_URL"
[ "$(grep -c -- '--no-enable --no-start' "$top/debian/rules")" = 3 ] &&
	! grep -q '^\[Install\]' "$m"
check $? "the package installs the units disabled; the module's unit is \
started only by stackid.service (no [Install])"
exit $fail
