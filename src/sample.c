// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling handler. It runs on the sampled CPU in hardirq context
 * (the cpu-clock hrtimer) or NMI (hardware events; the test hook), with
 * interrupts off. Everything here is bounded, never sleeps, never faults
 * (user memory is read with page faults disabled, and only once this
 * CPU's page tables are known to be current's, not in an NMI during a
 * switch of mm: unwind.c) and takes no lock it could wait for. Every sample
 * ends as exactly one of: delivered, dropped for a counted reason, or
 * handed to its task's own context (task.c), which then delivers or drops
 * it.
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
#include <linux/math64.h>
#include <linux/bitops.h>
#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/rcupdate.h>
#include <linux/fs.h>
#include <linux/sched/mm.h>
#include <linux/task_work.h>

#include "internal.h"
#include "compat.h"

/*
 * The interrupted task's user registers, or NULL (counted as NO_REGS):
 * the sample's own when it hit user mode, else those saved at kernel
 * entry, unless they are not trustworthy yet: an NMI that hit the entry
 * code before it finished saving them (the check perf_get_regs_user()
 * makes), or an exec in progress (between exec_mmap() and start_thread()
 * they belong to the old program, the mm to the new one).
 */
static struct pt_regs *stackid_user_regs(struct pt_regs *regs)
{
	struct pt_regs *ur;

	if (user_mode(regs))
		return regs;
	ur = task_pt_regs(current);
	if (in_nmi() && regs->sp > (unsigned long)&ur->r11 &&
	    regs->sp <= (unsigned long)(ur + 1))
		return NULL;
	if (stackid_task_in_exec(current))
		return NULL;
	return ur;
}

/*
 * 0 if @t is a user task whose stack can be walked, else the drop
 * counter: kernel threads and exiting tasks have no user stack; io_uring
 * and vhost workers (PF_IO_WORKER, PF_USER_WORKER: what perf's
 * is_user_task() excludes) share a process's mm but never run in user
 * mode, so their saved registers are a copy of their creator's, and a
 * task_work queued on them would wait for a return to user space that
 * never comes.
 */
static int stackid_drop_reason(struct task_struct *t)
{
	if (!t->mm || (t->flags & (PF_KTHREAD | PF_EXITING)))
		return STACKID_STAT_DROP_NO_MM;
	if (t->flags & (PF_IO_WORKER | STACKID_PF_USER_WORKER))
		return STACKID_STAT_DROP_USER_WORKER;
	return 0;
}

/*
 * Whether a sample that @t's user stack cannot give is taken with its
 * kernel stack alone: a kernel thread, or an io_uring or vhost worker, at
 * work in the kernel (as perf record -a -g shows them), when kernel frames
 * and such samples are on. Not the idle task (a CPU with nothing to do),
 * and not an exiting task.
 */
static bool stackid_kthread_sample(struct task_struct *t, struct pt_regs *regs)
{
	return (t->flags & (PF_KTHREAD | PF_IO_WORKER |
			    STACKID_PF_USER_WORKER)) &&
	       !(t->flags & PF_EXITING) && !is_idle_task(t) &&
	       !user_mode(regs) && READ_ONCE(stackid_param_kthreads) &&
	       READ_ONCE(stackid_param_kernel_frames);
}

/*
 * The current task's cgroup v2 id into *@id; false if the cgroup filter
 * (cgroups.c) keeps the task out.
 */
static bool stackid_cgroup_sample(u64 *id)
{
#ifdef CONFIG_CGROUPS
	struct cgroup *cg, *f;
	bool in = true;

	rcu_read_lock();
	cg = task_dfl_cgroup(current);
	*id = cgroup_id(cg);
	f = rcu_dereference(stackid_filter_cgrp);
	if (f && !cgroup_is_descendant(cg, f))
		in = false;
	rcu_read_unlock();
	return in;
#else
	*id = 0;
	return true;
#endif
}

/*
 * Has this CPU seen @id named since enable? A direct-mapped set of ids
 * (its busy flag held): a collision only means one more hand-over.
 */
bool stackid_cgroup_seen(struct stackid_cpu *c, u64 id)
{
	return !id || c->cgroups_seen[hash_64(id, STACKID_CGROUP_SEEN_BITS)] == id;
}

