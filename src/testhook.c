// SPDX-License-Identifier: GPL-2.0
/*
 * Test builds only (make STACKID_TEST=1; never DKMS, never shipped):
 * what the VM suite needs to reach paths that QEMU's TCG cannot.
 *
 *  - test_nmi=1 routes unknown NMIs (QEMU's monitor `nmi` command, which
 *    the harness sends at a steady rate) into stackid_sample(), the same
 *    code the perf overflow handler runs, while sampling is enabled: so
 *    the handler runs in real NMI context without a PMU.
 *    test_nmi_samples counts those samples.
 *  - test_fail_cpu=N makes CPU N's online callback wait
 *    test_fail_delay_ms, then fail with -EIO: an ENABLE that fails after
 *    other CPUs' handlers have already run and queued work.
 *  - test_floor=1 makes the overflow handler return at once, counting
 *    its entries in test_floor_samples (test_floor_busy: those that
 *    interrupted a task other than the idle task): `make bench`'s floor,
 *    what the sampling interrupt costs with nothing done in it.
 *  - test_stages=1 times the handler's stages (STACKID_STAGE_*) of
 *    every sample that walks a user stack; test_stage_ns reads
 *    "samples N kernel NS walk NS resolve NS finish NS", sums since the
 *    module was loaded: where `make bench`'s handler time goes.
 *  - test_take_back_ns reads "taken N samples N sum NS max NS": the
 *    slots taken back (sample.c: stackid_defer_take_back()) since the
 *    module was loaded, the samples they wrote (each slot's sample and
 *    its joins), and the time each take-back took in the handler, from
 *    its search for a slot to the last record written: what `make
 *    bench` prints for a CPU whose slots are held by sleeping tasks.
 *  - test_kthread_ms=N starts a kernel thread "stackid_spin" that spins
 *    in stackid_test_spin() for N ms, then sleeps until the next write
 *    or the module's exit: a kernel thread whose stack is known.
 *  - test_task_hold_ms=N makes every sample handed to its task's context
 *    wait N ms there before it is finished: a task that stays in the
 *    kernel after it was sampled, until its reader has gone and the next
 *    one began.
 *  - test_stall_ms=N makes the next sample whose stack the handler
 *    walks spin N ms (at most 200) in its handler, timed, and puts the
 *    parameter back to 0: a handler stopped inside, as a hypervisor
 *    that deschedules the vCPU stops it (the CPU budget charges at
 *    most 1 ms of it).
 *  - writing 1 to test_tsc_unstable marks the TSC unstable (until the
 *    next boot; 0 does nothing), as the clocksource watchdog does when
 *    it finds the TSC skewed: the watchdog's kthread then moves the
 *    kernel to another clocksource (HPET), and sched_clock(), where it
 *    was stable, goes to its unstable mode. For test/guest/bench/
 *    clocksource.sh: that switch while sampling. It touches no state
 *    of the module's, so it needs no stackid_test_live.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/delay.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/jiffies.h>
#include <asm/nmi.h>
#include <asm/tsc.h>

#include "internal.h"

static bool stackid_test_nmi_on;
module_param_named(test_nmi, stackid_test_nmi_on, bool, 0644);
MODULE_PARM_DESC(test_nmi, "TEST BUILD: sample from unknown NMIs while enabled");

/* A read-only counter parameter: its arg is the atomic_long_t. */
static int stackid_get_count(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops stackid_count_ops = {
	.get = stackid_get_count,
};

static atomic_long_t stackid_test_nmi_count = ATOMIC_LONG_INIT(0);
module_param_cb(test_nmi_samples, &stackid_count_ops, &stackid_test_nmi_count,
		0444);
MODULE_PARM_DESC(test_nmi_samples, "TEST BUILD: samples taken in NMI");

static bool stackid_test_floor_on;
module_param_named(test_floor, stackid_test_floor_on, bool, 0644);
MODULE_PARM_DESC(test_floor, "TEST BUILD: the handler returns at once");

static atomic_long_t stackid_test_floor_count = ATOMIC_LONG_INIT(0);
module_param_cb(test_floor_samples, &stackid_count_ops,
		&stackid_test_floor_count, 0444);
MODULE_PARM_DESC(test_floor_samples, "TEST BUILD: test_floor entries");

static atomic_long_t stackid_test_floor_busy = ATOMIC_LONG_INIT(0);
module_param_cb(test_floor_busy, &stackid_count_ops, &stackid_test_floor_busy,
		0444);
MODULE_PARM_DESC(test_floor_busy, "TEST BUILD: test_floor entries, idle task not");

/* Any context, NMI included. */
bool stackid_test_floor(void)
{
	if (!READ_ONCE(stackid_test_floor_on))
		return false;
	atomic_long_inc(&stackid_test_floor_count);
	if (!is_idle_task(current))
		atomic_long_inc(&stackid_test_floor_busy);
	return true;
}

static bool stackid_test_stages_on;
module_param_named(test_stages, stackid_test_stages_on, bool, 0644);
MODULE_PARM_DESC(test_stages, "TEST BUILD: time the handler's stages");

static atomic64_t stackid_test_stage_n = ATOMIC64_INIT(0);
static atomic64_t stackid_test_stage_ns[STACKID_STAGE_NR];

/* Any context, NMI included. */
bool stackid_test_stages(void)
{
	return READ_ONCE(stackid_test_stages_on);
}

/* @t: STACKID_STAGE_NR + 1 local_clock() readings, one per boundary. */
void stackid_test_stages_add(const u64 *t)
{
	unsigned int i;

	atomic64_inc(&stackid_test_stage_n);
	for (i = 0; i < STACKID_STAGE_NR; i++)
		atomic64_add(t[i + 1] - t[i], &stackid_test_stage_ns[i]);
}

static int stackid_get_stages(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "samples %lld kernel %lld walk %lld resolve %lld finish %lld\n",
			  atomic64_read(&stackid_test_stage_n),
			  atomic64_read(&stackid_test_stage_ns[STACKID_STAGE_KERNEL]),
			  atomic64_read(&stackid_test_stage_ns[STACKID_STAGE_WALK]),
			  atomic64_read(&stackid_test_stage_ns[STACKID_STAGE_RESOLVE]),
			  atomic64_read(&stackid_test_stage_ns[STACKID_STAGE_FINISH]));
}

