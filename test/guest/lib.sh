# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests (busybox sh). Each result is one TAP line,
# "ok - NAME" or "not ok - NAME"; the host numbers and counts them.
VERSION=$(cat /stackid/VERSION)

pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; }

# check NAME CMD...: run CMD, pass if it exits 0.
check() {
	name=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		pass "$name"
	else
		fail "$name"
		sed 's/^/#   /' /tmp/check.out
	fi
}

# Fresh module: unloaded, then loaded by modprobe like a user would.
load() {
	rmmod stackid 2>/dev/null
	modprobe stackid "$@"
}