void stackid_cgroup_seen_add(struct stackid_cpu *c, u64 id)
{
	c->cgroups_seen[hash_64(id, STACKID_CGROUP_SEEN_BITS)] = id;
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

/*
 * The handler's share of its CPU's time (max_cpu_percent). Each walked
 * sample's handler time t is paid for with t * 100 / percent of the CPU's
 * clock, from budget_until on (or from the sample's start, if later). A
 * sample that comes while budget_until lies more than
 * STACKID_BUDGET_SLACK_NS ahead is dropped at once, before anything is
 * read. A sample is charged at most STACKID_BUDGET_SAMPLE_MAX_NS: a
 * handler that looks longer is taken to have been stopped inside (a
 * hypervisor that descheduled the vCPU, an SMI). Charged whole, a stop
 * of t would drop the CPU's samples for about 3t less the slack at 25 %
 * (4t from the sample's start, t of it spent in the stop). The costliest
 * walks measured take 160 to 310 us on average (the KASAN and lockdep
 * kernel under QEMU's TCG, quiet and busy host); a handler that really
 * takes longer than the cap is charged less than its time (at 25 %, one
 * of 4 ms or more a sample is not limited). At 25 % a stop puts the
 * budget at most 4 ms further ahead, within the slack. So over a
 * stretch of time s the handler takes at most percent / 100 * (s + the
 * slack), the time of the last sample it walked, and, of each sample
 * that took longer than STACKID_BUDGET_SAMPLE_MAX_NS, the time beyond
 * it. Not counted: the interrupt itself, which perf's core takes before
 * calling the handler; the samples the handler drops (those the budget drops
 * among them), whose time up to the drop is short; and the work a
 * sample handed to its task does there. What is owed stays owed when
 * the parameter changes.
 *
 * Which samples are dropped depends on when they come, not on whose
 * they are: a task whose stacks cost more puts its CPU further in debt,
 * and if it keeps the CPU its own next samples pay for that. Under a
 * budget that bites, tasks with costly stacks are under-represented.
 *
 * Only this CPU's handler reads and writes budget_until (busy is set),
 * in hardirq or NMI; on PREEMPT_RT too, perf's timer is a hard one.
 */
#define STACKID_BUDGET_SLACK_NS		(10ULL * NSEC_PER_MSEC)
#define STACKID_BUDGET_SAMPLE_MAX_NS	(1ULL * NSEC_PER_MSEC)
/* how far ahead the budget can be put: at 1 %, 100 ms beyond the slack */
#define STACKID_BUDGET_AHEAD_MAX_NS	(STACKID_BUDGET_SLACK_NS + \
					 100 * STACKID_BUDGET_SAMPLE_MAX_NS)

/*
 * Whether a sample that came at @now finds its CPU over the budget of
 * @pct percent (0: no limit). A budget further ahead than it can ever
 * be put means that local_clock() went back (sched_clock going from
 * stable to unstable can step a CPU's clock back): it is forgotten.
 */
static bool stackid_budget_exceeded(struct stackid_cpu *c, unsigned int pct,
				    u64 now)
{
	if (!pct || c->budget_until <= now + STACKID_BUDGET_SLACK_NS)
		return false;
	if (c->budget_until - now > STACKID_BUDGET_AHEAD_MAX_NS) {
		c->budget_until = now;
		return false;
	}
	return true;
}

/* @pct: what stackid_budget_exceeded() was given for this sample */
static void stackid_budget_charge(struct stackid_cpu *c, unsigned int pct,
				  u64 start, u64 end)
{
	u64 t;

	if (!pct || end <= start)
		return;
	t = min(end - start, STACKID_BUDGET_SAMPLE_MAX_NS);
	c->budget_until = max(c->budget_until, start) +
			  div_u64(t * 100 + pct - 1, pct);
}

/*
 * The sample header, @nk kernel frames (already in ks->kips) and one
 * pending frame per user address.
 */