static const struct kernel_param_ops stackid_stages_ops = {
	.get = stackid_get_stages,
};

module_param_cb(test_stage_ns, &stackid_stages_ops, NULL, 0444);
MODULE_PARM_DESC(test_stage_ns, "TEST BUILD: the handler's time per stage");

struct stackid_test_lookups {
	u64 n[STACKID_LOOKUP_NR];
};
static DEFINE_PER_CPU(struct stackid_test_lookups, stackid_test_lookups);

/*
 * Any context, NMI included (one this_cpu_inc(), a single instruction on
 * x86, so as not to weigh on the walk it counts); while stages are timed.
 */
void stackid_test_lookup(unsigned int how)
{
	if (READ_ONCE(stackid_test_stages_on) && how < STACKID_LOOKUP_NR)
		this_cpu_inc(stackid_test_lookups.n[how]);
}

static int stackid_get_lookups(char *buf, const struct kernel_param *kp)
{
	u64 n[STACKID_LOOKUP_NR] = { 0 };
	unsigned int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < STACKID_LOOKUP_NR; i++)
			n[i] += READ_ONCE(per_cpu(stackid_test_lookups, cpu).n[i]);
	return sysfs_emit(buf, "place %llu remembered %llu vma %llu\n",
			  n[STACKID_LOOKUP_PLACE], n[STACKID_LOOKUP_REMEMBERED],
			  n[STACKID_LOOKUP_VMA]);
}

static const struct kernel_param_ops stackid_lookups_ops = {
	.get = stackid_get_lookups,
};

module_param_cb(test_walk_lookups, &stackid_lookups_ops, NULL, 0444);
MODULE_PARM_DESC(test_walk_lookups,
		 "TEST BUILD: how the handler's walks found their mappings");

static atomic64_t stackid_test_back_n = ATOMIC64_INIT(0);
static atomic64_t stackid_test_back_samples = ATOMIC64_INIT(0);
static atomic64_t stackid_test_back_ns = ATOMIC64_INIT(0);
static atomic64_t stackid_test_back_max = ATOMIC64_INIT(0);

/* Any context, NMI included: one take-back of @samples in @ns. */
void stackid_test_take_back_add(u64 ns, unsigned int samples)
{
	s64 max = atomic64_read(&stackid_test_back_max);

	atomic64_inc(&stackid_test_back_n);
	atomic64_add(samples, &stackid_test_back_samples);
	atomic64_add(ns, &stackid_test_back_ns);
	while (ns > max &&
	       !atomic64_try_cmpxchg(&stackid_test_back_max, &max, ns))
		;
}

static int stackid_get_take_back(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "taken %lld samples %lld sum %lld max %lld\n",
			  atomic64_read(&stackid_test_back_n),
			  atomic64_read(&stackid_test_back_samples),
			  atomic64_read(&stackid_test_back_ns),
			  atomic64_read(&stackid_test_back_max));
}

static const struct kernel_param_ops stackid_take_back_ops = {
	.get = stackid_get_take_back,
};

module_param_cb(test_take_back_ns, &stackid_take_back_ops, NULL, 0444);
MODULE_PARM_DESC(test_take_back_ns, "TEST BUILD: slots taken back, their cost");

static unsigned int stackid_test_task_hold_ms;
module_param_named(test_task_hold_ms, stackid_test_task_hold_ms, uint, 0644);
MODULE_PARM_DESC(test_task_hold_ms, "TEST BUILD: deferred samples wait this many ms in their task");

/* Task context (stackid_task_fn()): may sleep. At most 10 s. */
void stackid_test_task_hold(void)
{
	unsigned int ms = READ_ONCE(stackid_test_task_hold_ms);

	if (ms)
		msleep(min(ms, 10000U));
}

