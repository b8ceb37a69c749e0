// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU perf events. Enabling registers a dynamic CPU-hotplug state
 * whose online callback creates this CPU's event and whose offline
 * callback releases it, so CPUs that come and go while sampling get and
 * lose their event; disabling removes the state, which releases every
 * event. perf_event_release_kernel() returns only once the event is off
 * its CPU, so after stackid_disable() no handler runs; everything a
 * handler may have queued (irq_works, the wakeup timer) is then waited
 * for.
 *
 * The event type (cpu-clock, or cycles with the cycles parameter) is taken
 * once, at enable. While ENABLE runs, a CPU that cannot get its event
 * fails the enable (e.g. cycles=1 without a PMU: -ENOENT) and everything
 * is undone; once enabled, a CPU always comes online, without an event if
 * it cannot have one (counted in STACKID_STAT_EVENT_FAILED).
 *
 * Lock order: stackid_state.lock, then the CPU hotplug lock (taken inside
 * cpuhp_setup_state()/cpuhp_remove_state()). The hotplug callbacks take
 * no lock of ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/perf_event.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mmap_lock.h>

#include "internal.h"
#include "compat.h"

static int stackid_cpu_online(unsigned int cpu)
{
	struct stackid_cpu *c = stackid_state.cpus[cpu];
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = stackid_state.ev_type,
		.config = stackid_state.ev_config,
		.freq = 1,
		.sample_freq = READ_ONCE(stackid_state.freq),
		.exclude_hv = 1,
		/*
		 * A guest's time is not the VMM's: with cycles, an overflow
		 * while a vCPU thread runs guest code would be charged to
		 * the VMM's user stack (perf record excludes guests by
		 * default too). No effect on the software clock.
		 */
		.exclude_guest = 1,
		.disabled = 0,
	};
	struct perf_event *ev;
	int err;

	err = stackid_test_online_fault(cpu);
	ev = err ? ERR_PTR(err) :
		   perf_event_create_kernel_counter(&attr, cpu, NULL,
						    stackid_overflow, NULL);
	if (IS_ERR(ev)) {
		if (READ_ONCE(stackid_state.enabling))
			return PTR_ERR(ev);
		/* this runs on @cpu, in its hotplug thread */
		stackid_stat_inc_here(STACKID_STAT_EVENT_FAILED);
		pr_warn_ratelimited("cpu %u: online without an event: %ld\n",
				    cpu, PTR_ERR(ev));
		return 0;
	}
	c->event = ev;
	return 0;
}

static int stackid_cpu_offline(unsigned int cpu)
{
	struct stackid_cpu *c = stackid_state.cpus[cpu];

	if (c->event) {
		perf_event_release_kernel(c->event);
		c->event = NULL;
	}
	return 0;
}

/*
 * No handler runs any more (events released): wait for everything one
 * queued. Every enable that got far enough to create an event ends
 * here, failed or not, and so does module exit.
 */
void stackid_quiesce(void)
{
	int cpu;

	stackid_timer_delete_sync(&stackid_state.wake_timer);
	for_each_possible_cpu(cpu) {
		irq_work_sync(&stackid_state.cpus[cpu]->unlock_work);
		irq_work_sync(&stackid_state.cpus[cpu]->wake_work);
	}
}

/*
 * The mm unlock an NMI handler left (resolve.c): irq_work, hardirq
 * context on the same CPU, where the unlock may wake a writer.
 */
void stackid_unlock_fn(struct irq_work *work)
{
	struct stackid_cpu *c = container_of(work, struct stackid_cpu,
					     unlock_work);

	/* taken with down_read_trylock() in NMI: no tracepoint (resolve.c) */
	up_read_non_owner(&c->unlock_mm->mmap_lock);
}

/*
 * A module coming (perhaps where text was freed), going live (its init
 * text is freed next) or going away: kernel symbol caches must not name
 * what was at its addresses any more (kframes.c).
 */
static int stackid_module_event(struct notifier_block *nb,
				unsigned long what, void *data)
{
	if (what == MODULE_STATE_GOING || what == MODULE_STATE_COMING ||
	    what == MODULE_STATE_LIVE)
		atomic_inc(&stackid_ksym_gen);
	return NOTIFY_DONE;
}

static struct notifier_block stackid_module_nb = {
	.notifier_call = stackid_module_event,
};