static void stackid_fill(struct stackid_cpu *c, struct pt_regs *regs,
			 unsigned int nk, unsigned int n, bool truncated,
			 bool compat, u64 cgroup, u8 stop)
{
	struct stackid_ksample *ks = &c->ks;
	struct task_struct *task = current;
	struct stackid_sample *s = &ks->hdr;

	memset(s, 0, sizeof(*s));
	s->flags = (user_mode(regs) ? STACKID_SF_USER : 0) |
		   (truncated ? STACKID_SF_TRUNCATED : 0) |
		   (compat ? STACKID_SF_COMPAT : 0) |
		   (nk ? STACKID_SF_KERNEL : 0);
	s->cpu = c->cpu;
	s->tgid = task->tgid;
	s->tid = task->pid;
	s->time_ns = ktime_get_mono_fast_ns();
	strscpy_pad(s->comm, task->comm, sizeof(s->comm));
	s->nr_kernel = nk;
	s->nr_frames = nk + n;
	s->cgroup_id = cgroup;
	s->stop = stop;
	ks->name_cgroup = false;
	stackid_fill_user(ks, c->ips, c->hows, n);
}

/**
 * stackid_fill_user - a sample's user frames, all pending, and no files
 * @ks: the sample, its header filled but for nr_frames's user part
 * @ips: the walk's addresses
 * @hows: how each was found
 * @n: how many
 */
void stackid_fill_user(struct stackid_ksample *ks, const unsigned long *ips,
		       const u8 *hows, unsigned int n)
{
	unsigned int i;

	ks->hdr.nr_frames = ks->hdr.nr_kernel + n;
	ks->nr_files = 0;
	memset(ks->file_hash, 0, sizeof(ks->file_hash));
	for (i = 0; i < n; i++) {
		ks->frames[i].addr = ips[i];
		ks->frames[i].off = 0;
		ks->frames[i].status = KS_PENDING;
		ks->frames[i].reason = STACKID_IP_NONE;
		ks->frames[i].file = 0;
		ks->frames[i].how = hows[i];
	}
}

/* Frames still pending become raw addresses, for @reason. */
static void stackid_settle(struct stackid_ksample *ks, int reason)
{
	unsigned int i;

	for (i = 0; i < stackid_nr_user(ks); i++) {
		if (ks->frames[i].status != KS_PENDING)
			continue;
		ks->frames[i].status = KS_IP;
		ks->frames[i].reason = reason;
	}
}

/*
 * Write @d's sample @ks (its own or one that joined it) on @c, held by
 * its handler or in task context, or drop it if it belongs to an earlier
 * session (its reader disabled, and the next ENABLE or another reader's
 * open() came since): it is not written into the new one, which began
 * after it was taken. Checked with @c held (c->session is the state's
 * now, and sessions only count up): a session that begins after this
 * point finds the sample already written, before its reader's first
 * read.
 */
static void stackid_deferred_write(struct stackid_cpu *c,
				   const struct stackid_deferred *d,
				   struct stackid_ksample *ks)
{
	if (d->session != c->session) {
		stackid_stat_inc(c, STACKID_STAT_DROP_STALE);
	} else {
		stackid_count_frames(c, ks);
		stackid_emit_sample(c, ks);
	}
	stackid_stat_inc(c, STACKID_STAT_DEFERRED_DONE);
}

/*
 * @d's sample, then the @njoins samples that joined it
 * (stackid_defer_join()), each with its own header and kernel frames and
 * @d's user frames, which are final now: written on @c or, for an
 * earlier session, dropped, as @d's was.
 */
void stackid_deferred_write_all(struct stackid_cpu *c,
				struct stackid_deferred *d, unsigned int njoins)
{
	struct stackid_ksample *ks = &d->ks;
	unsigned int nu = stackid_nr_user(ks), nk, n, i;
	u32 trunc = ks->hdr.flags & STACKID_SF_TRUNCATED;
	u8 stop = ks->hdr.stop;

