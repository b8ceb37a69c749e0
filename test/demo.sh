#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build the module with DKMS, boot Debian 12's 6.12 kernel
# line in QEMU with it, run a small workload (two processes of a demo
# program with a shared library, a loop of Debian's gzip, direct writes
# to a loop device), record it with `stackid record` and print the
# hottest symbolized stacks. Needs test/setup.sh to have run (README's
# first command does both).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top"
test/require.sh "make demo" || exit 1
mkdir -p build
kver=$(kernel_of 6.12)
echo "demo: booting $kver under QEMU with the DKMS-built module (about a minute)"
STACKID_GUEST_TESTS=demo.sh test/vm.sh "$kver" >build/demo.log 2>&1
rc=$?
sed -n 's/^# demo: \{0,1\}//p' build/demo.log
if [ $rc != 0 ]; then
	grep -E '^not ok|^#   ' build/demo.log
	echo "demo: failed; see build/demo.log and build/vm/$kver/"
fi
exit $rc
