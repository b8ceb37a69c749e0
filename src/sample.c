// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling path: the perf overflow handler. It runs in hardirq
 * (cpu-clock hrtimer) or NMI (hardware events) context, on the sampled
 * CPU, with interrupts off. Everything here is bounded, never sleeps and
 * never faults: user memory is read with copy_from_user_nofault(), the mm
 * only by trylock (resolve.c), and readers are woken through irq_work.
 * Every sample ends as exactly one of: delivered, or dropped for a
 * counted reason.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <linux/ptrace.h>
#include <linux/timekeeping.h>
#include <linux/string.h>
#include <linux/sched/clock.h>
#include <linux/bitops.h>

#include "internal.h"

/*
 * Walk the user stack by frame pointers from @regs (the task's user
 * registers). Fills c->ips innermost first; returns the number of
 * addresses and sets *truncated when the depth limit cut the walk.
 *
 * A frame is [saved frame pointer][return address] at the frame pointer,
 * 8-byte words for 64-bit tasks, 4-byte for compat ones. The walk stops
 * at a zero or misaligned frame pointer, one that does not move strictly
 * up the stack, one outside user space, a failed copy, or a zero return
 * address.
 */
static unsigned int stackid_walk(struct stackid_cpu *c, struct pt_regs *regs,
				 bool compat, unsigned int max,
				 bool *truncated)
{
	unsigned long fp = regs->bp, prev = regs->sp, next, ret;
	unsigned long word = compat ? 4 : 8;
	unsigned long limit = compat ? 0x100000000UL : TASK_SIZE_MAX;
	unsigned int n = 0;

	*truncated = false;
	if (max == 0)
		return 0;
	c->ips[n++] = regs->ip;
	if (compat)
		fp &= 0xffffffffUL;
	while (fp) {
		if (n >= max) {
			*truncated = true;
			break;
		}
		if (fp & (word - 1) || fp < prev || fp > limit - 2 * word)
			break;
		if (compat) {
			u32 frame[2];

			if (copy_from_user_nofault(frame, (void __user *)fp,
						   sizeof(frame)))
				break;
			next = frame[0];
			ret = frame[1];
		} else {
			unsigned long frame[2];

			if (copy_from_user_nofault(frame, (void __user *)fp,
						   sizeof(frame)))
				break;
			next = frame[0];
			ret = frame[1];
		}
		if (!ret)
			break;
		c->ips[n++] = ret;
		/* strictly up: the next frame must be above this one */
		prev = fp + 1;
		fp = next;
	}
	return n;
}

/*
 * The interrupted task's user registers: the sample's own when it hit user
 * mode, else those saved at kernel entry. io_uring workers never ran in
 * user mode, so they have none.
 */
static struct pt_regs *stackid_user_regs(struct pt_regs *regs)
{
	if (user_mode(regs))
		return regs;
	if (current->flags & PF_IO_WORKER)
		return NULL;
	return task_pt_regs(current);
}

/* Count one handler run of @ns nanoseconds (see struct stackid_cost). */
static void stackid_cost_add(struct stackid_cpu *c, u64 ns)
{
	unsigned int b = ns;

	if (ns >= 8) {
		unsigned int t = fls64(ns) - 1;

		b = min(8 * t + (unsigned int)((ns >> (t - 3)) & 7),
			STACKID_COST_BUCKETS - 1);
	}
	local64_inc(&c->cost[b]);
	local64_add(ns, &c->cost_sum);
}

void stackid_overflow(struct perf_event *event,
		      struct perf_sample_data *data, struct pt_regs *regs)
{
	struct stackid_cpu *c = sid.cpus[smp_processor_id()];
	struct task_struct *task = current;
	struct stackid_sample *s = &c->rec.sample;
	struct pt_regs *uregs;
	unsigned int i, n, max, size;
	bool truncated, compat;
	u32 filter, tgid;
	u64 start, t0 = 0;

	stackid_stat_inc(c, STACKID_STAT_SAMPLES);
	if (READ_ONCE(c->busy)) {
		stackid_stat_inc(c, STACKID_STAT_DROP_NESTED);
		return;
	}
	WRITE_ONCE(c->busy, 1);
	barrier();
	/* cost is timed from here, for samples that get walked */
	start = local_clock();

	if (!task->mm || (task->flags & (PF_KTHREAD | PF_EXITING))) {
		stackid_stat_inc(c, STACKID_STAT_DROP_NO_MM);
		goto out;
	}
	tgid = task->tgid;
	filter = READ_ONCE(sid.filter_tgid);
	if (filter && filter != tgid) {
		stackid_stat_inc(c, STACKID_STAT_DROP_FILTERED);
		goto out;
	}
	uregs = stackid_user_regs(regs);
	if (!uregs) {
		stackid_stat_inc(c, STACKID_STAT_DROP_NO_REGS);
		goto out;
	}
	t0 = start;
	compat = !user_64bit_mode(uregs);
	max = min_t(unsigned int, READ_ONCE(stackid_param_max_depth),
		    STACKID_MAX_DEPTH);
	n = stackid_walk(c, uregs, compat, max, &truncated);

	memset(s, 0, sizeof(*s));
	s->hdr.type = STACKID_REC_SAMPLE;
	s->hdr.abi_major = STACKID_ABI_MAJOR;
	s->flags = (user_mode(regs) ? STACKID_SF_USER : 0) |
		   (truncated ? STACKID_SF_TRUNCATED : 0) |
		   (compat ? STACKID_SF_COMPAT : 0);
	s->cpu = c->cpu;
	s->tgid = tgid;
	s->tid = task->pid;
	s->time_ns = ktime_get_mono_fast_ns();
	strscpy_pad(s->comm, task->comm, sizeof(s->comm));
	s->nr_frames = n;
	memset(s->frames, 0, n * sizeof(s->frames[0]));
	for (i = 0; i < n; i++) {
		s->frames[i].status = STACKID_FRAME_IP;
		s->frames[i].addr = c->ips[i];
	}
	if (truncated)
		stackid_stat_inc(c, STACKID_STAT_TRUNCATED);
	size = sizeof(*s) + n * sizeof(s->frames[0]);
	s->hdr.size = size;
	if (stackid_resolve(c, task->mm, s->frames, n) &&
	    stackid_defer(c, s, task->mm))
		goto out;	/* delivered or dropped by its task */
	stackid_count_frames(c, s->frames, n);
	if (!stackid_ring_write(&c->ring, s, size)) {
		stackid_stat_inc(c, STACKID_STAT_DROP_RING_FULL);
		goto out;
	}
	stackid_stat_inc(c, STACKID_STAT_DELIVERED);
	/* full barrier inside; pairs with prepare_to_wait() of a reader */
	if (wq_has_sleeper(&sid.wq))
		irq_work_queue(&c->wake_work);
out:
	if (t0)
		stackid_cost_add(c, local_clock() - t0);
	barrier();
	WRITE_ONCE(c->busy, 0);
}

/* Wakes readers from a context where that is allowed (not NMI). */
void stackid_wake_fn(struct irq_work *work)
{
	wake_up_interruptible(&sid.wq);
}