	stackid_deferred_write(c, d, ks);
	for (i = 0; i < njoins; i++) {
		const struct stackid_join *j = &d->joins[i];

		nk = min_t(unsigned int, j->hdr.nr_kernel, STACKID_MAX_KDEPTH);
		n = min_t(unsigned int, nu, STACKID_MAX_DEPTH - nk);
		ks->hdr = j->hdr;
		memcpy(ks->kips, j->kips, nk * sizeof(ks->kips[0]));
		ks->hdr.nr_kernel = nk;
		ks->hdr.nr_frames = nk + n;
		ks->hdr.stop = n < nu ? STACKID_STOP_DEPTH : stop;
		ks->hdr.flags |= STACKID_SF_DEFERRED | trunc |
				 (n < nu ? STACKID_SF_TRUNCATED : 0);
		stackid_deferred_write(c, d, ks);
	}
}

/*
 * The frames of a deferred sample that are still pending stay raw; the
 * handler's cache hits pointed into the cache of the CPU that took the
 * sample, as it was then, and are looked up again where it is written
 * (emit.c): the build-ids stay (the files' len and id).
 */
void stackid_deferred_settle(struct stackid_ksample *ks)
{
	stackid_forget_entries(ks);
	stackid_settle(ks, STACKID_IP_NOT_RESOLVED);
	ks->hdr.flags |= STACKID_SF_DEFERRED;
}

/**
 * stackid_defer_take_back - a slot whose task has not come for it
 * @c: this CPU's sampler state (its handler runs, busy set)
 * @any: any slot queued, however young (task.c:
 *	 stackid_defer_take_back_all(), in an IPI with sampling off)
 *
 * Handler context, when every slot of @c is in use. A slot queued at
 * least STACKID_DEFER_TAKE_BACK_MS ago for a task other than the one
 * interrupted (that one is in the kernel still) is claimed from its
 * ticket; its sample and joins are written now, with the frames the
 * handler could not resolve raw (NOT_RESOLVED), and counted
 * (DEFERRED_DONE each, DEFER_TAKEN_BACK once). The ticket's work finds
 * the claim gone when it runs and only drops its references (task.c:
 * "Taking back").
 *
 * Return: the slot, now the caller's (its busy bit stays set), or -1.
 */
int stackid_defer_take_back(struct stackid_cpu *c, bool any)
{
	unsigned long busy = READ_ONCE(c->defer_busy), claim, oldest = 0;
	unsigned long wait = msecs_to_jiffies(STACKID_DEFER_TAKE_BACK_MS);
	u64 t0 = stackid_test_clock();
	struct stackid_deferred *d;
	unsigned int i, tries;
	int best;

	for (tries = 0; tries < STACKID_DEFER_SLOTS; tries++) {
		/* the one that has waited longest */
		best = -1;
		for (i = 0; i < STACKID_DEFER_SLOTS; i++) {
			if (!(busy & BIT(i)))
				continue;
			d = c->defer[i];
			if (!READ_ONCE(d->claim) ||
			    (!any && (d->task == current ||
				      time_before(jiffies, d->queued + wait))))
				continue;
			if (best < 0 || time_before(d->queued, oldest)) {
				best = i;
				oldest = d->queued;
			}
		}
		if (best < 0)
			return -1;
		d = c->defer[best];
		busy &= ~BIT(best);
		claim = READ_ONCE(d->claim);
		/* its work may claim it on another CPU right now: one wins */
		if (!claim || cmpxchg(&d->claim, claim, 0) != claim)
			continue;
		stackid_deferred_settle(&d->ks);
		stackid_deferred_write_all(c, d, d->njoins);
		stackid_stat_inc(c, STACKID_STAT_DEFER_TAKEN_BACK);
		stackid_test_take_back_add(stackid_test_clock() - t0,
					   d->njoins + 1);
		return best;
	}
	return -1;
}

/* A free ticket of @c, now the caller's, or -1. */
static int stackid_ticket_get(struct stackid_cpu *c)
{
	unsigned long busy;
	unsigned int w, b;

	for (w = 0; w < ARRAY_SIZE(c->ticket_busy); w++) {
		busy = READ_ONCE(c->ticket_busy[w]);
		while (~busy) {
			b = ffz(busy);
			if (!test_and_set_bit(w * BITS_PER_LONG + b,
					      c->ticket_busy))
				return w * BITS_PER_LONG + b;
			busy |= BIT(b);
		}
	}
	return -1;
}

