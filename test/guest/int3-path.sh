#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where the running kernel's int3 path lies, from /proc/kallsyms: one
# line "int3-path START END NAME" a function (START to the next symbol),
# for test/hang-watch.sh to tell a guest hung in it (test/lib.sh:
# hang_not_ours). Run by the test guest's init and by
# test/guest/system-stage.sh, onto the heartbeat's serial port.
exec awk 'f { if ($1 != a) { print "int3-path", a, $1, n; f = 0 } }
	NF == 3 && $3 ~ /^(asm_exc_int3|exc_int3|poke_int3_handler|kprobe_int3_handler|do_int3|error_entry|error_return|irqentry_nmi_enter|irqentry_nmi_exit|ct_nmi_enter|ct_nmi_exit|rcu_nmi_enter|rcu_nmi_exit|get_kprobe|native_irq_return_iret)$/ {
		a = $1; n = $3; f = 1 }' /proc/kallsyms