int stackid_kframes_init(void)
{
	return register_module_notifier(&stackid_module_nb);
}

void stackid_kframes_exit(void)
{
	unregister_module_notifier(&stackid_module_nb);
}

/* Call with stackid_state.lock held. */
int stackid_enable(void)
{
	struct stackid_state *st = &stackid_state;
	u32 max;
	int ret;

	lockdep_assert_held(&st->lock);
	if (st->enabled)
		return 0;
	ret = stackid_max_sample_rate(&max);
	if (ret)
		return ret;
	if (st->freq > max)
		return -EINVAL;
	if (READ_ONCE(stackid_param_cycles)) {
		st->ev_type = PERF_TYPE_HARDWARE;
		st->ev_config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		st->ev_type = PERF_TYPE_SOFTWARE;
		st->ev_config = PERF_COUNT_SW_CPU_CLOCK;
	}
	/*
	 * A new session: each CPU forgets its cached build-ids and starts
	 * its ring on a new epoch the next time it writes (its own doing,
	 * under its busy flag), so every build-id is read, and its path
	 * reported, again.
	 */
	WRITE_ONCE(st->session, st->session + 1);
	stackid_paths_reset();
	stackid_cgroups_reset();
	WRITE_ONCE(st->enabling, true);
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "stackid:online",
				stackid_cpu_online, stackid_cpu_offline);
	WRITE_ONCE(st->enabling, false);
	if (ret < 0) {
		stackid_quiesce();
		return ret;
	}
	st->hp_state = ret;
	st->enabled = true;
	mod_timer(&st->wake_timer,
		  jiffies + msecs_to_jiffies(READ_ONCE(st->period_ms)));
	return 0;
}

/* Call with stackid_state.lock held. Returns once no handler runs. */
void stackid_disable(void)
{
	lockdep_assert_held(&stackid_state.lock);
	if (!stackid_state.enabled)
		return;
	cpuhp_remove_state(stackid_state.hp_state);
	stackid_state.hp_state = -1;
	stackid_state.enabled = false;
	stackid_test_disable();
	stackid_quiesce();
}

/*
 * kernel.perf_event_max_sample_rate, which perf does not export to
 * modules, read through its sysctl file in a procfs instance of the
 * module's own (mounted at load), not the caller's /proc: the value is the
 * same for a caller in a chroot without /proc, and one that brings its
 * own file cannot change it.
 */
static struct vfsmount *stackid_proc;

int stackid_limits_init(void)
{
	struct file_system_type *proc = get_fs_type("proc");

	if (!proc)
		return -ENOENT;
	stackid_proc = kern_mount(proc);
	if (IS_ERR(stackid_proc)) {
		int err = PTR_ERR(stackid_proc);

		stackid_proc = NULL;
		return err;
	}
	return 0;
}

void stackid_limits_exit(void)
{
	if (stackid_proc)
		kern_unmount(stackid_proc);
	stackid_proc = NULL;
}

/* Process context. */
int stackid_max_sample_rate(u32 *hz)
{
	char buf[24] = {};
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = stackid_file_open_root_mnt(stackid_proc,
				       "sys/kernel/perf_event_max_sample_rate");
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	return kstrtou32(strim(buf), 10, hz);
}

/*
 * Call with stackid_state.lock held. -EINVAL (and nothing changes) unless
 * 1 <= hz <= kernel.perf_event_max_sample_rate. When sampling, the events
 * are recreated at the new frequency; if that fails and so does going
 * back to the old one, sampling stops (and is cleaned up: see enable).
 */
int stackid_set_freq(u32 hz)
{
	u32 max, old = stackid_state.freq;
	int ret;

	lockdep_assert_held(&stackid_state.lock);
	ret = stackid_max_sample_rate(&max);
	if (ret)
		return ret;
	if (hz < 1 || hz > max)
		return -EINVAL;
	if (hz == old)
		return 0;
	WRITE_ONCE(stackid_state.freq, hz);
	if (!stackid_state.enabled)
		return 0;
	stackid_disable();
	ret = stackid_enable();
	if (ret) {
		/* put back what worked before */
		WRITE_ONCE(stackid_state.freq, old);
		if (stackid_enable())
			pr_warn_ratelimited("sampling stopped: cannot restart at %u Hz\n",
					    old);
	}
	return ret;
}