static unsigned int stackid_test_stall_ms;
module_param_named(test_stall_ms, stackid_test_stall_ms, uint, 0644);
MODULE_PARM_DESC(test_stall_ms, "TEST BUILD: the next walked sample's handler spins this many ms (at most 200), once");

/* Any context, NMI included: mdelay() spins. One sample takes it. */
void stackid_test_stall(void)
{
	unsigned int ms = READ_ONCE(stackid_test_stall_ms);

	if (ms && cmpxchg(&stackid_test_stall_ms, ms, 0) == ms)
		mdelay(min(ms, 200U));
}

static int stackid_set_tsc_unstable(const char *val,
				    const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on)
		mark_tsc_unstable("stackid test build (test_tsc_unstable)");
	return 0;
}

static const struct kernel_param_ops stackid_tsc_unstable_ops = {
	.set = stackid_set_tsc_unstable,
};
module_param_cb(test_tsc_unstable, &stackid_tsc_unstable_ops, NULL, 0200);
MODULE_PARM_DESC(test_tsc_unstable, "TEST BUILD: 1 marks the TSC unstable (until reboot)");

static int stackid_test_fail_cpu = -1;
module_param_named(test_fail_cpu, stackid_test_fail_cpu, int, 0644);
MODULE_PARM_DESC(test_fail_cpu, "TEST BUILD: this CPU's online callback fails");

static unsigned int stackid_test_fail_delay_ms;
module_param_named(test_fail_delay_ms, stackid_test_fail_delay_ms, uint, 0644);
MODULE_PARM_DESC(test_fail_delay_ms, "TEST BUILD: ... after this many ms");

static struct task_struct *stackid_test_spinner;
/* between stackid_test_init() and stackid_test_exit(), under the param lock */
static bool stackid_test_live;

static noinline int stackid_test_spin(void *arg)
{
	unsigned long end = jiffies + msecs_to_jiffies((unsigned long)arg);

	while (time_before(jiffies, end) && !kthread_should_stop())
		cond_resched();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static void stackid_test_spin_stop(void)
{
	if (!stackid_test_spinner)
		return;
	kthread_stop(stackid_test_spinner);
	put_task_struct(stackid_test_spinner);
	stackid_test_spinner = NULL;
}

/* Writes are serialised by the parameters' lock. */
static int stackid_set_kthread_ms(const char *val,
				  const struct kernel_param *kp)
{
	struct task_struct *t;
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (ret)
		return ret;
	if (ms > 60000)
		return -EINVAL;
	if (!stackid_test_live)
		return -EBUSY;	/* loading (insmod's arguments) or going */
	stackid_test_spin_stop();
	if (!ms)
		return 0;
	t = kthread_run(stackid_test_spin, (void *)(unsigned long)ms,
			"stackid_spin");
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	stackid_test_spinner = t;
	return 0;
}

static const struct kernel_param_ops stackid_kthread_ops = {
	.set = stackid_set_kthread_ms,
};
module_param_cb(test_kthread_ms, &stackid_kthread_ops, NULL, 0200);
MODULE_PARM_DESC(test_kthread_ms, "TEST BUILD: a kernel thread spins this many ms");

/*
 * While test_nmi is set, every unknown NMI is ours (the kernel would
 * otherwise log each as "NMI received for unknown reason"); it samples
 * only while sampling is enabled.
 */
static int stackid_test_nmi(unsigned int type, struct pt_regs *regs)
{
	if (!READ_ONCE(stackid_test_nmi_on))
		return NMI_DONE;
	if (READ_ONCE(stackid_state.enabled)) {
		stackid_sample(regs);
		atomic_long_inc(&stackid_test_nmi_count);
	}
	return NMI_HANDLED;
}

int stackid_test_online_fault(unsigned int cpu)
{
	if ((int)cpu != READ_ONCE(stackid_test_fail_cpu) ||
	    !READ_ONCE(stackid_state.enabling))
		return 0;
	msleep(READ_ONCE(stackid_test_fail_delay_ms));
	return -EIO;
}

/* After enabled went false: wait for NMI handlers that saw it true. */
void stackid_test_disable(void)
{
	synchronize_rcu();
}

int stackid_test_init(void)
{
	int ret;

	pr_warn("TEST BUILD: test hooks present; not for production\n");
	ret = register_nmi_handler(NMI_UNKNOWN, stackid_test_nmi, 0,
				   "stackid_test");
	if (ret)
		return ret;
	kernel_param_lock(THIS_MODULE);
	stackid_test_live = true;
	kernel_param_unlock(THIS_MODULE);
	return 0;
}

/*
 * On every way out, init's failure too: no spinner runs the module's
 * code after this, and no parameter write starts one (the parameters
 * stay writable until the module is freed).
 */
void stackid_test_exit(void)
{
	unregister_nmi_handler(NMI_UNKNOWN, "stackid_test");
	kernel_param_lock(THIS_MODULE);
	stackid_test_live = false;
	stackid_test_spin_stop();
	kernel_param_unlock(THIS_MODULE);
}
