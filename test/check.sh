#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test stackid has.
#   1. host unit tests of the user-space and pure code;
#   2. the guest suite (test/vm.sh) on every kernel line of
#      test/kernels.conf, with the module built and installed by DKMS;
#   3. the same suite on the KASAN + lockdep debug kernel
#      (test/debug-kernel.sh, test/DEBUG-KERNEL.md).
# Prints how long each stage took and ends with "N passed, N failed".
# Needs test/setup.sh to have run (root, once).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top"

passed=0
failed=0
t_all=$(date +%s)

# count LOG: add a TAP log's ok / not ok lines to the totals.
count() {
	local p f
	p=$(grep -c '^ok ' "$1")
	f=$(grep -c '^not ok ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
}

mkdir -p build
t0=$(date +%s)
if ! make -s user guest >build/make.log 2>&1; then
	cat build/make.log
	echo "not ok - build user-space tools and guest programs"
	failed=$((failed + 1))
fi
stage "build tools" $t0

t0=$(date +%s)
make -s unit 2>&1 | tee build/unit.log
count build/unit.log
stage "host unit tests" $t0

while read -r name kver; do
	echo "# kernel line $name: $kver"
	t0=$(date +%s)
	test/vm.sh "$kver" 2>&1 | tee "build/vm-$name.log"
	count "build/vm-$name.log"
	stage "kernel $name ($kver)" $t0
done < <(kernel_versions)

# The debug-kernel tier (KASAN, lockdep, ...): built from Debian's
# linux-source-6.12 on first use (about 9 minutes), cached afterwards.
if [ "${STACKID_NO_DEBUG_KERNEL:-0}" = 1 ]; then
	echo "# debug-kernel tier SKIPPED (STACKID_NO_DEBUG_KERNEL=1)"
	echo "not ok - debug-kernel tier skipped by request"
	failed=$((failed + 1))
else
	t0=$(date +%s)
	if kdir=$(test/debug-kernel.sh --print-dir); then
		stage "debug kernel build (cached after the first)" $t0
		kver=$(cat "$kdir/kernelrelease")
		echo "# kernel line debug: $kver"
		t0=$(date +%s)
		STACKID_KDIR=$kdir test/vm.sh "$kver" \
			"$kdir/arch/x86/boot/bzImage" 2>&1 | tee build/vm-debug.log
		count build/vm-debug.log
		stage "kernel debug ($kver)" $t0
	else
		echo "not ok - build the debug kernel"
		failed=$((failed + 1))
	fi
fi

stage "make check" $t_all
echo "$passed passed, $failed failed"
[ $failed = 0 ]
