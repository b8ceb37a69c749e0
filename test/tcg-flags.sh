#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Not in `make check`: shows the QEMU fault behind the kernel's single-step
# #DB warning that a 20-minute `make soak` logged under Debian 12's QEMU
# 7.2 (README, "A guest kernel's single-step #DB"). No module of ours is
# involved.
#
# QEMU 7.2's TCG calls its cmpxchg8b/cmpxchg16b helpers without first
# storing the condition-code state it has been tracking at translation
# time (target/i386/tcg/translate.c: no gen_update_cc_op() before
# gen_helper_cmpxchg16b; upstream rewrote the instruction inline in
# early 2023, after 7.2; Debian's 7.2 stable updates keep the helper).
# The helper computes the flags from the state stored last. When that is
# "flags are in CC_SRC" (left by a popf, an iret, the previous
# cmpxchg16b) and an instruction since, in the same block, put an
# operand in CC_SRC (`add %rdi,%rax` puts RDI there), the operand's low
# 32 bits become RFLAGS: trap flag, reserved bits and all. SLUB's
# per-CPU fast path in kmem_cache_alloc_noprof() is that shape: `add
# %rdi,%rax` (RDI the object), then `cmpxchg16b %gs:(%rsi)`. The soak's
# #DB frame had RDI ff1100000a6c8900 and RFLAGS 0a6c8b42: 0a6c8900 | ZF
# | IF | bit 1. When the vCPU next leaves its execution loop, QEMU
# stores the computed flags whole (x86_cpu_exec_exit()), the trap flag
# among those bits is live, and the next instruction raises #DB.
#
# This boots a busybox guest that runs exactly that sequence in user
# mode with the soak's RDI, under each QEMU, and prints the flags the
# guest's pushfq saw: 0a6c8b42 under 7.2, the soak's value to the bit;
# under 10.0 a value a CPU can hold (2c6: the add's SF and PF,
# cmpxchg16b's ZF, IF, bit 1). The test program is built here and run
# only in the guest.
#
#   TF_QEMUS    which QEMUs (default "host trixie"): host is Debian 12's
#               qemu-system-x86_64 (7.2), trixie Debian 13's (10.0,
#               test/qemu-trixie.sh)
#   TF_KERNEL   the kernel line booted (default 6.12; test/kernels.conf)
#
# Prints one line per QEMU; exit status 0 if each guest ran the program,
# 1 if the harness broke. Logs: build/tcg-flags/.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top" || exit 1
out=$top/build/tcg-flags
rm -rf "$out"
mkdir -p "$out/root/bin" "$out/root/proc"

kver=$(kernel_of "${TF_KERNEL:-6.12}")
[ -n "$kver" ] || { echo "tcg-flags: no kernel line '${TF_KERNEL:-6.12}'" >&2; exit 1; }
vmlinuz=$(kernel_image "$kver")
[ -f "$vmlinuz" ] || { echo "tcg-flags: no $vmlinuz (run test/setup.sh)" >&2; exit 1; }
bb=$(command -v busybox) && file -L "$bb" | grep -q 'statically linked' ||
	{ echo "tcg-flags: needs a static busybox (busybox-static)" >&2; exit 1; }
cp "$bb" "$out/root/bin/busybox"

cat >"$out/flags.c" <<'EOC'
#include <stdio.h>
#include <stdint.h>

static uint64_t pair[2] __attribute__((aligned(16))) = { 1, 2 };

int main(void)
{
	uint64_t rdi = 0xff1100000a6c8900ull, flags;

	asm volatile(
		"push $0x202\n\t"
		"popfq\n\t"		/* ends QEMU's block; stored: flags in CC_SRC */
		"mov $1, %%rax\n\t"	/* cmpxchg16b's expected value */
		"mov $2, %%rdx\n\t"
		"mov $3, %%rbx\n\t"	/* and its new one */
		"mov $4, %%rcx\n\t"
		"xor %%r8, %%r8\n\t"
		"add %[rdi], %%r8\n\t"	/* QEMU: CC_SRC = RDI, not stored as such */
		"cmpxchg16b %[pair]\n\t"	/* no lock prefix, as this_cpu_*() */
		"pushfq\n\t"
		"pop %[flags]\n\t"
		: [flags] "=r" (flags), [pair] "+m" (*(unsigned __int128 *)pair)
		: [rdi] "r" (rdi)
		: "rax", "rbx", "rcx", "rdx", "r8", "cc", "memory");
	printf("tcg-flags: rflags %08llx swapped %d\n",
	       (unsigned long long)flags, pair[0] == 3 && pair[1] == 4);
	return 0;
}
EOC
gcc -static -O1 -o "$out/root/bin/flags" "$out/flags.c" ||
	{ echo "tcg-flags: cannot build the test program" >&2; exit 1; }
cat >"$out/root/init" <<'EOC'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/flags
/bin/busybox poweroff -f
EOC
chmod 755 "$out/root/init"
(cd "$out/root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$out/initrd.gz" ||
	exit 1

broke=0
for q in ${TF_QEMUS:-host trixie}; do
	qemu=$(qemu_of "$q") ||
		{ echo "tcg-flags: no QEMU '$q' (host, trixie)" >&2; exit 1; }
	ver=$("$qemu" --version | head -n 1)
	log=$out/$q.log
	# no timing in it: beside anything, but never beside a suite's guest
	flock -s /run/lock/stackid-qemu.lock timeout 600 "$qemu" \
		-machine q35 -cpu max -m 256 -smp 1 -display none -no-reboot \
		-kernel "$vmlinuz" -initrd "$out/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 nokaslr" \
		-serial "file:$log" </dev/null >"$log.qemu" 2>&1
	r=$(tr -d '\r' <"$log" | sed -n 's/^tcg-flags: rflags \([0-9a-f]*\) swapped \([01]\)$/\1 \2/p')
	if [ -z "$r" ]; then
		broke=1
		echo "$q ($ver): the program did not run ($log)"
		continue
	fi
	f=$((16#${r% *}))
	bits=""
	for b in $RFLAGS_IMPOSSIBLE_BITS; do
		[ $(((f >> b) & 1)) = 1 ] && bits+=" $b"
	done
	if [ -n "$bits" ]; then
		what="reserved bits$bits set"
		[ $(((f >> 8) & 1)) = 1 ] && what+=", and the trap flag"
	else
		what="a value a CPU can hold"
	fi
	echo "$q ($ver): rflags after cmpxchg16b ${r% *}: $what; swapped: ${r#* }"
done
exit $broke