/**
 * stackid_defer - hand a sample over to its task's own context
 * @c: this CPU's sampler state
 * @ks: the sample as the handler left it
 * @mm: the sampled task's mm
 *
 * Handler context. Returns true if the sample was taken over; false if
 * the caller must deliver it itself.
 */
static bool stackid_defer(struct stackid_cpu *c, struct stackid_ksample *ks,
			  struct mm_struct *mm, const struct stackid_uw_regs *ur,
			  bool rewalk)
{
	struct stackid_anchor_reg *reg = &stackid_state.anchor;
	struct stackid_deferred *d;
	struct stackid_ticket *t;
	bool back = false;
	int i, k;

	/* nothing is taken back for a work that cannot be queued */
	if (!stackid_task_work_can_add())
		return false;
	k = stackid_ticket_get(c);
	if (k < 0) {
		stackid_stat_inc(c, STACKID_STAT_DEFER_NO_TICKET);
		return false;
	}
	for (i = 0; i < STACKID_DEFER_SLOTS; i++)
		if (!test_and_set_bit(i, &c->defer_busy))
			break;
	if (i == STACKID_DEFER_SLOTS) {
		/* the one that has waited longest for its task, written now */
		i = stackid_defer_take_back(c, false);
		back = i >= 0;
	}
	if (i < 0) {
		clear_bit(k, c->ticket_busy);
		stackid_stat_inc(c, STACKID_STAT_DEFER_NO_SLOT);
		return false;
	}
	d = c->defer[i];
	t = &c->tickets->t[k];
	memcpy(&d->ks, ks, offsetof(struct stackid_ksample, frames) +
	       stackid_nr_user(ks) * sizeof(ks->frames[0]));
	d->task = current;
	/*
	 * Before 6.11 a work queued from NMI waits for the next kernel
	 * entry, after user code ran: same registers then would not mean
	 * the same stack.
	 */
	d->joinable = stackid_task_work_before_user();
	d->started = false;
	d->njoins = 0;
	d->mm = mm;
	d->session = c->session;
	d->rewalk = rewalk;
	d->uregs = *ur;
	d->compat = !!(ks->hdr.flags & STACKID_SF_COMPAT);
	d->queued = jiffies;
	t->owner = c;
	t->index = k;
	t->d = d;
	t->w.block = &c->tickets->block;
	t->w.mm = mm;
	t->w.pin = reg->pin;
	t->w.gen = reg->gen;
	/* the slot is the ticket's until its work or a take-back claims it */
	WRITE_ONCE(d->claim, k + 1);
	init_task_work(&t->w.cb, stackid_anchor_run);
	if (stackid_task_work_add_current(&t->w.cb)) {
		WRITE_ONCE(d->claim, 0);
		clear_bit(i, &c->defer_busy);
		clear_bit(k, c->ticket_busy);
		/*
		 * The caller writes @ks itself: the entries its hits pointed
		 * to may hold another file now that the taken-back sample was
		 * written (its misses inserted), so they are looked up again.
		 */
		if (back)
			stackid_forget_entries(ks);
		return false;
	}
	/*
	 * The work runs when the task next heads for user space, never
	 * before this handler returns: the references can be taken now,
	 * and no failure path has to drop one here (an fput() or mmdrop()
	 * that might free is not for NMI). All are atomic increments;
	 * stackid_anchor_run() drops them (anchor.c).
	 */
	get_file(reg->pin);
	refcount_inc(&c->tickets->block.refs);
	atomic_long_inc(&stackid_anchor_queued);
	mmgrab(mm);
	stackid_stat_inc(c, STACKID_STAT_DEFERRED);
	return true;
}

/**
 * stackid_defer_join - a later sample joins its task's waiting one
 * @c: this CPU's sampler state
 * @regs: the interrupted registers (kernel mode)
 * @nk: kernel frames in c->ks.kips
 * @ur: the task's user registers
 * @compat: a 32-bit task
 * @cgroup: its cgroup
 *
 * A task that has not been back in user space since a sample of it was
 * handed to its context still has the user stack that sample walked:
 * a sample of it now (in a long system call, or in that very hand-over's
 * work, which can take long under mmap lock contention) needs no walk,
 * no resolution and no slot of its own, only its header and kernel
 * frames. Without this, such samples took one slot each, and a task
 * sampled again and again in its own work (each sample's work making
 * the next more likely) could take all of its CPU's slots, leaving
 * every other task's misses raw (defer_no_slot).
 *
 * Only this CPU's slots are looked at: the slot must be this CPU's for
 * its writer to be this handler alone. A slot's work runs in its task,
 * which this handler interrupts, so the work has either not started
 * (and cannot until this returns) or has set started.
 *
 * Return: true if the sample joined one (it is counted as deferred).
 */
