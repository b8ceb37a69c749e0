// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU perf events. Enabling registers a dynamic CPU-hotplug state
 * whose online callback creates this CPU's event and whose offline
 * callback releases it, so CPUs that come and go while sampling get and
 * lose their event; disabling removes the state, which releases every
 * event. perf_event_release_kernel() returns only once the event is off
 * its CPU, so after stackid_disable() no overflow handler runs; the
 * irq_works a handler queued are then flushed too.
 *
 * Lock order: sid.lock, then the CPU hotplug lock (taken inside
 * cpuhp_setup_state()/cpuhp_remove_state()). The hotplug callbacks take
 * no lock of ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/perf_event.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/kernel.h>

#include "internal.h"

static int stackid_cpu_online(unsigned int cpu)
{
	struct stackid_cpu *c = sid.cpus[cpu];
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = READ_ONCE(sid.freq),
		.exclude_hv = 1,
		.disabled = 0,
	};
	struct perf_event *ev;

	if (READ_ONCE(stackid_param_cycles)) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
	}
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      stackid_overflow, NULL);
	if (IS_ERR(ev)) {
		pr_err_ratelimited("cpu %u: cannot create %s event: %ld\n", cpu,
		       stackid_param_cycles ? "cycles" : "cpu-clock",
		       PTR_ERR(ev));
		return PTR_ERR(ev);
	}
	c->event = ev;
	return 0;
}

static int stackid_cpu_offline(unsigned int cpu)
{
	struct stackid_cpu *c = sid.cpus[cpu];

	if (c->event) {
		perf_event_release_kernel(c->event);
		c->event = NULL;
	}
	return 0;
}

/* Wait for every irq_work a handler queued (all CPUs). */
static void stackid_flush_works(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		irq_work_sync(&sid.cpus[cpu]->unlock_work);
		irq_work_sync(&sid.cpus[cpu]->wake_work);
	}
	stackid_paths_flush();
}

/* Call with sid.lock held. */
int stackid_enable(void)
{
	int cpu, ret;

	lockdep_assert_held(&sid.lock);
	if (sid.enabled)
		return 0;
	/*
	 * A new session: forget cached build-ids so each one is parsed, and
	 * its path reported, again. No sampler runs now.
	 */
	for_each_possible_cpu(cpu)
		memset(sid.cpus[cpu]->bidcache, 0,
		       sizeof(sid.cpus[cpu]->bidcache));
	stackid_paths_reset();
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "stackid:online",
				stackid_cpu_online, stackid_cpu_offline);
	if (ret < 0)
		return ret;
	sid.hp_state = ret;
	sid.enabled = true;
	return 0;
}

/* Call with sid.lock held. Returns once no handler runs any more. */
void stackid_disable(void)
{
	lockdep_assert_held(&sid.lock);
	if (!sid.enabled)
		return;
	cpuhp_remove_state(sid.hp_state);
	sid.hp_state = -1;
	sid.enabled = false;
	stackid_flush_works();
}

/*
 * kernel.perf_event_max_sample_rate, which perf does not export to
 * modules: read through its sysctl file. Process context only.
 */
int stackid_max_sample_rate(u32 *hz)
{
	char buf[24] = {};
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int ret;

	f = filp_open("/proc/sys/kernel/perf_event_max_sample_rate",
		      O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	ret = kstrtou32(strim(buf), 10, hz);
	return ret;
}

/*
 * Call with sid.lock held. -EINVAL (and nothing changes) unless
 * 1 <= hz <= kernel.perf_event_max_sample_rate. When sampling, the events
 * are recreated at the new frequency.
 */
int stackid_set_freq(u32 hz)
{
	u32 max, old = sid.freq;
	int ret;

	lockdep_assert_held(&sid.lock);
	ret = stackid_max_sample_rate(&max);
	if (ret)
		return ret;
	if (hz < 1 || hz > max)
		return -EINVAL;
	if (hz == old)
		return 0;
	WRITE_ONCE(sid.freq, hz);
	if (!sid.enabled)
		return 0;
	stackid_disable();
	ret = stackid_enable();
	if (ret) {
		/* put back what worked before */
		WRITE_ONCE(sid.freq, old);
		if (stackid_enable())
			pr_warn_ratelimited("sampling stopped: cannot restart at %u Hz\n",
					    old);
	}
	return ret;
}
