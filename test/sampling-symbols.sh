#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test/sampling-symbols.sh OBJDIR: the sampling path calls only what
# NMI context allows. The handler's code lives in these objects
# (internal.h says why): sample.o, resolve.o, emit.o, ring.o, bidcache.o,
# kframes.o, unwind.o.
# Every kernel symbol they reference must be on the list below: user
# copies and word reads that cannot fault, trylocks, irq_work,
# task_work_add, lock-free clocks, and what the compiler and the debug
# options add. A page-cache lookup, a folio put, an allocation, a
# sleeping lock or a wakeup from any of them fails this test. One TAP
# line.
objdir=${1:?usage: sampling-symbols.sh OBJDIR}
objs="sample.o resolve.o emit.o ring.o bidcache.o kframes.o unwind.o"
allow='^(stackid_|copy_from_user_nmi$|down_read_trylock$|up_read$'
# one user word, no access_ok(), no might_fault() (perf's callchain's)
allow+='|__get_user_nocheck_[48]$'
allow+='|irq_work_queue$|local_clock$|ktime_get_mono_fast_ns$'
allow+='|task_work_add$|mtree_load$|mt_find$|find_vma$|memcpy$|memset$'
allow+='|memcmp$|strcmp$|strscpy$|strscpy_pad$|sized_strscpy$'
allow+='|__stack_chk_fail$|__x86_indirect_thunk_|__x86_return_thunk$'
allow+='|__x86_indirect_call_thunk_|__fentry__$|__cfi_|__kcfi_'
allow+='|__asan_|__kasan_|__ubsan_|__sanitizer_|__tsan_'
allow+='|lock_acquire$|lock_release$|lock_is_held_type$|debug_locks$'
allow+='|debug_smp_processor_id$|__this_cpu_preempt_check$'
allow+='|__mmap_lock_do_trace_|__tracepoint_mmap_lock_|__SCT__|__SCK__'
allow+='|__preempt_count$|pcpu_hot$|const_pcpu_hot$|current_task$'
allow+='|__per_cpu_offset$|this_cpu_off$|nr_cpu_ids$|__cpu_possible_mask$'
allow+='|stackid_state$|__warn_printk$|__bad_|__rcu_read_(un)?lock$'
allow+='|rcu_read_lock_held$|kasan_flag_enabled$|__kmsan_|__fortify_panic$'
allow+='|strnlen$|pv_info$|fortify_panic$|cpu_number$|sched_clock_cpu$'
# the kernel's unwinder and its lock-free symbol lookup (kframes.c)
allow+='|__unwind_start$|unwind_next_frame$|unwind_get_return_address$'
allow+='|sprint_symbol$|kstrtoul$|_kstrtoul$|kstrtoull$|strrchr$|strchr$|strlen$'
allow+='|rcu_read_lock_any_held$|__rcu_read_lock$|__rcu_read_unlock$'
# 5.10's rcu_read_unlock() on !PREEMPT_RCU: returns at once unless
# CONFIG_RCU_STRICT_GRACE_PERIOD, and at once with irqs off or in_atomic()
allow+='|rcu_read_unlock_strict$'
# data the newer compilers and kernels name (sid's 7.2, GCC 16): the
# stack protector's guard, and the per-CPU current task
allow+='|__ref_stack_chk_guard$|const_current_task$'
# a variable read: the kernel-symbol cache's age (kframes.c)
allow+='|jiffies$'
# a reference count's bug report (a WARN, as __warn_printk): the tickets'
# block taken from zero or past its limit (sample.c, anchor.h)
allow+='|refcount_warn_saturate$'
# RCU and lockdep debugging (the debug kernel); the cgroup locks are only
# named as lockdep_is_held()'s data: taking one would need mutex_lock or
# spin_lock, which are not on this list
allow+='|debug_lockdep_rcu_enabled$|lockdep_rcu_suspicious$|rcu_is_watching$'
allow+='|rcu_lock_map$|rcu_read_lock_sched_held$|cgroup_mutex$|css_set_lock$)'
bad=""
missing=""
for o in $objs; do
	if [ ! -f "$objdir/$o" ]; then
		missing="$missing $o"
		continue
	fi
	for s in $(nm -u "$objdir/$o" | awk '{print $2}'); do
		echo "$s" | grep -qE "$allow" || bad="$bad $o:$s"
	done
done
if [ -n "$missing" ]; then
	echo "not ok - sampling path objects found in $objdir (missing:$missing)"
elif [ -n "$bad" ]; then
	echo "not ok - sampling path calls only NMI-safe kernel functions"
	printf '#   %s\n' $bad
else
	echo "ok - sampling path ($objs) calls only NMI-safe kernel functions"
fi