static bool stackid_defer_join(struct stackid_cpu *c, struct pt_regs *regs,
			       unsigned int nk,
			       const struct stackid_uw_regs *ur, bool compat,
			       u64 cgroup)
{
	unsigned long busy = READ_ONCE(c->defer_busy);
	struct stackid_deferred *d;
	struct stackid_join *j;
	unsigned int i;

	/* not for_each_set_bit(): out of line before 6.2, not for NMI */
	for (i = 0; i < STACKID_DEFER_SLOTS; i++) {
		if (!(busy & BIT(i)))
			continue;
		d = c->defer[i];
		if (d->task != current || !d->joinable ||
		    READ_ONCE(d->started) || d->mm != current->mm ||
		    d->njoins == STACKID_DEFER_JOINS ||
		    d->session != c->session || d->compat != compat ||
		    d->ks.hdr.cgroup_id != cgroup || d->uregs.ip != ur->ip ||
		    d->uregs.sp != ur->sp || d->uregs.bp != ur->bp)
			continue;
		stackid_fill(c, regs, nk, 0, false, compat, cgroup,
			     STACKID_STOP_NONE);
		j = &d->joins[d->njoins];
		j->hdr = c->ks.hdr;
		memcpy(j->kips, c->ks.kips, nk * sizeof(j->kips[0]));
		/* the work reads njoins once it started: after the join */
		barrier();
		d->njoins++;
		/* its task is busy in the kernel, not asleep: not taken back */
		d->queued = jiffies;
		stackid_stat_inc(c, STACKID_STAT_DEFERRED);
		stackid_stat_inc(c, STACKID_STAT_DEFER_JOINED);
		return true;
	}
	return false;
}

/**
 * stackid_sample - take one sample of the current task
 * @regs: the interrupted registers
 *
 * The perf overflow handler's body; the test hook calls it from NMI.
 */
