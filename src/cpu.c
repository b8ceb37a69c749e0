// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU sampler state from process context: taking a CPU's state for
 * writing, sessions, counting, the rings' memory and their reset for a
 * new reader, and waking readers. Below dev.c (the user interface) and
 * beside the sampling path: everything that writes a CPU's ring or cache
 * outside its handler comes through here (stackid_cpu_get()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include "internal.h"

/* --- per-CPU state for process context ------------------------------- */

/*
 * This CPU starts a new session if one was enabled since it last wrote:
 * see stackid_enable(). Called by whoever holds the CPU's busy flag.
 */
void stackid_cpu_session(struct stackid_cpu *c)
{
	u32 s = READ_ONCE(stackid_state.session);

	if (likely(c->session == s))
		return;
	stackid_bidcache_clear(&c->cache);
	memset(c->maps, 0, sizeof(c->maps));
	memset(c->cgroups_seen, 0, sizeof(c->cgroups_seen));
	c->ring.epoch_due = true;
	c->session = s;
}

/*
 * Hold @c, interrupts off: this CPU's, or an offline CPU's (no writer of
 * its state; task.c: stackid_defer_take_back_all()). Released with
 * stackid_cpu_put().
 */
void stackid_cpu_hold(struct stackid_cpu *c)
{
	/*
	 * Interrupts are off, so neither this CPU's hardirq handler nor
	 * another process-context taker can hold it; an NMI handler always
	 * finishes before we resume. So busy is clear.
	 */
	WARN_ON_ONCE(READ_ONCE(c->busy));
	WRITE_ONCE(c->busy, 1);
	barrier();
	stackid_cpu_session(c);
}

struct stackid_cpu *stackid_cpu_get(unsigned long *flags)
{
	struct stackid_cpu *c;

	local_irq_save(*flags);
	c = stackid_state.cpus[smp_processor_id()];
	stackid_cpu_hold(c);
	return c;
}

void stackid_cpu_put(struct stackid_cpu *c, unsigned long flags)
{
	barrier();
	WRITE_ONCE(c->busy, 0);
	local_irq_restore(flags);
}

void stackid_stat_inc_here(int i)
{
	unsigned long flags;

	local_irq_save(flags);
	stackid_stat_inc(stackid_state.cpus[smp_processor_id()], i);
	local_irq_restore(flags);
}

/* --- rings ------------------------------------------------------------ */

int stackid_ring_alloc(struct stackid_kring *kr, int cpu, u32 size)
{
	struct stackid_ring_ctl *ctl;

	/* zeroed, and mappable with remap_vmalloc_range() */
	kr->area = vmalloc_user(PAGE_SIZE + size);
	if (!kr->area)
		return -ENOMEM;
	ctl = kr->area;
	ctl->data_size = size;
	ctl->data_offset = PAGE_SIZE;
	ctl->ring = cpu;
	kr->r.ctl = ctl;
	kr->r.data = (u8 *)kr->area + PAGE_SIZE;
	kr->r.size = size;
	kr->r.head = 0;
	kr->r.published = 0;
	kr->epoch_due = true;
	return 0;
}

void stackid_ring_free(struct stackid_kring *kr)
{
	vfree(kr->area);
	kr->area = NULL;
}

/*
 * Whether read() has something to do for @kr: a record, or bytes that
 * are not one (a tail or data written through a mapping), which read()
 * skips with -EIO. So a reader that was told "readable" never finds
 * nothing to do, and never loops without sleeping.
 */
static bool stackid_ring_unread(struct stackid_kring *kr)
{
	/* pairs with the producer's release: a record before its head */
	u64 head = smp_load_acquire(&kr->r.published);

	return READ_ONCE(kr->r.ctl->tail) != head;
}

bool stackid_readable(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (stackid_ring_unread(&stackid_state.cpus[cpu]->ring))
			return true;
	return false;
}

/* Wakes readers from a context where that is allowed (not NMI). */
void stackid_wake_fn(struct irq_work *work)
{
	struct stackid_cpu *c = container_of(work, struct stackid_cpu,
					     wake_work);

	stackid_stat_inc(c, STACKID_STAT_WAKEUPS);
	wake_up_interruptible(&stackid_state.wq);
}

/*
 * The periodic wakeup, while enabled: records below the watermark too.
 * A path record (paths.c) may have brought it forward, or arm it after
 * the disable (a task finishing its sample late): then it does nothing.
 * timer_reduce(), not mod_timer(): a path record written while this ran
 * keeps its earlier expiry.
 */
void stackid_wake_timer_fn(struct timer_list *t)
{
	if (!READ_ONCE(stackid_state.enabled))
		return;
	if (wq_has_sleeper(&stackid_state.wq) && stackid_readable()) {
		stackid_stat_inc_here(STACKID_STAT_WAKEUPS);
		wake_up_interruptible(&stackid_state.wq);
	}
	timer_reduce(t, jiffies + msecs_to_jiffies(
				READ_ONCE(stackid_state.period_ms)));
}

/* --- a new reader ----------------------------------------------------- */

/*
 * Empty @c's ring and write its control page afresh, from the module's
 * own values: whatever the last reader wrote into its mapping is gone.
 * The producer's side, with the CPU held (or offline).
 */
static void stackid_ring_reset(struct stackid_cpu *c)
{
	struct stackid_kring *kr = &c->ring;
	struct stackid_ring_ctl *ctl = kr->r.ctl;

	memset(ctl, 0, PAGE_SIZE);
	ctl->data_size = kr->r.size;
	ctl->data_offset = PAGE_SIZE;
	ctl->ring = c->cpu;
	ctl->head = kr->r.head;
	/* as a consumer's release of what it read: the room is free */
	smp_store_release(&ctl->tail, kr->r.head);
	/* as the producer publishes: nothing unread before this head */
	smp_store_release(&kr->r.published, kr->r.head);
	WRITE_ONCE(kr->woken, false);
}

static void stackid_ring_reset_here(void *unused)
{
	unsigned long flags;
	struct stackid_cpu *c = stackid_cpu_get(&flags);

	stackid_ring_reset(c);
	stackid_cpu_put(c, flags);
}

/*
 * A new reader starts with empty rings and control pages of the module's
 * own. What the rings hold at open() is the last reader's: left unread,
 * or written after it had gone (a sample finished in its task's context
 * after the close). Its build-id and symbol indices belong to epochs that
 * reader saw, so a new reader could not decode it. And the last reader
 * could write its mappings: any field of a control page, any data. No
 * mapping of the last reader is left (each holds the file, and release()
 * runs after the last is gone). Sampling is off (release() disabled it),
 * and the rings' only writers are then process-context ones holding their
 * CPU with interrupts off; so each online CPU resets its own ring in an
 * IPI, and a new session makes anything written afterwards begin with an
 * epoch record. An offline CPU's ring has no writer.
 */
void stackid_rings_reset(void)
{
	int cpu;

	mutex_lock(&stackid_state.lock);
	WRITE_ONCE(stackid_state.session, stackid_state.session + 1);
	cpus_read_lock();
	on_each_cpu(stackid_ring_reset_here, NULL, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			stackid_ring_reset(stackid_state.cpus[cpu]);
	cpus_read_unlock();
	mutex_unlock(&stackid_state.lock);
}
