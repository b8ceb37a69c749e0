// SPDX-License-Identifier: GPL-2.0
/*
 * stackid: system-wide sampling of user stacks as build-id + file offset.
 *
 * Module init/exit and parameters. See internal.h for the file map and
 * include/stackid.h for the user interface.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/log2.h>
#include <linux/vmalloc.h>
#include <linux/timer.h>

#include "compat.h"

#include "internal.h"

struct stackid_state stackid_state = {
	.lock = __MUTEX_INITIALIZER(stackid_state.lock),
	.read_lock = __MUTEX_INITIALIZER(stackid_state.read_lock),
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(stackid_state.wq),
	.hp_state = -1,
	.period_ms = STACKID_PERIOD_MS,
};

/* Setters validate, so a bad value fails the load or the write. */
static int stackid_set_uint_range(const char *val,
				  const struct kernel_param *kp,
				  unsigned int lo, unsigned int hi)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < lo || v > hi)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

unsigned int stackid_param_max_depth = STACKID_MAX_DEPTH;
static int stackid_set_depth(const char *val, const struct kernel_param *kp)
{
	return stackid_set_uint_range(val, kp, 1, STACKID_MAX_DEPTH);
}

static const struct kernel_param_ops stackid_depth_ops = {
	.set = stackid_set_depth,
	.get = param_get_uint,
};
module_param_cb(max_depth, &stackid_depth_ops, &stackid_param_max_depth, 0644);
MODULE_PARM_DESC(max_depth, "Deepest user stack recorded, in frames, 1..127 (default 127); deeper stacks are marked truncated");

unsigned int stackid_param_ring_kb = 512;
static int stackid_set_ring_kb(const char *val, const struct kernel_param *kp)
{
	unsigned int old = stackid_param_ring_kb;
	int ret = stackid_set_uint_range(val, kp, 8, 65536);

	if (!ret && !is_power_of_2(stackid_param_ring_kb)) {
		stackid_param_ring_kb = old;
		ret = -EINVAL;
	}
	return ret;
}

static const struct kernel_param_ops stackid_ring_ops = {
	.set = stackid_set_ring_kb,
	.get = param_get_uint,
};
module_param_cb(ring_kb, &stackid_ring_ops, &stackid_param_ring_kb, 0444);
MODULE_PARM_DESC(ring_kb, "Record ring size per CPU in KiB, a power of two, 8..65536 (default 512); load time only");

/*
 * Checked against kernel.perf_event_max_sample_rate when the module
 * initialises (the limit cannot be read before): see stackid_init().
 */
unsigned int stackid_param_freq = 99;
static int stackid_set_freq_param(const char *val,
				  const struct kernel_param *kp)
{
	return stackid_set_uint_range(val, kp, 1, UINT_MAX);
}

static const struct kernel_param_ops stackid_freq_ops = {
	.set = stackid_set_freq_param,
	.get = param_get_uint,
};
module_param_cb(freq, &stackid_freq_ops, &stackid_param_freq, 0444);
MODULE_PARM_DESC(freq, "Sampling frequency in Hz each open of the device starts with, 1..kernel.perf_event_max_sample_rate (default 99); a reader changes its own with STACKID_IOC_SET_FREQ");

bool stackid_param_resolve = true;
module_param_named(resolve, stackid_param_resolve, bool, 0644);
MODULE_PARM_DESC(resolve, "Resolve frames to build-id + file offset (default Y); N keeps raw IPs only");

bool stackid_param_kernel_frames = true;
module_param_named(kernel_frames, stackid_param_kernel_frames, bool, 0644);
MODULE_PARM_DESC(kernel_frames, "Record the kernel stack of samples that interrupt the kernel, before the user stack (default Y)");

bool stackid_param_kthreads = true;
module_param_named(kthreads, stackid_param_kthreads, bool, 0644);
MODULE_PARM_DESC(kthreads, "Record samples of kernel threads and io_uring/vhost workers with their kernel stacks, if kernel_frames (default Y); N counts them as dropped (takes effect at once)");

unsigned int stackid_param_unwind_kb = 65536;
module_param_named(unwind_kb, stackid_param_unwind_kb, uint, 0644);
MODULE_PARM_DESC(unwind_kb, "Memory all unwind tables together may take, in KiB (default 65536); a table loaded beyond it is refused");

/*
 * The handler's share of each CPU's time, in percent (sample.c,
 * stackid_budget_*): 0 is no limit. 25 as perf's own default for its
 * interrupts (kernel.perf_cpu_time_max_percent), which the cpu-clock
 * timer's samples do not go through.
 */
unsigned int stackid_param_max_cpu_percent = 25;
static int stackid_set_cpu_percent(const char *val,
				   const struct kernel_param *kp)
{
	return stackid_set_uint_range(val, kp, 0, 100);
}

static const struct kernel_param_ops stackid_cpu_percent_ops = {
	.set = stackid_set_cpu_percent,
	.get = param_get_uint,
};
module_param_cb(max_cpu_percent, &stackid_cpu_percent_ops,
		&stackid_param_max_cpu_percent, 0644);