void stackid_sample(struct pt_regs *regs)
{
	struct stackid_cpu *c = stackid_state.cpus[smp_processor_id()];
	struct task_struct *task = current;
	struct pt_regs *uregs;
	struct stackid_uw_regs ur;
	unsigned int n, nk, max, pct = 0;
	bool compat, defer = false, locked = false, tables, missed, rewalk;
	bool resolve, stages = false;
	u64 ts[STACKID_STAGE_NR + 1];
	u8 stop;
	u64 cgroup;
	u32 filter;
	u64 start, t0 = 0;
	int drop;

	stackid_stat_inc(c, STACKID_STAT_SAMPLES);
	if (READ_ONCE(c->busy)) {
		stackid_stat_inc(c, STACKID_STAT_DROP_NESTED);
		return;
	}
	WRITE_ONCE(c->busy, 1);
	barrier();
	/* cost is timed from here, for samples that get walked */
	start = local_clock();
	stackid_cpu_session(c);

	drop = stackid_drop_reason(task);
	if (drop && !stackid_kthread_sample(task, regs)) {
		stackid_stat_inc(c, drop);
		goto out;
	}
	filter = READ_ONCE(stackid_state.filter_tgid);
	if ((filter && filter != task->tgid) || !stackid_cgroup_sample(&cgroup)) {
		stackid_stat_inc(c, STACKID_STAT_DROP_FILTERED);
		goto out;
	}
	/* read once: the charge must use what the check did */
	pct = READ_ONCE(stackid_param_max_cpu_percent);
	if (stackid_budget_exceeded(c, pct, start)) {
		stackid_stat_inc(c, STACKID_STAT_DROP_CPU_BUDGET);
		goto out;
	}
	if (drop) {
		/*
		 * Kernel frames only, delivered at once: such a task never
		 * returns to user space, where a task_work would run, so
		 * nothing is deferred, not even naming its cgroup (none is
		 * given). It has no user registers to take or walk.
		 */
		t0 = start;
		nk = stackid_kernel_walk(regs, c->ks.kips, STACKID_MAX_KDEPTH);
		stackid_fill(c, regs, nk, 0, false, false, 0, STACKID_STOP_NONE);
		c->ks.hdr.flags |= STACKID_SF_KTHREAD;
		stackid_count_frames(c, &c->ks);
		stackid_emit_sample(c, &c->ks);
		goto out;
	}
	uregs = stackid_user_regs(regs);
	if (!uregs) {
		stackid_stat_inc(c, STACKID_STAT_DROP_NO_REGS);
		goto out;
	}
	t0 = start;
	stages = stackid_test_stages();
	ts[STACKID_STAGE_KERNEL] = start;
	nk = 0;
	if (!user_mode(regs) && READ_ONCE(stackid_param_kernel_frames))
		nk = stackid_kernel_walk(regs, c->ks.kips, STACKID_MAX_KDEPTH);
	if (stages)
		ts[STACKID_STAGE_WALK] = local_clock();
	compat = !user_64bit_mode(uregs);
	ur.ip = uregs->ip;
	ur.sp = uregs->sp;
	ur.bp = uregs->bp;
	if (!user_mode(regs) && READ_ONCE(c->defer_busy) &&
	    stackid_defer_join(c, regs, nk, &ur, compat, cgroup)) {
		stages = false;	/* timed as a whole only */
		goto out;	/* its task delivers or drops it */
	}
	/* the mm, for the walk's tables and resolution alike */
	resolve = READ_ONCE(stackid_param_resolve);
	tables = resolve && atomic_read(&stackid_uw_loaded);
	if (resolve)
		locked = stackid_mm_trylock(c, task->mm);
	max = min_t(unsigned int, READ_ONCE(stackid_param_max_depth),
		    STACKID_MAX_DEPTH - nk);
	n = stackid_unwind(c, locked ? task->mm : NULL, &ur, compat, NULL,
			   c->ips, c->hows, c->vmas, c->bids, max, &stop,
			   &missed);
	if (stages)
		ts[STACKID_STAGE_RESOLVE] = local_clock();
	/*
	 * tables it could not use: its task walks again with them, if it
	 * does so before user code changes the stack
	 */
	rewalk = tables && (missed || !locked) &&
		 stackid_task_work_before_user();
	defer = rewalk;
	stackid_fill(c, regs, nk, n, stop == STACKID_STOP_DEPTH, compat,
		     cgroup, stop);
	/* a cgroup this CPU has not named yet: named in task context */
	if (!stackid_cgroup_seen(c, cgroup)) {
		c->ks.name_cgroup = true;
		defer = true;
	}

	if (!resolve) {
		stackid_settle(&c->ks, STACKID_IP_RESOLVE_OFF);
	} else if (!locked) {
		defer = true;
	} else {
		bool more;

		stackid_resolve(c, task->mm, &c->ks, &more);
		defer |= more;
	}
	if (locked)
		stackid_mm_unlock(c, task->mm);
	if (stages)
		ts[STACKID_STAGE_FINISH] = local_clock();
	if (defer && stackid_defer(c, &c->ks, task->mm, &ur, rewalk))
		goto out;	/* its task delivers or drops it */
	stackid_settle(&c->ks, STACKID_IP_NOT_RESOLVED);
	stackid_count_frames(c, &c->ks);
	stackid_emit_sample(c, &c->ks);
out:
	if (t0) {
		u64 end;

		stackid_test_stall();
		end = local_clock();
		stackid_cost_add(c, end - t0);
		stackid_budget_charge(c, pct, t0, end);
		if (stages) {
			ts[STACKID_STAGE_NR] = end;
			stackid_test_stages_add(ts);
		}
	}
	barrier();
	WRITE_ONCE(c->busy, 0);
}

void stackid_overflow(struct perf_event *event,
		      struct perf_sample_data *data, struct pt_regs *regs)
{
	if (stackid_test_floor())
		return;		/* make bench: the interrupt's own cost */
	stackid_sample(regs);
}
