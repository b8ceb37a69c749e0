# SPDX-License-Identifier: GPL-2.0
# The DKMS-built module loads with modprobe, creates /dev/stackid as a
# root-only char device, describes itself in modinfo, and unloads
# cleanly, removing the device.
. /stackid/lib.sh

check "modprobe stackid" modprobe stackid
check "stackid listed in /proc/modules" grep -q '^stackid ' /proc/modules
check "/dev/stackid is a char device" test -c /dev/stackid
mode=$(stat -c '%a %u %g' /dev/stackid 2>&1)
check "/dev/stackid is mode 600, uid 0, gid 0 (got: $mode)" test "$mode" = "600 0 0"

modinfo stackid >/tmp/modinfo 2>&1
sed 's/^/# /' /tmp/modinfo
check "modinfo: license GPL" grep -q '^license: *GPL$' /tmp/modinfo
check "modinfo: description" grep -q '^description: *System-wide user stack' /tmp/modinfo
check "modinfo: version $VERSION" grep -q "^version: *$VERSION\$" /tmp/modinfo
check "modinfo: loaded from updates/dkms" \
	grep -q '^filename: */lib/modules/.*/updates/dkms/stackid\.ko' /tmp/modinfo
# Every parameter the module has, with a description (parm: NAME:TEXT).
nparm=$(ls /sys/module/stackid/parameters 2>/dev/null | wc -l)
ndesc=$(grep -c '^parm: *[a-z_]*:[^ ].*' /tmp/modinfo)
check "modinfo: all $nparm parameters described ($ndesc)" test "$nparm" = "$ndesc"
# Its task works' function is a module of its own (src/anchor.c), which
# modprobe loads first and which DKMS installs beside it.
check "modinfo: depends on stackid_anchor" \
	grep -q '^depends: *stackid_anchor$' /tmp/modinfo
check "stackid_anchor loaded from updates/dkms" sh -c \
	"modinfo -n stackid_anchor | grep -q '/updates/dkms/stackid_anchor\.ko'"

check "rmmod stackid" rmmod stackid
check "/dev/stackid removed" test ! -e /dev/stackid
check "modprobe again" modprobe stackid
# works an earlier test's stackid left to tasks still asleep would hold it
ob=$(cat /sys/module/stackid_anchor/parameters/orphan_blocks)
check "modprobe -r" modprobe -r stackid
if [ "$ob" = 0 ]; then
	check "modprobe -r took stackid_anchor too (unused)" \
		test ! -d /sys/module/stackid_anchor
else
	pass "modprobe -r took stackid_anchor too # SKIP $ob block(s) of earlier tests still wait"
fi
# as the guest's init left it, for the tests that insmod the test build
check "modprobe stackid_anchor" modprobe stackid_anchor