MODULE_PARM_DESC(max_cpu_percent, "Most of each CPU's time the sampling handler may take, in percent, 0..100 (default 25; 0: no limit); a sample beyond it is dropped and counted as dropped_cpu_budget (takes effect at once)");

bool stackid_param_cycles;
module_param_named(cycles, stackid_param_cycles, bool, 0644);
MODULE_PARM_DESC(cycles, "Sample on hardware CPU cycles (NMI) instead of the cpu-clock timer (default N); taken at the next enable");

static void stackid_free_cpus(void)
{
	int cpu;

	if (!stackid_state.cpus)
		return;
	for_each_possible_cpu(cpu) {
		struct stackid_cpu *c = stackid_state.cpus[cpu];

		if (!c)
			continue;
		stackid_ring_free(&c->ring);
		stackid_defer_free(c);
		vfree(c);
	}
	kfree(stackid_state.cpus);
	stackid_state.cpus = NULL;
}

static int stackid_alloc_cpus(void)
{
	struct stackid_cpu *c;
	int cpu, ret;

	stackid_state.cpus = kcalloc(nr_cpu_ids, sizeof(*stackid_state.cpus),
				     GFP_KERNEL);
	if (!stackid_state.cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		/* the build-id cache makes this about 110 KiB */
		c = vzalloc_node(sizeof(*c), cpu_to_node(cpu));
		if (!c)
			return -ENOMEM;
		stackid_state.cpus[cpu] = c;
		c->cpu = cpu;
		init_irq_work(&c->wake_work, stackid_wake_fn);
		init_irq_work(&c->unlock_work, stackid_unlock_fn);
		ret = stackid_ring_alloc(&c->ring, cpu,
					 stackid_param_ring_kb * 1024);
		if (!ret)
			ret = stackid_defer_alloc(c);
		if (ret)
			return ret;
	}
	return 0;
}

/* The freq parameter against kernel.perf_event_max_sample_rate. */
static int stackid_check_freq(void)
{
	u32 max;
	int ret = stackid_max_sample_rate(&max);

	if (ret)
		return ret;
	if (stackid_param_freq > max) {
		pr_err("freq=%u is above kernel.perf_event_max_sample_rate (%u)\n",
		       stackid_param_freq, max);
		return -EINVAL;
	}
	return 0;
}

static int __init stackid_init(void)
{
	int ret;

	timer_setup(&stackid_state.wake_timer, stackid_wake_timer_fn, 0);
	stackid_state.freq = stackid_param_freq;
	ret = stackid_limits_init();
	if (!ret)
		ret = stackid_check_freq();
	if (!ret)
		ret = stackid_alloc_cpus();
	if (ret)
		goto fail;
	ret = stackid_kframes_init();
	if (ret)
		goto fail;
	/* before the first sample can queue a work (task.c: "Unloading") */
	ret = stackid_anchor_register(STACKID_ANCHOR_API, THIS_MODULE,
				      stackid_task_fn, &stackid_state.anchor);
	if (ret)
		goto fail_kframes;
	ret = stackid_test_init();
	if (ret)
		goto fail_anchor;
	ret = stackid_dev_init();
	if (ret)
		goto fail_test;
	pr_info("version %s loaded (ABI %u.%u, %u KiB ring per CPU)\n",
		STACKID_VERSION, STACKID_ABI_MAJOR, STACKID_ABI_MINOR,
		stackid_param_ring_kb);
	return 0;
fail_test:
	stackid_test_exit();
fail_anchor:
	stackid_anchor_unregister();
fail_kframes:
	stackid_kframes_exit();
fail:
	pr_err("cannot load: %d\n", ret);
	stackid_free_cpus();
	stackid_limits_exit();
	return ret;
}

/*
 * Nobody can have the device open (it holds a module reference): so
 * sampling is off. Samples may still wait for tasks asleep in the
 * kernel: once unregistered, their works no longer call in (task.c:
 * "Unloading"). Wait for everything that could ever have been queued,
 * on every path, before freeing what it uses.
 */
static void __exit stackid_exit(void)
{
	int cpu;

	stackid_dev_exit();
	mutex_lock(&stackid_state.lock);
	stackid_disable();
	mutex_unlock(&stackid_state.lock);
	stackid_anchor_unregister();
	stackid_test_exit();
	stackid_kframes_exit();
	stackid_timer_shutdown_sync(&stackid_state.wake_timer);
	for_each_possible_cpu(cpu) {
		irq_work_sync(&stackid_state.cpus[cpu]->unlock_work);
		irq_work_sync(&stackid_state.cpus[cpu]->wake_work);
	}
	stackid_paths_reset();
	stackid_cgroups_reset();
	stackid_unwind_clear();
	stackid_free_cpus();
	stackid_limits_exit();
	pr_info("unloaded\n");
}

module_init(stackid_init);
module_exit(stackid_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("stackid developers");
MODULE_DESCRIPTION("System-wide user stack sampling as ELF build-id + file offset");
MODULE_VERSION(STACKID_VERSION);
MODULE_INFO(stackid_abi, __stringify(STACKID_ABI_MAJOR) "." __stringify(STACKID_ABI_MINOR));
